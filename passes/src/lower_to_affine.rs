//! `ocannl-lower-to-affine`: functions on ocannl tensors become functions on
//! memrefs whose every op is an affine loop nest over its product space.
//!
//! Reference: ocannl-shape-inference.md, "Projections inference", and
//! OCANNL's `arrayjit/lib/assignments.ml` (the loop nest of an assignment
//! and its initialisation).
//!
//! - **Buffers.** A tensor of shape `batch|input->output` is a
//!   `memref<batch x output x input x elem>` (memory order batch, output,
//!   input; row-major, identity layout). Shapes must be concrete: run
//!   `ocannl-infer-shapes` first. Element types: `f16`, `bf16`, `f32`,
//!   `f64`, `i1`, `i8`, `i16`, `i32`, `i64`; a buffer must fit in 2^63
//!   bytes.
//! - **Calling convention** (destination passing). `func.func @f(%a, %b) ->
//!   (r1, r2)` becomes `func.func @f(%a, %b, %r1, %r2)` with no results: the
//!   caller owns every buffer and the function writes its results into the
//!   trailing arguments. `func.call`s between lowered functions follow it;
//!   declarations are lowered to declarations of the same convention.
//! - **Intermediates** live in one arena per function (`memref.alloc` of
//!   bytes, a `memref.view` per buffer at a static offset), reused once a
//!   buffer's last reader has run (`arena.rs`); the lowered function
//!   records the arena's size as `ocannl.intermediate_bytes`.
//! - **One block per op.** Each op's loop nests end their own block with a
//!   `cf.br` to the next: upstream `scf-to-cf` splits the block at every
//!   loop and moves the ops after it, which over one block of n ops is
//!   quadratic; over blocks of one op the whole pipeline stays linear.
//! - **Loop nests, as the attributes say.** The lowering reads what the
//!   earlier passes wrote and calls no other pass's code: each op's nest
//!   over its product space through its projection maps
//!   (`ocannl.indexing_maps`, or `ocannl.blocks` for a concatenation, from
//!   `ocannl-infer-projections`: `projection_attrs.rs`), emitted as
//!   its schedule says (`ocannl.schedule`, from `ocannl-plan-schedule` or
//!   written by hand: `schedule.rs`): a CPU plan (vector lanes,
//!   register blocks carried in `iter_args`, cache tiles, packed panels,
//!   remainders: `cpu/`), plain loops (one scalar `affine.for` per
//!   iterator, reductions inside), a GPU grid or a tiled kernel (`gpu/`);
//!   the ops marked `epilogue` computed in their producer's nest
//!   (`fusion.rs`). Both are checked against the types and projections
//!   first (`schedule/legal.rs`): an op without them, or with ones
//!   its nest cannot obey, is a located error naming the pass to run or
//!   the field at fault. What the op computes (scalar function,
//!   accumulator, initial operand, or a terminal's kind) comes from the
//!   catalog (ODS), never from its name.
//! - **Initialisation** (OCANNL's rule). A store that is not injective
//!   (the op reduces over iterators absent from the result) accumulates with
//!   the op's `accum` operator into a buffer first filled with its neutral
//!   element; a store that is not surjective (fixed indices, diagonals such
//!   as `i=>ii`) is preceded by a fill with the neutral element (0 for a
//!   plain assignment). `ocannl.fma` (`a * b + c`) initialises its result
//!   from `c`, then accumulates `a * b`.
//! - **Terminals.** `ocannl.constant` fills (scalar or splat, which must
//!   fit the element type) or copies a private `memref.global` (dense
//!   values); `ocannl.range` stores each cell's linear index;
//!   `ocannl.reshape` copies in memory order through a delinearising map.
//! - **Integer division** never traps: `x / 0` is 0 and `MIN / -1` is `MIN`.
//!
//! Concatenations (`ocannl.concat`) lower to one nest (or copy) per block
//! of their projections (`ocannl.blocks`), in sequence.
//!
//! Everything that cannot be lowered is an error before the IR changes:
//! ocannl ops outside a `func.func`, control flow (`cf`, `scf`) or other
//! ops in a function on ocannl tensors, reserved function names (`malloc`,
//! `free`, names starting with `__`, `_mlir` or `llvm.`: see `reserved.rs`),
//! unsupported element types, buffers past 2^63 bytes.
//!
//! The modules, by layer; each uses only modules of its own layer or an
//! earlier one (no import circle: `scripts/import-graph.py`):
//!
//! - **Data** (the crate's shared modules, the contract with the planner:
//!   `crate::buffers`, `crate::compute`, `crate::schedule` and its plan,
//!   epilogue steps, memory facts and legality); here `arena.rs` (placing
//!   intermediates), `target.rs` (the device an op's schedule names),
//!   `projections.rs` (an op's projection attributes, read back).
//! - **Checks** before anything changes: `checks.rs`, `reserved.rs`; the
//!   fusion groups the schedules mark (`fusion.rs`).
//! - **Building IR**: `emit.rs` (upstream ops from melior's typed
//!   builders, nests, loads and stores, constants) and `emit/` (loops,
//!   vector ops and GPU grids; values at one cell; epilogues).
//! - **Emission**: `terminals.rs`, `concat.rs`, `cpu/` (a plan's loops,
//!   micro-kernel, packed panels and lane reductions, over the op's view
//!   in `cpu/view.rs`), `gpu/` (grids, tiled kernels), `nests.rs` (one op:
//!   its schedule checked, then emitted by one of these), `body.rs` (bufferization: a
//!   function's buffers and arena, its ops and calls, the return).

mod arena;
mod body;
mod checks;
mod concat;
mod cpu;
mod emit;
mod fusion;
mod gather;
mod gpu;
mod in_place;
mod nests;
mod projections;
mod reserved;
mod target;
mod terminals;

use std::collections::{HashMap, HashSet};

use melior::{
    Context,
    dialect::func::func as func_op,
    ir::{
        Attribute, Block, BlockLike, BlockRef, Identifier, Location, Region, RegionLike, Type,
        ValueLike,
        attribute::{IntegerAttribute, StringAttribute, TypeAttribute},
        operation::{Operation, OperationLike, OperationRef},
        r#type::{DimSize, FunctionType, MemRefType, ShapedTypeLike},
    },
};
use ocannl_dialect::{catalog, diagnostics::emit_error, ir};

use self::{
    checks::{check_lowerable, find_recursion},
    emit::Emitter,
};
use crate::{
    buffers::buffer_type,
    pass::{PassDef, PassFailed, PassOptions},
    schedule::Schedule,
    tensor_types::{function_type, is_ocannl_function},
};

/// The registry entry of `ocannl-lower-to-affine`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-lower-to-affine",
    description: c"Lower functions on ocannl tensors to memrefs and affine loop nests (destination-passing results, one block per op, one arena per function), obeying each op's projections and schedule",
    anchor: Some(c"builtin.module"),
    options: &[],
    run,
};

/// An error at a location.
struct Located<'c> {
    location: Location<'c>,
    message: String,
}

fn at<'c>(location: Location<'c>, message: impl Into<String>) -> Located<'c> {
    Located {
        location,
        message: message.into(),
    }
}

/// Where new module-level ops (constants' globals, the lowered function)
/// go: before the function being lowered, in its module; and the symbol
/// names taken.
pub(super) struct Module<'c, 'a> {
    block: BlockRef<'c, 'a>,
    before: OperationRef<'c, 'a>,
    symbols: Symbols,
    created: Vec<OperationRef<'c, 'a>>,
    /// The constant globals copied at compile time into a layout of a
    /// kernel's (`cpu/blocked.rs`), with their `get_global`s.
    relaid: Vec<(OperationRef<'c, 'a>, OperationRef<'c, 'a>)>,
}

/// The symbol names taken in the pass's module, and the next suffix to try
/// per base name (so naming n globals `__ocannl_constant`,
/// `__ocannl_constant_1`, ... stays linear).
#[derive(Default)]
struct Symbols {
    taken: HashSet<String>,
    next: HashMap<String, usize>,
}

impl<'c, 'a> Module<'c, 'a> {
    /// `base`, or `base_1`, `base_2`... whichever no symbol has.
    pub(super) fn fresh_symbol(&mut self, base: &str) -> String {
        let symbols = &mut self.symbols;
        let n = symbols.next.entry(base.to_owned()).or_insert(0);
        let mut name = if *n == 0 {
            base.to_owned()
        } else {
            format!("{base}_{n}")
        };
        while symbols.taken.contains(&name) {
            *n += 1;
            name = format!("{base}_{n}");
        }
        *n += 1;
        symbols.taken.insert(name.clone());
        name
    }

    /// The `memref.global` named `name` this pass created for the function
    /// being lowered.
    pub(super) fn created_global(&self, name: &str) -> Option<OperationRef<'c, 'a>> {
        self.created.iter().copied().find(|op| {
            ir::op_name(op) == "memref.global"
                && ir::string_attr(op, "sym_name").as_deref() == Some(name)
        })
    }

    /// Records that constant `global`, read by `get`, was copied into a
    /// new global in another layout at compile time.
    pub(super) fn note_relaid(&mut self, get: OperationRef<'c, 'a>, global: OperationRef<'c, 'a>) {
        if !self.relaid.iter().any(|&(g, _)| g == get) {
            self.relaid.push((get, global));
        }
    }

    /// Once the function is lowered: each constant copied into another
    /// layout that nothing reads any more (every op that read it reads the
    /// copy), its `get_global` and its global erased.
    fn drop_unread_constants(&mut self) {
        for (get, global) in std::mem::take(&mut self.relaid) {
            let unread = get.result(0).is_ok_and(|r| !ir::has_uses(r.into()));
            if unread {
                ir::erase_op(get);
                self.created.retain(|op| *op != global);
                ir::erase_op(global);
            }
        }
    }

    /// Inserts a module-level op.
    pub(super) fn insert(&mut self, op: Operation<'c>) -> OperationRef<'c, 'a> {
        let op = self.block.insert_operation_before(self.before, op);
        self.created.push(op);
        op
    }
}

fn run<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    let mut symbols = Symbols::default();
    let mut funcs = Vec::new();
    let mut stray = Vec::new();
    for op in ir::collect_ops(root, |op| ir::Select {
        keep: true,
        descend: ir::op_name(&op) != "func.func",
    }) {
        if let Some(name) = ir::string_attr(&op, "sym_name") {
            symbols.taken.insert(name);
        }
        let name = ir::op_name(&op);
        if name == "func.func" {
            if is_ocannl_function(op) {
                funcs.push(op);
            }
        } else if catalog::lookup(&name).is_some() {
            stray.push(op);
        }
    }
    // Everything that cannot be lowered is reported before anything changes.
    let mut errors: Vec<Located<'c>> = stray
        .iter()
        .map(|op| {
            at(
                op.location(),
                format!(
                    "'{}' op outside a function cannot be lowered: ocannl-lower-to-affine lowers ocannl ops inside func.func",
                    ir::op_name(op)
                ),
            )
        })
        .collect();
    let on_gpu: Vec<OperationRef<'c, '_>> = funcs.iter().copied().filter(|f| on_gpu(*f)).collect();
    errors.extend(nested_gpu_functions(root, &on_gpu));
    errors.extend(on_gpu.iter().filter_map(|f| non_ptx_name(*f)));
    let lowered: HashSet<usize> = funcs.iter().map(|f| f.to_raw().ptr as usize).collect();
    let mut calls = HashMap::new();
    let mut tables = crate::ffi::flow::SymbolTables::new();
    for &func in &funcs {
        let callees = check_lowerable(func, &lowered, &mut tables, &mut errors);
        calls.insert(func.to_raw().ptr as usize, callees);
    }
    if let Some(call) = find_recursion(&funcs, &calls) {
        errors.push(at(
            call.location(),
            "recursive call: a function on ocannl tensors has no control flow, so its recursion never ends",
        ));
    }
    if !errors.is_empty() {
        for e in errors {
            emit_error(e.location, &e.message, &[]);
        }
        return Err(PassFailed);
    }
    let em = Emitter {
        ctx,
        target: target::Target::default(),
    };
    let mut failed = false;
    for func in funcs {
        let block = func.block().expect("a function inside a module");
        let mut module = Module {
            block,
            before: func,
            symbols,
            created: Vec::new(),
            relaid: Vec::new(),
        };
        match lower_function(em, &mut module, func) {
            Ok(()) => ir::erase_op(func),
            Err(e) => {
                for op in std::mem::take(&mut module.created) {
                    ir::erase_op(op);
                }
                emit_error(e.location, &e.message, &[]);
                failed = true;
            }
        }
        symbols = module.symbols;
    }
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// Whether an op of `func` is scheduled for the GPU (`grid` or `tiled`).
fn on_gpu(func: OperationRef<'_, '_>) -> bool {
    !ir::collect_ops(func, |op| ir::Select {
        keep: Schedule::of(op).is_ok_and(|s| s.is_some_and(|s| s.gpu_block().is_some())),
        descend: true,
    })
    .is_empty()
}

/// Of the functions `funcs` with GPU schedules, those not directly in `root` (in a
/// nested module), each an error: the upstream passes that turn their grids
/// into kernels (`gpu-map-parallel-loops` on the module's functions,
/// `gpu-kernel-outlining` into the module's symbol table) see only the
/// functions of the module they run on, so a nested function's grids would
/// be left as host loops (`ocannl-to-nvvm` exited 0 with no kernel for it).
/// Run on the nested module instead, as the message says.
fn nested_gpu_functions<'c>(
    root: OperationRef<'c, '_>,
    funcs: &[OperationRef<'c, '_>],
) -> Vec<Located<'c>> {
    let root = root.to_raw().ptr;
    funcs
        .iter()
        .filter(|f| f.parent_operation().is_some_and(|p| p.to_raw().ptr != root))
        .map(|f| {
            at(
                f.location(),
                "function in a nested module: with target=gpu, ocannl-lower-to-affine (and ocannl-to-nvvm) lower the functions of the module they run on, whose kernels the upstream GPU passes outline there; run the pipeline on the nested module (e.g. -p 'builtin.module(builtin.module(ocannl-to-nvvm))')",
            )
        })
        .collect()
}

/// For a function with GPU schedules, an error when its name is no PTX
/// identifier (`[A-Za-z_$][A-Za-z0-9_$]*` here; PTX ISA, "Identifiers"):
/// `gpu-kernel-outlining` names its kernels `<function>_kernel`, and LLVM's
/// NVPTX printer aborts the process on such a symbol.
fn non_ptx_name<'c>(func: OperationRef<'c, '_>) -> Option<Located<'c>> {
    let name = ir::string_attr(&func, "sym_name")?;
    let head_ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$');
    let ok = head_ok
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    (!ok).then(|| {
        at(
            func.location(),
            format!(
                "function name '{name}' is not a PTX identifier (letters, digits, '_' and '$', not starting with a digit): with target=gpu its kernels are named after it; rename the function"
            ),
        )
    })
}

/// The type a buffer of type `mty` has in a lowered function's signature:
/// itself, or `memref<0xT>` when it is empty along an axis after its
/// first. Upstream `convert-func-to-llvm` cannot compute the strides of
/// such an identity-layout memref (`memref<4x0x5xf32>`) and silently
/// leaves the function unconverted; an empty buffer holds nothing, so the
/// body uses a zero-size `memref.alloca` of its own type instead, and
/// callers pass one of `memref<0xT>`.
pub(crate) fn boundary_type(mty: Type<'_>) -> Type<'_> {
    match MemRefType::try_from(mty) {
        Ok(m) if (1..m.rank()).any(|i| matches!(m.dim_size(i), Ok(DimSize::Static(0)))) => {
            MemRefType::new(m.element(), &[0], None, None).into()
        }
        _ => mty,
    }
}

/// Lowers `func` into a new function inserted before it (the caller erases
/// `func` when this succeeds).
fn lower_function<'c, 'a>(
    em: Emitter<'c>,
    module: &mut Module<'c, 'a>,
    func: OperationRef<'c, 'a>,
) -> Result<(), Located<'c>> {
    let loc = func.location();
    let ftype = function_type(func).ok_or_else(|| at(loc, "function has no function_type"))?;
    let old_entry = func.region(0).ok().and_then(|r| r.first_block());
    let mut params = Vec::new();
    for i in 0..ftype.input_count() {
        let ty = ftype.input(i).expect("in range");
        let arg_loc = old_entry
            .and_then(|b| b.argument(i).ok())
            .map_or(loc, |a| a.location());
        let (mty, _, _) = buffer_type(ty, &format!("argument #{i}")).map_err(|m| at(arg_loc, m))?;
        params.push((mty, arg_loc));
    }
    let n_inputs = params.len();
    for i in 0..ftype.result_count() {
        let ty = ftype.result(i).expect("in range");
        let (mty, _, _) = buffer_type(ty, &format!("result #{i}")).map_err(|m| at(loc, m))?;
        params.push((mty, loc));
    }
    // The body sees the tensors' own buffer types; the signature passes an
    // empty one as `memref<0xT>`.
    let buffers: Vec<Type<'c>> = params.iter().map(|p| p.0).collect();
    for p in &mut params {
        p.0 = boundary_type(p.0);
    }
    let types: Vec<Type<'c>> = params.iter().map(|p| p.0).collect();
    let name = func
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .ok_or_else(|| at(loc, "function has no sym_name"))?;
    let ty = TypeAttribute::new(FunctionType::new(em.ctx, &types, &[]).into());
    // The function's other attributes, kept (its visibility, discardable
    // ones); those of the arguments and results describe tensors.
    let attrs: Vec<(Identifier<'c>, Attribute<'c>)> = func
        .attributes()
        .filter(|(name, _)| {
            !matches!(
                ir::str_of(name.as_string_ref()).as_ref(),
                "sym_name" | "function_type" | "res_attrs" | "arg_attrs"
            )
        })
        .collect();
    let Some(old_entry) = old_entry else {
        // A declaration: the same convention, no body.
        module.insert(func_op(em.ctx, name, ty, Region::new(), &attrs, loc));
        return Ok(());
    };
    let body = Region::new();
    body.append_block(Block::new(&params));
    let new_func = module.insert(func_op(em.ctx, name, ty, body, &attrs, loc));
    let entry = emit::first_block(new_func, 0);
    let mut body = body::Body::new(em, entry);
    body.lower(module, old_entry, (n_inputs, &buffers), loc)?;
    module.drop_unread_constants();
    let peak = i64::try_from(body.arena_bytes()).unwrap_or(i64::MAX);
    ir::set_discardable_attribute(
        new_func,
        "ocannl.intermediate_bytes",
        IntegerAttribute::new(em.int_type(64), peak).into(),
    );
    Ok(())
}
