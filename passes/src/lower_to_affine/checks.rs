//! What the lowering checks before it changes anything: functions it
//! can lower (signatures, reserved names, only ocannl ops, calls and
//! returns inside), and no recursion among them.

use std::collections::{HashMap, HashSet};

use melior::ir::{
    BlockLike, RegionLike, Type, ValueLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{catalog, ir};

use super::{Located, at, reserved};
use crate::{
    buffers::buffer_type,
    ffi::flow::{SymbolTables, call_info},
    tensor_types::function_type,
};

/// A function argument's or result's buffer is valid ([`buffer_type`]).
pub(super) fn signature_buffer(ty: Type<'_>, what: &str) -> Result<(), String> {
    buffer_type(ty, what).map(|_| ())
}

/// Records why `func` cannot be lowered: a reserved name, control flow,
/// ops other than ocannl ops, `func.call` to lowered functions and
/// `func.return`, tensors the lowering cannot hold.
pub(super) fn check_lowerable<'c, 'a>(
    func: OperationRef<'c, 'a>,
    lowered: &HashSet<usize>,
    tables: &mut SymbolTables,
    errors: &mut Vec<Located<'c>>,
) -> Vec<(usize, OperationRef<'c, 'a>)> {
    let mut callees = Vec::new();
    let name = ir::string_attr(&func, "sym_name").unwrap_or_default();
    if let Some(why) = reserved::reserved(&name) {
        errors.push(at(func.location(), why));
    }
    let entry = func.region(0).ok().and_then(|r| r.first_block());
    if let Some(f) = function_type(func) {
        for i in 0..f.input_count() {
            let ty = f.input(i).expect("index below input_count");
            let location = entry
                .and_then(|b| b.argument(i).ok())
                .map_or(func.location(), |a| a.location());
            if let Err(e) = signature_buffer(ty, &format!("argument #{i}")) {
                errors.push(at(location, e));
            }
        }
        for j in 0..f.result_count() {
            let ty = f.result(j).expect("index below result_count");
            if let Err(e) = signature_buffer(ty, &format!("result #{j}")) {
                errors.push(at(func.location(), e));
            }
        }
    }
    let Some(entry) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return callees;
    };
    let construct = |op: OperationRef<'c, '_>| {
        format!(
            "'{}' op cannot be lowered: functions on ocannl tensors may hold only ocannl ops, func.call to functions on ocannl tensors and func.return (control flow and other dialects are not lowered)",
            ir::op_name(&op)
        )
    };
    // Report control flow (ops with regions or successors) first: it names
    // the construct; other ops follow only when there is none.
    let mut control = Vec::new();
    let mut other = Vec::new();
    let mut block = Some(entry);
    while let Some(b) = block {
        let mut next = b.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let op_name = ir::op_name(&op);
            let ok = if op_name == "func.return" {
                b == entry
            } else if op_name == "func.call" {
                let callee = call_info(op, Some(&mut *tables))
                    .and_then(|c| c.callee)
                    .map(|c| c.to_raw().ptr as usize)
                    .filter(|c| lowered.contains(c));
                if let Some(c) = callee {
                    callees.push((c, op));
                }
                callee.is_some()
            } else {
                catalog::lookup(&op_name).is_some() && op.region_count() == 0
            };
            if !ok {
                let is_control = op.region_count() > 0
                    || b.successor_count() > 0 && b.terminator() == Some(op)
                    || b != entry;
                if is_control {
                    control.push(op)
                } else {
                    other.push(op)
                }
                continue;
            }
            for (i, r) in op.results().enumerate() {
                if let Err(e) = buffer_type(r.r#type(), &format!("result #{i}")) {
                    errors.push(at(op.location(), format!("'{op_name}' op: {e}")));
                }
            }
        }
        block = b.next_in_region();
    }
    let offending = if control.is_empty() {
        other.first().copied()
    } else {
        control.first().copied()
    };
    if let Some(op) = offending {
        errors.push(at(op.location(), construct(op)));
    }
    callees
}

/// A call that closes a cycle of calls among `funcs` (`calls`: per function,
/// by pointer, its callees and the calls to them), if any.
pub(super) fn find_recursion<'c, 'a>(
    funcs: &[OperationRef<'c, 'a>],
    calls: &HashMap<usize, Vec<(usize, OperationRef<'c, 'a>)>>,
) -> Option<OperationRef<'c, 'a>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut marks: HashMap<usize, Mark> = HashMap::new();
    for f in funcs {
        let start = f.to_raw().ptr as usize;
        if marks.contains_key(&start) {
            continue;
        }
        // Iterative DFS: (function, next call to follow).
        let mut stack = vec![(start, 0usize)];
        marks.insert(start, Mark::Open);
        while let Some(&mut (g, ref mut k)) = stack.last_mut() {
            let edges = calls.get(&g).map_or(&[][..], Vec::as_slice);
            match edges.get(*k) {
                Some(&(callee, op)) => {
                    *k += 1;
                    match marks.get(&callee) {
                        Some(Mark::Open) => return Some(op),
                        Some(Mark::Done) => {}
                        None => {
                            marks.insert(callee, Mark::Open);
                            stack.push((callee, 0));
                        }
                    }
                }
                None => {
                    marks.insert(g, Mark::Done);
                    stack.pop();
                }
            }
        }
    }
    None
}
