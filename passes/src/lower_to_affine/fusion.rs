//! The fusion groups of a function as its ops' schedules mark them
//! (`kind = "epilogue"`: computed in the nest of the producer of operand
//! `operand`), rebuilt and checked: each marked op must be a step
//! ([`crate::schedule::epilogue`]) of the value before it, which it alone
//! reads, which is not returned, computed by a producer (or an earlier
//! step) of this function, and its other operand computed before that
//! producer.

use std::collections::HashMap;

use melior::ir::{
    Value,
    operation::{OperationLike, OperationRef},
};

use ocannl_dialect::ir;

use super::{Located, at};
use crate::schedule::{
    Schedule,
    epilogue::{Chain, Step, binary, key, layout, producer, unary},
};

/// The chains the schedules of `ops` (one function body, in order; `returned`
/// its results) mark; `schedules` holds each op's (by its raw pointer).
pub(super) fn marked_chains<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    returned: &[Value<'c, 'a>],
    schedules: &HashMap<usize, Schedule>,
) -> Result<Vec<Chain<'c, 'a>>, Located<'c>> {
    let schedule = |op: &OperationRef<'c, 'a>| schedules.get(&(op.to_raw().ptr as usize));
    let mut users: HashMap<usize, usize> = HashMap::new();
    let mut defined: HashMap<usize, usize> = HashMap::new();
    for (n, op) in ops.iter().enumerate() {
        for v in op.operands() {
            *users.entry(key(v)).or_default() += 1;
        }
        for r in op.results() {
            defined.insert(key(r.into()), n);
        }
    }
    let mut chains: Vec<Chain<'c, 'a>> = vec![];
    // The chain (index, position of its producer) whose last value each
    // fused value is.
    let mut chain_of: HashMap<usize, (usize, usize)> = HashMap::new();
    for op in ops {
        let Some(Schedule::Epilogue { operand }) = schedule(op) else {
            continue;
        };
        let fail = |m: String| {
            Err(at(
                op.location(),
                format!(
                    "'{}' op cannot be computed as an epilogue ({} = {{kind = \"epilogue\", operand = {operand}}}): {m}",
                    ir::op_name(op),
                    crate::schedule::SCHEDULE
                ),
            ))
        };
        let Ok(v) = op.operand(*operand) else {
            return fail(format!("the op has no operand #{operand}"));
        };
        let Some(&def) = defined.get(&key(v)) else {
            return fail(format!(
                "operand #{operand} is not computed in this function"
            ));
        };
        if users.get(&key(v)) != Some(&1) || returned.iter().any(|r| key(*r) == key(v)) {
            return fail(format!(
                "operand #{operand} has other readers or is returned: it needs a buffer"
            ));
        }
        let (index, start) = match chain_of.get(&key(v)) {
            Some(&c) => c,
            None => {
                let p = ops[def];
                if !producer(&p)
                    || schedule(&p).is_none_or(|s| matches!(s, Schedule::Epilogue { .. }))
                {
                    return fail(format!(
                        "operand #{operand} is not computed by a loop nest with one result"
                    ));
                }
                chains.push(Chain {
                    producer: p,
                    epilogue: vec![],
                    last: v,
                    hidden: vec![],
                    folded: vec![],
                });
                (chains.len() - 1, def)
            }
        };
        let shape = layout(v);
        let available = |o: Value<'c, 'a>| defined.get(&key(o)).is_none_or(|&d| d < start);
        let step = if op.operand_count() == 1 {
            unary(op).map(|f| Step { f, other: None })
        } else {
            shape.as_ref().and_then(|s| binary(op, v, &s.0, available))
        };
        let Some(step) = step else {
            return fail(format!(
                "it is not a pointwise op on the cells of operand #{operand} (with its other operand computed before the producer)"
            ));
        };
        let next: Option<Value<'c, 'a>> = op.result(0).ok().map(Into::into);
        let Some(next) = next.filter(|n| shape.is_some() && layout(*n) == shape) else {
            return fail("its result has another layout than its operand".into());
        };
        let chain = &mut chains[index];
        chain.hidden.push(v);
        chain.epilogue.push(step);
        chain.folded.push(*op);
        chain.last = next;
        chain_of.insert(key(next), (index, start));
    }
    Ok(chains)
}
