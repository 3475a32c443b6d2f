//! Fusion of pointwise consumers into their producer: a chain of unary
//! pointwise ops (`relu`, `exp`, `neg`, ...), each the only reader of the
//! value before it, on the same cells, is computed in the producer's nest
//! as an epilogue on each final value before it is stored: no buffer for
//! the values in between, one pass over memory instead of one per op.
//! A contraction's epilogue (`fma` then `relu`) runs once per result cell,
//! after its reduction.

use std::collections::HashMap;

use melior::ir::{
    Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{
    catalog::{self, ShapeLogic},
    ir,
};

use super::{body::key, buffers::buffer_type, compute::Compute};

/// A producer and the unary ops folded into it.
pub(super) struct Chain<'c, 'a> {
    pub producer: OperationRef<'c, 'a>,
    /// The folded ops' functions, in order.
    pub epilogue: Vec<Compute>,
    /// The chain's last value: what the producer's nest now computes.
    pub last: Value<'c, 'a>,
    /// The values in between (the producer's result included): no buffer.
    pub hidden: Vec<Value<'c, 'a>>,
    pub folded: Vec<OperationRef<'c, 'a>>,
}

/// The op's function when it is a unary pointwise op of the catalog.
fn unary(op: &OperationRef<'_, '_>) -> Option<Compute> {
    let def = catalog::lookup(&ir::op_name(op))?;
    if def.logic != ShapeLogic::PointwiseUn || op.operand_count() != 1 || op.result_count() != 1 {
        return None;
    }
    match super::nests::scalar_function(*op, def, 1).ok()? {
        f @ Compute::Unary(_) => Some(f),
        _ => None,
    }
}

/// Whether the op's nest can take an epilogue: an ocannl op with one
/// result computed by a loop nest (not a terminal or a concatenation).
fn producer(op: &OperationRef<'_, '_>) -> bool {
    let name = ir::op_name(op);
    catalog::lookup(&name)
        .is_some_and(|def| def.computes == catalog::Computes::Nest && op.result_count() == 1)
}

/// The memory dims and element type of a value's buffer.
fn layout<'c>(v: Value<'c, '_>) -> Option<(Vec<u64>, melior::ir::Type<'c>)> {
    let (mty, dims, _) = buffer_type(v.r#type(), "value").ok()?;
    Some((dims, ir::shaped_element(mty)?))
}

/// The chains among `ops` (one function body, in order; `returned` are its
/// results, which always keep their buffers).
pub(super) fn chains<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    returned: &[Value<'c, 'a>],
) -> Vec<Chain<'c, 'a>> {
    let mut users: HashMap<usize, Vec<OperationRef<'c, 'a>>> = HashMap::new();
    for op in ops {
        for v in op.operands() {
            users.entry(key(v)).or_default().push(*op);
        }
    }
    let mut folded_ops: Vec<usize> = vec![];
    let mut out = vec![];
    for op in ops {
        if folded_ops.contains(&(op.to_raw().ptr as usize)) || !producer(op) {
            continue;
        }
        let Ok(first) = op.result(0) else { continue };
        let mut v: Value<'c, 'a> = first.into();
        let Some(shape) = layout(v) else { continue };
        let mut chain = Chain {
            producer: *op,
            epilogue: vec![],
            last: v,
            hidden: vec![],
            folded: vec![],
        };
        loop {
            if returned.iter().any(|r| key(*r) == key(v)) {
                break;
            }
            let Some([user]) = users.get(&key(v)).map(Vec::as_slice) else {
                break;
            };
            let Some(f) = unary(user) else { break };
            let Ok(next) = user.result(0) else { break };
            let next: Value<'c, 'a> = next.into();
            if layout(next).as_ref() != Some(&shape) {
                break;
            }
            chain.hidden.push(v);
            chain.epilogue.push(f);
            chain.folded.push(*user);
            folded_ops.push(user.to_raw().ptr as usize);
            v = next;
            chain.last = v;
        }
        if !chain.epilogue.is_empty() {
            out.push(chain);
        }
    }
    out
}
