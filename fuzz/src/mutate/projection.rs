//! Hand-written projection attributes (`ocannl.product_space`,
//! `ocannl.indexing_maps`, `ocannl.iterator_types`, concat blocks) that
//! contradict the types; only `ocannl-plan-schedule,ocannl-lower-to-affine`
//! run on their own read them (`ocannl-infer-projections` overwrites them).

use super::templates::{add_entry, func, op};
use crate::ir::{Program, Ty, mlir_string};
use crate::rng::Rng;

fn t(elem: &str, spec: &str) -> Ty {
    Ty::ocannl(elem, spec)
}

fn s(text: &str) -> String {
    mlir_string(text.as_bytes())
}

/// A random affine map over `dims` dimensions with `n` results.
fn random_map(rng: &mut Rng, dims: usize, n: usize) -> String {
    let ds: Vec<String> = (0..dims).map(|i| format!("d{i}")).collect();
    let sym = rng.chance(0.1);
    let exprs: Vec<String> = (0..n)
        .map(|_| {
            let c = *rng.pick(&["-1", "0", "1", "2", "100", "4611686018427387904"]);
            if dims == 0 || rng.chance(0.2) {
                return if sym && rng.chance(0.5) {
                    "s0".to_string()
                } else {
                    c.to_string()
                };
            }
            let d = rng.pick(&ds).clone();
            match rng.below(8) {
                0 => format!("{d} * {c}"),
                1 => format!("{d} floordiv 2"),
                2 => format!("{d} mod 2"),
                3 => format!("{d} ceildiv 3"),
                4 => format!("{d} + {}", rng.pick(&ds)),
                5 => format!("{d} * 2 + 1"),
                _ => d,
            }
        })
        .collect();
    let symbols = if sym { "[s0]" } else { "" };
    format!(
        "affine_map<({}){symbols} -> ({})>",
        ds.join(", "),
        exprs.join(", ")
    )
}

/// Hand-written projection attributes that contradict the types (read
/// by `ocannl-plan-schedule,ocannl-lower-to-affine` run on their own).
pub fn projection_attrs(p: &mut Program, rng: &mut Rng) {
    let f = "f32";
    let (a, b, r) = (t(f, "2,3"), t(f, "2,3"), t(f, "2,3"));
    let (name, operands, spec, rank): (&str, Vec<(&str, &Ty)>, Option<&str>, usize) =
        match rng.below(4) {
            0 => ("ocannl.neg", vec![("a", &a)], None, 2),
            1 => ("ocannl.add", vec![("a", &a), ("b", &b)], None, 2),
            2 => ("ocannl.einsum", vec![("a", &a)], Some("i,j => i,j"), 2),
            _ => ("ocannl.concat", vec![("a", &a)], Some("i,j => i,j"), 2),
        };
    let mut attrs: Vec<(&str, String)> = Vec::new();
    if let Some(sp) = spec {
        attrs.push(("spec", s(sp)));
    }
    let nmaps = operands.len() + 1;
    let (space, maps) = if rng.chance(0.5) {
        nearly_right(rng, nmaps)
    } else {
        random_space(rng, rank)
    };
    attrs.push(("ocannl.product_space", space));
    let maps_attr = if rng.chance(0.1) {
        (*rng.pick(&["3 : i64", "[\"a\"]", "[1, 2]", "unit"])).to_string()
    } else {
        format!("[{}]", maps.join(", "))
    };
    attrs.push(("ocannl.indexing_maps", maps_attr));
    if rng.chance(0.3) {
        let it = *rng.pick(&[
            "[\"parallel\", \"bogus\"]",
            "5 : i64",
            "[\"reduction\"]",
            "[]",
        ]);
        attrs.push(("ocannl.iterator_types", it.to_string()));
    }
    if name == "ocannl.concat" && rng.chance(0.5) {
        attrs.push((
            "ocannl.blocks",
            (*rng.pick(&["[1, 2]", "[[]]", "[\"x\"]", "3 : i64"])).into(),
        ));
        attrs.push((
            "ocannl.components",
            (*rng.pick(&["[1 : i64]", "[]", "array<i64: -1>"])).into(),
        ));
    }
    let body = vec![op("0", name, &operands, &attrs, &r)];
    let args: Vec<(&str, &Ty)> = operands.clone();
    add_entry(p, func("h_proj", &args, body, "0", &r));
}

/// A product space and maps that are nearly right for a rank-2 op with
/// `nmaps` maps (operands and result): one defect.
fn nearly_right(rng: &mut Rng, nmaps: usize) -> (String, Vec<String>) {
    let good_map = "affine_map<(d0, d1) -> (d0, d1)>".to_string();
    let mut space = "array<i64: 2, 3>".to_string();
    let mut maps = vec![good_map; nmaps];
    match rng.below(7) {
        0 => space = (*rng.pick(&["array<i64: 2>", "array<i64: 2, 3, 4>", "array<i64>"])).into(),
        1 => {
            space = (*rng.pick(&[
                "array<i64: 0, 3>",
                "array<i64: -1, 3>",
                "array<i64: 4611686018427387904, 3>",
                "array<i64: 9223372036854775807, 9223372036854775807>",
            ]))
            .into()
        }
        2 => {
            maps.pop();
        }
        3 => maps.push(maps[0].clone()),
        4 => {
            let i = rng.index(maps.len());
            let n = rng.index(4);
            maps[i] = random_map(rng, 2, n);
        }
        5 => {
            space = (*rng.pick(&[
                "[2, 3]",
                "\"2,3\"",
                "dense<[2, 3]> : tensor<2xi64>",
                "3 : i64",
            ]))
            .into()
        }
        _ => {
            let i = rng.index(maps.len());
            maps[i] = "affine_map<(d0, d1) -> (d0 + 5, d1 * 7)>".into();
        }
    }
    (space, maps)
}

/// A random product space (0 to 3 sizes, some of them evil) and 0 to 3
/// random maps, mostly over its dims with `rank` results.
fn random_space(rng: &mut Rng, rank: usize) -> (String, Vec<String>) {
    let dims = rng.index(4);
    let sizes: Vec<String> = (0..dims)
        .map(|_| (*rng.pick(&["0", "1", "2", "3", "-1", "4611686018427387904"])).to_string())
        .collect();
    let space = format!(
        "array<i64{}{}>",
        if dims > 0 { ": " } else { "" },
        sizes.join(", ")
    );
    let maps = (0..rng.index(4))
        .map(|_| {
            let d = if rng.chance(0.8) { dims } else { rng.index(4) };
            let n = if rng.chance(0.7) { rank } else { rng.index(4) };
            random_map(rng, d, n)
        })
        .collect();
    (space, maps)
}
