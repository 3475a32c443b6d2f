//! Constructs around the ocannl ops that the tools must handle or reject
//! with a located error: calls between functions, `scf.if` with tensor
//! results, `scf.for` with tensor `iter_args`, and branches to blocks
//! whose arguments are tensors.

use super::func::{FnGen, Sig, Val};
use super::ops::ops_with;
use crate::ir::Stmt;
use ocannl_dialect::catalog::ShapeLogic;

/// `func.call` of an earlier function, operands of exactly its argument
/// types; the results join the pool.
pub fn call(g: &mut FnGen<'_>, callee: &Sig) {
    let args: Vec<Val> = callee
        .args
        .iter()
        .map(|(ty, shape, elem)| g.source_typed(ty, shape, *elem))
        .collect();
    let results: Vec<Val> = callee
        .results
        .iter()
        .map(|(ty, shape, elem)| Val {
            name: g.fresh("c"),
            ty: ty.clone(),
            shape: shape.clone(),
            elem: *elem,
        })
        .collect();
    g.body.push(Stmt::Call {
        results: results.iter().map(|v| v.name.clone()).collect(),
        callee: callee.name.clone(),
        args: args.iter().map(|v| v.name.clone()).collect(),
        arg_tys: args.iter().map(|v| v.ty.clone()).collect(),
        result_tys: results.iter().map(|v| v.ty.clone()).collect(),
    });
    g.pool.extend(results);
}

/// A unary ocannl op name for `v`'s element type.
fn unary_name(g: &mut FnGen<'_>, v: &Val) -> &'static str {
    let ops = ops_with(ShapeLogic::PointwiseUn, v.elem);
    ops.get(g.rng.index(ops.len()))
        .map_or("ocannl.neg", |d| d.name)
}

/// A binary ocannl op name for `v`'s element type (not a division).
fn binary_name(g: &mut FnGen<'_>, v: &Val) -> &'static str {
    let ops: Vec<_> = ops_with(ShapeLogic::PointwiseBin, v.elem)
        .into_iter()
        .filter(|d| {
            matches!(
                d.name,
                "ocannl.add" | "ocannl.mul" | "ocannl.max" | "ocannl.sub"
            )
        })
        .collect();
    ops.get(g.rng.index(ops.len()))
        .map_or("ocannl.add", |d| d.name)
}

/// `scf.if` on a constant condition yielding a tensor from each branch.
pub fn scf_if(g: &mut FnGen<'_>) {
    let v = g.pick_or_make(g.elem);
    let t = v.ty.clone();
    let c = g.fresh("cond");
    let r = g.fresh("if");
    let n = g.fresh("then");
    let op = unary_name(g, &v);
    let cond = if g.rng.chance(0.5) { "true" } else { "false" };
    let text = format!(
        "%{c} = arith.constant {cond}\n\
         %{r} = scf.if %{c} -> ({t}) {{\n\
         \x20 %{n} = \"{op}\"(%{x}) : ({t}) -> {t}\n\
         \x20 scf.yield %{n} : {t}\n\
         }} else {{\n\
         \x20 scf.yield %{x} : {t}\n\
         }}",
        x = v.name
    );
    g.body.push(Stmt::Raw(text));
    g.pool.push(Val { name: r, ..v });
}

/// `scf.for` accumulating into a tensor `iter_arg`.
pub fn scf_for(g: &mut FnGen<'_>) {
    let v = g.pick_or_make(g.elem);
    let t = v.ty.clone();
    let (lb, ub, st) = (g.fresh("lb"), g.fresh("ub"), g.fresh("st"));
    let (r, i, acc, n) = (g.fresh("for"), g.fresh("i"), g.fresh("acc"), g.fresh("n"));
    let trips = g.rng.range(0, 3);
    let op = binary_name(g, &v);
    let text = format!(
        "%{lb} = arith.constant 0 : index\n\
         %{ub} = arith.constant {trips} : index\n\
         %{st} = arith.constant 1 : index\n\
         %{r} = scf.for %{i} = %{lb} to %{ub} step %{st} iter_args(%{acc} = %{x}) -> ({t}) {{\n\
         \x20 %{n} = \"{op}\"(%{acc}, %{x}) : ({t}, {t}) -> {t}\n\
         \x20 scf.yield %{n} : {t}\n\
         }}",
        x = v.name
    );
    g.body.push(Stmt::Raw(text));
    g.pool.push(Val { name: r, ..v });
}

/// Ends the function with a branch (`cf.br` or `cf.cond_br`) to blocks
/// whose tensor arguments are returned. Pushes the terminator and the
/// blocks; the caller must not add a `return`.
pub fn branch_return(g: &mut FnGen<'_>, results: &[Val]) {
    let vals: Vec<String> = results.iter().map(|v| format!("%{}", v.name)).collect();
    let tys: Vec<String> = results.iter().map(|v| v.ty.to_string()).collect();
    let operands = if results.is_empty() {
        String::new()
    } else {
        format!("({} : {})", vals.join(", "), tys.join(", "))
    };
    // Block `b`'s arguments and the return of them.
    let block = |b: usize| {
        let params: Vec<String> = results
            .iter()
            .enumerate()
            .map(|(i, v)| format!("%blk{b}_{i}: {}", v.ty))
            .collect();
        let names: Vec<String> = (0..results.len()).map(|i| format!("%blk{b}_{i}")).collect();
        let header = if params.is_empty() {
            String::new()
        } else {
            format!("({})", params.join(", "))
        };
        let ret = if results.is_empty() {
            "return".to_string()
        } else {
            format!("return {} : {}", names.join(", "), tys.join(", "))
        };
        format!("^bb{b}{header}:\n{ret}")
    };
    let text = if g.rng.chance(0.5) {
        format!("cf.br ^bb1{operands}\n{}", block(1))
    } else {
        let c = g.fresh("cond");
        format!(
            "%{c} = arith.constant true\ncf.cond_br %{c}, ^bb1{operands}, ^bb2{operands}\n{}\n{}",
            block(1),
            block(2)
        )
    };
    g.body.push(Stmt::Raw(text));
}
