//! `ocannl-profile-mark` and `ocannl-profile-ops`: each op's loop nests
//! timed when the program runs (`ocannl-run --profile`).
//!
//! - **`ocannl-profile-mark`** (after `ocannl-plan-schedule`, before
//!   `ocannl-lower-to-affine`) fuses the location of each ocannl op that
//!   gets a nest of its own with a marker naming the op and the ops its
//!   nest computes as epilogues (their schedules say `epilogue`):
//!   `loc(fused<["ocannl.profile", "ocannl.add", "ocannl.relu"]>[L])`. The
//!   lowering puts each op's nests in a block of their own and gives what
//!   it emits for an op, and the `cf.br` that ends its block, the op's
//!   location: the marker reaches the lowered function.
//! - **`ocannl-profile-ops`** (right after `ocannl-lower-to-affine`) takes
//!   each block of a function of the module whose `cf.br` carries a
//!   marker, and calls `@__ocannl_profile_begin(id)` before the block's
//!   first op at that location (the buffer views, the nests) and
//!   `@__ocannl_profile_end(id)` before the branch: `id` numbers the blocks
//!   from 0 (`i64`), and the two functions are declared as external
//!   `func.func private` (names starting with `__` are the compiler's: no
//!   lowered function can take them). Every marked location is restored.
//!   The table of the ids is the module attribute `ocannl.profile`: entry
//!   `id` is `[op, location, fused ops...]` (strings).
//!
//! Calls between the ops (`func.call`) stay outside the timed regions, so
//! a callee's ops are timed once, on their own lines. A dense constant read
//! in place and an op without cells have no nest, hence no line.
//! `ocannl-outline-nests` moves the calls with the nests they bracket.
//! The runtime binds the two symbols to its timer (`ocannl_runtime::Jit::profile`).
//! Only the functions of the module the passes run on are marked and timed
//! (not those of nested modules), on the CPU: a GPU's kernels run
//! asynchronously.

use std::collections::HashMap;

use melior::{
    Context,
    dialect::{func, ods},
    ir::{
        Attribute, BlockLike, BlockRef, Identifier, Location, Region, RegionLike, Type, ValueLike,
        attribute::{
            ArrayAttribute, AttributeLike, FlatSymbolRefAttribute, IntegerAttribute,
            StringAttribute, TypeAttribute,
        },
        operation::{
            OperationLike, OperationMutLike, OperationRef, OperationResult, WalkOrder, WalkResult,
        },
        r#type::{FunctionType, IntegerType},
    },
};
use ocannl_dialect::{catalog, diagnostics::emit_error, ir};

use crate::{
    ffi,
    pass::{PassDef, PassFailed, PassOptions},
    schedule::Schedule,
};

/// The registry entry of `ocannl-profile-mark`.
pub const MARK_PASS: PassDef = PassDef {
    argument: c"ocannl-profile-mark",
    description: c"Mark each ocannl op with a nest of its own for ocannl-profile-ops: its location fused with its name and the names of the ops fused into its nest (run after ocannl-plan-schedule, before ocannl-lower-to-affine)",
    anchor: Some(c"builtin.module"),
    options: &[],
    run: mark,
};

/// The registry entry of `ocannl-profile-ops`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-profile-ops",
    description: c"Time each op's loop nests: calls to __ocannl_profile_begin/end(id) around the block of each op ocannl-profile-mark marked (run right after ocannl-lower-to-affine); the table id -> [op, location, fused ops...] is the module attribute ocannl.profile",
    anchor: Some(c"builtin.module"),
    options: &[],
    run,
};

/// The module attribute holding the table: entry `id` is an array of
/// strings, `[op, location, fused ops...]`.
pub const TABLE: &str = "ocannl.profile";
/// The function called with an op's id before its nests.
pub const BEGIN: &str = "__ocannl_profile_begin";
/// The function called with an op's id after its nests.
pub const END: &str = "__ocannl_profile_end";
/// The first string of a marker's metadata.
const MARKER: &str = "ocannl.profile";

/// The functions directly in `root`.
fn functions<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    ir::collect_ops(root, |op| ir::Select {
        keep: ir::op_name(&op) == "func.func",
        descend: false,
    })
}

/// The ops of `func`'s first block, in order.
fn body_ops<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut next = func
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .and_then(|b| b.first_operation());
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    ops
}

fn key(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

/// A marked location: the location it wraps and the marker's names (the
/// op, then the ops fused into its nest).
fn marker(loc: Location<'_>) -> Option<(Location<'_>, Vec<String>)> {
    if !loc.is_fused() || loc.fused_num_locations() != 1 {
        return None;
    }
    let meta = loc.fused_metadata();
    if meta.to_raw().ptr.is_null() {
        return None;
    }
    let array = ArrayAttribute::try_from(meta).ok()?;
    let strings: Vec<String> = (0..array.len())
        .map(|i| array.element(i).ok().and_then(ir::string_value))
        .collect::<Option<_>>()?;
    match strings.split_first() {
        Some((head, names)) if head == MARKER && !names.is_empty() => {
            Some((loc.fused_location(0), names.to_vec()))
        }
        _ => None,
    }
}

fn mark<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    for func in functions(root) {
        let ops = body_ops(func);
        // The op whose nest computes each op (by position): its own, or
        // its producer's when its schedule makes it an epilogue.
        let mut nest_of: HashMap<usize, usize> = HashMap::new();
        let mut fused: HashMap<usize, Vec<String>> = HashMap::new();
        for (i, op) in ops.iter().enumerate() {
            let name = ir::op_name(op);
            if catalog::lookup(&name).is_none() {
                continue;
            }
            let producer = match Schedule::of(*op) {
                Ok(Some(Schedule::Epilogue { operand })) => op
                    .operand(operand)
                    .ok()
                    .and_then(|v| OperationResult::try_from(v).ok())
                    .and_then(|r| nest_of.get(&key(r.owner())).copied()),
                _ => None,
            };
            let at = producer.unwrap_or(i);
            nest_of.insert(key(*op), at);
            if at != i {
                fused.entry(at).or_default().push(name);
            }
        }
        let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
            continue;
        };
        // The same ops, mutable, in the same order.
        let mut next = block.first_operation_mut();
        let mut i = 0;
        while let Some(mut op) = next {
            next = op.next_in_block_mut();
            let own = ops.get(i).filter(|o| nest_of.get(&key(**o)) == Some(&i));
            if let Some(own) = own
                && marker(op.location()).is_none()
            {
                let mut names = vec![MARKER.to_owned(), ir::op_name(own)];
                names.extend(fused.remove(&i).unwrap_or_default());
                let strings: Vec<Attribute<'c>> = names
                    .iter()
                    .map(|n| StringAttribute::new(ctx, n).into())
                    .collect();
                let meta = ArrayAttribute::new(ctx, &strings).into();
                op.set_location(Location::fused(ctx, &[op.location()], meta));
            }
            i += 1;
        }
    }
    Ok(())
}

fn run<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    let mut table: Vec<Attribute<'c>> = root
        .attribute(TABLE)
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).collect())
        .unwrap_or_default();
    let before = table.len();
    let i64t: Type<'c> = IntegerType::new(ctx, 64).into();
    for func in functions(root) {
        let Ok(region) = func.region(0) else {
            continue;
        };
        let mut next = region.first_block();
        while let Some(block) = next {
            next = block.next_in_region();
            if let Some(entry) = time_block(ctx, block, table.len(), i64t) {
                table.push(entry);
            }
        }
        restore(func);
    }
    if table.len() == before {
        return Ok(());
    }
    declare(ctx, root, i64t)?;
    ir::set_discardable_attribute(root, TABLE, ArrayAttribute::new(ctx, &table).into());
    Ok(())
}

/// Brackets the nests of `block` with the timer's calls when its branch
/// carries a marker; returns the block's table entry.
fn time_block<'c>(
    ctx: &'c Context,
    block: BlockRef<'c, '_>,
    id: usize,
    i64t: Type<'c>,
) -> Option<Attribute<'c>> {
    let branch = block.terminator()?;
    if ir::op_name(&branch) != "cf.br" {
        return None;
    }
    let marked = branch.location();
    let (loc, names) = marker(marked)?;
    let mut first = block.first_operation()?;
    while first.location() != marked {
        first = first.next_in_block()?;
    }
    let value = IntegerAttribute::new(i64t, i64::try_from(id).ok()?).into();
    let constant = ods::arith::constant(ctx, i64t, value, loc).into();
    let constant = block.insert_operation_before(first, constant);
    let id_value = constant.result(0).ok()?.into();
    for (name, at) in [(BEGIN, first), (END, branch)] {
        let callee = FlatSymbolRefAttribute::new(ctx, name);
        block.insert_operation_before(at, ods::func::call(ctx, &[id_value], callee, loc).into());
    }
    let mut entry = vec![names[0].clone(), location_text(loc)];
    entry.extend(names[1..].iter().cloned());
    let strings: Vec<Attribute<'c>> = entry
        .iter()
        .map(|s| StringAttribute::new(ctx, s).into())
        .collect();
    Some(ArrayAttribute::new(ctx, &strings).into())
}

/// Gives every op of `func` with a marked location the location it wraps.
fn restore(func: OperationRef<'_, '_>) {
    let Ok(region) = func.region(0) else {
        return;
    };
    let mut next = region.first_block();
    while let Some(block) = next {
        next = block.next_in_region();
        let mut op = block.first_operation_mut();
        while let Some(mut o) = op {
            op = o.next_in_block_mut();
            o.walk_mut(WalkOrder::PreOrder, |mut inner| {
                if let Some((loc, _)) = marker(inner.location()) {
                    inner.set_location(loc);
                }
                restore_arguments(&inner);
                WalkResult::Advance
            });
        }
    }
}

/// Gives the arguments of the blocks of `op`'s regions (a loop's induction
/// variable) with a marked location the location it wraps.
fn restore_arguments<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) {
    for r in 0..op.region_count() {
        let mut next = op.region(r).ok().and_then(|r| r.first_block());
        while let Some(block) = next {
            next = block.next_in_region();
            for i in 0..block.argument_count() {
                if let Ok(arg) = block.argument(i)
                    && let Some((loc, _)) = marker(arg.location())
                {
                    ffi::location::set_argument_location(arg, loc);
                }
            }
        }
    }
}

/// Declares the timer's functions in `root` (`func.func private
/// @name(i64)`) unless it declares them already; a function of that name
/// with a body, or of another type, is an error.
fn declare<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    i64t: Type<'c>,
) -> Result<(), PassFailed> {
    let fty = FunctionType::new(ctx, &[i64t], &[]);
    let body = root
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or(PassFailed)?;
    let existing: HashMap<String, OperationRef<'c, '_>> = ir::collect_ops(root, |_| ir::Select {
        keep: true,
        descend: false,
    })
    .into_iter()
    .filter_map(|op| ir::string_attr(&op, "sym_name").map(|n| (n, op)))
    .collect();
    for name in [BEGIN, END] {
        if let Some(op) = existing.get(name) {
            let declared = ir::op_name(op) == "func.func"
                && op.region(0).ok().is_none_or(|r| r.first_block().is_none())
                && crate::tensor_types::function_type(*op)
                    .is_some_and(|t| Type::from(t) == Type::from(fty));
            if declared {
                continue;
            }
            emit_error(
                op.location(),
                &format!(
                    "symbol '@{name}' is reserved: ocannl-profile-ops declares it as the timer's `func.func private @{name}(i64)`"
                ),
                &[],
            );
            return Err(PassFailed);
        }
        let visibility = (
            Identifier::new(ctx, "sym_visibility"),
            StringAttribute::new(ctx, "private").into(),
        );
        body.append_operation(func::func(
            ctx,
            StringAttribute::new(ctx, name),
            TypeAttribute::new(fty.into()),
            Region::new(),
            &[visibility],
            Location::unknown(ctx),
        ));
    }
    Ok(())
}

/// A location as the profile prints it: `file:line:col`, a name, or the
/// first location of a fused or call-site one.
fn location_text(loc: Location<'_>) -> String {
    if loc.is_file_line_col_range() {
        let file = loc.file_line_col_range_filename();
        format!(
            "{}:{}:{}",
            ir::str_of(file.as_string_ref()),
            loc.file_line_col_range_start_line(),
            loc.file_line_col_range_start_column()
        )
    } else if loc.is_name() {
        let name = loc.name_value();
        ir::str_of(name.as_string_ref()).into_owned()
    } else if loc.is_call_site() {
        location_text(loc.call_site_callee())
    } else if loc.is_fused() && loc.fused_num_locations() > 0 {
        location_text(loc.fused_location(0))
    } else {
        loc.to_string()
    }
}
