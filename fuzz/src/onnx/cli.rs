//! The `--onnx` mode's driver: the command line turned into an ONNX
//! campaign (the tools found, onnxruntime probed), or the models written
//! (`--emit-only`), or a saved model reproduced (`--reproduce`).

use std::time::Duration;

use anyhow::{Context as _, bail};

use super::{GenConfig, all_classes, campaign, generate, ort};
use crate::{Cli, exec};

/// The `--onnx` mode; Ok(true) when nothing failed.
pub fn main(cli: &Cli) -> anyhow::Result<bool> {
    let known = all_classes();
    if let Some(bad) = cli.classes.iter().find(|c| !known.contains(&c.as_str())) {
        bail!("unknown ONNX class '{bad}' (known: {})", known.join(", "));
    }
    if cli.list_classes {
        for c in known {
            println!("{c}");
        }
        return Ok(true);
    }
    let gen_cfg = GenConfig {
        hostile: cli.hostile_ratio.clamp(0.0, 1.0),
        only: cli.classes.clone(),
    };
    if let Some(n) = cli.emit_only {
        return emit(cli, n, &gen_cfg);
    }
    let cfg = config(cli, gen_cfg)?;
    if let Some(file) = &cli.reproduce {
        return campaign::reproduce(&cfg, file, cli.seed);
    }
    eprintln!(
        "ocannl-fuzz: {} ONNX models ({} through ocannl-run{}), seed {}, {} jobs",
        cfg.models,
        cfg.run_models.min(cfg.models),
        if cfg.ort.is_some() {
            " and onnxruntime"
        } else {
            ""
        },
        cfg.seed,
        cfg.jobs
    );
    let (report, wall) = campaign::run(&cfg)?;
    println!("{}", report.table(wall));
    if !report.failures.is_empty() {
        println!("failures saved under {}", cfg.out.display());
    }
    Ok(report.failure_count() == 0)
}

/// `--onnx --emit-only N`: writes `n` generated models to `--out`.
fn emit(cli: &Cli, n: u64, gen_cfg: &GenConfig) -> anyhow::Result<bool> {
    std::fs::create_dir_all(&cli.out).with_context(|| format!("creating {}", cli.out.display()))?;
    for i in 0..n {
        let g = generate(cli.seed, i, gen_cfg);
        let path = cli.out.join(format!("{i:06}-{}.onnx", g.class));
        std::fs::write(&path, &g.bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    eprintln!("wrote {n} models to {}", cli.out.display());
    Ok(true)
}

/// The ONNX campaign's configuration: the tools found, onnxruntime
/// probed.
fn config(cli: &Cli, gen_cfg: GenConfig) -> anyhow::Result<campaign::Config> {
    let import = cli.bin_dir.join("ocannl-import-onnx");
    let run = cli.bin_dir.join("ocannl-run");
    for b in [&import, &run] {
        if !b.is_file() {
            bail!(
                "{} not found (build the tools, or give --bin-dir)",
                b.display()
            );
        }
    }
    let limits = exec::Limits {
        timeout: Duration::from_secs_f64(cli.timeout.max(0.001)),
        mem_mb: cli.mem_limit_mb,
    };
    let ort = ort_config(cli, &limits);
    Ok(campaign::Config {
        import: std::path::absolute(import)?,
        run: std::path::absolute(run)?,
        models: cli.programs,
        run_models: cli.run_programs,
        seed: cli.seed,
        jobs: cli
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        limits,
        out: cli.out.clone(),
        generator: gen_cfg,
        progress: Duration::from_secs_f64(cli.progress_secs.max(0.1)),
        ort,
    })
}

/// The differential oracle: None with `--no-ort` or when the onnxruntime
/// helper does not start (said on stderr either way).
fn ort_config(cli: &Cli, limits: &exec::Limits) -> Option<ort::OrtConfig> {
    if cli.no_ort {
        eprintln!("ocannl-fuzz: no differential oracle (--no-ort)");
        return None;
    }
    let o = ort::OrtConfig {
        python: cli.python.clone(),
        script: cli.ort_script.clone(),
        timeout: limits.timeout.max(Duration::from_secs(30)),
        mem_mb: cli.mem_limit_mb,
    };
    match ort::probe(&o) {
        Ok(v) => {
            eprintln!("ocannl-fuzz: differential oracle: onnxruntime {v}");
            Some(o)
        }
        Err(why) => {
            eprintln!(
                "ocannl-fuzz: skipped: the differential oracle (onnxruntime through {} {}): {why}",
                cli.python.display(),
                cli.ort_script.display()
            );
            None
        }
    }
}
