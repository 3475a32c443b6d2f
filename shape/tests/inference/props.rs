//! Property tests of the solver on random op graphs, in the program format
//! of [`super::harness`].
//!
//! # Generation
//!
//! A graph is generated *concrete* first: arguments with random shapes
//! (sizes 1–5, now and then a dimension label), then ops whose operands are
//! picked among the tensors so far (or made up as new arguments that fit)
//! and whose result shapes satisfy the op's logic: pointwise unary, binary
//! and ternary (the broadcast join of the operands, sometimes broadcast
//! further), matmul and fma (`Compose`, `ComposeAccumulate`), transpose,
//! einsum (1–3 operands, with a spec generated from the operands' shapes:
//! labels, `_`, fixed indices, `...` and `..r..` row variables), batch slice,
//! constants with an element count, ranges with an attribute spec, and
//! reshape. Then parts of the specs are *forgotten*: results are mostly
//! `...|...->...`, sometimes partially known (axes replaced by `_` or by
//! named dimension variables, rows by `...` or `..r..` around kept axes);
//! arguments are mostly kept. Forgetting keeps named variables consistent,
//! so the concrete graph stays a solution. One program in four is then
//! *mutated* (a size changed, an axis added or dropped), which makes many of
//! them unsatisfiable.
//!
//! The generator reads its random choices from a list of numbers, a missing
//! number reading as 0 and 0 always being the simplest choice (Hypothesis'
//! "choice sequence"), so proptest's shrinking of the list shrinks the
//! program.
//!
//! # Properties
//!
//! * **declarative**: solving after [`Problem::shuffle`] with several seeds
//!   (and without) gives the same solution, or an error every time;
//! * **declarative error kinds**: ... and then the same kind of error;
//! * **shortcuts agree**: the solver with its shortcuts off
//!   ([`Problem::set_shortcuts`]) gives the same solution or error kind;
//! * **sound**: every solution is concrete and passes the independent
//!   checker ([`ocannl_shape::check`]) for every op;
//! * **complete on concrete graphs**: when no spec was forgotten or mutated,
//!   the concrete graph is the only solution, and the solver finds it.
//!
//! [`Problem::shuffle`]: ocannl_shape::problem::Problem::shuffle
//! [`Problem::set_shortcuts`]: ocannl_shape::problem::Problem::set_shortcuts

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

use ocannl_shape::{
    problem::ShapeId,
    solver::Closing,
    spec::{EinsumAxis, EinsumSpec, Row, RowVar, ShapeAxis, ShapeSpec, SlotSpec},
};
use proptest::prelude::*;

use super::harness::{build, solve_and_render, verify_solution};

/// Random choices read from a list; past its end every choice is 0.
struct Choices<'a> {
    data: &'a [u16],
    pos: usize,
}

impl Choices<'_> {
    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        usize::from(v) % n
    }

    /// True one time in `n` (never for the choice 0).
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == n - 1
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A concrete axis.
#[derive(Debug, Clone, PartialEq)]
struct Ax {
    size: u64,
    label: Option<&'static str>,
}

impl Ax {
    fn one() -> Self {
        Ax {
            size: 1,
            label: None,
        }
    }

    fn is_unit(&self) -> bool {
        self.size == 1 && self.label.is_none()
    }

    /// The axis both `self` and `other` stand for, if they agree.
    fn merge(&self, other: &Ax) -> Option<Ax> {
        if self.size != other.size {
            return None;
        }
        match (self.label, other.label) {
            (Some(l1), Some(l2)) if l1 != l2 => None,
            (l1, l2) => Some(Ax {
                size: self.size,
                label: l1.or(l2),
            }),
        }
    }

    fn to_spec(&self) -> ShapeAxis {
        match self.label {
            Some(label) => ShapeAxis::Labeled {
                label: label.into(),
                size: self.size,
            },
            None => ShapeAxis::Size(self.size),
        }
    }
}

type CRow = Vec<Ax>;

/// Pointwise merge of two rows of the same length.
fn merge_rows(a: &[Ax], b: &[Ax]) -> Option<CRow> {
    if a.len() != b.len() {
        return None;
    }
    a.iter().zip(b).map(|(x, y)| x.merge(y)).collect()
}

/// The smallest row both rows broadcast to, if any.
fn join(a: &[Ax], b: &[Ax]) -> Option<CRow> {
    let n = a.len().max(b.len());
    let from_end = |r: &[Ax], k: usize| (k < r.len()).then(|| r[r.len() - 1 - k].clone());
    let mut out: Vec<Ax> = (0..n)
        .map(|k| match (from_end(a, k), from_end(b, k)) {
            (Some(x), None) => Some(x),
            (None, Some(y)) => Some(y),
            (Some(x), Some(y)) if x.is_unit() => Some(y),
            (Some(x), Some(y)) if y.is_unit() => Some(x),
            (Some(x), Some(y)) => x.merge(&y),
            (None, None) => unreachable!("k < max of the lengths"),
        })
        .collect::<Option<_>>()?;
    out.reverse();
    Some(out)
}

/// `cur >= subr` on concrete rows.
fn geq(cur: &[Ax], subr: &[Ax]) -> bool {
    cur.len() >= subr.len()
        && cur
            .iter()
            .rev()
            .zip(subr.iter().rev())
            .all(|(c, s)| s.is_unit() || s.merge(c).is_some())
}

/// A concrete shape: batch, input, output.
#[derive(Debug, Clone)]
struct CShape {
    rows: [CRow; 3],
}

impl CShape {
    fn batch(&self) -> &CRow {
        &self.rows[0]
    }
    fn input(&self) -> &CRow {
        &self.rows[1]
    }
    fn output(&self) -> &CRow {
        &self.rows[2]
    }

    fn to_spec(&self) -> ShapeSpec {
        let row = |r: &CRow| Row::closed(r.iter().map(Ax::to_spec).collect());
        ShapeSpec {
            batch: row(self.batch()),
            input: row(self.input()),
            output: row(self.output()),
        }
    }

    fn join(&self, other: &CShape) -> Option<CShape> {
        Some(CShape {
            rows: [
                join(self.batch(), other.batch())?,
                join(self.input(), other.input())?,
                join(self.output(), other.output())?,
            ],
        })
    }
}

/// One line of a generated program.
struct GLine {
    name: String,
    /// `None` for an argument, else `head(operands)` without the spec.
    call: Option<String>,
    shape: CShape,
    /// Whether this is an argument: its spec is mostly kept when forgetting,
    /// while an op result's is mostly forgotten.
    is_arg: bool,
}

/// An einsum row variable: `...` of a kind (0–2), or a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum EKey {
    Kind(usize),
    Named(&'static str),
}

/// The generator of one program.
struct Gen<'a> {
    c: Choices<'a>,
    lines: Vec<GLine>,
    /// Named dimension variables used when forgetting, and what they stand for.
    dim_vars: HashMap<&'static str, Ax>,
    /// Named row variables used when forgetting, and what they stand for.
    row_vars: HashMap<&'static str, CRow>,
    args: usize,
    results: usize,
}

const LABELS: [&str; 2] = ["rgb", "xy"];
const DIM_VARS: [&str; 3] = ["n", "m", "k"];
const ROW_VARS: [&str; 2] = ["r", "s"];
const EINSUM_LABELS: [&str; 10] = ["i", "j", "k", "l", "m", "n", "o", "p", "q", "t"];
const EINSUM_ROWS: [&str; 2] = ["r", "s"];

impl<'a> Gen<'a> {
    fn new(data: &'a [u16]) -> Self {
        Gen {
            c: Choices { data, pos: 0 },
            lines: vec![],
            dim_vars: HashMap::new(),
            row_vars: HashMap::new(),
            args: 0,
            results: 0,
        }
    }

    fn axis(&mut self) -> Ax {
        let size = 1 + self.c.below(5) as u64;
        let label = if self.c.one_in(8) {
            Some(self.c.pick(&LABELS))
        } else {
            None
        };
        Ax { size, label }
    }

    fn row(&mut self) -> CRow {
        let len = self.c.below(3);
        (0..len).map(|_| self.axis()).collect()
    }

    fn shape(&mut self) -> CShape {
        CShape {
            rows: [self.row(), self.row(), self.row()],
        }
    }

    /// A row that joins with `r`: a suffix of `r` with some axes made 1 (and
    /// 1s made anything), or all of it with maybe a leading extra axis.
    fn compatible_row(&mut self, r: &[Ax]) -> CRow {
        let keep = self.c.below(r.len() + 1);
        let mut out: CRow = r[r.len() - keep..]
            .iter()
            .map(|a| match self.c.below(3) {
                1 => Ax::one(),
                2 if a.is_unit() => self.axis(),
                _ => a.clone(),
            })
            .collect();
        if keep == r.len() && self.c.one_in(3) {
            let extra = self.axis();
            out.insert(0, extra);
        }
        out
    }

    /// A row that broadcasts to `r`: a suffix of `r` with some axes made 1.
    fn sub_row(&mut self, r: &[Ax]) -> CRow {
        let keep = self.c.below(r.len() + 1);
        r[r.len() - keep..]
            .iter()
            .map(|a| {
                if self.c.one_in(3) {
                    Ax::one()
                } else {
                    a.clone()
                }
            })
            .collect()
    }

    fn compatible(&mut self, s: &CShape) -> CShape {
        CShape {
            rows: [
                self.compatible_row(s.batch()),
                self.compatible_row(s.input()),
                self.compatible_row(s.output()),
            ],
        }
    }

    /// Sometimes broadcasts a shape further: leading axes, 1s made bigger.
    fn maybe_extend(&mut self, s: CShape) -> CShape {
        if !self.c.one_in(4) {
            return s;
        }
        let rows = s.rows.map(|row| {
            let mut row: CRow = row
                .into_iter()
                .map(|a| {
                    if a.is_unit() && self.c.one_in(2) {
                        self.axis()
                    } else {
                        a
                    }
                })
                .collect();
            if self.c.one_in(3) {
                let extra = self.axis();
                row.insert(0, extra);
            }
            row
        });
        CShape { rows }
    }

    fn new_arg(&mut self, shape: CShape) -> usize {
        let name = format!("a{}", self.args);
        self.args += 1;
        self.lines.push(GLine {
            name,
            call: None,
            shape,
            is_arg: true,
        });
        self.lines.len() - 1
    }

    /// A tensor so far, the most recent ones first.
    fn pick_tensor(&mut self) -> usize {
        self.lines.len() - 1 - self.c.below(self.lines.len())
    }

    /// An existing tensor satisfying `fits`, or else a new argument made by
    /// `make`.
    fn partner(
        &mut self,
        fits: impl Fn(&CShape) -> bool,
        make: impl FnOnce(&mut Self) -> CShape,
    ) -> usize {
        if self.c.below(2) == 0 {
            let i = self.pick_tensor();
            if fits(&self.lines[i].shape) {
                return i;
            }
        }
        let shape = make(self);
        self.new_arg(shape)
    }

    fn push_op(&mut self, head: String, operands: &[usize], shape: CShape) {
        let name = format!("t{}", self.results);
        self.results += 1;
        let ops: Vec<&str> = operands
            .iter()
            .map(|&i| self.lines[i].name.as_str())
            .collect();
        let call = format!("{head}({})", ops.join(", "));
        self.lines.push(GLine {
            name,
            call: Some(call),
            shape,
            is_arg: false,
        });
    }

    fn op(&mut self) {
        match self.c.below(14) {
            0 => {
                let a = self.pick_tensor();
                let r = self.lines[a].shape.clone();
                let r = self.maybe_extend(r);
                let head = self.c.pick(&["neg", "exp"]);
                self.push_op(head.into(), &[a], r);
            }
            1 | 2 => {
                let a = self.pick_tensor();
                let sa = self.lines[a].shape.clone();
                let b = self.partner(|s| sa.join(s).is_some(), |g| g.compatible(&sa));
                let r = sa.join(&self.lines[b].shape).expect("partner joins");
                let r = self.maybe_extend(r);
                let head = self.c.pick(&["add", "mul"]);
                self.push_op(head.into(), &[a, b], r);
            }
            3 => {
                let a = self.pick_tensor();
                let sa = self.lines[a].shape.clone();
                let b = self.partner(|s| sa.join(s).is_some(), |g| g.compatible(&sa));
                let sab = sa.join(&self.lines[b].shape).expect("partner joins");
                let c = self.partner(|s| sab.join(s).is_some(), |g| g.compatible(&sab));
                let r = sab.join(&self.lines[c].shape).expect("partner joins");
                let r = self.maybe_extend(r);
                self.push_op("where".into(), &[a, b, c], r);
            }
            4 | 5 => self.compose(),
            6 => {
                let a = self.pick_tensor();
                let s = &self.lines[a].shape;
                let r = CShape {
                    rows: [s.batch().clone(), s.output().clone(), s.input().clone()],
                };
                let r = self.maybe_extend(r);
                self.push_op("transpose".into(), &[a], r);
            }
            7..=9 => self.einsum(),
            10 => {
                let mut a = self.pick_tensor();
                if self.lines[a].shape.batch().is_empty() {
                    let mut s = self.lines[a].shape.clone();
                    let extra = self.axis();
                    s.rows[0].insert(0, extra);
                    a = self.new_arg(s);
                }
                let mut r = self.lines[a].shape.clone();
                let sliced = r.rows[0].remove(0);
                let index = self.c.below(sliced.size as usize);
                self.push_op(format!("batch_slice[{index}]"), &[a], r);
            }
            11 => {
                let r = self.shape();
                if self.c.below(2) == 0 {
                    let elems: u64 = r.rows.iter().flatten().map(|a| a.size).product();
                    self.push_op(format!("constant[elems={elems}]"), &[], r);
                } else {
                    self.push_op(format!("range[\"{}\"]", r.to_spec()), &[], r);
                }
            }
            12 => self.reshape(),
            _ => self.concat(),
        }
    }

    /// concat: the operand and 1–2 new parts side by side on the last
    /// output axis (the other rows and axes shared), its size their sum and
    /// its label the operand's. Forgetting a part's spec and broadcasting the
    /// result into a known tensor later gives the part through the total
    /// (OCANNL's test_block_tensor, Test 5e).
    fn concat(&mut self) {
        let mut a = self.pick_tensor();
        if self.lines[a].shape.output().is_empty() {
            let mut s = self.lines[a].shape.clone();
            let extra = self.axis();
            s.rows[2].push(extra);
            a = self.new_arg(s);
        }
        let sa = self.lines[a].shape.clone();
        let last = sa.output().last().expect("an output axis").clone();
        let mut operands = vec![a];
        let mut total = last.size;
        for _ in 0..1 + self.c.below(2) {
            let size = 1 + self.c.below(5) as u64;
            total += size;
            let mut s = sa.clone();
            *s.rows[2].last_mut().expect("an output axis") = Ax {
                size,
                label: last.label,
            };
            operands.push(self.new_arg(s));
        }
        let parts: Vec<String> = (0..operands.len()).map(|k| format!("p{k}")).collect();
        let slots: Vec<String> = parts
            .iter()
            .map(|p| format!("..b..|..i..->..o..,{p}"))
            .collect();
        let spec = format!(
            "{} => ..b..|..i..->..o..,{}",
            slots.join("; "),
            parts.join("^")
        );
        let mut r = sa;
        *r.rows[2].last_mut().expect("an output axis") = Ax {
            size: total,
            label: last.label,
        };
        self.push_op(format!("concat[\"{spec}\"]"), &operands, r);
    }

    /// matmul, or fma with an accumulated third operand.
    fn compose(&mut self) {
        let a = self.pick_tensor();
        let sa = self.lines[a].shape.clone();
        let fits =
            |s: &CShape| geq(sa.input(), s.output()) && join(sa.batch(), s.batch()).is_some();
        let b = self.partner(fits, |g| CShape {
            rows: [g.compatible_row(sa.batch()), g.row(), g.sub_row(sa.input())],
        });
        let sb = self.lines[b].shape.clone();
        let r0 = CShape {
            rows: [
                join(sa.batch(), sb.batch()).expect("partner joins"),
                sb.input().clone(),
                sa.output().clone(),
            ],
        };
        if self.c.below(2) == 0 {
            let r = self.maybe_extend(r0);
            self.push_op("matmul".into(), &[a, b], r);
        } else {
            let c = self.partner(|s| r0.join(s).is_some(), |g| g.compatible(&r0));
            let r = r0.join(&self.lines[c].shape).expect("partner joins");
            let r = self.maybe_extend(r);
            self.push_op("fma".into(), &[a, b, c], r);
        }
    }

    /// reshape: the operand's sizes regrouped into new axes and rows.
    fn reshape(&mut self) {
        let a = self.pick_tensor();
        let sizes: Vec<u64> = self.lines[a]
            .shape
            .rows
            .iter()
            .flatten()
            .map(|x| x.size)
            .collect();
        let mut axes: Vec<u64> = vec![];
        for size in sizes {
            match axes.last_mut() {
                Some(last) if self.c.below(2) == 0 => *last *= size,
                _ => axes.push(size),
            }
        }
        if self.c.one_in(3) {
            let at = self.c.below(axes.len() + 1);
            axes.insert(at, 1);
        }
        let mut rows: [CRow; 3] = Default::default();
        for size in axes {
            let kind = [2, 2, 0, 1][self.c.below(4)];
            rows[kind].push(Ax { size, label: None });
        }
        self.push_op("reshape".into(), &[a], CShape { rows });
    }

    /// An einsum over 1–3 existing tensors, with a spec read off their shapes.
    fn einsum(&mut self) {
        let n = if self.c.one_in(6) {
            3
        } else {
            1 + self.c.below(2)
        };
        let operands: Vec<usize> = (0..n).map(|_| self.pick_tensor()).collect();
        let mut labels: Vec<(&'static str, Ax)> = vec![];
        let mut rows: HashMap<EKey, CRow> = HashMap::new();
        let mut rhs = vec![];
        for &o in &operands {
            let shape = self.lines[o].shape.clone();
            let mut slot = SlotSpec::default();
            for (k, axes) in shape.rows.iter().enumerate() {
                let row = self.einsum_operand_row(k, axes, &mut labels, &mut rows);
                *slot_row(&mut slot, k) = row;
            }
            rhs.push(slot);
        }
        let mut lhs = SlotSpec::default();
        let mut result: [CRow; 3] = Default::default();
        for (k, out) in result.iter_mut().enumerate() {
            let (row, axes) = self.einsum_result_row(k, &mut labels, &mut rows);
            *slot_row(&mut lhs, k) = row;
            *out = axes;
        }
        let spec = EinsumSpec { rhs, lhs };
        self.push_op(
            format!("einsum[\"{spec}\"]"),
            &operands,
            CShape { rows: result },
        );
    }

    fn einsum_operand_row(
        &mut self,
        kind: usize,
        axes: &[Ax],
        labels: &mut Vec<(&'static str, Ax)>,
        rows: &mut HashMap<EKey, CRow>,
    ) -> Row<EinsumAxis> {
        // Where the row variable goes, if any: `axes[p..q]`.
        let mut var = None;
        let key = match self.c.below(3) {
            0 => None,
            1 => Some(EKey::Kind(kind)),
            _ => Some(EKey::Named(self.c.pick(&EINSUM_ROWS))),
        };
        if let Some(key) = key {
            match rows.get(&key) {
                Some(bound) => {
                    let fits: Vec<usize> = (0..=axes.len().saturating_sub(bound.len()))
                        .filter(|&p| {
                            axes.len() >= bound.len()
                                && merge_rows(&axes[p..p + bound.len()], bound).is_some()
                        })
                        .collect();
                    if !fits.is_empty() {
                        let p = self.c.pick(&fits);
                        let q = p + bound.len();
                        let merged = merge_rows(&axes[p..q], bound).expect("fits");
                        rows.insert(key.clone(), merged);
                        var = Some((key, p, q));
                    }
                }
                None => {
                    let p = self.c.below(axes.len() + 1);
                    let q = p + self.c.below(axes.len() - p + 1);
                    rows.insert(key.clone(), axes[p..q].to_vec());
                    var = Some((key, p, q));
                }
            }
        }
        let mut item = |g: &mut Self, a: &Ax| -> EinsumAxis {
            match g.c.below(5) {
                0 | 1 => {
                    let fits: Vec<usize> = (0..labels.len())
                        .filter(|&i| labels[i].1.merge(a).is_some())
                        .collect();
                    if fits.is_empty() || g.c.below(2) == 1 {
                        g.new_label(labels, a.clone())
                    } else {
                        let i = g.c.pick(&fits);
                        labels[i].1 = labels[i].1.merge(a).expect("fits");
                        EinsumAxis::Label(labels[i].0.into())
                    }
                }
                2 => g.new_label(labels, a.clone()),
                3 => EinsumAxis::Fresh,
                _ => EinsumAxis::Fixed(g.c.below(a.size as usize) as u64),
            }
        };
        match var {
            None => Row::closed(axes.iter().map(|a| item(self, a)).collect()),
            Some((key, p, q)) => {
                let beg = axes[..p].iter().map(|a| item(self, a)).collect();
                let end = axes[q..].iter().map(|a| item(self, a)).collect();
                Row::open(beg, ekey_var(&key), end)
            }
        }
    }

    fn new_label(&mut self, labels: &mut Vec<(&'static str, Ax)>, a: Ax) -> EinsumAxis {
        match EINSUM_LABELS.get(labels.len()) {
            Some(&name) => {
                labels.push((name, a));
                EinsumAxis::Label(name.into())
            }
            None => EinsumAxis::Fresh,
        }
    }

    fn einsum_result_row(
        &mut self,
        kind: usize,
        labels: &mut Vec<(&'static str, Ax)>,
        rows: &mut HashMap<EKey, CRow>,
    ) -> (Row<EinsumAxis>, CRow) {
        let mut items = vec![];
        let mut axes = vec![];
        for _ in 0..self.c.below(3) {
            match self.c.below(4) {
                0 | 1 if !labels.is_empty() => {
                    let i = self.c.below(labels.len());
                    items.push(EinsumAxis::Label(labels[i].0.into()));
                    axes.push(labels[i].1.clone());
                }
                3 => {
                    items.push(EinsumAxis::Fresh);
                    axes.push(self.axis());
                }
                _ => {
                    let a = self.axis();
                    items.push(self.new_label(labels, a.clone()));
                    axes.push(a);
                }
            }
        }
        let key = match self.c.below(3) {
            0 => return (Row::closed(items), axes),
            1 => EKey::Kind(kind),
            _ => EKey::Named(self.c.pick(&EINSUM_ROWS)),
        };
        let bound = match rows.get(&key) {
            Some(bound) => bound.clone(),
            None => {
                let r: CRow = (0..self.c.below(2)).map(|_| self.axis()).collect();
                rows.insert(key.clone(), r.clone());
                r
            }
        };
        let p = self.c.below(items.len() + 1);
        let end = items.split_off(p);
        let mut concrete: CRow = axes[..p].to_vec();
        concrete.extend(bound);
        concrete.extend_from_slice(&axes[p..]);
        (Row::open(items, ekey_var(&key), end), concrete)
    }

    /// The spec of `shape` with parts forgotten: `result_like` specs are
    /// mostly fully unknown, others mostly kept.
    fn forget(&mut self, shape: &CShape, result_like: bool) -> ShapeSpec {
        let mode = match (self.c.below(4), result_like) {
            (m, true) => m,
            (0 | 1, false) => 3,
            (2, false) => 2,
            (_, false) => 0,
        };
        match mode {
            0 | 1 => ShapeSpec {
                batch: Row::open(vec![], RowVar::Anonymous, vec![]),
                input: Row::open(vec![], RowVar::Anonymous, vec![]),
                output: Row::open(vec![], RowVar::Anonymous, vec![]),
            },
            2 => ShapeSpec {
                batch: self.forget_row(shape.batch()),
                input: self.forget_row(shape.input()),
                output: self.forget_row(shape.output()),
            },
            _ => shape.to_spec(),
        }
    }

    fn forget_row(&mut self, axes: &[Ax]) -> Row<ShapeAxis> {
        match self.c.below(4) {
            0 => Row::closed(axes.iter().map(Ax::to_spec).collect()),
            1 => Row::open(vec![], RowVar::Anonymous, vec![]),
            2 => {
                let p = self.c.below(axes.len() + 1);
                let q = p + self.c.below(axes.len() - p + 1);
                let mut var = RowVar::Anonymous;
                if self.c.below(2) == 1 {
                    let name = self.c.pick(&ROW_VARS);
                    let seq = &axes[p..q];
                    match self.row_vars.get(name) {
                        None => {
                            self.row_vars.insert(name, seq.to_vec());
                            var = RowVar::Named(name.into());
                        }
                        Some(bound) => {
                            if let Some(merged) = merge_rows(bound, seq) {
                                self.row_vars.insert(name, merged);
                                var = RowVar::Named(name.into());
                            }
                        }
                    }
                }
                let beg = axes[..p].iter().map(|a| self.forget_axis(a)).collect();
                let end = axes[q..].iter().map(|a| self.forget_axis(a)).collect();
                Row::open(beg, var, end)
            }
            _ => Row::closed(axes.iter().map(|a| self.forget_axis(a)).collect()),
        }
    }

    fn forget_axis(&mut self, a: &Ax) -> ShapeAxis {
        match self.c.below(4) {
            1 => ShapeAxis::Fresh,
            2 => {
                let name = self.c.pick(&DIM_VARS);
                let merged = match self.dim_vars.get(name) {
                    None => Some(a.clone()),
                    Some(bound) => bound.merge(a),
                };
                match merged {
                    Some(merged) => {
                        self.dim_vars.insert(name, merged);
                        ShapeAxis::Var(name.into())
                    }
                    None => ShapeAxis::Fresh,
                }
            }
            _ => a.to_spec(),
        }
    }

    /// Breaks a spec: a size changed, or an axis added or dropped.
    fn mutate(&mut self, spec: &mut ShapeSpec) {
        let row = match self.c.below(3) {
            0 => &mut spec.batch,
            1 => &mut spec.input,
            _ => &mut spec.output,
        };
        match self.c.below(3) {
            0 => {
                let sizes: Vec<usize> = (0..row.end.len())
                    .filter(|&i| {
                        matches!(row.end[i], ShapeAxis::Size(_) | ShapeAxis::Labeled { .. })
                    })
                    .collect();
                if let Some(&i) = sizes.get(self.c.below(sizes.len().max(1))) {
                    let bump = 1 + self.c.below(4) as u64;
                    if let ShapeAxis::Size(s) | ShapeAxis::Labeled { size: s, .. } = &mut row.end[i]
                    {
                        // A different size in 1..=5.
                        *s = (*s - 1 + bump) % 5 + 1;
                    }
                }
            }
            1 => {
                let size = 1 + self.c.below(5) as u64;
                row.end.insert(0, ShapeAxis::Size(size));
            }
            _ => {
                row.end.pop();
            }
        }
    }

    /// Generates a program; `forget` says whether specs may be forgotten and
    /// mutated.
    fn program(mut self, forget: bool) -> String {
        for _ in 0..1 + self.c.below(3) {
            let s = self.shape();
            self.new_arg(s);
        }
        for _ in 0..1 + self.c.below(6) {
            self.op();
        }
        let shapes: Vec<(CShape, bool)> = self
            .lines
            .iter()
            .map(|l| (l.shape.clone(), l.is_arg))
            .collect();
        let mut specs: Vec<ShapeSpec> = shapes
            .iter()
            .map(|(shape, is_arg)| {
                if forget {
                    self.forget(shape, !is_arg)
                } else {
                    shape.to_spec()
                }
            })
            .collect();
        if forget && self.c.one_in(4) {
            let i = self.c.below(specs.len());
            self.mutate(&mut specs[i]);
        }
        self.lines
            .iter()
            .zip(&specs)
            .map(|(line, spec)| match &line.call {
                None => format!("arg {} : {spec}", line.name),
                Some(call) => format!("{} = {call} : {spec}", line.name),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn slot_row(slot: &mut SlotSpec, kind: usize) -> &mut Row<EinsumAxis> {
    match kind {
        0 => &mut slot.batch,
        1 => &mut slot.input,
        _ => &mut slot.output,
    }
}

fn ekey_var(key: &EKey) -> RowVar {
    match key {
        EKey::Kind(_) => RowVar::Anonymous,
        EKey::Named(name) => RowVar::Named((*name).into()),
    }
}

/// The error of a solve that panicked.
const PANIC: &str = "the solver panicked";

/// How long one solve may take before the solver is taken to diverge: a
/// backstop (the solver has its own convergence budget), generous so that a
/// loaded machine cannot make the test flaky.
const DEADLINE: Duration = Duration::from_secs(60);

/// The solution (rendered) or the error kind, after an optional shuffle;
/// and with `verify`, the checker's verdict on a solution.
///
/// The solver runs on a worker thread: a panic becomes the error
/// [`PANIC`] (the message is printed by the panic hook), and if it does not finish
/// within [`DEADLINE`] the whole
/// test process exits (after printing the program), since a diverging solve
/// cannot be stopped and would otherwise eat all memory.
fn outcome_verified(
    src: &str,
    seed: Option<u64>,
    verify: bool,
) -> (Result<String, String>, Option<Result<(), String>>) {
    outcome_with(src, seed, verify, true)
}

/// [`outcome_verified`], with the solver's shortcuts on or off
/// ([`Problem::set_shortcuts`]).
///
/// [`Problem::set_shortcuts`]: ocannl_shape::problem::Problem::set_shortcuts
fn outcome_with(
    src: &str,
    seed: Option<u64>,
    verify: bool,
    shortcuts: bool,
) -> (Result<String, String>, Option<Result<(), String>>) {
    let (tx, rx) = mpsc::channel();
    let owned = src.to_owned();
    std::thread::spawn(move || {
        let mut built = build(&owned);
        built.problem.set_shortcuts(shortcuts);
        if let Some(seed) = seed {
            built.problem.shuffle(seed);
        }
        let result = solve_and_render(&mut built, Closing::Full).map_err(|e| e.kind.to_string());
        let verdict = (verify && result.is_ok()).then(|| verify_solution(&built));
        let _ = tx.send((result, verdict));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(outcome) => outcome,
        Err(mpsc::RecvTimeoutError::Disconnected) => (Err(PANIC.into()), None),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            eprintln!(
                "the solver did not finish within {DEADLINE:?} (shuffle {seed:?}); program:\n{src}"
            );
            std::process::exit(101);
        }
    }
}

/// [`outcome_verified`] without the checker.
fn outcome(src: &str, seed: Option<u64>) -> Result<String, String> {
    outcome_verified(src, seed, false).0
}

const SEEDS: [Option<u64>; 5] = [None, Some(1), Some(2), Some(3), Some(0x5eed)];

/// Cases per property: 1024, or `PROPTEST_CASES` for a deeper search.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1024)
}

fn choices() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The solution does not depend on the order of the constraints; nor
    /// does whether there is one.
    #[test]
    fn declarative(data in choices()) {
        let src = Gen::new(&data).program(true);
        let outcomes: Vec<(Option<u64>, Result<String, String>)> =
            SEEDS.iter().map(|&seed| (seed, outcome(&src, seed))).collect();
        let (_, first) = &outcomes[0];
        for (seed, other) in &outcomes[1..] {
            let same = match (first, other) {
                (Ok(a), Ok(b)) => a == b,
                (Err(_), Err(_)) => true,
                _ => false,
            };
            prop_assert!(
                same,
                "\nprogram:\n{}\nno shuffle: {:?}\nshuffle({:?}): {:?}",
                src, first, seed, other
            );
        }
    }

    /// The solver's shortcuts (constraints that hold trivially not
    /// stored, a grown row paired in the same step, one-link expansions,
    /// least-upper-bound records recognised before expanding) conclude what
    /// the general rules conclude, one step at a time: the same solution,
    /// or the same kind of error.
    #[test]
    fn shortcuts_agree(data in choices()) {
        let src = Gen::new(&data).program(true);
        let fast = outcome(&src, None);
        let plain = outcome_with(&src, None, false, false).0;
        prop_assert!(
            fast == plain,
            "\nprogram:\n{}\nwith shortcuts: {:?}\nwithout: {:?}",
            src, fast, plain
        );
    }

    /// `Problem::concrete_key` (read off the solution without building
    /// shapes) is given exactly for the concrete solved shapes, and two
    /// shapes' keys are equal exactly when the shapes are: checked on the
    /// online stage's partial solutions (variables left) and after closing.
    #[test]
    fn concrete_keys_agree(data in choices(), full in any::<bool>()) {
        let src = Gen::new(&data).program(true);
        let mut built = build(&src);
        let closing = if full { Closing::Full } else { Closing::None };
        if built.problem.solve(closing).is_ok() {
            let ids: Vec<ShapeId> = (0..built.problem.shape_count())
                .map(|i| ShapeId(i as u32))
                .collect();
            let mut keyed = vec![];
            for &id in &ids {
                let shape = built.problem.shape(id);
                let mut key = vec![];
                let concrete = built.problem.concrete_key(id, &mut key);
                prop_assert_eq!(concrete, shape.is_concrete(), "{:?}\nprogram:\n{}", shape, src);
                if concrete {
                    keyed.push((key, shape));
                }
            }
            for (ka, a) in &keyed {
                for (kb, b) in &keyed {
                    prop_assert_eq!(ka == kb, a == b, "{:?} / {:?}\nprogram:\n{}", a, b, src);
                }
            }
        }
    }

    /// When every order fails, it fails with the same kind of error.
    #[test]
    fn declarative_error_kinds(data in choices()) {
        let src = Gen::new(&data).program(true);
        let kinds: Vec<(Option<u64>, String)> = SEEDS
            .iter()
            .filter_map(|&seed| outcome(&src, seed).err().map(|k| (seed, k)))
            .collect();
        if let Some((_, first)) = kinds.first() {
            for (seed, kind) in &kinds[1..] {
                prop_assert!(
                    kind == first,
                    "\nprogram:\n{}\nno shuffle: error: {}\nshuffle({:?}): error: {}",
                    src, first, seed, kind
                );
            }
        }
    }

    /// Every solution is concrete and satisfies every op, per the
    /// independent checker.
    #[test]
    fn sound(data in choices()) {
        let src = Gen::new(&data).program(true);
        let (result, verdict) = outcome_verified(&src, None, true);
        prop_assert!(
            result.as_ref().err().is_none_or(|e| e != PANIC),
            "\nprogram:\n{}\n{}", src, PANIC
        );
        if let (Ok(solution), Some(verdict)) = (result, verdict) {
            prop_assert!(
                verdict.is_ok(),
                "\nprogram:\n{}\nsolution:\n{}\nchecker: {}",
                src, solution, verdict.unwrap_err()
            );
        }
    }

    /// A graph whose specs are all concrete (and satisfy the logic) solves,
    /// to itself; the checker accepts it too (which tests the generator
    /// against the checker).
    #[test]
    fn complete_on_concrete_graphs(data in choices()) {
        let src = Gen::new(&data).program(false);
        let expected: String = super::harness::parse_program(&src)
            .iter()
            .map(|l| format!("{}: {}", l.name, l.spec))
            .collect::<Vec<_>>()
            .join("\n");
        let (actual, verdict) = outcome_verified(&src, None, true);
        prop_assert!(
            actual.as_ref() == Ok(&expected),
            "\nprogram:\n{}\nexpected:\n{}\nactual: {:?}",
            src, expected, actual
        );
        prop_assert_eq!(verdict, Some(Ok(())), "\nprogram:\n{}", src);
    }
}
