//! Hostile functions added to a well-formed program (and made its entry,
//! so `ocannl-run` runs them): constants that do not fit, integer division
//! by zero, huge tensors, hand-written projections; plus small templates
//! of each attribute-carrying op for the attribute mutations.

use crate::ir::{Func, Item, Op, Program, Stmt, Ty, mlir_string};
use crate::rng::Rng;

/// `"name"(operands) {attrs} : (operand types) -> result type` with
/// result `%r`.
pub fn op(
    r: &str,
    name: &str,
    operands: &[(&str, &Ty)],
    attrs: &[(&str, String)],
    ty: &Ty,
) -> Stmt {
    Stmt::Op(Op {
        results: vec![r.to_string()],
        name: name.to_string(),
        operands: operands.iter().map(|(n, _)| n.to_string()).collect(),
        attrs: attrs
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
        operand_tys: operands.iter().map(|(_, t)| (*t).clone()).collect(),
        result_tys: vec![ty.clone()],
    })
}

/// A function returning `%ret` of type `ty`.
pub fn func(name: &str, args: &[(&str, &Ty)], mut body: Vec<Stmt>, ret: &str, ty: &Ty) -> Func {
    body.push(Stmt::Return(vec![(ret.to_string(), ty.clone())]));
    Func {
        name: name.to_string(),
        args: args
            .iter()
            .map(|(n, t)| (n.to_string(), (*t).clone()))
            .collect(),
        results: vec![ty.clone()],
        body,
        declaration: false,
    }
}

/// Adds `f` as the program's first function and makes it the entry.
pub fn add_entry(p: &mut Program, f: Func) {
    p.entry = Some(f.name.clone());
    p.items.insert(0, Item::Func(f));
}

fn t(elem: &str, spec: &str) -> Ty {
    Ty::ocannl(elem, spec)
}

fn s(text: &str) -> String {
    mlir_string(text.as_bytes())
}

/// A small function holding one op of each attribute-carrying kind,
/// chosen at random.
pub fn attr_template(rng: &mut Rng) -> Func {
    let f = "f32";
    match rng.below(5) {
        0 => {
            let (x, r) = (t(f, "3,2|4"), t(f, "2|4"));
            let body = vec![op(
                "0",
                "ocannl.batch_slice",
                &[("x", &x)],
                &[("index", "1 : i64".into())],
                &r,
            )];
            func("h_batch_slice", &[("x", &x)], body, "0", &r)
        }
        1 => {
            let (a, b, r) = (t(f, "2,3"), t(f, "3,4"), t(f, "2,4"));
            let attrs = [
                ("spec", s("i,j; j,k => i,k")),
                ("accum", s("add")),
                ("combine", s("mul")),
            ];
            let body = vec![op(
                "0",
                "ocannl.einsum",
                &[("a", &a), ("b", &b)],
                &attrs,
                &r,
            )];
            func("h_einsum", &[("a", &a), ("b", &b)], body, "0", &r)
        }
        2 => {
            let (a, b, r) = (t(f, "2"), t(f, "3"), t(f, "5"));
            let body = vec![op(
                "0",
                "ocannl.concat",
                &[("a", &a), ("b", &b)],
                &[("spec", s("a; b => a^b"))],
                &r,
            )];
            func("h_concat", &[("a", &a), ("b", &b)], body, "0", &r)
        }
        3 => {
            let r = t(f, "2,3");
            let attrs = [("value", "1.5 : f32".to_string()), ("spec", s("2,3"))];
            let body = vec![op("0", "ocannl.constant", &[], &attrs, &r)];
            func("h_constant", &[], body, "0", &r)
        }
        _ => {
            let r = t(f, "2,3");
            let body = vec![op("0", "ocannl.range", &[], &[("spec", s("2,3"))], &r)];
            func("h_range", &[], body, "0", &r)
        }
    }
}

/// (tensor element, tensor spec, `value` attribute) that do not fit.
const OVERFLOWS: &[(&str, &str, &str)] = &[
    ("i32", "2,3", "1.0e20 : f32"),
    ("i8", "4", "3.5 : f32"),
    ("i32", "4", "99999999999 : i64"),
    ("i8", "4", "300 : i32"),
    ("f32", "4", "1.0e300 : f64"),
    ("f32", "4", "1.0e39 : f32"),
    ("i64", "4", "1.0e30 : f64"),
    ("f16", "4", "70000.0 : f32"),
    ("i1", "4", "2 : i32"),
    ("f32", "2,2", "dense<[1.0, 2.0, 3.0]> : tensor<3xf32>"),
    ("f32", "3", "dense<1.0> : tensor<0xf32>"),
    (
        "f32",
        "...|...->...",
        "dense<1.0> : tensor<100000000000xf32>",
    ),
    (
        "f32",
        "...|...->...",
        "dense<1.0> : tensor<65536x65536x65536x65536xf32>",
    ),
    ("i32", "2", "dense<[1.5, 2.5]> : tensor<2xf32>"),
    ("f32", "3", "dense<[[1.0], [2.0]]> : tensor<2x1xf32>"),
    ("f32", "3", "\"abc\""),
    ("f32", "3", "0x7FC00000 : f32"),
    ("i32", "3", "0x7F800000 : f32"),
    ("i32", "3", "-2147483649 : i64"),
    ("f64", "3", "dense<1> : tensor<3xi64>"),
    ("i32", "3", "1.0e20 : f64"),
    ("f32", "4", "dense<[1.0, 2.0]> : tensor<2xf32>"),
    ("f32", "2,2", "dense<1.0> : tensor<2x3xf32>"),
    ("f32", "3", "dense<1.0> : tensor<3xf64>"),
    ("f32", "3", "array<f32: 1.0, 2.0, 3.0>"),
    ("i64", "3", "9223372036854775808 : i64"),
    ("i32", "3", "-2147483648 : i32"),
    ("f32", "", "dense<[]> : tensor<0xf32>"),
    ("f32", "0", "1.0 : f32"),
    ("i32", "3", "true"),
];

/// A constant whose value does not fit its element type or shape.
pub fn const_overflow(p: &mut Program, rng: &mut Rng) {
    let &(elem, spec, value) = rng.pick(OVERFLOWS);
    let r = t(elem, spec);
    let mut attrs = vec![("value", value.to_string())];
    if rng.chance(0.3) && !spec.contains('.') {
        attrs.push(("spec", s(spec)));
    }
    let mut body = vec![op("c", "ocannl.constant", &[], &attrs, &r)];
    let ret = if rng.chance(0.5) {
        body.push(op("n", "ocannl.neg", &[("c", &r)], &[], &r));
        "n"
    } else {
        "c"
    };
    add_entry(p, func("h_const", &[], body, ret, &r));
}

/// Integer division (and `recip`, `pow`) by zero or of `MIN / -1`, at run
/// time.
pub fn int_div(p: &mut Program, rng: &mut Rng) {
    let elem = *rng.pick(&["i32", "i64"]);
    let min = if elem == "i32" {
        "-2147483648"
    } else {
        "-9223372036854775808"
    };
    let v = t(elem, "4");
    let x = ("x", &v);
    let mut body = Vec::new();
    let mut args: Vec<(&str, &Ty)> = Vec::new();
    match rng.below(8) {
        0 => {
            args.push(x);
            body.push(op("z", "ocannl.range", &[], &[("spec", s("4"))], &v));
            body.push(op("q", "ocannl.div", &[x, ("z", &v)], &[], &v));
        }
        1 => {
            args.push(x);
            body.push(op(
                "z",
                "ocannl.constant",
                &[],
                &[("value", format!("0 : {elem}"))],
                &v,
            ));
            body.push(op("q", "ocannl.div", &[x, ("z", &v)], &[], &v));
        }
        2 => {
            body.push(op(
                "m",
                "ocannl.constant",
                &[],
                &[("value", format!("{min} : {elem}"))],
                &v,
            ));
            body.push(op(
                "z",
                "ocannl.constant",
                &[],
                &[("value", format!("-1 : {elem}"))],
                &v,
            ));
            body.push(op("q", "ocannl.div", &[("m", &v), ("z", &v)], &[], &v));
        }
        3 => {
            body.push(op("z", "ocannl.range", &[], &[("spec", s("4"))], &v));
            body.push(op("q", "ocannl.recip", &[("z", &v)], &[], &v));
        }
        4 => {
            body.push(op("z", "ocannl.range", &[], &[("spec", s("4"))], &v));
            body.push(op(
                "e",
                "ocannl.constant",
                &[],
                &[("value", format!("-1 : {elem}"))],
                &v,
            ));
            body.push(op("q", "ocannl.pow", &[("z", &v), ("e", &v)], &[], &v));
        }
        5 => {
            args.push(x);
            body.push(op("z", "ocannl.range", &[], &[("spec", s("4"))], &v));
            let attrs = [("spec", s("i; i => i")), ("combine", s("div"))];
            body.push(op("q", "ocannl.einsum", &[x, ("z", &v)], &attrs, &v));
        }
        6 => {
            let y = ("y", &v);
            args.extend([x, y]);
            body.push(op("q", "ocannl.div", &[x, y], &[], &v));
        }
        _ => {
            args.push(x);
            body.push(op("z", "ocannl.range", &[], &[("spec", s("4"))], &v));
            let attrs = [
                ("spec", s("i; j => i")),
                ("combine", s("div")),
                ("accum", s("min")),
            ];
            body.push(op("q", "ocannl.einsum", &[x, ("z", &v)], &attrs, &v));
        }
    }
    add_entry(p, func("h_idiv", &args, body, "q", &v));
}

/// A 100 GB argument, a 4 TB intermediate, cell counts that overflow 64
/// bits.
pub fn huge_tensor(p: &mut Program, rng: &mut Rng) {
    let f = "f32";
    let small = t(f, "...|...->...");
    match rng.below(7) {
        0 => {
            let spec = *rng.pick(&["25000000000", "100000,250000", "2|12500000000"]);
            let x = t(f, spec);
            let body = vec![op("n", "ocannl.neg", &[("x", &x)], &[], &x)];
            add_entry(p, func("h_huge_arg", &[("x", &x)], body, "n", &x));
        }
        1 => {
            let x = Ty::Raw(format!("tensor<25000000000x{f}>"));
            let body = vec![op("n", "ocannl.relu", &[("x", &x)], &[], &x)];
            add_entry(p, func("h_huge_builtin", &[("x", &x)], body, "n", &x));
        }
        2 => {
            let spec = *rng.pick(&[
                "1000000,1000000",
                "65536,65536,65536,65536",
                "4294967296,4294967296",
                "100000,100000,100000,100000",
                "3037000500,3037000500",
            ]);
            let big = t(f, spec);
            let body = vec![
                op("r", "ocannl.range", &[], &[("spec", s(spec))], &big),
                op(
                    "s",
                    "ocannl.einsum",
                    &[("r", &big)],
                    &[("spec", s("i,... => i"))],
                    &small,
                ),
            ];
            add_entry(p, func("h_huge_range", &[], body, "s", &small));
        }
        3 => {
            let v = t(f, "1000000");
            let o = t(f, "1000000,1000000");
            let body = vec![
                op("a", "ocannl.range", &[], &[("spec", s("1000000"))], &v),
                op(
                    "o",
                    "ocannl.einsum",
                    &[("a", &v), ("a", &v)],
                    &[("spec", s("i; j => i,j"))],
                    &o,
                ),
                op(
                    "s",
                    "ocannl.einsum",
                    &[("o", &o)],
                    &[("spec", s("i,j => i"))],
                    &v,
                ),
            ];
            add_entry(p, func("h_huge_outer", &[], body, "s", &v));
        }
        4 => {
            let big = t(f, "1000000,1000000");
            let attrs = [
                ("value", "0.5 : f32".to_string()),
                ("spec", s("1000000,1000000")),
            ];
            let body = vec![op("c", "ocannl.constant", &[], &attrs, &big)];
            add_entry(p, func("h_huge_const", &[], body, "c", &big));
        }
        5 => {
            let x = t(f, "4294967296|2");
            let r = t(f, "2");
            let attrs = [("index", "4294967295 : i64".to_string())];
            let body = vec![op("b", "ocannl.batch_slice", &[("x", &x)], &attrs, &r)];
            add_entry(p, func("h_huge_slice", &[("x", &x)], body, "b", &r));
        }
        _ => {
            let x = t(f, "3");
            let w = t(f, "3->1000000000000");
            let r = t(f, "...|...->...");
            let body = vec![
                op(
                    "w",
                    "ocannl.constant",
                    &[],
                    &[("value", "1.0 : f32".into())],
                    &w,
                ),
                op("m", "ocannl.matmul", &[("w", &w), ("x", &x)], &[], &r),
            ];
            add_entry(p, func("h_huge_matmul", &[("x", &x)], body, "m", &r));
        }
    }
}

/// (symbol, element type, op whose lowering may call that symbol).
const LIBM: &[(&str, &str, &str)] = &[
    ("expf", "f32", "ocannl.exp"),
    ("exp", "f64", "ocannl.exp"),
    ("logf", "f32", "ocannl.log"),
    ("log", "f64", "ocannl.log"),
    ("sinf", "f32", "ocannl.sin"),
    ("cosf", "f32", "ocannl.cos"),
    ("tanhf", "f32", "ocannl.tanh"),
    ("tanh", "f64", "ocannl.tanh"),
    ("sqrtf", "f32", "ocannl.sqrt"),
    ("powf", "f32", "ocannl.pow"),
    ("pow", "f64", "ocannl.pow"),
    ("fabsf", "f32", "ocannl.abs"),
    ("memset", "f32", "ocannl.einsum"),
    ("memcpy", "f32", "ocannl.einsum"),
    ("memmove", "f32", "ocannl.einsum"),
    ("malloc", "f32", "ocannl.einsum"),
    ("free", "f32", "ocannl.einsum"),
    ("aligned_alloc", "f32", "ocannl.einsum"),
    ("main", "f32", "ocannl.exp"),
    ("abort", "f32", "ocannl.exp"),
];

/// A function named like a C/libm symbol whose own body needs that symbol
/// once lowered (`expf` computing `exp` on f32, `memset` filling a
/// buffer, `malloc` allocating an intermediate), made the entry.
pub fn libm_func(p: &mut Program, rng: &mut Rng) {
    let &(name, elem, opname) = rng.pick(LIBM);
    let x = t(elem, "64,64");
    let r = t(elem, "64");
    let body = if opname == "ocannl.einsum" {
        // An intermediate (malloc/free), a fill and reduction (memset),
        // then the result.
        vec![
            op("a", "ocannl.neg", &[("x", &x)], &[], &x),
            op(
                "e",
                "ocannl.einsum",
                &[("a", &x)],
                &[("spec", s("i,j => i"))],
                &r,
            ),
        ]
    } else if opname == "ocannl.pow" {
        vec![op("e", opname, &[("x", &x), ("x", &x)], &[], &x)]
    } else {
        vec![op("e", opname, &[("x", &x)], &[], &x)]
    };
    let ty = if opname == "ocannl.einsum" {
        r
    } else {
        x.clone()
    };
    add_entry(p, func(name, &[("x", &x)], body, "e", &ty));
}

/// A function computing on a tensor of many axes: 257 to 5000 of size 1
/// (a rank limit), or 64 to 70 of size 2 (a cell count past 2^64).
pub fn many_axes_func(p: &mut Program, rng: &mut Rng) {
    let (n, d) = *rng.pick(&[
        (257, "1"),
        (300, "1"),
        (5000, "1"),
        (64, "2"),
        (70, "2"),
        (40, "3"),
    ]);
    let dims = vec![d; n].join(",");
    let spec = match rng.below(3) {
        0 => dims,
        1 => format!("{dims}|1"),
        _ => format!("2|{dims}->3"),
    };
    let x = t("f32", &spec);
    let open = t("f32", "...|...->...");
    let mut body = vec![op("n", "ocannl.neg", &[("x", &x)], &[], &x)];
    let ret = match rng.below(4) {
        0 => {
            body.push(op("a", "ocannl.add", &[("n", &x), ("x", &x)], &[], &open));
            "a"
        }
        1 => {
            body.push(op("r", "ocannl.range", &[], &[("spec", s(&spec))], &x));
            body.push(op("m", "ocannl.mul", &[("n", &x), ("r", &x)], &[], &open));
            "m"
        }
        2 => {
            body.push(op("t", "ocannl.transpose", &[("n", &x)], &[], &open));
            "t"
        }
        _ => {
            body.push(op("r", "ocannl.reshape", &[("n", &x)], &[], &open));
            "r"
        }
    };
    let ty = if ret == "n" { x.clone() } else { open };
    add_entry(p, func("h_many_axes", &[("x", &x)], body, ret, &ty));
}
