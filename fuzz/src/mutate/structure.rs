//! Mutations of attributes, element types, symbol names and the program's
//! structure (module-level ops, nested modules, declarations, recursion).

use ocannl_dialect::catalog::{self, AttrKind};

use super::templates::{add_entry, attr_template};
use crate::ir::{Func, Item, Program, Stmt};
use crate::rng::Rng;

/// An op of the program carrying catalog attributes: one of the program's
/// (index among all ops) or, half the time or when there is none, one of a
/// template function added as the entry.
fn attr_op(p: &mut Program, rng: &mut Rng) -> usize {
    let with_attrs: Vec<usize> = p
        .ops_mut()
        .enumerate()
        .filter(|(_, o)| catalog::lookup(&o.name).is_some_and(|d| !d.attributes.is_empty()))
        .map(|(i, _)| i)
        .collect();
    if with_attrs.is_empty() || rng.chance(0.5) {
        add_entry(p, attr_template(rng));
        return 0;
    }
    *rng.pick(&with_attrs)
}

/// `spec = ""`, `accum = ""`, `combine = ""` or `func.func @""`.
pub fn empty_attr(p: &mut Program, rng: &mut Rng) {
    if rng.chance(0.2) {
        let names: Vec<String> = p.funcs().map(|f| f.name.clone()).collect();
        let old = rng.pick(&names).clone();
        p.rename_func(&old, "");
        return;
    }
    let i = attr_op(p, rng);
    let Some(o) = p.ops_mut().nth(i) else {
        return;
    };
    let strings: Vec<&str> = catalog::lookup(&o.name)
        .map(|d| {
            d.attributes
                .iter()
                .filter(|a| !matches!(a.kind, AttrKind::I64 | AttrKind::Any))
                .map(|a| a.name)
                .collect()
        })
        .unwrap_or_default();
    let name = if strings.is_empty() {
        *rng.pick(&["accum", "combine", "spec"])
    } else {
        *rng.pick(&strings)
    };
    o.set_attr(name, "\"\"".to_string());
}

/// Values of the wrong kind for a string attribute.
const NOT_STRINGS: &[&str] = &[
    "3 : i64",
    "[1, 2]",
    "unit",
    "@f0",
    "array<i64: 1, 2>",
    "dense<1> : tensor<1xi32>",
    "1.5 : f32",
    "{a = 1 : i64}",
    "true",
    "affine_map<(d0) -> (d0)>",
    "-1 : i64",
    "[\"i => i\"]",
    "\"\\00\"",
];
/// Wrong values for an enum attribute.
const BAD_ENUMS: &[&str] = &[
    "\"avg\"",
    "\"ADD\"",
    "\"add \"",
    "\"fma\"",
    "\"where\"",
    "\"xor\"",
    "\"\\FF\"",
    "\"mul,add\"",
];
/// Wrong values for an `i64` attribute (`index`).
const BAD_INDICES: &[&str] = &[
    "-1 : i64",
    "3 : i64",
    "1000 : i64",
    "9223372036854775807 : i64",
    "-9223372036854775808 : i64",
    "1 : i32",
    "1 : i8",
    "1 : index",
    "1.0 : f64",
    "\"0\"",
    "unit",
    "[0]",
    "true",
    "4294967296 : i64",
];
/// Wrong values for `value`.
const BAD_VALUES: &[&str] = &[
    "\"str\"",
    "unit",
    "[1.0]",
    "@f0",
    "array<f32: 1.0>",
    "dense<[1.0, 2.0]> : vector<2xf32>",
    "dense<\"0x0000803F\"> : tensor<1xf32>",
    "1 : i1",
    "true",
    "dense<1.0> : tensor<f32>",
    "sparse<[[0]], [1.0]> : tensor<3xf32>",
    "dense<(1.0, 2.0)> : tensor<complex<f32>>",
];

/// Attributes of the wrong kind, missing required attributes, unknown enum
/// values, indices out of range.
pub fn wrong_attr(p: &mut Program, rng: &mut Rng) {
    let i = attr_op(p, rng);
    let Some(o) = p.ops_mut().nth(i) else {
        return;
    };
    let Some(def) = catalog::lookup(&o.name) else {
        return;
    };
    if def.attributes.is_empty() {
        return;
    }
    let a = rng.pick(def.attributes);
    if a.required && rng.chance(0.2) {
        o.remove_attr(a.name);
        return;
    }
    let value = match a.kind {
        AttrKind::I64 => *rng.pick(BAD_INDICES),
        AttrKind::Any => *rng.pick(BAD_VALUES),
        AttrKind::Enum(_) if rng.chance(0.6) => *rng.pick(BAD_ENUMS),
        AttrKind::EinsumSpec if rng.chance(0.3) => {
            *rng.pick(&["\"a; b => a^b\"", "\"2,3\"", "\"i\""])
        }
        AttrKind::BlockSpec if rng.chance(0.3) => {
            *rng.pick(&["\"2*o<+k => o\"", "\"i => i\"", "\"0 => 0\""])
        }
        AttrKind::ShapeSpec if rng.chance(0.3) => *rng.pick(&["\"i => i\"", "\"a^b\"", "\"2*o\""]),
        _ => *rng.pick(NOT_STRINGS),
    };
    o.set_attr(a.name, value.to_string());
}

/// Element types the tools do not support (or do not expect).
const BAD_ELEMS: &[&str] = &[
    "f80",
    "f128",
    "bf16",
    "f16",
    "tf32",
    "i1",
    "i128",
    "i8",
    "i16",
    "ui32",
    "si8",
    "index",
    "complex<f32>",
    "vector<4xf32>",
    "none",
    "f8E4M3FN",
    "i0",
    "i2",
    "i1024",
    "memref<2xf32>",
    "tuple<f32>",
    "!llvm.ptr",
    "!ocannl.tensor<f32, \"3\">",
];

/// Replaces an element type in every type and attribute of the program.
pub fn elem_type(p: &mut Program, rng: &mut Rng) {
    let new = *rng.pick(BAD_ELEMS);
    let mut olds: Vec<String> = Vec::new();
    for t in p.types_mut() {
        if let Some(e) = t.elem()
            && !olds.iter().any(|o| o == e)
        {
            olds.push(e.to_string());
        }
    }
    if olds.is_empty() {
        return;
    }
    let old = rng.pick(&olds).clone();
    let mut renamed: Vec<(String, String)> = Vec::new();
    for t in p.types_mut() {
        if t.elem() == Some(old.as_str()) {
            let before = t.to_string();
            t.set_elem(new);
            renamed.push((before, t.to_string()));
        }
    }
    for (before, after) in renamed {
        p.replace_in_raw(&before, &after);
    }
    // Constant values follow, so the element type is what is wrong.
    for o in p.ops_mut() {
        for (_, v) in &mut o.attrs {
            if let Some(pos) = v.rfind(&format!(": {old}")) {
                v.replace_range(pos.., &format!(": {new}"));
            } else if v.ends_with(&format!("x{old}>")) {
                let cut = v.len() - old.len() - 1;
                v.replace_range(cut.., &format!("{new}>"));
            }
        }
    }
}

/// Names that collide with C, libm, LLVM and MLIR runtime symbols.
const SYMBOLS: &[&str] = &[
    "expf",
    "exp",
    "logf",
    "log",
    "sinf",
    "cosf",
    "tanhf",
    "sqrtf",
    "powf",
    "fabsf",
    "memset",
    "memcpy",
    "memmove",
    "malloc",
    "free",
    "aligned_alloc",
    "calloc",
    "realloc",
    "abort",
    "exit",
    "main",
    "printf",
    "puts",
    "_start",
    "a.b",
    "x$y",
    "f.0",
    "$",
    "a-b",
    "llvm.memcpy.p0.p0.i64",
    "__libc_start_main",
    "_mlir_main",
    "mlirExecutionEngineCreate",
    "__cxa_throw",
    "pthread_create",
    "_Z1fv",
    "errno",
];

/// Renames a function (usually the entry) to a colliding symbol.
pub fn symbol_name(p: &mut Program, rng: &mut Rng) {
    if rng.chance(0.4) {
        super::templates::libm_func(p, rng);
        return;
    }
    let names: Vec<String> = p.funcs().map(|f| f.name.clone()).collect();
    let Some(entry) = p.entry.clone().or_else(|| names.first().cloned()) else {
        return;
    };
    let target = if rng.chance(0.7) {
        entry.clone()
    } else {
        rng.pick(&names).clone()
    };
    let new = match rng.below(10) {
        0 => format!("_mlir_{entry}"),
        1 => format!("_mlir_ciface_{entry}"),
        2 => "x".repeat(rng.range(1000, 20000) as usize),
        3 if names.len() >= 2 => names
            .iter()
            .find(|n| **n != target)
            .cloned()
            .unwrap_or_default(),
        _ => rng.pick(SYMBOLS).to_string(),
    };
    if new.starts_with("_mlir_") {
        // Keep the entry and add a colliding twin.
        let mut twin = p.funcs().find(|f| f.name == entry).cloned();
        if let Some(f) = twin.as_mut() {
            f.name = new;
            p.items.push(Item::Func(f.clone()));
        }
        return;
    }
    p.rename_func(&target, &new);
}

/// Ops at module level, functions inside nested modules, declarations and
/// duplicate definitions.
pub fn module_level(p: &mut Program, rng: &mut Rng) {
    let top = "%m0 = \"ocannl.range\"() {spec = \"3\"} : () -> !ocannl.tensor<f32, \"3\">\n\
               %m1 = \"ocannl.neg\"(%m0) : (!ocannl.tensor<f32, \"3\">) -> !ocannl.tensor<f32, \"...|...->...\">\n";
    let n = p.items.len();
    match rng.below(6) {
        0 => {
            let at = rng.index(n + 1);
            p.items.insert(at, Item::Raw(top.to_string()));
        }
        1 | 2 => {
            let i = rng.index(n);
            if let Item::Func(f) = &p.items[i] {
                let inner = Program {
                    items: vec![Item::Func(f.clone())],
                    ..Program::default()
                }
                .render();
                let name = *rng.pick(&[
                    "module @m ",
                    "module ",
                    "module @m attributes {x = 1 : i64} ",
                ]);
                let text = if rng.chance(0.3) {
                    format!("module @outer {{\n{name}{{\n{inner}}}\n}}\n")
                } else {
                    format!("{name}{{\n{inner}}}\n")
                };
                p.items[i] = Item::Raw(text);
            }
        }
        3 => p.items.push(Item::Raw(format!("module @m {{\n{top}}}\n"))),
        4 => {
            // A declaration: calls to it remain.
            let i = rng.index(n);
            if let Item::Func(f) = &mut p.items[i] {
                f.body.clear();
                f.declaration = true;
            }
        }
        _ => {
            let i = rng.index(n);
            let dup = p.items[i].clone();
            p.items.push(dup);
        }
    }
}

/// A function calling itself, or two functions calling each other.
pub fn recursion(p: &mut Program, rng: &mut Rng) {
    let Some(Item::Func(f)) = p.items.iter().find(|i| matches!(i, Item::Func(_))).cloned() else {
        return;
    };
    let call = |callee: &str, f: &Func| Stmt::Call {
        results: (0..f.results.len()).map(|i| format!("rec{i}")).collect(),
        callee: callee.to_string(),
        args: f.args.iter().map(|(n, _)| n.clone()).collect(),
        arg_tys: f.args.iter().map(|(_, t)| t.clone()).collect(),
        result_tys: f.results.clone(),
    };
    let insert = |g: &mut Func, stmt: Stmt, use_result: bool| {
        let at = g.body.len().saturating_sub(1);
        g.body.insert(at, stmt);
        if use_result && let Some(Stmt::Return(vals)) = g.body.last_mut() {
            for (i, (name, _)) in vals.iter_mut().enumerate() {
                *name = format!("rec{i}");
            }
        }
    };
    let use_result = rng.chance(0.5) && matches!(f.body.last(), Some(Stmt::Return(_)));
    if rng.chance(0.5) {
        let mut g = f.clone();
        insert(&mut g, call(&f.name, &f), use_result);
        for item in &mut p.items {
            if let Item::Func(h) = item
                && h.name == f.name
            {
                *h = g.clone();
            }
        }
    } else {
        let twin_name = format!("{}_rec", f.name);
        let mut a = f.clone();
        let mut b = f.clone();
        b.name = twin_name.clone();
        insert(&mut a, call(&twin_name, &f), use_result);
        insert(&mut b, call(&f.name, &f), use_result);
        for item in &mut p.items {
            if let Item::Func(h) = item
                && h.name == f.name
            {
                *h = a.clone();
            }
        }
        p.items.push(Item::Func(b));
    }
    p.entry = Some(f.name.clone());
}
