//! The schedule of an op's loop nest, chosen from its projections (never
//! from its name): which iterator is vectorised, which are unrolled into a
//! register block, which are tiled for the caches, in which order the loops
//! run: a [`Plan`] ([`crate::schedule::plan`]), which the lowering's `cpu/`
//! emits. The structures it may choose are
//! [`crate::schedule::legal`]'s; the choice and the numbers are made here.
//!
//! Two kinds of vectorisation (Bondhugula, "High Performance Code
//! Generation in MLIR: An Early Case Study with GEMM", 2020, for the first;
//! the second is the dot-product form of the same micro-kernel):
//!
//! - [`Lanes::Result`]: along the result's contiguous axis. Every operand
//!   reads that iterator on its own contiguous axis (a vector load) or not
//!   at all (a scalar load broadcast to every lane). Accumulators are
//!   vectors of result cells, held in registers (`iter_args`) across the
//!   reductions. A matmul `C[i,j] += A[i,k] B[k,j]`, pointwise ops, a
//!   broadcast add.
//! - [`Lanes::Reduction`]: along a reduction iterator that every operand
//!   reading it reads on its contiguous axis. Each lane accumulates part of
//!   the sum; the lanes are combined (`vector.reduction`) after the loop.
//!   OCANNL's own layout puts a weight's input axis last (`"o->i"` is
//!   `[o, i]` in memory), so `x · wᵀ`, a convolution `[co, kh, kw, ci]`
//!   against `[.., h, w, ci]`, and row reductions (softmax's sum and max,
//!   a layer norm's mean) take this form. Sums are reassociated: the
//!   result matches the scalar nest within float rounding, not bit for bit.
//!
//! The register block unrolls up to two parallel iterators (and the
//! vector iterator itself for [`Lanes::Result`]): `rows × cols`
//! accumulators, sized so that they and the loaded operands fit AVX2's 16
//! vector registers. Cache tiles follow BLIS's loop order (a panel of the
//! streamed operand in L2, a micro-panel in L1); their sizes come from the
//! cache sizes in [`Target`]. Extents that the block or the vector width
//! does not divide get remainder nests with smaller blocks and, at the
//! end, scalars.

use ocannl_shape::projection::{AxisIndex, Projections};

mod block;
mod outer;
mod split;
use block::{Window, block_shape};
use split::Split;

use super::target::Target;
use crate::schedule::{
    legal::{guarded, parallel, plain_panel, plannable, transposed_ok},
    memory::{contiguous, reads_along},
    plan::{Lanes, MAX_UNROLLED_TAPS, Plan, Unrolled},
};

/// The plan for an op with projections `p`, result dims `dims` and operand
/// dims `operand_dims` (memory order), of elements of `bits` bits; `None`
/// when the scalar nest is the better (or the only correct) code: no
/// vectorisable iterator, indices other than plain iterators on the result,
/// concatenations, elements other than `f32`/`f64`.
pub(super) fn plan(
    target: &Target,
    p: &Projections,
    dims: &[u64],
    operand_dims: &[Vec<u64>],
    bits: u32,
) -> Option<Plan> {
    if !target.enabled || plannable(p, bits, true).is_err() {
        return None;
    }
    let reductions = p.reductions();
    let space = &p.product_space;
    let full = target.vector_bytes * 8 / u64::from(bits);
    // The lanes of the result's contiguous iterator: narrower vectors when
    // they cover it and the full width would leave scalars (a 56-wide row
    // is 7 AVX2 vectors, but 3 AVX-512 vectors and 8 scalars).
    let width = contiguous(&p.result, dims).map_or(full, |v| fit(space[v], full));
    let nest = Nest {
        target,
        p,
        dims,
        operand_dims,
        width,
        elem_bytes: u64::from(bits / 8),
        parallel: parallel(p),
        // The largest reduction, when it is long enough to be tiled.
        long_k: reductions
            .iter()
            .copied()
            .max_by_key(|&r| space[r])
            .filter(|&k| space[k] > KC),
        reductions,
    };
    nest.result_lanes().or_else(|| {
        Nest {
            width: full,
            ..nest
        }
        .reduction_lanes()
    })
}

/// The vector width for an iterator of `extent`: of the powers of two from
/// `full` down to a quarter of it (and at least 4), the one with the fewest
/// steps, a vector or a remaining scalar each (a 56-wide row is 7 AVX2
/// vectors rather than 3 AVX-512 vectors and 8 scalars; 1000 columns stay
/// 62 AVX-512 vectors and 8 scalars).
fn fit(extent: u64, full: u64) -> u64 {
    let steps = |w: u64| extent / w + extent % w;
    let mut best = full;
    let mut w = full / 2;
    while w >= 4 && w * 4 >= full {
        if steps(w) < steps(best) {
            best = w;
        }
        w /= 2;
    }
    best
}

/// What the planner reads of one nest.
struct Nest<'n> {
    target: &'n Target,
    p: &'n Projections,
    dims: &'n [u64],
    operand_dims: &'n [Vec<u64>],
    /// Lanes per vector; bytes per element.
    width: u64,
    elem_bytes: u64,
    /// The result's parallel iterators of extent > 1 (memory order).
    parallel: Vec<usize>,
    reductions: Vec<usize>,
    /// The largest reduction, when it is long enough to be tiled.
    long_k: Option<usize>,
}

impl Nest<'_> {
    fn space(&self) -> &[u64] {
        &self.p.product_space
    }

    fn operands(&self) -> impl Iterator<Item = (&Vec<AxisIndex>, &Vec<u64>)> {
        self.p.operands.iter().zip(self.operand_dims)
    }

    /// An operand that reads `v` off its contiguous axis (OCANNL's weight
    /// `"K->N"` is `[N, K]` in memory) is transposed into the packed panel
    /// of each tile (`cpu/pack.rs`): it must be a plain 2-D panel over `v`
    /// and the tiled reduction. The packed panel pays when rows of another
    /// operand reuse it: a parallel iterator other than `v`, read with the
    /// reduction by an operand that does not read `v` (a matmul's A; not a
    /// row reduction).
    fn reused(&self, v: usize, k: usize) -> bool {
        self.parallel.iter().any(|&u| {
            u != v
                && self.p.operands.iter().any(|o| {
                    o.iter().any(|a| a.uses(u))
                        && o.iter().any(|a| a.uses(k))
                        && !o.iter().any(|a| a.uses(v))
                })
        })
    }

    /// Whether operand indices `o`, which read `v` off their contiguous
    /// axis, are worth packing transposed: at least one whole block of
    /// columns to pack (a narrower result would gather every vector: the
    /// dot-product form is better), and enough rows to pay for the
    /// transposing copy (a cell at a time: at 256 rows, the MLP's first
    /// layer, the dot-product form was as fast; at 1024 the packed form was
    /// 15–25% faster).
    fn transposed(&self, v: usize, o: &[AxisIndex]) -> bool {
        let space = self.space();
        let rows = extents_but(space, &self.parallel, v);
        space[v] >= 2 * self.width
            && rows >= MIN_TRANSPOSED_ROWS
            && self
                .long_k
                .is_some_and(|k| self.reused(v, k) && plain_panel(o, space, v, k))
    }

    /// The plan with lanes along the result's contiguous axis, if every
    /// operand reads it on its own contiguous axis, not at all, or as a
    /// panel worth packing transposed.
    fn result_lanes(&self) -> Option<Plan> {
        let (p, space) = (self.p, self.space());
        let v = contiguous(&p.result, self.dims)
            .filter(|&v| space[v] >= self.width && !guarded(p, self.operand_dims, v))?;
        if !self
            .operands()
            .all(|(o, d)| reads_along(o, d, v).is_some() || self.transposed(v, o))
            || !transposed_ok(p, self.operand_dims, v, self.long_k)
        {
            return None;
        }
        let (unrolled, k_tile, split) = if self.reductions.is_empty() {
            let lanes = Unrolled {
                iter: v,
                factor: 1,
                lanes: true,
                tile: None,
            };
            (vec![lanes], None, None)
        } else {
            self.contraction_block(v)
        };
        let rows = unrolled.iter().find(|u| !u.lanes).map(|u| u.iter);
        let outer = outer_loops(&self.parallel, &unrolled);
        let outer_tile = self.outer_tile(&outer, &unrolled, k_tile);
        let split = split.map(|rows| self.split_tile(rows, outer_tile, &outer));
        let in_block = self.outer_in_block(&outer, &unrolled, k_tile);
        // With no threads to split, an L2 tile's loop goes outermost too,
        // so that the rows inside it can run inside the block column (at 1
        // thread VGG-19's 3×3 512 → 512 convolutions on 28² and 14² ran
        // 22% and 33% faster, ResNet-50's 128 → 128 on 28² about 5%).
        let split_outer = split.is_some() || (!self.threaded() && outer_tile.is_some() && in_block);
        let outer_tile = split.or(outer_tile);
        Some(Plan {
            lanes: Lanes::Result,
            width: self.width,
            vector: v,
            outer_in_block: (outer_tile.is_none() || split_outer) && in_block,
            outer_tile,
            split_outer,
            outer,
            unrolled,
            reductions: self.reduction_order(rows),
            k_tile,
            block_contiguous: true,
        })
    }

    /// The result's bytes: its parallel iterators' extents times the
    /// element's size (saturating).
    fn result_bytes(&self) -> u64 {
        let space = self.space();
        self.parallel
            .iter()
            .map(|&i| space[i])
            .fold(self.elem_bytes, u64::saturating_mul)
    }

    /// The tile of reduction `k` for a matrix product (no taps, no loops
    /// besides the block's rows `row` and columns `v`) whose result
    /// overflows L2: each reduction tile then loads and stores the whole
    /// result from L3 (BLIS's loop order), so a reduction longer than
    /// [`KC_STREAMED`] takes tiles as long as that allows, of even length,
    /// rather than sized for the column panel to stay in L1 (which streams
    /// from L2 at one block's pace). On AVX-512 (4 vectors of columns: 96
    /// rows of panel fit L1's budget), 2048³ at 1 thread ran 253 → 164 ms
    /// with tiles of 96 → 512 (OpenBLAS 140–152), at 2 threads 135 → 100
    /// ms; 1024³ was even (21–23 ms for tiles 96 to 1024), and so was
    /// 2048³ at AVX2's width. Not for convolutions (outer loops: output
    /// rows): their 1×1 forms ran up to 20% slower with longer tiles.
    fn streamed_result_tile(
        &self,
        v: usize,
        row: Option<usize>,
        k: usize,
        taps: u64,
    ) -> Option<u64> {
        let space = self.space();
        let plain = taps == 1 && self.parallel.iter().all(|&i| i == v || Some(i) == row);
        // At least two tiles: a reduction tile is what packs a transposed
        // operand ([`Self::transposed`]).
        if !plain || self.result_bytes() <= self.target.l2 || space[k] <= KC_STREAMED {
            return None;
        }
        let tiles = space[k].div_ceil(KC_STREAMED);
        Some(space[k].div_ceil(tiles).div_ceil(8) * 8)
    }

    /// The reductions, outermost first, so that the innermost one, whose
    /// taps the micro-kernel unrolls when there are at most
    /// [`MAX_UNROLLED_TAPS`], is not one the block's `rows` slide along
    /// (`o1 + k1`). Unrolled, such taps read overlapping input cells: LLVM
    /// loads each once and keeps `rows + taps - 1` broadcasts live across
    /// the taps, which spilled the accumulators of a 13-row block (1.4×
    /// slower on SqueezeNet's 13² convolutions). Another short reduction
    /// (the kernel's other axis) goes innermost instead.
    fn reduction_order(&self, rows: Option<usize>) -> Vec<usize> {
        let mut order = self.reductions.clone();
        let Some(row) = rows else { return order };
        let space = self.space();
        let slides = |r: usize| {
            self.p
                .operands
                .iter()
                .flatten()
                .any(|a| matches!(a, AxisIndex::Affine(_)) && a.uses(row) && a.uses(r))
        };
        let short = |r: usize| (2..=MAX_UNROLLED_TAPS).contains(&space[r]);
        let inner = order.iter().rposition(|&r| space[r] > 1);
        if let Some(i) = inner.filter(|&i| short(order[i]) && slides(order[i]))
            && let Some(j) = order[..i].iter().rposition(|&r| short(r) && !slides(r))
        {
            let r = order.remove(j);
            order.push(r);
        }
        order
    }

    /// A contraction's register block with lanes along `v`: 2 (AVX2) or 4
    /// (AVX-512) vectors of columns × 6 rows, its cache tiles (BLIS's
    /// blocking), and the first outer loop's tile per thread when the
    /// threads split that ([`Self::split_rows`]).
    fn contraction_block(&self, v: usize) -> Block {
        let space = self.space();
        let elem_bytes = self.elem_bytes;
        // Rows: the parallel iterator the vector-loaded operands do not
        // read (their loads serve every row), nearest the contiguous axis.
        let loaded: Vec<&Vec<AxisIndex>> = self
            .operands()
            .filter(|(o, d)| reads_along(o, d, v) != Some(false))
            .map(|(o, _)| o)
            .collect();
        let candidates = || self.parallel.iter().rev().copied().filter(|&i| i != v);
        let row = candidates()
            .find(|&i| !loaded.iter().any(|o| o.iter().any(|a| a.uses(i))))
            .or_else(|| candidates().next());
        // The largest reduction is tiled so that the slice of the operand
        // read along `v` that one tile of it reads for one block column
        // (`k_tile` × the other reductions, a convolution's taps, × the
        // block's columns) stays in L1 while every row of the block sweeps
        // it: BLIS's micro-panel, with the taps.
        let k = *self
            .reductions
            .iter()
            .max_by_key(|&&r| space[r])
            .expect("a contraction has a reduction");
        let taps = extents_but(space, &self.reductions, k);
        let pixels = extents_but(space, &self.parallel, v);
        let window = Window::of(taps, pixels, self.target.registers());
        let (rows, cols) = block_shape(
            self.target.registers(),
            row.map_or(1, |u| space[u]),
            space[v] / self.width,
            window,
        );
        let step_bytes = taps * cols * self.width * elem_bytes;
        // A few pixels' rows sweep the micro-panel a few times only: it
        // may take the whole L1.
        let budget = if window == Window::FewPixels {
            self.target.l1
        } else {
            self.target.l1_budget()
        };
        let fit = (budget / step_bytes.max(1)).max(4);
        let fit = if fit >= 8 { fit / 8 * 8 } else { fit };
        let kc = KC.min(fit).min(space[k]);
        let kc = self.streamed_result_tile(v, row, k, taps).unwrap_or(kc);
        let k_tile = (space[k] > kc).then_some((k, kc));
        // BLIS's blocking: the packed `k_tile × nc` panel in L3 (twice
        // L2), the rows' packed `mc × k_tile` block in L2, the
        // micro-panel `k_tile × nr` one block column reads in L1.
        let mut nc = round_down(
            self.target.l2 * 2 / (kc * taps * elem_bytes),
            cols * self.width,
        );
        // On several threads, a tiled contraction wide enough takes one
        // tile of its vector iterator per thread: its one parallel loop
        // (each thread packs and reads its own slice of the weights).
        let threads = self.target.threads;
        let block = cols * self.width;
        let split = self.split_rows(v, row, block, k_tile);
        if self.threaded() && k_tile.is_some() && split.is_none() {
            let share = space[v].div_ceil(threads).div_ceil(block) * block;
            if share < space[v] {
                nc = nc.min(share);
            }
        }
        let mut unrolled = vec![Unrolled {
            iter: v,
            factor: cols,
            lanes: true,
            // Tiled whenever the reduction is: the tile is packed.
            tile: (space[v] > nc || k_tile.is_some()).then_some(nc),
        }];
        if let Some(u) = row {
            let mc = round_down(self.target.l2 / 8 / (kc * elem_bytes), rows);
            unrolled.push(Unrolled {
                iter: u,
                factor: rows,
                lanes: false,
                tile: (space[u] > mc || k_tile.is_some()).then_some(mc),
            });
        }
        (unrolled, k_tile, split)
    }

    /// The plan with lanes along the innermost reduction every reader
    /// reads contiguously (or not at all), and a block of the result's
    /// last two parallel iterators.
    fn reduction_lanes(&self) -> Option<Plan> {
        let (p, space, width) = (self.p, self.space(), self.width);
        let reductions = &self.reductions;
        let r = reductions.iter().rev().copied().find(|&r| {
            space[r] >= width
                && !guarded(p, self.operand_dims, r)
                && self.operands().all(|(o, d)| reads_along(o, d, r).is_some())
                && self
                    .operands()
                    .any(|(o, d)| reads_along(o, d, r) == Some(true))
        })?;
        let mut order: Vec<usize> = reductions.iter().copied().filter(|&i| i != r).collect();
        order.push(r);
        // The block: the result's last two parallel iterators, the contiguous
        // one's point loop outside (its operand panel stays in L1 while the
        // other sweeps a tile kept in L2).
        // A long vector reduction is tiled (its partial sums are added to the
        // result once per tile), so that the rows of both operands the block
        // reads stay in L1 while the second block iterator reuses them. With
        // one block iterator (a matrix-vector product, a row sum) nothing
        // reuses a tile, and untiled rows stream whole: VGG's 25088 → 4096
        // layer ran 1.1× faster so, its 411 MB of weights read in order.
        let kc = KC_LANES * width;
        let k_tile = (space[r] > 2 * kc && self.parallel.len() >= 2).then_some((r, kc));
        let reduced_bytes: u64 = reductions
            .iter()
            .map(|&i| {
                if k_tile.is_some() && i == r {
                    kc
                } else {
                    space[i]
                }
            })
            .fold(self.elem_bytes, u64::saturating_mul);
        // BLIS's loop order: the inner block iterator's tile (its operand's
        // rows in L2) inside the reduction tile; the outer one's rows stream
        // through L1 (its whole panel stays in L3).
        let panel = round_down(self.target.l2 / 2 / reduced_bytes.max(1), 12);
        let mut unrolled = vec![];
        let mut block = self.parallel.iter().rev().copied();
        if let Some(outer_point) = block.next() {
            // 3 × 4 accumulators, 3 + 1 loaded vectors: the 16 registers of
            // AVX2 (4 × 3 holds 4 + 1 and spills).
            unrolled.push(Unrolled {
                iter: outer_point,
                factor: 4,
                lanes: false,
                tile: None,
            });
            if let Some(u) = block.next() {
                unrolled.push(Unrolled {
                    iter: u,
                    factor: 3,
                    lanes: false,
                    tile: (space[u] > panel).then_some(panel),
                });
            }
        }
        let outer = outer_loops(&self.parallel, &unrolled);
        let block_contiguous = unrolled
            .first()
            .is_some_and(|u| contiguous(&p.result, self.dims) == Some(u.iter));
        Some(Plan {
            lanes: Lanes::Reduction,
            width,
            vector: r,
            outer,
            unrolled,
            reductions: order,
            k_tile,
            outer_tile: None,
            outer_in_block: false,
            split_outer: false,
            block_contiguous,
        })
    }
}

/// A contraction's register block and cache tiles: the block's iterators,
/// the reduction tile, the first outer loop's tile per thread
/// ([`Nest::split_rows`]).
type Block = (Vec<Unrolled>, Option<(usize, u64)>, Option<Split>);

/// Vectors per tile of a reduction along which the lanes run.
const KC_LANES: u64 = 128;

/// The rows below which a transposed operand keeps the dot-product form.
const MIN_TRANSPOSED_ROWS: u64 = 512;

/// The tile of the largest reduction of a [`Lanes::Result`] contraction.
const KC: u64 = 256;

/// The longest reduction tile of a matrix product whose result streams
/// past L2 once per tile ([`Nest::streamed_result_tile`]).
const KC_STREAMED: u64 = 512;

/// The parallel iterators not in the block, outermost first.
fn outer_loops(parallel: &[usize], unrolled: &[Unrolled]) -> Vec<usize> {
    parallel
        .iter()
        .copied()
        .filter(|i| !unrolled.iter().any(|u| u.iter == *i))
        .collect()
}

/// The product of the extents of `iters` other than `skip`.
fn extents_but(space: &[u64], iters: &[usize], skip: usize) -> u64 {
    iters
        .iter()
        .filter(|&&i| i != skip)
        .map(|&i| space[i])
        .product()
}

/// The largest multiple of `m` at most `x`, and at least `m`.
fn round_down(x: u64, m: u64) -> u64 {
    (x / m).max(1) * m
}
