//! Which schedules an op's nest can take, from its projections: the
//! predicates the planner chooses among (`ocannl-plan-schedule`) and the
//! check of a plan the lowering is asked to obey ([`check_plan`]), hand-
//! written ones included. A plan's structure must be one the emitters
//! handle (which iterator carries the lanes, which iterators the block and
//! the outer loops take, the reductions); its numbers (lanes per vector,
//! register-block factors, cache tiles, the reduction tile) are free within
//! bounds.

use ocannl_shape::projection::{AxisIndex, Projections};

use super::{
    memory::{contiguous, reads_along},
    plan::{Lanes, Plan},
};

/// The most copies one unrolled iterator may have in the register block.
pub(crate) const MAX_FACTOR: u64 = 16;
/// The most accumulators (vectors or scalars) a register block may hold.
pub(crate) const MAX_BLOCK: u64 = 64;
/// The most lanes per vector.
pub(crate) const MAX_WIDTH: u64 = 64;

/// Whether a nest can be planned at all: `f32`/`f64` elements (`bits`),
/// every operand of the result's element type (`same_float`), no
/// concatenation, the result indexed by distinct plain iterators or a
/// fixed 0, no empty iterator.
pub(crate) fn plannable(p: &Projections, bits: u32, same_float: bool) -> Result<(), String> {
    if !(bits == 32 || bits == 64) || !same_float {
        return Err(
            "only nests whose operands and result are all f32 or all f64 are planned".into(),
        );
    }
    if p.has_concat() {
        return Err("a concatenation is not planned".into());
    }
    let mut seen = vec![];
    for a in &p.result {
        match a {
            AxisIndex::Iter(i) if !seen.contains(i) => seen.push(*i),
            AxisIndex::Fixed(0) => {}
            _ => {
                return Err(
                    "the result must be indexed by distinct iterators (or a fixed 0) to be planned"
                        .into(),
                );
            }
        }
    }
    if p.product_space.contains(&0) {
        return Err("an empty nest is not planned".into());
    }
    Ok(())
}

/// Whether an operand reads through `v` past its axis (padding, a
/// convolution's reach): a vector load along `v` is guarded by its first
/// lane only, so such an iterator never carries lanes (a guarded 8-lane
/// load of a 7-wide row read the next row's first cell).
pub(crate) fn guarded(p: &Projections, operand_dims: &[Vec<u64>], v: usize) -> bool {
    let space = &p.product_space;
    p.operands.iter().zip(operand_dims).any(|(o, d)| {
        o.iter().zip(d).any(|(a, &n)| {
            a.uses(v) && {
                let (lo, hi) = a.range(space);
                lo < 0 || hi > i64::try_from(n).unwrap_or(i64::MAX) - 1
            }
        })
    })
}

/// The result's parallel iterators (memory order) of extent > 1.
pub(crate) fn parallel(p: &Projections) -> Vec<usize> {
    p.result
        .iter()
        .filter_map(|a| match a {
            AxisIndex::Iter(i) if p.product_space[*i] > 1 => Some(*i),
            _ => None,
        })
        .collect()
}

/// Whether operand indices `o` are a plain 2-D panel over `v` and the
/// reduction `k`: every axis `v`, `k`, of size 1, or fixed; `k` read (the
/// packed panel of `cpu/pack.rs`).
pub(crate) fn plain_panel(o: &[AxisIndex], space: &[u64], v: usize, k: usize) -> bool {
    o.iter().any(|a| a.uses(k))
        && o.iter().all(|a| match a {
            AxisIndex::Iter(i) => *i == k || *i == v || space[*i] == 1,
            AxisIndex::Fixed(_) => true,
            _ => false,
        })
}

/// The one operand, not the result's initial value `init`, that reads
/// block iterator `iter`, when it is a plain 2-D panel over `iter` and the
/// tiled reduction `k` ([`plain_panel`]): the operand the CPU lowering
/// packs per tile (`cpu/pack.rs`); `None` when several read `iter`.
pub(crate) fn panel_operand(
    p: &Projections,
    iter: usize,
    k: usize,
    init: Option<usize>,
) -> Option<usize> {
    let mut found = None;
    for (n, indices) in p.operands.iter().enumerate() {
        if Some(n) == init || !indices.iter().any(|a| a.uses(iter)) {
            continue;
        }
        if !plain_panel(indices, &p.product_space, iter, k) || found.is_some() {
            return None;
        }
        found = Some(n);
    }
    found
}

/// At most one operand reads `v` off its contiguous axis, and no other
/// operand reads both `v` and the tiled reduction `k` (the packed panel is
/// the transposed one's).
pub(crate) fn transposed_ok(
    p: &Projections,
    operand_dims: &[Vec<u64>],
    v: usize,
    k: Option<usize>,
) -> bool {
    let off: Vec<usize> = (0..p.operands.len())
        .filter(|&n| reads_along(&p.operands[n], &operand_dims[n], v).is_none())
        .collect();
    match (off.as_slice(), k) {
        ([], _) => true,
        ([t], Some(k)) => {
            plain_panel(&p.operands[*t], &p.product_space, v, k)
                && p.operands.iter().enumerate().all(|(n, o)| {
                    n == *t || !(o.iter().any(|a| a.uses(v)) && o.iter().any(|a| a.uses(k)))
                })
        }
        _ => false,
    }
}

/// Checks `plan` against the op's projections `p`, result dims `dims` and
/// operand dims (memory order; the op already [`plannable`]), and sets
/// what follows from them (`block_contiguous`).
///
/// # Errors
///
/// What the plan says that the emitters cannot obey, naming the field.
pub(crate) fn check_plan(
    plan: &mut Plan,
    p: &Projections,
    dims: &[u64],
    operand_dims: &[Vec<u64>],
) -> Result<(), String> {
    let n = p.product_space.len();
    if !plan.width.is_power_of_two() || plan.width > MAX_WIDTH {
        return Err(format!(
            "'width' must be a power of two up to {MAX_WIDTH} (got {})",
            plan.width
        ));
    }
    let v = plan.vector;
    if v >= n {
        return Err(format!("'vector' names no iterator of the {n} of the nest"));
    }
    if guarded(p, operand_dims, v) {
        return Err(format!(
            "the lanes cannot run along {}: an operand reads past its axis through it (padding)",
            name(v)
        ));
    }
    check_loops(plan, p)?;
    check_block(plan)?;
    match plan.lanes {
        Lanes::Result => check_result_lanes(plan, p, dims, operand_dims),
        Lanes::Reduction => check_reduction_lanes(plan, p, dims, operand_dims),
    }
}

/// An iterator as the affine maps name it.
fn name(i: usize) -> String {
    format!("d{i}")
}

/// The reductions, the outer loops and the block's iterators: each
/// iterator of the nest where it belongs, once.
fn check_loops(plan: &Plan, p: &Projections) -> Result<(), String> {
    let mut reductions = p.reductions();
    let mut listed = plan.reductions.clone();
    listed.sort_unstable();
    reductions.sort_unstable();
    if listed != reductions {
        return Err(format!(
            "'reductions' must list the nest's reductions {:?} once each (got {:?})",
            reductions, plan.reductions
        ));
    }
    let mut loops: Vec<usize> = plan.outer.clone();
    loops.extend(plan.unrolled.iter().map(|u| u.iter));
    let mut sorted = loops.clone();
    sorted.sort_unstable();
    sorted.dedup();
    let mut wanted = parallel(p);
    wanted.sort_unstable();
    if sorted.len() != loops.len() || sorted != wanted {
        return Err(format!(
            "'outer' and 'unroll' must name the result's iterators of extent > 1 {wanted:?} once each (got {loops:?})"
        ));
    }
    if let Some((k, size)) = plan.k_tile
        && (!reductions.contains(&k) || size == 0)
    {
        return Err(format!(
            "'k_tile' must tile a reduction by at least 1 (got {} by {size})",
            name(k)
        ));
    }
    if let Some(size) = plan.outer_tile
        && (plan.k_tile.is_none() || plan.outer.is_empty() || size == 0)
    {
        return Err(format!(
            "'outer_tile' tiles the first 'outer' loop around the 'k_tile' loop: it needs both, and a size of at least 1 (got {size})"
        ));
    }
    if plan.outer_in_block
        && (plan.k_tile.is_none()
            || plan.outer.is_empty()
            || (plan.outer_tile.is_some() && !plan.split_outer))
    {
        return Err(
            "'outer_in_block' moves the 'outer' loops inside the first block column under a 'k_tile': it needs both, and no 'outer_tile' unless 'split_outer'"
                .into(),
        );
    }
    if plan.split_outer && plan.outer_tile.is_none() {
        return Err(
            "'split_outer' runs the 'outer_tile' loop outermost, shared by the threads: it needs an 'outer_tile'"
                .into(),
        );
    }
    Ok(())
}

/// The register block: at most two iterators, factors and accumulators in
/// bounds, tiles of whole blocks.
fn check_block(plan: &Plan) -> Result<(), String> {
    if plan.unrolled.len() > 2 {
        return Err("'unroll' holds at most two iterators".into());
    }
    let mut accumulators = 1u64;
    for u in &plan.unrolled {
        if u.factor == 0 || u.factor > MAX_FACTOR {
            return Err(format!(
                "the factor of {} must be from 1 to {MAX_FACTOR} (got {})",
                name(u.iter),
                u.factor
            ));
        }
        accumulators *= u.factor;
        let step = u.factor * if u.lanes { plan.width } else { 1 };
        if let Some(t) = u.tile
            && t % step != 0
        {
            return Err(format!(
                "the tile of {} must be a multiple of its block step {step} (got {t})",
                name(u.iter)
            ));
        }
    }
    if accumulators > MAX_BLOCK {
        return Err(format!(
            "the register block holds {accumulators} accumulators, more than {MAX_BLOCK}"
        ));
    }
    Ok(())
}

/// Lanes along the result's contiguous iterator, the block's first, read
/// by every operand along its own contiguous axis, not at all, or (one of
/// them) packed transposed within a reduction tile.
fn check_result_lanes(
    plan: &mut Plan,
    p: &Projections,
    dims: &[u64],
    operand_dims: &[Vec<u64>],
) -> Result<(), String> {
    let v = plan.vector;
    if contiguous(&p.result, dims) != Some(v) {
        return Err(format!(
            "lanes = \"result\" run along the result's contiguous iterator, which {} is not",
            name(v)
        ));
    }
    if plan.unrolled.first().map(|u| u.iter) != Some(v) {
        return Err(format!(
            "with lanes = \"result\", 'unroll' starts with the vector iterator {}",
            name(v)
        ));
    }
    if !transposed_ok(p, operand_dims, v, plan.k_tile.map(|t| t.0)) {
        return Err(format!(
            "the operands cannot be read along {}: more than one reads it off its contiguous axis, or one does without a 'k_tile' to pack it in",
            name(v)
        ));
    }
    plan.block_contiguous = true;
    Ok(())
}

/// Lanes along the innermost reduction, which every operand reads along
/// its contiguous axis or not at all (one of them reading it); a reduction
/// tile only along it, of whole vectors.
fn check_reduction_lanes(
    plan: &mut Plan,
    p: &Projections,
    dims: &[u64],
    operand_dims: &[Vec<u64>],
) -> Result<(), String> {
    let v = plan.vector;
    if !p.reductions().contains(&v) || plan.reductions.last() != Some(&v) {
        return Err(format!(
            "lanes = \"reduction\" run along the innermost reduction, which {} is not",
            name(v)
        ));
    }
    let reads = || {
        p.operands
            .iter()
            .zip(operand_dims)
            .map(|(o, d)| reads_along(o, d, v))
    };
    if !reads().all(|r| r.is_some()) || !reads().any(|r| r == Some(true)) {
        return Err(format!(
            "the lanes cannot run along {}: every operand must read it on its contiguous axis or not at all, and one must read it",
            name(v)
        ));
    }
    if let Some((k, size)) = plan.k_tile
        && (k != v || size % plan.width != 0)
    {
        return Err(format!(
            "with lanes = \"reduction\", 'k_tile' tiles the vector iterator {} by a multiple of the width",
            name(v)
        ));
    }
    plan.block_contiguous = plan
        .unrolled
        .first()
        .is_some_and(|u| contiguous(&p.result, dims) == Some(u.iter));
    Ok(())
}
