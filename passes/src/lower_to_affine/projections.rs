//! An op's projections as the lowering reads them: the attributes of
//! `ocannl-infer-projections` ([`crate::projection_attrs`]), checked
//! against the buffers. The lowering never computes projections itself.

use melior::ir::{Value, operation::OperationRef};
use ocannl_shape::projection::Projections;

use crate::{
    buffers::buffer_dims,
    projection_attrs::{SpaceBlocks, read_blocks, read_projections},
};

/// The op's projections (`ocannl.indexing_maps`), checked against the
/// buffers.
pub(super) fn op_projections(
    op: OperationRef<'_, '_>,
    operands: &[Value<'_, '_>],
    dims: &[u64],
) -> Result<Projections, String> {
    let operand_dims: Vec<Vec<u64>> = operands.iter().map(|o| buffer_dims(*o)).collect();
    read_projections(op, &operand_dims, dims)?.ok_or_else(missing)
}

/// A concatenation's product space and blocks (`ocannl.blocks`), checked
/// against the buffers.
pub(super) fn op_blocks(
    op: OperationRef<'_, '_>,
    operands: &[Value<'_, '_>],
    dims: &[u64],
) -> Result<SpaceBlocks, String> {
    let operand_dims: Vec<Vec<u64>> = operands.iter().map(|o| buffer_dims(*o)).collect();
    read_blocks(op, &operand_dims, dims)?.ok_or_else(missing)
}

fn missing() -> String {
    "has no projections: run ocannl-infer-projections first (or a named pipeline such as ocannl-to-affine)".to_owned()
}
