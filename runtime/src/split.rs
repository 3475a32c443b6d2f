//! The module in the LLVM dialect split into parts that LLVM compiles on
//! several threads ([`Program::jit`](crate::Program::jit)).
//!
//! LLVM's optimiser and code generator are per function but run on one
//! thread per module: ResNet-50's code took 1.8 s of its 3.6 s of
//! compilation in them, on one core of two (docs/performance.md, "Compile
//! time of ResNet-50"). `ocannl-outline-nests` has already cut a large
//! function into `noinline` helpers of 64 nests, called from the entry
//! only: each part is a copy of the module that defines some helpers and
//! declares the rest, compiled by its own execution engine on its own
//! thread; the entry's part, compiled last, is bound to the helpers'
//! addresses. Only such modules are split: helpers that call no defined
//! function and reference no mutable global (every engine has its own
//! copy of the module's small constants; the large ones are bound to the
//! same bytes in every engine).

use std::collections::HashSet;

use melior::{
    Context,
    ir::{
        Attribute, BlockLike, Module, RegionLike,
        operation::{OperationLike, OperationRef},
    },
};
use ocannl_dialect::ir;

use crate::{ffi, module::functions};

/// The work of a part below which another thread does not pay for itself
/// (ops, counted in the LLVM dialect): about 50 ms of LLVM's time
/// (ResNet-50's 78,000 ops took 1.9 s).
const MIN_PART_OPS: usize = 2000;

/// The helpers of each part (the entry's part is not among them), when
/// `module` splits into more than one part on `threads` threads; `None`
/// when it does not split (one thread, too little code, or a module that
/// does not have the form above).
pub(crate) fn parts(module: &Module<'_>, entry: &str, threads: usize) -> Option<Vec<Vec<String>>> {
    if threads < 2 || has_mutable_global(module) {
        return None;
    }
    let defined: Vec<(String, OperationRef<'_, '_>)> = functions(module)
        .into_iter()
        .filter(|(_, f)| is_defined(f))
        .collect();
    let names: HashSet<&str> = defined.iter().map(|(n, _)| n.as_str()).collect();
    let mut helpers = Vec::new();
    for (name, f) in &defined {
        if name == entry {
            continue;
        }
        let (ops, refs) = ops_and_references(*f, &names);
        if !refs.is_empty() {
            return None;
        }
        helpers.push((name.clone(), ops));
    }
    let total: usize = helpers.iter().map(|(_, w)| w).sum();
    let n = threads.min(helpers.len()).min(total / MIN_PART_OPS);
    if n < 2 {
        return None;
    }
    // Longest processing time first: each helper, heaviest first, to the
    // lightest part.
    helpers.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut bins: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); n];
    for (name, ops) in helpers {
        let lightest = (0..n).min_by_key(|&i| bins[i].0).expect("n >= 2");
        bins[lightest].0 += ops;
        bins[lightest].1.push(name);
    }
    Some(bins.into_iter().map(|(_, names)| names).collect())
}

/// Makes `module` define only the functions `keep` names and declare the
/// others; every function it defines or declares gets external linkage,
/// so that the engines find each other's.
pub(crate) fn restrict(context: &Context, module: &Module<'_>, keep: &HashSet<&str>) {
    let external = Attribute::parse(context, "#llvm.linkage<external>")
        .expect("the LLVM dialect's linkage attribute parses");
    for (name, f) in functions(module) {
        if ir::op_name(&f) != "llvm.func" || !is_defined(&f) {
            continue;
        }
        if !keep.contains(name.as_str()) {
            ffi::drop_body(f);
        }
        ir::set_attribute(f, "linkage", external);
        ir::remove_attribute(f, "sym_visibility");
    }
}

fn is_defined(f: &OperationRef<'_, '_>) -> bool {
    f.region(0).ok().and_then(|r| r.first_block()).is_some()
}

/// Whether a global of `module` is written (not `constant`): the parts
/// would each have their own.
fn has_mutable_global(module: &Module<'_>) -> bool {
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if ir::op_name(&op) == "llvm.mlir.global" && op.attribute("constant").is_err() {
            return true;
        }
    }
    false
}

/// The ops in `f`, and the functions of `defined` it calls or takes the
/// address of.
fn ops_and_references(f: OperationRef<'_, '_>, defined: &HashSet<&str>) -> (usize, Vec<String>) {
    let mut count = 0;
    let mut refs: HashSet<String> = HashSet::new();
    ir::collect_ops(f, |op| {
        count += 1;
        let attr = match ir::op_name(&op).as_str() {
            "llvm.call" => "callee",
            "llvm.mlir.addressof" => "global_name",
            _ => "",
        };
        if !attr.is_empty()
            && let Some(callee) = op.attribute(attr).ok().and_then(ir::symbol_ref_value)
            && defined.contains(callee.as_str())
        {
            refs.insert(callee);
        }
        ir::Select {
            keep: false,
            descend: true,
        }
    });
    (count, refs.into_iter().collect())
}
