//! The machine the schedules are for and the pass options of
//! `ocannl-plan-schedule` that describe it: the CPU's vector registers and
//! caches (which size the plans, [`super::choose`]), the parallel loop, and
//! the GPU grid and tiled kernels (`target=gpu`).

use crate::pass::{OptionKind, PassOptionDef, PassOptions};

/// The pass options of `ocannl-plan-schedule`.
pub(super) const OPTIONS: &[PassOptionDef] = &[
    PassOptionDef {
        name: c"schedule",
        description: c"Tile, vectorise and register-block each op's nest (false: one scalar nest per op in projection order)",
        kind: OptionKind::Bool,
        default: c"true",
    },
    PassOptionDef {
        name: c"layouts",
        description: c"Choose the intermediates' layouts (ocannl.layout: a convolution's result channels-last, its weights permuted at compile time, pointwise ops and pools following; false: canonical layouts, hand-written ones kept)",
        kind: OptionKind::Bool,
        default: c"true",
    },
    PassOptionDef {
        name: c"parallel",
        description: c"Emit the outermost parallel loop of each nest as affine.parallel (for multi-core code: ocannl-run --threads)",
        kind: OptionKind::Bool,
        default: c"false",
    },
    PassOptionDef {
        name: c"threads",
        description: c"With parallel=true: the threads the parallel loops run on (0: unknown). A tiled contraction is split into one tile per thread, its one parallel loop: of its first outer loop (split_outer) when that divides among the threads and its operands read there are at least half as large as those read along the vector iterator, else of its vector iterator when that is wide enough",
        kind: OptionKind::String,
        default: c"0",
    },
    PassOptionDef {
        name: c"vector-bytes",
        description: c"Bytes per vector register (32: AVX2; 64: AVX-512, with 32 registers; 16: SSE, NEON; host: the host CPU's widest, as ocannl-run uses)",
        kind: OptionKind::String,
        default: c"32",
    },
    PassOptionDef {
        name: c"l1-bytes",
        description: c"L1 data cache per core in bytes (0: the host's, from sysfs)",
        kind: OptionKind::String,
        default: c"0",
    },
    PassOptionDef {
        name: c"l2-bytes",
        description: c"L2 cache per core in bytes (0: the host's, from sysfs)",
        kind: OptionKind::String,
        default: c"0",
    },
    PassOptionDef {
        name: c"target",
        description: c"cpu: scheduled nests for the host; gpu: each nest a grid of threads (nested affine.parallel: blocks, then threads; one result cell per thread, reductions in registers) for gpu-map-parallel-loops",
        kind: OptionKind::String,
        default: c"cpu",
    },
    PassOptionDef {
        name: c"shared-tiles",
        description: c"target=gpu: matrix products as tiled kernels with workgroup memory (true: an explicit gpu.launch; false: grids like every other op; emulate: the tiled kernel's steps as CPU loops, to check it without a GPU)",
        kind: OptionKind::String,
        default: c"true",
    },
    PassOptionDef {
        name: c"block-size",
        description: c"GPU threads per block (target=gpu; a multiple of 32, at most 1024)",
        kind: OptionKind::String,
        default: c"256",
    },
];

/// The machine the schedule is for, and the pass options that override it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Target {
    /// Schedule at all (`false`: one scalar nest per op, in projection
    /// order, as before).
    pub enabled: bool,
    /// Bytes in a vector register (32 for AVX2, 64 for AVX-512).
    pub vector_bytes: u64,
    /// Bytes of L1 and L2 data cache per core.
    pub l1: u64,
    pub l2: u64,
    /// Choose the intermediates' layouts (`super::layouts`).
    pub layouts: bool,
    /// Emit `affine.parallel` for the outermost parallel loop of each nest.
    pub parallel: bool,
    /// The threads of the parallel loops (0: unknown).
    pub threads: u64,
    /// Each nest a grid of GPU threads (schedule `grid`), with this many
    /// threads per block; `None`: the CPU schedule.
    pub gpu_block: Option<u64>,
    /// Matrix products as tiled kernels in workgroup memory
    /// ([`crate::schedule::tiled`]; with `gpu_block`).
    pub shared_tiles: bool,
    /// The tiled kernels as CPU loops instead of `gpu.launch` (a check of
    /// their indices without a GPU).
    pub gpu_emulate: bool,
}

impl Default for Target {
    fn default() -> Self {
        Self {
            enabled: true,
            vector_bytes: 32,
            l1: host_caches().0,
            l2: host_caches().1,
            layouts: true,
            parallel: false,
            threads: 0,
            gpu_block: None,
            shared_tiles: true,
            gpu_emulate: false,
        }
    }
}

impl Target {
    /// The target the pass options describe (absent options: defaults).
    pub(super) fn from_options(options: &PassOptions) -> Result<Self, String> {
        let mut t = Self {
            enabled: options.get_str("schedule").is_none_or(|v| v == "true"),
            parallel: options.get_bool("parallel"),
            layouts: options.get_str("layouts").is_none_or(|v| v == "true"),
            ..Self::default()
        };
        let number = |name: &str, lo: u64, hi: u64| -> Result<Option<u64>, String> {
            match options.get_str(name) {
                None | Some("0") => Ok(None),
                Some(v) => match v.parse::<u64>() {
                    Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
                    _ => Err(format!(
                        "ocannl-plan-schedule: option '{name}' must be a number from {lo} to {hi} (got '{v}')"
                    )),
                },
            }
        };
        if options.get_str("vector-bytes") == Some("host") {
            t.vector_bytes = host_vector_bytes();
        } else if let Some(v) = number("vector-bytes", 8, 256)? {
            if !v.is_power_of_two() {
                return Err(format!(
                    "ocannl-plan-schedule: option 'vector-bytes' must be a power of two (got {v})"
                ));
            }
            t.vector_bytes = v;
        }
        if let Some(v) = number("threads", 1, 1 << 16)? {
            t.threads = v;
        }
        if let Some(v) = number("l1-bytes", L1_BYTES.0, L1_BYTES.1)? {
            t.l1 = v;
        }
        if let Some(v) = number("l2-bytes", L2_BYTES.0, L2_BYTES.1)? {
            t.l2 = v;
        }
        match options.get_str("target") {
            None | Some("cpu") => {}
            Some("gpu") => {
                let block = number("block-size", 32, 1024)?.unwrap_or(256);
                if block % 32 != 0 {
                    return Err(format!(
                        "ocannl-plan-schedule: option 'block-size' must be a multiple of 32 (got {block})"
                    ));
                }
                t.gpu_block = Some(block);
                t.enabled = false;
                match options.get_str("shared-tiles") {
                    None | Some("true") => {}
                    Some("false") => t.shared_tiles = false,
                    Some("emulate") => t.gpu_emulate = true,
                    Some(other) => {
                        return Err(format!(
                            "ocannl-plan-schedule: option 'shared-tiles' must be true, false or emulate (got '{other}')"
                        ));
                    }
                }
            }
            Some(other) => {
                return Err(format!(
                    "ocannl-plan-schedule: option 'target' must be 'cpu' or 'gpu' (got '{other}')"
                ));
            }
        }
        Ok(t)
    }
}

impl Target {
    /// The vector registers the register blocks are sized for: x86's 16
    /// (AVX2's `ymm`), or 32 with 64-byte vectors (AVX-512's `zmm`).
    pub(super) fn registers(&self) -> u64 {
        if self.vector_bytes >= 64 { 32 } else { 16 }
    }

    /// The bytes of L1 a contraction's micro-panel may take (the operand
    /// slice one reduction tile of one block column reads, which every
    /// row of the block sweeps): half of L1, the other half left to the
    /// rows' operand and the accumulators streaming through. Measured on
    /// a 48 KiB L1 (AVX-512, `tools/bench/conv_variants.py`, same runs),
    /// three quarters gave VGG-19's 3×3 256 → 256 convolution on 56²
    /// reduction tiles of 16 channels (a 36 KiB panel) and ran 13%
    /// slower than half (tiles of 8); `docs/performance.md`.
    pub(super) fn l1_budget(&self) -> u64 {
        self.l1 / 2
    }
}

/// The widest vector registers of the host CPU: 64 bytes with AVX-512F, 32
/// with AVX2 and FMA, else 16 (SSE, NEON).
fn host_vector_bytes() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return 64;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return 32;
        }
    }
    16
}

/// The sizes `l1-bytes` accepts, and a detected L1 must lie in.
const L1_BYTES: (u64, u64) = (1 << 10, 1 << 30);

/// The sizes `l2-bytes` accepts, and a detected L2 must lie in.
const L2_BYTES: (u64, u64) = (1 << 12, 1 << 34);

/// The host's L1 and L2 data caches, read from sysfs once per process:
/// each where sysfs gives it within the range its option accepts, else
/// the fallback (32 KiB, 512 KiB).
fn host_caches() -> (u64, u64) {
    static CACHES: std::sync::OnceLock<(u64, u64)> = std::sync::OnceLock::new();
    *CACHES.get_or_init(|| {
        let within = |level, (lo, hi): (u64, u64), fallback| {
            cache_size(level)
                .filter(|n| (lo..=hi).contains(n))
                .unwrap_or(fallback)
        };
        (
            within(1, L1_BYTES, 32 << 10),
            within(2, L2_BYTES, 512 << 10),
        )
    })
}

/// The data (or unified) cache of `level` of CPU 0, from Linux's sysfs.
fn cache_size(level: u32) -> Option<u64> {
    cache_size_in(
        std::path::Path::new("/sys/devices/system/cpu/cpu0/cache"),
        level,
    )
}

/// The data (or unified) cache of `level` among the `index*` entries of
/// the sysfs directory `dir` (each with its `level`, `type` and `size`,
/// such as `48K`). Entries without those (the directory's `uevent`, which
/// may be listed first) are skipped, not taken for the end of the list:
/// before, the first such entry ended the search, and the planner sized
/// its tiles for the fallbacks (32 KiB, 512 KiB) on a machine with
/// 48 KiB and 2 MiB.
fn cache_size_in(dir: &std::path::Path, level: u32) -> Option<u64> {
    let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    entries.iter().find_map(|entry| {
        let read = |f: &str| std::fs::read_to_string(entry.path().join(f)).ok();
        let lvl: u32 = read("level")?.trim().parse().ok()?;
        let ty = read("type")?;
        if lvl != level || ty.trim() == "Instruction" {
            return None;
        }
        parse_size(read("size")?.trim())
    })
}

/// A sysfs cache size: bytes, or a count of KiB (`K`), MiB (`M`) or GiB
/// (`G`); `None` when malformed, zero or past `u64`.
fn parse_size(size: &str) -> Option<u64> {
    let (digits, scale) = match size.char_indices().last()? {
        (i, 'K') => (&size[..i], 1u64 << 10),
        (i, 'M') => (&size[..i], 1 << 20),
        (i, 'G') => (&size[..i], 1 << 30),
        _ => (size, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::{cache_size_in, parse_size};

    /// A sysfs cache directory: `uevent` first, as `read_dir` may list it,
    /// then L1 instruction and data, L2 and L3.
    #[test]
    fn caches_are_read_past_entries_without_a_level() {
        let dir = std::env::temp_dir().join(format!("ocannl-caches-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("uevent"), "").unwrap();
        for (i, (level, ty, size)) in [
            (1, "Instruction", "32K"),
            (1, "Data", "48K"),
            (2, "Unified", "2048K"),
            (3, "Unified", "105M"),
        ]
        .iter()
        .enumerate()
        {
            let e = dir.join(format!("index{i}"));
            std::fs::create_dir_all(&e).unwrap();
            std::fs::write(e.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(e.join("type"), format!("{ty}\n")).unwrap();
            std::fs::write(e.join("size"), format!("{size}\n")).unwrap();
        }
        assert_eq!(cache_size_in(&dir, 1), Some(48 << 10));
        assert_eq!(cache_size_in(&dir, 2), Some(2 << 20));
        assert_eq!(cache_size_in(&dir, 3), Some(105 << 20));
        assert_eq!(cache_size_in(&dir, 4), None);
        assert_eq!(cache_size_in(&dir.join("missing"), 1), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sizes_parse_or_are_refused() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("65536"), Some(65536));
        for bad in ["", "K", "0K", "-4K", "12Q", "99999999999999999999G", "4.5M"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }
}
