//! Einsum and block specs built together with their operands: labels with
//! sizes, contractions, diagonals, fixed indices, row variables, strided
//! and convolution axes, concatenation, slicing and stacking.

use std::collections::BTreeMap;

use ocannl_dialect::catalog::{AttrKind, OpDef};

use super::func::{FnGen, Val};
use super::shape::{
    BATCH, Elem, INPUT, OUTPUT, RowText, Shape, has_long_ident, is_multichar, random_dim,
    render_spec,
};
use crate::ir::mlir_string;

/// One slot of a spec: per row, axis texts or a row variable.
#[derive(Debug, Clone, Default)]
struct Slot {
    rows: [RowText; 3],
}

impl Slot {
    fn render(&self) -> String {
        render_spec(&self.rows)
    }
}

/// Joins slots as `a; b => r`.
fn einsum_text(operands: &[Slot], result: &Slot) -> String {
    let lhs: Vec<String> = operands.iter().map(Slot::render).collect();
    let mut text = format!("{} => {}", lhs.join("; "), result.render());
    // A name longer than one letter needs multichar mode: a trailing comma.
    if !is_multichar(&text) && has_long_ident(&text) {
        text.push(',');
    }
    text
}

/// Fresh single-letter labels.
struct Labels {
    next: u8,
    sizes: BTreeMap<String, u64>,
}

impl Labels {
    fn new() -> Self {
        Labels {
            next: 0,
            sizes: BTreeMap::new(),
        }
    }

    fn fresh(&mut self, size: u64) -> String {
        let i = self.next;
        self.next += 1;
        let name = if i < 26 {
            char::from(b'a' + i).to_string()
        } else {
            format!("l{i}")
        };
        self.sizes.insert(name.clone(), size);
        name
    }
}

fn enum_values(def: &OpDef, attr: &str) -> &'static [&'static str] {
    match def.attribute(attr).map(|a| a.kind) {
        Some(AttrKind::Enum(values)) => values,
        _ => &[],
    }
}

fn fits(g: &FnGen<'_>, s: &Shape) -> bool {
    s.cells() <= g.limits.max_cells && s.rank() <= 8
}

/// The rows an einsum's operands and result carry by a row variable
/// (equal in every operand), and how the variable is written.
struct RowVars {
    /// Per row kind, whether the row is the variable.
    rows: [bool; 3],
    /// Named variables (`..rb..`) rather than `...`.
    named: bool,
}

impl RowVars {
    /// `...` is the row variable of its row's kind; a named one is shared
    /// by every row naming it, so each kind gets its own name.
    fn text(&self, k: usize) -> &'static str {
        if self.named {
            ["..rb..", "..ri..", "..ro.."][k]
        } else {
            "..."
        }
    }
}

/// A general einsum with 1 to 3 operands.
pub fn einsum(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let max = def.max_operands.unwrap_or(3).min(3);
    let n = 1 + g.rng.weighted(&[5, 4, 2][..max]);
    let first = g.pick_or_make(elem);
    let mut labels = Labels::new();
    // Rows carried by the spec's row variable: equal in every operand.
    let rows: [bool; 3] = std::array::from_fn(|_| g.rng.chance(0.2));
    let vars = RowVars {
        rows,
        named: g.rng.chance(0.3),
    };
    let mut slots = vec![first_slot(g, &first, &vars, &mut labels)];
    let mut operands: Vec<Val> = vec![first.clone()];
    for _ in 1..n {
        let (shape, slot) = operand_slot(g, &first, &vars, &mut labels);
        if !fits(g, &shape) {
            return false;
        }
        operands.push(g.source(&shape, elem));
        slots.push(slot);
    }
    let (result, out) = result_slot(g, &first, &vars, &labels);
    if !fits(g, &out) {
        return false;
    }
    let attrs = einsum_attrs(g, def, elem, n, &slots, &result);
    let ty = g.result_type(&out, elem);
    let refs: Vec<&Val> = operands.iter().collect();
    g.push_op(def.name, &refs, attrs, ty, out, elem);
    true
}

/// The first operand's labels: fresh ones, diagonals (a label of the same
/// size reused) and fixed indices.
fn first_slot(g: &mut FnGen<'_>, first: &Val, vars: &RowVars, labels: &mut Labels) -> Slot {
    let mut slot0 = Slot::default();
    for (k, &rv) in vars.rows.iter().enumerate() {
        if rv {
            slot0.rows[k].var = Some(vars.text(k).into());
            continue;
        }
        for &d in &first.shape.rows[k] {
            let axis = match g.rng.weighted(&[12, 1, 1]) {
                1 => {
                    // A diagonal: reuse a label of the same size.
                    match labels.sizes.iter().find(|(_, s)| **s == d) {
                        Some((l, _)) => l.clone(),
                        None => labels.fresh(d),
                    }
                }
                2 => g.rng.below(d).to_string(),
                _ => labels.fresh(d),
            };
            slot0.rows[k].beg.push(axis);
        }
    }
    slot0
}

/// Another operand's shape and labels: known labels (contracted or
/// broadcast) and fresh ones; the row variables' rows are the first
/// operand's.
fn operand_slot(
    g: &mut FnGen<'_>,
    first: &Val,
    vars: &RowVars,
    labels: &mut Labels,
) -> (Shape, Slot) {
    let mut shape = Shape::default();
    let mut slot = Slot::default();
    for (k, &rv) in vars.rows.iter().enumerate() {
        if rv {
            shape.rows[k] = first.shape.rows[k].clone();
            slot.rows[k].var = Some(vars.text(k).into());
            continue;
        }
        for _ in 0..g.rng.weighted(&[2, 4, 2]) {
            let known: Vec<(String, u64)> =
                labels.sizes.iter().map(|(l, &s)| (l.clone(), s)).collect();
            let (l, s) = if !known.is_empty() && g.rng.chance(0.6) {
                g.rng.pick(&known).clone()
            } else {
                let s = random_dim(g.rng);
                (labels.fresh(s), s)
            };
            shape.rows[k].push(s);
            slot.rows[k].beg.push(l);
        }
    }
    (shape, slot)
}

/// The result's labels and shape: a subset of the labels, shuffled over
/// the rows that are not row variables.
fn result_slot(g: &mut FnGen<'_>, first: &Val, vars: &RowVars, labels: &Labels) -> (Slot, Shape) {
    let mut chosen: Vec<String> = labels
        .sizes
        .keys()
        .filter(|_| g.rng.chance(0.7))
        .cloned()
        .collect();
    g.rng.shuffle(&mut chosen);
    let mut result = Slot::default();
    let mut out = Shape::default();
    for (k, &rv) in vars.rows.iter().enumerate() {
        if rv {
            result.rows[k].var = Some(vars.text(k).into());
            out.rows[k] = first.shape.rows[k].clone();
        }
    }
    for l in chosen {
        let free: Vec<usize> = (0..3).filter(|&k| !vars.rows[k]).collect();
        if free.is_empty() {
            break;
        }
        let k = if g.rng.chance(0.5) && free.contains(&OUTPUT) {
            OUTPUT
        } else {
            *g.rng.pick(&free)
        };
        out.rows[k].push(labels.sizes[&l]);
        result.rows[k].beg.push(l);
    }
    (result, out)
}

/// An einsum's attributes: the spec, and sometimes an accumulation and a
/// combination (of those the operand count and element type allow).
fn einsum_attrs(
    g: &mut FnGen<'_>,
    def: &OpDef,
    elem: Elem,
    n: usize,
    slots: &[Slot],
    result: &Slot,
) -> Vec<(String, String)> {
    let mut attrs = vec![(
        "spec".to_string(),
        mlir_string(einsum_text(slots, result).as_bytes()),
    )];
    let accums = enum_values(def, "accum");
    if !accums.is_empty() && g.rng.chance(0.3) {
        attrs.push(("accum".into(), format!("\"{}\"", g.rng.pick(accums))));
    }
    let combines: Vec<&str> = enum_values(def, "combine")
        .iter()
        .copied()
        .filter(|c| match n {
            2 => {
                !matches!(*c, "fma" | "where") && (elem.is_float() || !matches!(*c, "div" | "pow"))
            }
            3 => matches!(*c, "fma" | "where"),
            _ => false,
        })
        .collect();
    if !combines.is_empty() && (n == 3 || g.rng.chance(0.4)) {
        attrs.push(("combine".into(), format!("\"{}\"", g.rng.pick(&combines))));
    }
    attrs
}

/// A strided or convolution einsum: `x` with an axis `stride*o<+dil*k`
/// (valid), `stride*o=+k` (padded) or `stride*o` (strided), and a kernel.
pub fn conv(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let o = g.rng.range(1, 4);
    let k = g.rng.range(1, 3);
    let stride = g.rng.range(1, 2);
    let dil = g.rng.range(1, 2);
    let kind = g.rng.weighted(&[3, 2, 1]);
    let (axis, n) = match kind {
        0 => {
            let d = if dil == 1 {
                String::new()
            } else {
                format!("{dil}*")
            };
            (
                format!("{stride}*o<+{d}k"),
                stride * (o - 1) + (k - 1) * dil + 1,
            )
        }
        1 => (format!("{stride}*o=+k"), stride * o),
        _ => (format!("{stride}*o"), stride * o),
    };
    let batch = g.rng.chance(0.5);
    let channels = g.rng.range(1, 3);
    let mut x_shape = Shape::default();
    let mut x_slot = Slot::default();
    if batch {
        x_shape.rows[BATCH].push(2);
        x_slot.rows[BATCH].beg.push("b".into());
    }
    x_shape.rows[OUTPUT] = vec![n, channels];
    x_slot.rows[OUTPUT].beg = vec![axis, "c".into()];
    let x = g.source(&x_shape, elem);
    let mut out = Shape::default();
    let mut res = Slot::default();
    if batch {
        out.rows[BATCH].push(2);
        res.rows[BATCH].beg.push("b".into());
    }
    let mut slots = vec![x_slot];
    let mut operands = vec![x];
    let mut attrs = Vec::new();
    if kind == 2 {
        out.rows[OUTPUT] = vec![o, channels];
        res.rows[OUTPUT].beg = vec!["o".into(), "c".into()];
    } else {
        let co = g.rng.range(1, 3);
        let mut k_shape = Shape::default();
        let mut k_slot = Slot::default();
        if g.rng.chance(0.5) {
            // A convolution kernel: k, c -> co.
            k_shape.rows[INPUT] = vec![k, channels];
            k_shape.rows[OUTPUT] = vec![co];
            k_slot.rows[INPUT].beg = vec!["k".into(), "c".into()];
            k_slot.rows[OUTPUT].beg = vec!["e".into()];
            out.rows[OUTPUT] = vec![o, co];
            res.rows[OUTPUT].beg = vec!["o".into(), "e".into()];
        } else {
            // A pooling window.
            k_shape.rows[OUTPUT] = vec![k];
            k_slot.rows[OUTPUT].beg = vec!["k".into()];
            out.rows[OUTPUT] = vec![o, channels];
            res.rows[OUTPUT].beg = vec!["o".into(), "c".into()];
            attrs.push(("accum".to_string(), "\"max\"".to_string()));
            attrs.push(("combine".to_string(), "\"add\"".to_string()));
        }
        operands.push(g.source(&k_shape, elem));
        slots.push(k_slot);
    }
    attrs.insert(
        0,
        (
            "spec".to_string(),
            mlir_string(einsum_text(&slots, &res).as_bytes()),
        ),
    );
    let ty = g.result_type(&out, elem);
    let refs: Vec<&Val> = operands.iter().collect();
    g.push_op(def.name, &refs, attrs, ty, out, elem);
    true
}

/// Concatenation (`a; b => a^b`), slicing (`a^b => a`) and stacking
/// (`...; ... => s^t, ...`).
pub fn concat(g: &mut FnGen<'_>, def: &OpDef, elem: Elem) -> bool {
    let first = g.pick_or_make(elem);
    let max = def.max_operands.unwrap_or(3).min(3);
    match g.rng.weighted(&[4, 2, 2]) {
        1 => {
            // Stacking identical shapes on a new leading output axis.
            let m = g.rng.range(2, max.max(2) as u64) as usize;
            let mut out = first.shape.clone();
            out.rows[OUTPUT].insert(0, m as u64);
            if !fits(g, &out) {
                return false;
            }
            let mut operands = vec![first.clone()];
            for _ in 1..m {
                operands.push(g.source(&first.shape, elem));
            }
            let slot = "...|...->...";
            let parts: Vec<String> = (0..m)
                .map(|i| char::from(b's' + i as u8).to_string())
                .collect();
            let spec = format!(
                "{} => ...|...->{},...",
                vec![slot; m].join("; "),
                parts.join("^")
            );
            let ty = g.result_type(&out, elem);
            let refs: Vec<&Val> = operands.iter().collect();
            let attrs = vec![("spec".to_string(), mlir_string(spec.as_bytes()))];
            g.push_op(def.name, &refs, attrs, ty, out, elem);
            true
        }
        kind => {
            let axes: Vec<(usize, usize)> = (0..3)
                .flat_map(|k| (0..first.shape.rows[k].len()).map(move |j| (k, j)))
                .collect();
            if axes.is_empty() {
                return false;
            }
            let (rk, j) = *g.rng.pick(&axes);
            let mut labels = Labels::new();
            let base: [Vec<String>; 3] = std::array::from_fn(|k| {
                first.shape.rows[k]
                    .iter()
                    .map(|&d| labels.fresh(d))
                    .collect()
            });
            let slot_with = |axis: &str| {
                let mut s = Slot {
                    rows: base.clone().map(|beg| RowText {
                        beg,
                        ..RowText::default()
                    }),
                };
                s.rows[rk].beg[j] = axis.to_string();
                s
            };
            let n = first.shape.rows[rk][j];
            if kind == 2 && n >= 2 {
                // Slicing: keep the first or the second part.
                let a = g.rng.range(1, n - 1);
                let keep_first = g.rng.chance(0.5);
                let mut out = first.shape.clone();
                out.rows[rk][j] = if keep_first { a } else { n - a };
                let spec = einsum_text(
                    &[slot_with("p^q")],
                    &slot_with(if keep_first { "p" } else { "q" }),
                );
                let ty = crate::ir::Ty::ocannl(elem.name(), &out.spec());
                let attrs = vec![("spec".to_string(), mlir_string(spec.as_bytes()))];
                g.push_op(def.name, &[&first], attrs, ty, out, elem);
                return true;
            }
            let m = g.rng.range(1, max as u64) as usize;
            let mut operands = vec![first.clone()];
            let mut total = n;
            for _ in 1..m {
                let mut s = first.shape.clone();
                s.rows[rk][j] = random_dim(g.rng);
                total += s.rows[rk][j];
                operands.push(g.source(&s, elem));
            }
            let parts: Vec<String> = (0..m)
                .map(|i| char::from(b'p' + i as u8).to_string())
                .collect();
            let slots: Vec<Slot> = parts.iter().map(|p| slot_with(p)).collect();
            let mut out = first.shape.clone();
            out.rows[rk][j] = total;
            if !fits(g, &out) {
                return false;
            }
            let spec = einsum_text(&slots, &slot_with(&parts.join("^")));
            let ty = g.result_type(&out, elem);
            let refs: Vec<&Val> = operands.iter().collect();
            let attrs = vec![("spec".to_string(), mlir_string(spec.as_bytes()))];
            g.push_op(def.name, &refs, attrs, ty, out, elem);
            true
        }
    }
}
