//! `ocannl.concat`'s lowering: one loop nest per block of the
//! concatenation ([`Projections::blocks`](ocannl_shape::projection::Projections::blocks)).
//!
//! Linear in the number of blocks: each nest ends a block of the function
//! body of its own (upstream `scf-to-cf` splits the block at every loop and
//! moves the ops after it, which over one block of n nests is quadratic: a
//! concatenation of 4,000 parts took 9 s in `scf-to-cf` alone), and the
//! check whether blocks overlap sweeps over the blocks sorted along one
//! axis instead of comparing every pair.

use melior::ir::{
    Value,
    operation::{OperationLike, OperationRef},
};
use ocannl_shape::projection::{AxisIndex, any_overlap};

use super::{
    buffers::element_of,
    emit::{At, Emitter},
    nests::{check_elements, plain_box},
};
use crate::{infer_projections::projections, projection_attrs::block_local};

impl<'c> Emitter<'c> {
    /// `ocannl.concat` (OCANNL's Block with `concat_sum`'s `Identity` and
    /// `Add`): one loop nest per block, in sequence, each in a block of its
    /// own, over the block's active iterators; each copies its one operand
    /// into its part of the result. Cells no block writes are 0; cells
    /// several blocks (or several iterations of one) reach are summed into
    /// a 0-filled result. `at` moves to the end of the last block.
    pub(super) fn lower_block<'a>(
        &self,
        at: &mut At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        operands: &[Value<'c, 'a>],
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let elem = element_of(buf);
        check_elements(operands, elem, false)?;
        // Always from the shapes: blocks are not affine maps of one nest.
        let p = projections(op)?.ok_or_else(|| "has no projections".to_owned())?;
        let blocks = p.blocks().map_err(|e| e.to_string())?;
        let space = &p.product_space;
        // Each block writes a box of the result; where boxes overlap, or a
        // block iterates over a size > 1 the result does not see, cells are
        // reached more than once and the values add up.
        let boxes: Vec<Vec<(i64, i64)>> = blocks
            .iter()
            .map(|b| b.result.iter().map(|a| a.range(space)).collect())
            .collect();
        let reduces = blocks.iter().any(|b| {
            b.iterators
                .iter()
                .any(|&i| space[i] > 1 && !b.result.iter().any(|a| a.uses(i)))
        });
        let accumulate = reduces || any_overlap(&boxes);
        // Without accumulation the boxes are disjoint: they cover the result
        // when each is a plain box and their volumes add up to its size.
        let volume: u128 = boxes
            .iter()
            .map(|bx| {
                bx.iter()
                    .map(|(lo, hi)| (i128::from(*hi) - i128::from(*lo) + 1).max(0) as u128)
                    .fold(1u128, u128::saturating_mul)
            })
            .fold(0u128, u128::saturating_add);
        let cells: u128 = dims.iter().map(|&d| u128::from(d)).product();
        let covered =
            !accumulate && blocks.iter().all(|b| plain_box(&b.result, dims)) && volume == cells;
        if !covered {
            self.fill(*at, buf, dims, self.scalar_attr(elem, 0.0), loc);
        }
        for (j, b) in blocks.iter().enumerate() {
            if j > 0 {
                *at = self.next_block(*at, loc);
            }
            let sizes: Vec<u64> = b.iterators.iter().map(|&i| space[i]).collect();
            let (inner, ivs) = self.nest(*at, &sizes, loc);
            let n = b.iterators.len();
            let local = |indices: &[AxisIndex]| block_local(indices, &b.iterators);
            let map = self.map(n, &local(&b.indices));
            let mut value = self.load(inner, operands[b.operand], map, &ivs, loc);
            let result_map = self.map(n, &local(&b.result));
            if accumulate {
                let old = self.load(inner, buf, result_map, &ivs, loc);
                value = self.binary(inner, "add", elem, old, value, loc)?;
            }
            self.store(inner, value, buf, result_map, &ivs, loc);
        }
        Ok(())
    }
}
