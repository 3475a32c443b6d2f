//! One well-formed op per call, chosen from the dialect's catalog by its
//! shape logic: the operands come from the pool (or are made with the
//! shapes the logic needs) and the result's shape follows from the logic.

use ocannl_dialect::catalog::{self, OpDef, OpScalarFn, ScalarFn, ShapeLogic};

use super::einsum;
use super::func::{FnGen, Val};
use super::shape::{BATCH, Elem, INPUT, OUTPUT, Shape, broadcast, random_dim};
use crate::ir::Ty;

/// Ops whose lowering has no integer form, or whose integer form can
/// divide by zero on random data (left to the `int-div` class).
const FLOAT_ONLY: &[&str] = &[
    "ocannl.exp",
    "ocannl.log",
    "ocannl.sqrt",
    "ocannl.tanh",
    "ocannl.sin",
    "ocannl.cos",
    "ocannl.recip",
    "ocannl.div",
    "ocannl.pow",
    "ocannl.floor",
    "ocannl.ceil",
    "ocannl.round",
    "ocannl.tan",
    "ocannl.atan",
    "ocannl.asin",
    "ocannl.acos",
    "ocannl.sinh",
    "ocannl.cosh",
    "ocannl.asinh",
    "ocannl.acosh",
    "ocannl.atanh",
];

/// Bitwise ops: integers only.
const INT_ONLY: &[&str] = &[
    "ocannl.and",
    "ocannl.or",
    "ocannl.xor",
    "ocannl.not",
    "ocannl.shl",
    "ocannl.shr",
];

/// Whether the op is a comparison (an `i1` result: generated as a
/// `where`'s condition, [`pointwise_tern`]).
fn comparison(def: &OpDef) -> bool {
    use ScalarFn as F;
    matches!(
        def.scalar_fn,
        OpScalarFn::Fixed(F::Eq | F::Ne | F::Lt | F::Le | F::Gt | F::Ge)
    )
}

/// The weight of each shape logic when choosing the next op.
fn weight(logic: ShapeLogic) -> u32 {
    match logic {
        ShapeLogic::PointwiseUn => 3,
        ShapeLogic::PointwiseBin => 4,
        ShapeLogic::PointwiseTern => 1,
        ShapeLogic::Compose => 2,
        ShapeLogic::ComposeAccumulate => 1,
        ShapeLogic::Transpose => 1,
        ShapeLogic::Einsum => 5,
        ShapeLogic::Block => 2,
        ShapeLogic::BatchSlice => 1,
        ShapeLogic::Terminal => 2,
    }
}

/// The catalog's ops with shape logic `logic` usable on `elem`.
pub fn ops_with(logic: ShapeLogic, elem: Elem) -> Vec<&'static OpDef> {
    catalog::OPS
        .iter()
        .filter(|d| {
            d.logic == logic
                && !comparison(d)
                && (elem.is_float() || !FLOAT_ONLY.contains(&d.name))
                && (!elem.is_float() || !INT_ONLY.contains(&d.name))
        })
        .collect()
}

/// Emits one op; false when the chosen op did not fit (nothing emitted).
pub fn gen_op(g: &mut FnGen<'_>) -> bool {
    const LOGICS: [ShapeLogic; 10] = ShapeLogic::ALL;
    let weights: Vec<u32> = LOGICS.iter().map(|&l| weight(l)).collect();
    let logic = LOGICS[g.rng.weighted(&weights)];
    let elem = g.elem;
    let defs = ops_with(logic, elem);
    if defs.is_empty() {
        return false;
    }
    let def = *g.rng.pick(&defs);
    match logic {
        ShapeLogic::PointwiseUn => pointwise_un(g, def, elem),
        ShapeLogic::PointwiseBin => pointwise_bin(g, def, elem),
        ShapeLogic::PointwiseTern => pointwise_tern(g, def, elem),
        ShapeLogic::Compose | ShapeLogic::ComposeAccumulate => compose(g, def, elem),
        ShapeLogic::Transpose => transpose(g, def, elem),
        ShapeLogic::Einsum if def.computes == catalog::Computes::Gather => gather(g, def, elem),
        ShapeLogic::Einsum => {
            if g.rng.chance(0.25) {
                einsum::conv(g, def, elem)
            } else {
                einsum::einsum(g, def, elem)
            }
        }
        ShapeLogic::Block => einsum::concat(g, def, elem),
        ShapeLogic::BatchSlice => batch_slice(g, def, elem),
        ShapeLogic::Terminal => terminal(g, def, elem),
    }
}

/// `ocannl.gather` of a pool value with output axes only, along its first
/// axis, at an i64 `ocannl.range` of `k <= n` cells (indices `0..k`).
fn gather(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let x = g.pick_or_make(elem);
    let d = x.shape.rows[OUTPUT].clone();
    if !x.shape.rows[BATCH].is_empty() || !x.shape.rows[INPUT].is_empty() || d.is_empty() {
        return false;
    }
    let k = g.rng.range(1, d[0]);
    let idx = g.range(&Shape::output(vec![k]), Elem::I64, None);
    let rest: Vec<String> = (1..d.len()).map(|i| format!("a{i}")).collect();
    let data: Vec<String> = std::iter::once("v".to_string())
        .chain(rest.clone())
        .collect();
    let result: Vec<String> = std::iter::once("k".to_string()).chain(rest).collect();
    let spec = format!("{},; k, => {},", data.join(","), result.join(","));
    let mut dims = vec![k];
    dims.extend(&d[1..]);
    let out = Shape::output(dims);
    if !fits(g, &out) {
        return false;
    }
    let ty = g.result_type(&out, elem);
    let spec = crate::ir::mlir_string(spec.as_bytes());
    g.push_op(
        def.name,
        &[&x, &idx],
        vec![("spec".into(), spec)],
        ty,
        out,
        elem,
    );
    true
}

fn fits(g: &FnGen<'_>, s: &Shape) -> bool {
    s.cells() <= g.limits.max_cells && s.rank() <= 8
}

fn pointwise_un(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let x = g.pick_or_make(elem);
    let ty = g.result_type(&x.shape, elem);
    g.push_op(def.name, &[&x], Vec::new(), ty, x.shape.clone(), elem);
    true
}

/// Two operands that broadcast together: `x` from the pool, `y` a shape
/// that broadcasts to `x` (or the other way round).
fn broadcast_pair(g: &mut FnGen<'_>, elem: Elem) -> Option<(Val, Val, Shape)> {
    let x = g.pick_or_make(elem);
    let y_shape = if g.rng.chance(0.3) {
        x.shape.clone()
    } else {
        x.shape.broadcast_operand(g.rng)
    };
    let y = g.source(&y_shape, elem);
    let out = broadcast(&x.shape, &y.shape)?;
    fits(g, &out).then_some(())?;
    if g.rng.chance(0.5) {
        Some((x, y, out))
    } else {
        Some((y, x, out))
    }
}

fn pointwise_bin(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let Some((x, y, out)) = broadcast_pair(g, elem) else {
        return false;
    };
    let ty = g.result_type(&out, elem);
    g.push_op(def.name, &[&x, &y], Vec::new(), ty, out, elem);
    true
}

fn pointwise_tern(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let Some((x, y, out)) = broadcast_pair(g, elem) else {
        return false;
    };
    let c_shape = out.broadcast_operand(g.rng);
    let c = if g.rng.chance(0.5) {
        // An `i1` condition from a comparison of two values.
        let cmps: Vec<&OpDef> = catalog::OPS.iter().filter(|d| comparison(d)).collect();
        let cmp = *g.rng.pick(&cmps);
        let (a, b) = (g.source(&c_shape, elem), g.source(&c_shape, elem));
        let ty = g.result_type(&c_shape, Elem::Bool);
        g.push_op(cmp.name, &[&a, &b], Vec::new(), ty, c_shape, Elem::Bool)
    } else {
        g.source(&c_shape, elem)
    };
    let ty = g.result_type(&out, elem);
    g.push_op(def.name, &[&c, &x, &y], Vec::new(), ty, out, elem);
    true
}

/// `matmul` (Compose) and `fma` (Compose_accumulate): the outputs of `b`
/// feed the inputs of `a`.
fn compose(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let b = g.pick_or_make(elem);
    let mut a_shape = Shape::default();
    a_shape.rows[INPUT] = b.shape.rows[OUTPUT].clone();
    for _ in 0..g.rng.range(1, 2) {
        a_shape.rows[OUTPUT].push(random_dim(g.rng));
    }
    if g.rng.chance(0.2) {
        a_shape.rows[BATCH] = b.shape.rows[BATCH].clone();
    }
    if !fits(g, &a_shape) {
        return false;
    }
    let a = g.source(&a_shape, elem);
    let mut out = Shape::default();
    out.rows[BATCH] = broadcast(
        &Shape::output(a.shape.rows[BATCH].clone()),
        &Shape::output(b.shape.rows[BATCH].clone()),
    )
    .map(|s| s.rows[OUTPUT].clone())
    .unwrap_or_else(|| b.shape.rows[BATCH].clone());
    out.rows[INPUT] = b.shape.rows[INPUT].clone();
    out.rows[OUTPUT] = a.shape.rows[OUTPUT].clone();
    if !fits(g, &out) {
        return false;
    }
    let ty = g.result_type(&out, elem);
    if def.min_operands == 3 {
        let c_shape = out.broadcast_operand(g.rng);
        let c = g.source(&c_shape, elem);
        g.push_op(def.name, &[&a, &b, &c], Vec::new(), ty, out, elem);
    } else {
        g.push_op(def.name, &[&a, &b], Vec::new(), ty, out, elem);
    }
    true
}

fn transpose(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let x = g.pick_or_make(elem);
    let mut out = x.shape.clone();
    out.rows.swap(INPUT, OUTPUT);
    let ty = g.result_type(&out, elem);
    g.push_op(def.name, &[&x], Vec::new(), ty, out, elem);
    true
}

fn batch_slice(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let x = match g.pick(elem) {
        Some(v) if !v.shape.rows[BATCH].is_empty() => v,
        _ => {
            let mut s = Shape::random(g.rng, 256);
            s.rows[BATCH].insert(0, g.rng.range(1, 4));
            g.source(&s, elem)
        }
    };
    let mut out = x.shape.clone();
    let n = out.rows[BATCH].remove(0);
    let index = g.rng.below(n);
    let ty = g.result_type(&out, elem);
    let attrs = vec![("index".to_string(), format!("{index} : i64"))];
    g.push_op(def.name, &[&x], attrs, ty, out, elem);
    true
}

/// Terminals, told apart by what the catalog says they take: a `value`
/// (constant), a `spec` and no operand (range), one operand (reshape).
fn terminal(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    if def.attribute("value").is_some() {
        let s = Shape::random(g.rng, 512);
        g.constant(&s, elem);
    } else if def.min_operands == 0 {
        let s = Shape::random(g.rng, 512);
        g.range(&s, elem, None);
    } else {
        let x = g.pick_or_make(elem);
        let out = refactor(g, x.shape.cells());
        let ty = if g.rng.chance(0.3) {
            // One factor left to the element count: "3,n".
            let mut spec = out.spec();
            if let Some(pos) = spec.rfind(|c: char| c.is_ascii_digit()) {
                let start = spec[..=pos]
                    .rfind(|c: char| !c.is_ascii_digit())
                    .map_or(0, |p| p + 1);
                spec.replace_range(start..=pos, "n");
            }
            Ty::ocannl(elem.name(), &spec)
        } else {
            g.result_type(&out, elem)
        };
        g.push_op(def.name, &[&x], Vec::new(), ty, out, elem);
    }
    true
}

/// A random shape with `cells` cells.
fn refactor(g: &mut FnGen<'_>, cells: u64) -> Shape {
    let mut factors = Vec::new();
    let mut n = cells;
    let mut p = 2;
    while n > 1 && p <= n {
        if n.is_multiple_of(p) {
            factors.push(p);
            n /= p;
        } else {
            p += 1;
        }
    }
    g.rng.shuffle(&mut factors);
    let mut s = Shape::default();
    let mut dims: Vec<u64> = Vec::new();
    for f in factors {
        match dims.last_mut() {
            Some(last) if g.rng.chance(0.5) => *last *= f,
            _ => dims.push(f),
        }
    }
    for d in dims {
        s.rows[[BATCH, INPUT, OUTPUT][g.rng.weighted(&[1, 1, 3])]].push(d);
    }
    s
}
