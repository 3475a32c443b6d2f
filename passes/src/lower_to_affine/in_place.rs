//! Concatenations computed in place: each part written by its producer
//! straight into its box of the concatenation's buffer, instead of into a
//! buffer of its own that `ocannl.concat` then copies.
//!
//! SqueezeNet's fire modules concatenate two convolutions along the
//! channels; the copies took 0.5 ms of its 5.7 ms at two threads
//! (`docs/performance.md`). onnxruntime copies too; XLA and TVM write the
//! parts in place when each has one reader.
//!
//! A part's buffer is then a strided view of the concatenation's
//! (`memref.reinterpret_cast`: the part's dims, the concatenation's
//! strides, the box's first cell as the offset), which the producer's nest
//! writes as it would its own buffer. Where it applies (all of it or
//! nothing, per concatenation, on the CPU):
//! - the concatenation copies each operand into one box, the boxes
//!   disjoint and covering the result (no fill, no sums), each operand's
//!   axes in order, shifted along the concatenated axis only;
//! - the view keeps contiguous every axis the part's own buffer has
//!   contiguous (a writer's vector stores run along such an axis: a part
//!   `[.., 4, 1]` of a whole `[.., 4, 2]` stays a copy);
//! - each operand is computed in this function by a loop nest (`Computes::
//!   Nest`, a CPU plan or plain loops, its epilogue chain's last value
//!   included), has no other reader, is not returned, and is read once;
//! - so a concatenation's part is never a concatenation computed in place
//!   (one level).
//!
//! The arena ([`super::body`]) places the concatenation's buffer when its
//! first part is computed and gives the parts no place of their own.

use std::collections::{HashMap, HashSet};

use melior::{
    dialect::ods,
    ir::{
        Attribute, Location, Value,
        attribute::DenseI64ArrayAttribute,
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use ocannl_dialect::{catalog, ir};
use ocannl_shape::projection::AxisIndex;

use super::emit::{At, Emitter};
use crate::{
    buffers::{element_of, value_buffer},
    projection_attrs::read_blocks,
    schedule::{Schedule, epilogue::key},
};

/// Where a part of a concatenation computed in place lives: its box in
/// the concatenation's buffer.
#[derive(Clone)]
pub(super) struct Part<'c, 'a> {
    /// The concatenation's result.
    pub whole: Value<'c, 'a>,
    /// The box's first cell, per buffer axis.
    pub offsets: Vec<u64>,
}

/// The parts of every concatenation computed in place (by the part's key)
/// and those concatenations (by op pointer).
#[derive(Default)]
pub(super) struct InPlace<'c, 'a> {
    pub parts: HashMap<usize, Part<'c, 'a>>,
    pub concats: HashSet<usize>,
}

/// What the body knows when it looks for concatenations to compute in
/// place.
pub(super) struct Facts<'s, 'c, 'a> {
    pub ops: &'s [OperationRef<'c, 'a>],
    pub returned: &'s [Value<'c, 'a>],
    pub schedules: &'s HashMap<usize, Schedule>,
    /// Producers (by op pointer) → the last value of their fused chain.
    pub chain_last: HashMap<usize, Value<'c, 'a>>,
    /// Ops folded into a producer (by op pointer).
    pub folded: &'s HashSet<usize>,
}

/// The concatenations among `facts.ops` that can be computed in place.
pub(super) fn find<'c, 'a>(facts: &Facts<'_, 'c, 'a>) -> InPlace<'c, 'a> {
    let mut readers: HashMap<usize, usize> = HashMap::new();
    for op in facts.ops {
        for v in op.operands() {
            *readers.entry(key(v)).or_default() += 1;
        }
    }
    for v in facts.returned {
        *readers.entry(key(*v)).or_default() += 1;
    }
    // The op whose nest writes each value: its own op, or the producer
    // whose chain ends in it.
    let mut writer: HashMap<usize, OperationRef<'c, 'a>> = HashMap::new();
    for op in facts.ops {
        let ptr = op.to_raw().ptr as usize;
        if facts.folded.contains(&ptr) {
            continue;
        }
        match facts.chain_last.get(&ptr) {
            Some(last) => writer.insert(key(*last), *op),
            None => op
                .result(0)
                .ok()
                .and_then(|r| writer.insert(key(r.into()), *op)),
        };
    }
    let mut out = InPlace::default();
    for op in facts.ops {
        if let Some(parts) = parts_of(facts, *op, &readers, &writer)
            && parts.iter().all(|(v, _)| !out.parts.contains_key(&key(*v)))
        {
            let whole: Value<'c, 'a> = op.result(0).expect("a concatenation").into();
            out.concats.insert(op.to_raw().ptr as usize);
            for (v, offsets) in parts {
                out.parts.insert(key(v), Part { whole, offsets });
            }
        }
    }
    out
}

/// The operands of `op` and their boxes' first cells, when `op` is a
/// concatenation that can be computed in place.
fn parts_of<'c, 'a>(
    facts: &Facts<'_, 'c, 'a>,
    op: OperationRef<'c, 'a>,
    readers: &HashMap<usize, usize>,
    writer: &HashMap<usize, OperationRef<'c, 'a>>,
) -> Option<Vec<(Value<'c, 'a>, Vec<u64>)>> {
    let def = catalog::lookup(&ir::op_name(&op))?;
    let ptr = op.to_raw().ptr as usize;
    if def.computes != catalog::Computes::Blocks
        || facts.folded.contains(&ptr)
        || !matches!(facts.schedules.get(&ptr), Some(s) if s.gpu_block().is_none())
    {
        return None;
    }
    let result: Value<'c, 'a> = op.result(0).ok()?.into();
    let (_, dims, _) = value_buffer(result, "result").ok()?;
    let operands: Vec<Value<'c, 'a>> = op.operands().collect();
    let operand_dims: Vec<Vec<u64>> = operands
        .iter()
        .map(|v| value_buffer(*v, "operand").ok().map(|b| b.1))
        .collect::<Option<_>>()?;
    let (space, blocks) = read_blocks(op, &operand_dims, &dims).ok()??;
    if blocks.len() != operands.len() || dims.contains(&0) {
        return None;
    }
    let mut parts = Vec::with_capacity(blocks.len());
    let mut volume: u128 = 0;
    for b in &blocks {
        let v = operands[b.operand];
        if parts.iter().any(|(p, _): &(Value, _)| key(*p) == key(v))
            || readers.get(&key(v)) != Some(&1)
            || !writes_plainly(facts, writer.get(&key(v))?)
        {
            return None;
        }
        let offsets = shifted_box(
            &b.indices,
            &b.result,
            &space,
            &operand_dims[b.operand],
            &dims,
        )?;
        if !keeps_contiguity(&operand_dims[b.operand], &dims) {
            return None;
        }
        volume += operand_dims[b.operand]
            .iter()
            .map(|&d| u128::from(d))
            .product::<u128>();
        parts.push((v, offsets));
    }
    // Disjoint boxes (no two parts start at the same cell and the volumes
    // add up to the result's) that cover it: every cell written once.
    let cells: u128 = dims.iter().map(|&d| u128::from(d)).product();
    let boxes: Vec<Vec<(i64, i64)>> = parts
        .iter()
        .zip(&blocks)
        .map(|((_, off), b)| {
            off.iter()
                .zip(&operand_dims[b.operand])
                .map(|(&o, &d)| (o as i64, (o + d) as i64 - 1))
                .collect()
        })
        .collect();
    (volume == cells && !ocannl_shape::projection::any_overlap(&boxes)).then_some(parts)
}

/// Whether the view keeps every axis the part's own buffer has contiguous
/// (those after which the part has only axes of size 1) contiguous too:
/// the writer's plan stores vectors along such an axis, consecutive cells
/// of memory. A part `[.., 4, 1]` of a whole `[.., 4, 2]` would have its
/// fourth axis 2 cells apart in the view.
fn keeps_contiguity(part: &[u64], whole: &[u64]) -> bool {
    let inner = part.iter().rposition(|&d| d > 1).map_or(0, |t| t + 1);
    whole[inner..].iter().all(|&d| d == 1)
}

/// Whether `w` computes its result with a loop nest on the CPU, into
/// whatever buffer it is given.
fn writes_plainly(facts: &Facts<'_, '_, '_>, w: &OperationRef<'_, '_>) -> bool {
    catalog::lookup(&ir::op_name(w)).is_some_and(|d| d.computes == catalog::Computes::Nest)
        && w.result_count() == 1
        && matches!(
            facts.schedules.get(&(w.to_raw().ptr as usize)),
            Some(Schedule::Cpu { .. } | Schedule::Loops { .. })
        )
}

/// The box's first cell when the block copies every cell of its operand
/// (axis `a` by iterator `i_a` over the whole axis, or its one cell) to
/// the same cell shifted along the result's axes (`i_a + offset_a`).
fn shifted_box(
    indices: &[AxisIndex],
    result: &[AxisIndex],
    space: &[u64],
    operand_dims: &[u64],
    dims: &[u64],
) -> Option<Vec<u64>> {
    if indices.len() != dims.len() || result.len() != dims.len() {
        return None;
    }
    let mut seen = Vec::new();
    let mut offsets = Vec::with_capacity(dims.len());
    for ((a, r), (&od, &d)) in indices
        .iter()
        .zip(result)
        .zip(operand_dims.iter().zip(dims))
    {
        let offset = match (a, r) {
            // An axis of size 1 (a batch of one): its one cell.
            (AxisIndex::Fixed(0), AxisIndex::Fixed(c)) if od == 1 => *c,
            (AxisIndex::Iter(i), r) => {
                if space.get(*i) != Some(&od) || seen.contains(i) {
                    return None;
                }
                seen.push(*i);
                match r {
                    AxisIndex::Iter(j) if j == i => 0,
                    AxisIndex::Affine(x) if x.over == Some((*i, 1)) && x.kernel.is_none() => {
                        u64::try_from(x.offset).ok()?
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        if offset.checked_add(od)? > d {
            return None;
        }
        offsets.push(offset);
    }
    Some(offsets)
}

impl<'c> Emitter<'c> {
    /// `memref.reinterpret_cast` of `whole` (an identity-layout buffer of
    /// `whole_dims`) to the box of `dims` cells from `offsets`: the part's
    /// view, with the whole's strides.
    pub(super) fn part_view<'a>(
        &self,
        at: At<'c, 'a>,
        whole: Value<'c, 'a>,
        whole_dims: &[u64],
        offsets: &[u64],
        dims: &[u64],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let mut strides = vec![1i64; whole_dims.len()];
        for a in (0..whole_dims.len().saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * whole_dims[a + 1] as i64;
        }
        let first: i64 = offsets
            .iter()
            .zip(&strides)
            .map(|(&o, &s)| o as i64 * s)
            .sum();
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let layout = Attribute::parse(
            self.ctx,
            &format!("strided<[{}], offset: {first}>", list(&strides)),
        )
        .expect("a valid strided layout");
        let sizes: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let ty = MemRefType::new(element_of(whole), &sizes, Some(layout), None);
        let i64s = |v: &[i64]| -> Attribute<'c> { DenseI64ArrayAttribute::new(self.ctx, v).into() };
        let op = ods::memref::reinterpret_cast(
            self.ctx,
            ty.into(),
            whole,
            &[],
            &[],
            &[],
            i64s(&[first]),
            i64s(&sizes),
            i64s(&strides),
            loc,
        );
        self.put_value(at, self.with_segments(op, &[1, 0, 0, 0]))
    }
}

#[cfg(test)]
mod tests {
    use super::keeps_contiguity;

    /// Channels-last parts of a channels concatenation keep their
    /// contiguity; a part whose last axes have size 1 inside a wider
    /// whole does not.
    #[test]
    fn contiguity() {
        assert!(keeps_contiguity(&[1, 13, 13, 64], &[1, 13, 13, 128]));
        assert!(keeps_contiguity(&[2, 3], &[5, 3]));
        assert!(!keeps_contiguity(&[1, 1], &[2, 1]));
        assert!(!keeps_contiguity(&[2, 4, 7, 4, 1], &[2, 4, 7, 4, 2]));
        assert!(!keeps_contiguity(&[2, 1, 1], &[2, 3, 1]));
    }
}
