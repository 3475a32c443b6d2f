//! ONNX Scan (onnx.ai/onnx/operators/onnx__Scan.html), unrolled at import
//! as the recurrent ops are: the scanned length must be known when
//! importing (at most [`MAX_STEPS`]). Opset 9 and later: the inputs are
//! `N` initial states then `M` scan inputs; each step the body takes the
//! states and one slice of each scan input (its scanned axis,
//! `scan_input_axes`, removed; read from the end for a direction of 1),
//! and gives the new states and one element of each of the `K` scan
//! outputs, stacked along `scan_output_axes` (from the end for a
//! direction of 1). Opset 8 adds a leading batch axis to every input and
//! output (each batch element scanned on its own) and an optional first
//! input `sequence_lens`, which must be absent here (every sequence the
//! full length).
//!
//! The body is translated once per step in the function's scope, as an
//! `If` branch is (`control.rs`): its nodes see the outer names, and its
//! inputs are bound to the step's values.

use super::axes::Layout;
use super::control::Out;
use super::elementwise::with_rank;
use super::recurrent::MAX_STEPS;
use super::{Attrs, R, Translator, Val};
use crate::proto::{GraphProto, NodeProto, attribute_proto::AttributeType as K};

/// The attributes of Scan (see `attrs::known`); `None`: another op.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    (op == "Scan").then_some(&[
        ("body", K::Graph),
        ("num_scan_inputs", K::Int),
        ("scan_input_axes", K::Ints),
        ("scan_input_directions", K::Ints),
        ("scan_output_axes", K::Ints),
        ("scan_output_directions", K::Ints),
        ("directions", K::Ints),
    ])
}

/// The scanned axes and directions of the scan inputs and outputs.
struct Plan {
    in_axes: Vec<i64>,
    in_rev: Vec<bool>,
    out_axes: Vec<i64>,
    out_rev: Vec<bool>,
}

impl Translator {
    /// Translates `node` if it is a Scan.
    pub(super) fn scan(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        if op != "Scan" {
            return Ok(false);
        }
        let a = Attrs::of(node);
        let Some(body) = a.graph("body") else {
            return self.err("Scan needs its body");
        };
        let batched = self.opset < 9;
        if batched && node.input.first().is_some_and(|s| !s.is_empty()) {
            return self.err("Scan's sequence_lens (opset 8) is not supported");
        }
        let ins: Vec<String> = node
            .input
            .iter()
            .skip(usize::from(batched))
            .cloned()
            .collect();
        let m = match a.int("num_scan_inputs") {
            Some(m) if m >= 1 && m as u64 <= ins.len() as u64 => m as usize,
            Some(m) => {
                return self.err(format!(
                    "num_scan_inputs {m} for {} state and scan inputs",
                    ins.len()
                ));
            }
            None => return self.err("Scan needs num_scan_inputs"),
        };
        let n = ins.len() - m;
        if body.input.len() != n + m || body.output.len() < n {
            return self.err(format!(
                "the body takes {} inputs and gives {} outputs, for {n} states and {m} scan inputs",
                body.input.len(),
                body.output.len()
            ));
        }
        let k = body.output.len() - n;
        if node.output.len() > n + k {
            return self.err(format!(
                "Scan has {} outputs, its body gives {}",
                node.output.len(),
                n + k
            ));
        }
        let plan = self.scan_plan(&a, batched, m, k)?;
        let mut vals = Vec::with_capacity(ins.len());
        for name in &ins {
            if name.is_empty() {
                return self.err("Scan's inputs are all required");
            }
            vals.push(self.value(name)?);
        }
        let (states, scans) = vals.split_at(n);
        let outs = if batched {
            self.scan_batched(body, states, scans, &plan)?
        } else {
            self.scan_steps(body, states, scans, &plan)?
        };
        for (i, v) in outs.into_iter().enumerate().take(node.output.len()) {
            self.bind(node, i, v);
        }
        Ok(true)
    }

    /// The axes and directions, checked against the input and output
    /// counts (`m` scan inputs, `k` scan outputs).
    fn scan_plan(&self, a: &Attrs<'_>, batched: bool, m: usize, k: usize) -> R<Plan> {
        let list = |name: &str, len: usize, dir: bool| -> R<Vec<i64>> {
            let v = a.ints(name).unwrap_or_else(|| vec![0; len]);
            if v.len() != len {
                return self.err(format!("{name} has {} entries for {len}", v.len()));
            }
            if dir && v.iter().any(|&d| d != 0 && d != 1) {
                return self.err(format!("{name} {v:?}: each 0 (forward) or 1 (reverse)"));
            }
            for &x in &v {
                super::axes::check_axis(x).map_err(|e| self.error(e))?;
            }
            Ok(v)
        };
        let rev = |v: Vec<i64>| v.into_iter().map(|d| d == 1).collect();
        Ok(if batched {
            Plan {
                in_axes: vec![0; m],
                in_rev: rev(list("directions", m, true)?),
                out_axes: vec![0; k],
                out_rev: vec![false; k],
            }
        } else {
            Plan {
                in_axes: list("scan_input_axes", m, false)?,
                in_rev: rev(list("scan_input_directions", m, true)?),
                out_axes: list("scan_output_axes", k, false)?,
                out_rev: rev(list("scan_output_directions", k, true)?),
            }
        })
    }

    /// Opset 8: each batch element (axis 0 of every input) scanned on its
    /// own, the results stacked along axis 0.
    fn scan_batched(
        &mut self,
        body: &GraphProto,
        states: &[Val],
        scans: &[Val],
        plan: &Plan,
    ) -> R<Vec<Val>> {
        let batch = self.scan_length(states.iter().chain(scans), &[], "batch")?;
        let mut per_output: Vec<Vec<Val>> = Vec::new();
        for b in 0..batch {
            let s: Vec<Val> = states
                .iter()
                .map(|v| self.take(v, 0, b))
                .collect::<R<_>>()?;
            let x: Vec<Val> = scans.iter().map(|v| self.take(v, 0, b)).collect::<R<_>>()?;
            let outs = self.scan_steps(body, &s, &x, plan)?;
            per_output.resize(outs.len(), Vec::new());
            for (i, v) in outs.into_iter().enumerate() {
                per_output[i].push(v);
            }
        }
        per_output
            .into_iter()
            .map(|parts| self.stack(&parts, 0))
            .collect()
    }

    /// The steps of one scan: the final states, then the scan outputs.
    fn scan_steps(
        &mut self,
        body: &GraphProto,
        states: &[Val],
        scans: &[Val],
        plan: &Plan,
    ) -> R<Vec<Val>> {
        let len = self.scan_length(scans.iter(), &plan.in_axes, "sequence")?;
        let n = states.len();
        let mut states = states.to_vec();
        let mut elems: Vec<Vec<Val>> = vec![Vec::new(); body.output.len() - n];
        for t in 0..len {
            for (i, s) in states.iter().enumerate() {
                self.bind_body_input(body, i, s.clone());
            }
            for (j, x) in scans.iter().enumerate() {
                let axis = self.scanned_axis(x, plan.in_axes[j])?;
                let at = if plan.in_rev[j] { len - 1 - t } else { t };
                let slice = self.take(x, axis, at)?;
                self.bind_body_input(body, n + j, slice);
            }
            let outs = self.branch(body)?;
            let mut outs: Vec<Val> = outs
                .into_iter()
                .map(|o: Out| self.out_value(o))
                .collect::<R<_>>()?;
            let produced = outs.split_off(n);
            states = outs;
            for (e, v) in elems.iter_mut().zip(produced) {
                e.push(v);
            }
        }
        let mut result = states;
        for (i, mut parts) in elems.into_iter().enumerate() {
            if plan.out_rev[i] {
                parts.reverse();
            }
            let v = self.stack(&parts, plan.out_axes[i])?;
            result.push(v);
        }
        Ok(result)
    }

    /// Body input `i` bound to `v` for this step (shadowing any constant
    /// or shape value of the same name from a step before).
    fn bind_body_input(&mut self, body: &GraphProto, i: usize, v: Val) {
        let name = body.input[i].name.clone().unwrap_or_default();
        self.shape_vals.remove(&name);
        self.consts.remove(&name);
        self.values.insert(name, v);
    }

    /// The common length of the values' scanned axes (`axes[j]` of value
    /// `j`), which must be known, at least 1 and at most [`MAX_STEPS`].
    fn scan_length<'v>(
        &self,
        vals: impl Iterator<Item = &'v Val>,
        axes: &[i64],
        what: &str,
    ) -> R<u64> {
        let mut len = None;
        for (j, v) in vals.enumerate() {
            let axis = self.scanned_axis(v, axes.get(j).copied().unwrap_or(0))?;
            let Some(d) = v.shape.as_ref().map(|d| d[axis]) else {
                return self.err(format!(
                    "Scan is unrolled over the {what}, whose length must be known at import (not supported)"
                ));
            };
            if len.is_some_and(|l| l != d) {
                return self.err(format!(
                    "the scanned {what} lengths differ ({d} and {len:?})"
                ));
            }
            len = Some(d);
        }
        match len {
            Some(l) if l >= 1 && l <= MAX_STEPS as u64 => Ok(l),
            Some(l) => self.err(format!(
                "Scan is unrolled over the {what}; its length {l} is not from 1 to {MAX_STEPS} (not supported)"
            )),
            None => self.err("Scan has no scan inputs"),
        }
    }

    /// `axis` (negative from the end) of `v`, whose rank must be known.
    fn scanned_axis(&self, v: &Val, axis: i64) -> R<usize> {
        let Some(r) = v.rank.or(v.shape.as_ref().map(Vec::len)) else {
            return self
                .err("Scan needs its inputs' ranks, which are not known here (not supported)");
        };
        let k = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&k) {
            return self.err(format!("scan axis {axis} is out of range for rank {r}"));
        }
        Ok(k as usize)
    }

    /// Cell `i` of `x` along `axis` (the axis removed): an einsum with a
    /// fixed index.
    fn take(&mut self, x: &Val, axis: usize, i: u64) -> R<Val> {
        let r = x.rank.or(x.shape.as_ref().map(Vec::len)).unwrap_or(0);
        let lay = Layout::new(&[axis as i64], Some(r)).map_err(|m| self.error(m))?;
        let spec = format!(
            "{} => {}",
            lay.map(|_| Some(i.to_string())),
            lay.map(|_| None)
        );
        let mut v = with_rank(
            self.einsum(&spec, &[x], None, None, "...".into()),
            Some(r - 1),
        );
        v.shape = x.shape.as_ref().map(|d| {
            let mut d = d.clone();
            d.remove(axis);
            d
        });
        Ok(v)
    }

    /// `parts` (one rank, known) stacked along a new axis `axis` (negative
    /// from the end of the result).
    fn stack(&mut self, parts: &[Val], axis: i64) -> R<Val> {
        let Some(q) = parts[0].rank.or(parts[0].shape.as_ref().map(Vec::len)) else {
            return self.err(
                "Scan needs its body outputs' ranks, which are not known here (not supported)",
            );
        };
        let r = q + 1;
        let a = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&a) {
            return self.err(format!(
                "scan output axis {axis} is out of range for rank {r}"
            ));
        }
        let a = a as usize;
        let labels = super::axes::labels("a", q);
        let mut out = labels.clone();
        out.insert(a, "0".into());
        let spec = format!("{} => {}", labels.join(","), out.join(","));
        let mut lifted = Vec::with_capacity(parts.len());
        for p in parts {
            if p.rank.or(p.shape.as_ref().map(Vec::len)) != Some(q) {
                return self.err("the scan output's elements differ in rank");
            }
            lifted.push(with_rank(
                self.einsum(&spec, &[p], None, None, "...".into()),
                Some(r),
            ));
        }
        let lay = Layout::new(&[a as i64], Some(r)).map_err(|m| self.error(m))?;
        let refs: Vec<&Val> = lifted.iter().collect();
        let mut v = if refs.len() == 1 {
            lifted[0].clone()
        } else {
            with_rank(self.concat_along(&lay, &refs, "...".into()), Some(r))
        };
        let dims: Option<Vec<Vec<u64>>> = parts.iter().map(|p| p.shape.clone()).collect();
        v.shape = dims.filter(|d| d.iter().all(|x| x == &d[0])).map(|d| {
            let mut s = d[0].clone();
            s.insert(a, parts.len() as u64);
            s
        });
        Ok(v)
    }
}
