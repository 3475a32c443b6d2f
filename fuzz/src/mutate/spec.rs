//! Mutations of spec strings: in the spec-kind attributes of ops (as the
//! catalog lists them) and in `!ocannl.tensor` types. A type is changed
//! everywhere it is written, so the corrupted spec reaches the passes
//! instead of a type-mismatch error of the parser.

use ocannl_dialect::catalog::{self, AttrKind};

use crate::ir::{Program, Ty, mlir_string};
use crate::rng::Rng;

/// Where a spec string lives.
#[derive(Debug, Clone)]
enum Site {
    /// Attribute `name` of the `op`-th op of the program.
    Attr { op: usize, name: String },
    /// Every occurrence of this type.
    Type(Ty),
}

fn is_spec_kind(kind: AttrKind) -> bool {
    matches!(
        kind,
        AttrKind::ShapeSpec | AttrKind::EinsumSpec | AttrKind::BlockSpec
    )
}

/// The spec sites of the program.
fn sites(p: &mut Program, attrs: bool, types: bool) -> Vec<Site> {
    let mut out = Vec::new();
    if attrs {
        for (i, op) in p.ops_mut().enumerate() {
            let Some(def) = catalog::lookup(&op.name) else {
                continue;
            };
            for (name, value) in &op.attrs {
                let spec_kind = def.attribute(name).is_some_and(|a| is_spec_kind(a.kind));
                if spec_kind && value.starts_with('"') {
                    out.push(Site::Attr {
                        op: i,
                        name: name.clone(),
                    });
                }
            }
        }
    }
    if types {
        let mut seen: Vec<Ty> = Vec::new();
        for t in p.types_mut() {
            if matches!(t, Ty::Ocannl { .. }) && !seen.contains(t) {
                seen.push(t.clone());
            }
        }
        out.extend(seen.into_iter().map(Site::Type));
    }
    out
}

/// Reads an MLIR string literal back to bytes (the escapes
/// [`mlir_string`] writes).
pub fn unescape(lit: &str) -> Vec<u8> {
    let inner = lit
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(lit)
        .as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < inner.len() {
        if inner[i] == b'\\' && i + 1 < inner.len() {
            match inner[i + 1] {
                b'"' | b'\\' => {
                    out.push(inner[i + 1]);
                    i += 2;
                }
                _ if i + 2 < inner.len() => {
                    let hex = std::str::from_utf8(&inner[i + 1..i + 3]).unwrap_or("");
                    out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                    i += 3;
                }
                _ => {
                    out.push(inner[i]);
                    i += 1;
                }
            }
        } else {
            out.push(inner[i]);
            i += 1;
        }
    }
    out
}

/// A spec rewrite: old bytes, whether it is an einsum or block spec.
type Rewrite<'a> = &'a mut dyn FnMut(&[u8], bool, &mut Rng) -> Vec<u8>;

/// Applies `f` to one random spec site (attributes and/or types); false
/// when the program has none.
fn mutate_site(p: &mut Program, rng: &mut Rng, attrs: bool, types: bool, f: Rewrite<'_>) -> bool {
    let all = sites(p, attrs, types);
    if all.is_empty() {
        return false;
    }
    match rng.pick(&all).clone() {
        Site::Attr { op, name } => {
            if let Some(o) = p.ops_mut().nth(op) {
                let old = unescape(o.attr(&name).unwrap_or("\"\""));
                let is_einsum = o.name == "ocannl.einsum" || o.name == "ocannl.concat";
                let new = f(&old, is_einsum, rng);
                o.set_attr(&name, mlir_string(&new));
            }
        }
        Site::Type(old) => {
            let Ty::Ocannl { spec, elem } = &old else {
                return false;
            };
            let new = Ty::Ocannl {
                elem: elem.clone(),
                spec: f(spec, false, rng),
            };
            for t in p.types_mut() {
                if *t == old {
                    *t = new.clone();
                }
            }
            p.replace_in_raw(&old.to_string(), &new.to_string());
        }
    }
    true
}

/// A spec-ish random byte: mostly grammar characters, sometimes any byte.
fn spec_byte(rng: &mut Rng) -> u8 {
    const ALPHABET: &[u8] = b"abcijkxyz0123456789_|->.,;=^*+<& \t\"\\()[]{}%@#!";
    if rng.chance(0.15) {
        rng.below(256) as u8
    } else {
        *rng.pick(ALPHABET)
    }
}

/// Random bytes instead of a spec, or a few random edits of it.
pub fn garbage(p: &mut Program, rng: &mut Rng) {
    mutate_site(p, rng, true, true, &mut |old, _, rng| {
        if old.is_empty() || rng.chance(0.4) {
            let n = rng.range(1, 32) as usize;
            (0..n).map(|_| spec_byte(rng)).collect()
        } else {
            let mut v = old.to_vec();
            for _ in 0..rng.range(1, 4) {
                let i = rng.index(v.len() + 1);
                match rng.below(3) {
                    0 => v.insert(i, spec_byte(rng)),
                    1 if i < v.len() => {
                        v.remove(i);
                    }
                    _ if i < v.len() => v[i] = spec_byte(rng),
                    _ => v.push(spec_byte(rng)),
                }
            }
            v
        }
    });
}

/// An empty spec.
pub fn empty(p: &mut Program, rng: &mut Rng) {
    mutate_site(p, rng, true, true, &mut |_, _, _| Vec::new());
}

/// Specs with misplaced separators, bad row variables and operators.
const UNBALANCED: &[&str] = &[
    "|",
    "->",
    "=>",
    "||",
    "|||",
    "->->",
    "a|b|c",
    "a->b->c",
    "a=>b=>c",
    ";",
    ";;",
    "a;b;c;d=>a",
    "a; b; c; d => a",
    "a; b; c; d; e => a^b^c^d^e",
    "...",
    "....",
    "..",
    "..r",
    "..r..,..s..",
    "...,...",
    "..1..",
    ".._..",
    "a^",
    "^a",
    "a^^b",
    "2*",
    "*o",
    "o<+",
    "o=+",
    "<+k",
    "2*o<+0*k",
    "0*o",
    "-1",
    "a,,,b",
    ",",
    ",,",
    ",,,",
    "(",
    ")",
    "a=",
    "=3",
    "rgb=0",
    "rgb=-1",
    "&",
    "a&b",
    "a => ",
    " => ",
    "=> i",
    "i => i; j",
    "i,j => k",
    "0 => 0",
    "99 => i",
    "i => 99",
    "...|...|...",
    "->|",
    "|->",
    "a|->",
    "i->o => o->i->",
    "..a..|..a..->..a..",
    "a^b => a^b^c",
    "2*o+ => o",
    "o+1 => o",
    "1*o<+1*k => o",
    "a=1,a=2",
    "a,b,c,d,e,f,g,h,i,j,k,l,m,n => n",
    "\u{e9}",
    "a\u{0}b",
];

/// A spec with unbalanced or misplaced syntax (or a valid one made so).
pub fn unbalanced(p: &mut Program, rng: &mut Rng) {
    mutate_site(p, rng, true, true, &mut |old, _, rng| {
        if rng.chance(0.6) || old.is_empty() {
            rng.pick(UNBALANCED).as_bytes().to_vec()
        } else {
            let piece = *rng.pick(&["|", "->", "=>", ";", "...", "..r..", "^", ",", "|->|", "<+"]);
            let mut v = old.to_vec();
            let i = rng.index(v.len() + 1);
            v.splice(i..i, piece.bytes());
            v
        }
    });
}

/// `n` comma-separated items made by `f`.
fn list(n: usize, f: impl Fn(usize) -> String) -> String {
    (0..n).map(f).collect::<Vec<_>>().join(",")
}

/// 257 to 20000 axes.
pub fn many_axes(p: &mut Program, rng: &mut Rng) {
    if rng.chance(0.4) {
        super::templates::many_axes_func(p, rng);
        return;
    }
    let n = *rng.pick(&[257usize, 300, 1000, 4000, 20000]);
    mutate_site(p, rng, true, true, &mut |_, einsum, rng| {
        let s = if einsum {
            match rng.below(3) {
                0 => {
                    let l = list(n, |i| format!("i{i}"));
                    format!("{l} => {l}")
                }
                1 => format!("{} => i0", list(n, |i| format!("i{i}"))),
                _ => format!("{} => ...", list(n, |_| "...".to_string())),
            }
        } else {
            match rng.below(4) {
                0 => list(n, |_| "1".to_string()),
                1 => list(n, |i| format!("a{i}")),
                2 => format!(
                    "{}|{}->...",
                    list(n, |_| "1".to_string()),
                    list(n, |_| "_".to_string())
                ),
                _ => list(n, |i| format!("..r{i}..")),
            }
        };
        s.into_bytes()
    });
}

/// Sizes near and past the limits of i32, i64 and u64.
pub const HUGE: &[&str] = &[
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "4611686018427387904",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "100000000000000000000",
    "100000,100000,100000,100000",
    "65536,65536,65536,65536",
    "4294967296,4294967296",
    "3037000500,3037000500",
    "0",
];

/// Replaces one run of digits in `old` with `huge` (or appends it).
fn replace_digits(old: &[u8], huge: &str, rng: &mut Rng) -> Vec<u8> {
    let runs: Vec<(usize, usize)> = {
        let mut v = Vec::new();
        let mut i = 0;
        while i < old.len() {
            if old[i].is_ascii_digit() {
                let s = i;
                while i < old.len() && old[i].is_ascii_digit() {
                    i += 1;
                }
                v.push((s, i));
            } else {
                i += 1;
            }
        }
        v
    };
    let mut out = old.to_vec();
    match runs.get(rng.index(runs.len())) {
        Some(&(s, e)) if !runs.is_empty() => {
            out.splice(s..e, huge.bytes());
        }
        _ => {
            if !out.is_empty() {
                out.push(b',');
            }
            out.extend(huge.bytes());
        }
    }
    out
}

/// Huge sizes in types, huge strides, dilations and fixed indices in
/// einsum specs, huge builtin dims.
pub fn huge_sizes(p: &mut Program, rng: &mut Rng) {
    let huge = *rng.pick(HUGE);
    let single = huge.split(',').next().unwrap_or(huge);
    if rng.chance(0.5) {
        // Consistently: every axis of one size, so the huge size passes
        // verification and reaches inference, projections and lowering.
        let sizes = sizes_in(p);
        if !sizes.is_empty() {
            let from = rng.pick(&sizes).clone();
            replace_size_everywhere(p, &from, huge);
            return;
        }
    }
    if rng.chance(0.15) {
        // A builtin tensor dim (0 is valid there, not in specs).
        let single = if rng.chance(0.3) { "0" } else { single };
        let mut done = false;
        for t in p.types_mut() {
            if let Ty::Builtin {
                elem,
                dims: Some(d),
            } = t
                && !d.is_empty()
            {
                let dims: Vec<String> = d
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        if i == 0 {
                            single.to_string()
                        } else {
                            x.map_or("?".into(), |n| n.to_string())
                        }
                    })
                    .collect();
                *t = Ty::Raw(format!("tensor<{}x{elem}>", dims.join("x")));
                done = true;
            }
        }
        if done {
            return;
        }
    }
    mutate_site(p, rng, true, true, &mut |old, einsum, rng| {
        if einsum && rng.chance(0.5) {
            // A stride, dilation or fixed index.
            let axis = match rng.below(4) {
                0 => format!("{single}*o<+k"),
                1 => format!("o<+{single}*k"),
                2 => format!("{single}*o=+{single}*k"),
                _ => single.to_string(),
            };
            let text = String::from_utf8_lossy(old).to_string();
            match text.split_once("=>") {
                Some((lhs, rhs)) => {
                    let lhs = lhs.trim_end();
                    let sep = if lhs.ends_with([';', '|', '>']) || lhs.is_empty() {
                        ""
                    } else {
                        ","
                    };
                    format!("{lhs}{sep}{axis} =>{rhs}").into_bytes()
                }
                None => format!("{axis} => o").into_bytes(),
            }
        } else {
            replace_digits(old, huge, rng)
        }
    });
}

/// The whole digit runs of `s` that are not part of a name, as byte
/// ranges.
fn digit_runs(s: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i].is_ascii_digit() {
            let start = i;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            let named = start > 0 && (s[start - 1].is_ascii_alphabetic() || s[start - 1] == b'_');
            if !named {
                v.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    v
}

/// The sizes written in the program's `!ocannl.tensor` types.
fn sizes_in(p: &mut Program) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in p.types_mut() {
        if let Ty::Ocannl { spec, .. } = t {
            for (a, b) in digit_runs(spec) {
                let d = String::from_utf8_lossy(&spec[a..b]).into_owned();
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// `s` with every whole digit run equal to `from` replaced by `to`.
fn replace_runs(s: &[u8], from: &str, to: &str) -> Vec<u8> {
    let mut out = s.to_vec();
    for (a, b) in digit_runs(s).into_iter().rev() {
        if &s[a..b] == from.as_bytes() {
            out.splice(a..b, to.bytes());
        }
    }
    out
}

/// Replaces size `from` by `to` in every type, builtin tensor and
/// shape-spec attribute of the program.
fn replace_size_everywhere(p: &mut Program, from: &str, to: &str) {
    let mut renamed: Vec<(String, String)> = Vec::new();
    for t in p.types_mut() {
        let before = t.to_string();
        match t {
            Ty::Ocannl { spec, .. } => *spec = replace_runs(spec, from, to),
            Ty::Builtin {
                elem,
                dims: Some(d),
            } if d
                .iter()
                .any(|x| x.map(|n| n.to_string()).as_deref() == Some(from)) =>
            {
                let dims: Vec<String> = d
                    .iter()
                    .map(|x| match x {
                        Some(n) if n.to_string() == from => to.replace(',', "x"),
                        Some(n) => n.to_string(),
                        None => "?".into(),
                    })
                    .collect();
                *t = Ty::Raw(format!("tensor<{}x{elem}>", dims.join("x")));
            }
            _ => {}
        }
        let after = t.to_string();
        if after != before && !renamed.iter().any(|(b, _)| *b == before) {
            renamed.push((before, after));
        }
    }
    for (before, after) in renamed {
        p.replace_in_raw(&before, &after);
    }
    for o in p.ops_mut() {
        let Some(def) = catalog::lookup(&o.name) else {
            continue;
        };
        for (name, value) in &mut o.attrs {
            let shape_spec = def
                .attribute(name)
                .is_some_and(|a| a.kind == AttrKind::ShapeSpec);
            if shape_spec && value.starts_with('"') {
                *value = mlir_string(&replace_runs(&unescape(value), from, to));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_inverts_mlir_string() {
        for s in [&b"a|b->c"[..], b"", b"\"\\\x00\xff", b"x\ty"] {
            assert_eq!(unescape(&mlir_string(s)), s);
        }
    }

    #[test]
    fn digits_are_replaced() {
        let mut rng = Rng::new(1);
        assert_eq!(replace_digits(b"b|3", "99", &mut rng), b"b|99");
        assert_eq!(replace_digits(b"a", "99", &mut rng), b"a,99");
        assert_eq!(replace_digits(b"", "99", &mut rng), b"99");
    }

    #[test]
    fn sizes_are_replaced_everywhere_but_in_names() {
        assert_eq!(replace_runs(b"3|d3,13->3", "3", "9"), b"9|d3,13->9");
        assert_eq!(replace_runs(b"..r3..,3", "3", "9"), b"..r3..,9");
    }
}
