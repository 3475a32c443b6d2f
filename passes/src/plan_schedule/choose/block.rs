//! The register block of a contraction with lanes along the result
//! ([`block_shape`]): how many rows × vectors of accumulators, from a cost
//! model of the FMA and load ports, and, for a convolution, its window
//! ([`Window`]).

/// The register block of a contraction with lanes along the result: `rows`
/// copies of the row iterator (of `row_extent`) × `cols` vectors (of
/// `vectors` along the vector iterator), with `rows × cols` accumulators,
/// `cols` loaded vectors and a broadcast in `registers` (less two, which
/// LLVM's code needs for addresses and temporaries: 14 × 2 on AVX-512
/// spilled and ran 1.5× slower than 7 × 3). BLIS's 6 × 2 (AVX2, always)
/// or 6 × 4 (AVX-512) unless a shape leaves fewer remainder steps or
/// fuller steps: the cost counts each step's cycles,
/// `max(FMAs / 2, loads / 2, 5) + 1` (two FMA and two load ports, four
/// cycles of FMA latency and one of slack, which a block of 8
/// accumulators never hides, and a cycle of loop and address work), over
/// the main blocks and the one-row and one-vector remainders. A 7-wide row
/// (a convolution's last stage) is 7 × 3 on AVX-512, not 6 × 4 and a row
/// of 1 × 4; a 28-wide row of 512 channels is 7 × 3 (with a latency floor
/// of 4 cycles and no slack the model chose 4 × 2, measured 1.25× slower
/// than 7 × 3 on a 512 → 512 3×3 convolution on 28²).
///
/// With `taps` (a convolution's window, unrolled in the block), each row's
/// broadcast counts a quarter of an FMA slot too, and any gain of 1% moves
/// off the default: measured on AVX-512 at one thread, one binary, the
/// shapes side by side, 4 × 4 beat 7 × 2 by 6.5% on 512 channels on 28²,
/// and 6 × 4 by 5–6% on 256 on 56², 128 on 112² and 64 on 56²; 7 × 3 beat
/// 7 × 2 by 2–3% on 512 on 14² and 256 on 14² (`docs/performance.md`).
/// Matrix products and 1×1 convolutions keep the measured model.
///
/// A convolution whose weights serve at most [`FEW_PIXELS`] pixels (a
/// last stage's 7²) may fill every register: its row broadcasts are the
/// FMAs' memory operands, and its wider columns sweep the input fewer
/// times. ResNet-50's 3×3 512 → 512 on 7² went from 7 × 3 to 7 × 4, 11–19%
/// faster in the model at one thread (the micro-panel then takes the
/// whole L1: see `contraction_block`); on 14² the same block was even to
/// 15% slower, on 28² and 56² 5–11% slower (`docs/performance.md`).
pub(super) fn block_shape(
    registers: u64,
    row_extent: u64,
    vectors: u64,
    window: Window,
) -> (u64, u64) {
    let taps = window != Window::None;
    // Registers a block may not take: the broadcast's and LLVM's spares.
    let reserved = if window == Window::FewPixels {
        0
    } else {
        1 + SPARE_REGISTERS
    };
    let max_cols = (registers / 8).min(vectors).max(1);
    let broadcast = if taps { BROADCAST_SLOT } else { 0.0 };
    let clear_gain = if taps { 0.99 } else { 0.95 };
    let step = |r: u64, c: u64| {
        ((r * c) as f64 / 2.0 + broadcast * r as f64)
            .max((r + c) as f64 / 2.0)
            .max(LATENCY_FLOOR)
            + STEP_OVERHEAD
    };
    let cost = |r: u64, c: u64| {
        let (er, ec) = (row_extent, vectors.max(1));
        let (mr, mcl) = (er / r, ec / c);
        let (rr, rc) = (er % r, ec % c);
        (mr * mcl) as f64 * step(r, c)
            + (rr * mcl) as f64 * step(1, c)
            + (mr * rc) as f64 * step(r, 1)
            + (rr * rc) as f64 * step(1, 1)
    };
    let mut best = (6, max_cols);
    if registers < 32 {
        // AVX2's 6 × 2 is measured (docs/performance.md): kept.
        return best;
    }
    let mut best_cost = cost(6, max_cols);
    for c in 1..=max_cols {
        for r in 1..=MAX_ROWS.min(row_extent.max(1)) {
            if r * c + c + reserved > registers {
                continue;
            }
            let k = cost(r, c);
            // Only a clear gain moves off the default.
            if k < best_cost * clear_gain {
                best = (r, c);
                best_cost = k;
            }
        }
    }
    best
}

/// Whether a contraction is a convolution (a window of taps unrolled in
/// the register block), and whether its weights serve few pixels
/// ([`block_shape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Window {
    None,
    Taps,
    FewPixels,
}

impl Window {
    /// Few pixels on AVX-512 only (32 registers), where it was measured.
    pub(super) fn of(taps: u64, pixels: u64, registers: u64) -> Self {
        match (taps > 1, pixels <= FEW_PIXELS && registers >= 32) {
            (false, _) => Self::None,
            (true, false) => Self::Taps,
            (true, true) => Self::FewPixels,
        }
    }
}

/// The pixels per output channel up to which a convolution's register
/// block may fill every vector register ([`block_shape`]): 7².
const FEW_PIXELS: u64 = 49;

/// A register block's least cycles per step: the FMA latency (4) and a
/// cycle of slack ([`block_shape`]).
const LATENCY_FLOOR: f64 = 5.0;

/// A register block's cycles of loop and address work per step.
const STEP_OVERHEAD: f64 = 1.0;

/// The FMA-port cycles a row's broadcast costs in a convolution's block
/// ([`block_shape`]).
const BROADCAST_SLOT: f64 = 0.25;

/// Vector registers a register block leaves to LLVM's code.
const SPARE_REGISTERS: u64 = 2;

/// The most rows a register block unrolls.
const MAX_ROWS: u64 = 14;
