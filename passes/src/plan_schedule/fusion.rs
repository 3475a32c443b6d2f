//! Fusion of pointwise consumers into their producer: a chain of pointwise
//! ops, each the only reader of the value before it, on the same cells, is
//! computed in the producer's nest as an epilogue on each final value
//! before it is stored: no buffer for the values in between, one pass over
//! memory instead of one per op. A chain step is a unary op (`relu`,
//! `exp`, ...) or a binary op whose other operand is computed before the
//! producer (a bias, a residual): `add(matmul, b)` then `relu` is one nest.
//! A contraction's epilogue runs once per result cell, after its
//! reduction.

use std::collections::HashMap;

use melior::ir::{
    Value,
    operation::{OperationLike, OperationRef},
};

use crate::schedule::{
    Schedule,
    epilogue::{Chain, Step, binary, key, layout, producer, unary},
};

/// The chains among `ops` (one function body, in order; `returned` are its
/// results, which always keep their buffers).
/// `given` is an op's schedule written before planning (honoured: an op
/// with one other than `epilogue` is never folded).
pub(super) fn chains<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    returned: &[Value<'c, 'a>],
    given: impl Fn(&OperationRef<'c, 'a>) -> Option<Schedule>,
) -> Vec<Chain<'c, 'a>> {
    let mut users: HashMap<usize, Vec<OperationRef<'c, 'a>>> = HashMap::new();
    // Where each op result is defined (function arguments are not).
    let mut defined: HashMap<usize, usize> = HashMap::new();
    for (n, op) in ops.iter().enumerate() {
        for v in op.operands() {
            users.entry(key(v)).or_default().push(*op);
        }
        for r in op.results() {
            defined.insert(key(r.into()), n);
        }
    }
    let mut folded_ops: Vec<usize> = vec![];
    let mut out = vec![];
    for (n, op) in ops.iter().enumerate() {
        if folded_ops.contains(&(op.to_raw().ptr as usize))
            || !producer(op)
            || matches!(given(op), Some(Schedule::Epilogue { .. }))
        {
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
        // A binary step's other operand is read where the producer runs:
        // it must be computed before.
        let available = |o: Value<'c, 'a>| defined.get(&key(o)).is_none_or(|&d| d < n);
        loop {
            if returned.iter().any(|r| key(*r) == key(v)) {
                break;
            }
            let Some([user]) = users.get(&key(v)).map(Vec::as_slice) else {
                break;
            };
            if given(user).is_some_and(|s| !matches!(s, Schedule::Epilogue { .. })) {
                break;
            }
            let step = match unary(user) {
                Some(f) => Step { f, other: None },
                None => match binary(user, v, &shape.0, available) {
                    Some(s) => s,
                    None => break,
                },
            };
            let Ok(next) = user.result(0) else { break };
            let next: Value<'c, 'a> = next.into();
            if layout(next).as_ref() != Some(&shape) {
                break;
            }
            chain.hidden.push(v);
            chain.epilogue.push(step);
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
