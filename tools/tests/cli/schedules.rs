//! Hand-written schedules compute what the planned ones compute: the
//! planner's `cpu` schedules of a program (a packed matrix product with a
//! reduction tile, a transposed weight, a padded convolution, a row
//! reduction, a fused chain) rewritten with other numbers (lanes per
//! vector, register-block factors, cache tiles, the parallel loop), run by
//! `ocannl-run` on the same inputs, against the same program with every
//! op in plain loops.

use super::{OCANNL_OPT, run_ok, scratch};
use std::process::Command;

/// The program, planned by `ocannl-plan-schedule` (types solved).
fn planned() -> String {
    let t = |s: &str| format!("!ocannl.tensor<f32, \"{s}\">");
    let open = t("...|...->...");
    let program = format!(
        r#"func.func @f(%a: {a}, %b: {b}, %w: {w}, %x: {x}, %img: {img}, %k: {k}, %bias: {bias}) -> ({open}, {open}, {open}, {open}) {{
  %p = "ocannl.einsum"(%a, %b) {{spec = "i,k; k,j => i,j"}} : ({a}, {b}) -> {open}
  %h = "ocannl.matmul"(%w, %x) : ({w}, {x}) -> {open}
  %hb = "ocannl.add"(%h, %bias) : ({open}, {bias}) -> {open}
  %r = "ocannl.relu"(%hb) : ({open}) -> {open}
  %c = "ocannl.einsum"(%img, %k) {{spec = "oh=+kh,ow=+kw,ci; kh,kw,ci->co => oh,ow,co"}} : ({img}, {k}) -> {open}
  %s = "ocannl.einsum"(%x) {{spec = "i|j => i"}} : ({x}) -> {open}
  return %p, %r, %c, %s : {open}, {open}, {open}, {open}
}}"#,
        a = t("37,300"),
        b = t("300,70"),
        w = t("300->41"),
        x = t("530|300"),
        img = t("13,11,20"),
        k = t("3,3,20->7"),
        bias = t("41"),
    );
    let file = scratch("schedules", "f.mlir", program);
    let out = Command::new(OCANNL_OPT)
        .arg(&file)
        .arg("-p")
        .arg("builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{l2-bytes=65536})")
        .output()
        .expect("ocannl-opt runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `text` with every `cpu` schedule rewritten by `f` (its dictionary text,
/// braces included); other schedules as `other` says (`None`: kept).
fn rewrite(text: &str, f: &dyn Fn(&str) -> String, other: Option<&str>) -> String {
    let key = "ocannl.schedule = {";
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len() - 1]);
        let dict_start = i + key.len() - 1;
        // Dictionaries nest no braces.
        let end = dict_start + rest[dict_start..].find('}').expect("closed") + 1;
        let dict = &rest[dict_start..end];
        if dict.contains("kind = \"cpu\"") {
            out.push_str(&f(dict));
        } else {
            out.push_str(other.unwrap_or(dict));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The integer after `name = ` in a schedule dictionary.
fn field(dict: &str, name: &str) -> u64 {
    let at = dict.find(&format!("{name} = ")).expect("field") + name.len() + 3;
    let digits: String = dict[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().expect("a number")
}

/// A `cpu` dictionary with `width` lanes, its block factors mapped by
/// `factor` (vector iterator first), tiles rounded up to whole blocks, and
/// the parallel loop as `parallel` says.
fn renumber(dict: &str, width: u64, factor: &dyn Fn(usize, u64) -> u64, parallel: bool) -> String {
    let old_width = field(dict, "width");
    let lanes_result = dict.contains("lanes = \"result\"");
    let vector = field(dict, "vector");
    let start = dict.find("unroll = [").expect("unroll") + "unroll = [".len();
    let end = start + dict[start..].find(']').expect("closed");
    let entries: Vec<String> = dict[start..end]
        .split("array<i64: ")
        .filter(|e| !e.trim().is_empty())
        .enumerate()
        .map(|(n, e)| {
            let v: Vec<u64> = e
                .trim_end_matches([',', ' ', '>'])
                .split(", ")
                .map(|x| x.parse().expect("a number"))
                .collect();
            let lanes = lanes_result && v[0] == vector;
            let f = factor(n, v[1]);
            let step = f * if lanes { width } else { 1 };
            let tile = if v[2] == 0 {
                0
            } else {
                v[2].div_ceil(step) * step
            };
            format!("array<i64: {}, {f}, {tile}>", v[0])
        })
        .collect();
    let mut d = format!("{}{}{}", &dict[..start], entries.join(", "), &dict[end..]);
    d = d.replace(&format!("width = {old_width}"), &format!("width = {width}"));
    // A reduction tile along the lanes: a whole number of vectors.
    if !lanes_result && let Some(k) = d.find("k_tile = array<i64: ") {
        let s = k + "k_tile = array<i64: ".len();
        let e = s + d[s..].find('>').expect("closed");
        let v: Vec<u64> = d[s..e].split(", ").map(|x| x.parse().expect("n")).collect();
        d = format!(
            "{}{}, {}{}",
            &d[..s],
            v[0],
            v[1].div_ceil(width) * width,
            &d[e..]
        );
    }
    d = d.replace(", parallel = true", "");
    if parallel {
        d = d.replace("kind = \"cpu\"", "kind = \"cpu\", parallel = true");
    }
    d
}

/// The program's four results, as f32 values.
fn results(text: &str, name: &str, threads: &str) -> Vec<Vec<f32>> {
    let file = scratch("schedules", &format!("{name}.mlir"), text);
    let dir = file.parent().expect("scratch dir");
    let outs: Vec<_> = (0..4)
        .map(|i| dir.join(format!("{name}-{i}.npy")))
        .collect();
    let mut args = vec![
        file.to_str().expect("utf-8").to_owned(),
        "--seed".into(),
        "5".into(),
        "--threads".into(),
        threads.into(),
        "--outputs".into(),
    ];
    args.extend(outs.iter().map(|p| p.to_str().expect("utf-8").to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_ok(&args);
    outs.iter()
        .map(|p| {
            let bytes = std::fs::read(p).expect("written");
            let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            bytes[10 + header..]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect()
}

#[test]
fn hand_written_schedules_compute_the_same() {
    let text = planned();
    assert!(text.contains("k_tile"), "the program has a tiled reduction");
    assert!(
        text.contains("lanes = \"reduction\""),
        "and lanes along a reduction"
    );
    assert!(text.contains("kind = \"epilogue\""), "and a fused chain");
    let loops = "{kind = \"loops\"}";
    let reference = results(
        &rewrite(&text, &|_| loops.to_owned(), Some(loops)),
        "reference",
        "1",
    );
    // Plain loops with the fused chains kept.
    let loops_fused = rewrite(&text, &|_| loops.to_owned(), None);
    let variants: Vec<(&str, String, &str)> = vec![
        ("planned", text.clone(), "1"),
        (
            "width4",
            rewrite(&text, &|d| renumber(d, 4, &|_, f| f, false), None),
            "1",
        ),
        (
            "width16",
            rewrite(&text, &|d| renumber(d, 16, &|_, f| f, false), None),
            "1",
        ),
        (
            "factors",
            rewrite(
                &text,
                &|d| renumber(d, 8, &|n, _| [3, 5][n.min(1)], false),
                None,
            ),
            "1",
        ),
        (
            "ones",
            rewrite(&text, &|d| renumber(d, 2, &|_, _| 1, true), None),
            "2",
        ),
        ("loops-fused", loops_fused, "1"),
    ];
    for (name, variant, threads) in variants {
        let got = results(&variant, name, threads);
        for (k, (g, r)) in got.iter().zip(&reference).enumerate() {
            assert_eq!(g.len(), r.len(), "{name}: result #{k} has another size");
            for (i, (a, b)) in g.iter().zip(r).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-3 * (1.0 + b.abs()),
                    "{name}: result #{k}, cell {i}: {a} vs {b} (plain loops)"
                );
            }
        }
    }
}
