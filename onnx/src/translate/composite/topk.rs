//! ONNX TopK (onnx.ai/onnx/operators/onnx__TopK.html), exact by ranks:
//! cell `i` of the axis ranks `#{j: x[j] beats x[i]} + #{j < i: x[j] ==
//! x[i]}` (ties to the lower index, as ONNX requires; beats: greater, or
//! smaller when `largest = 0`); output position `k` takes the cell whose
//! rank is `k` (a where-einsum) and its index. `O(n^2)` in the axis size;
//! always sorted (as ONNX's reference). `k` must be a constant.

use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val, dims_spec};
use super::index::known;
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// `l` with the label at `a` replaced by `by` (one or more labels).
fn at(l: &[String], a: usize, by: &str) -> String {
    let mut v = l.to_vec();
    v[a] = by.into();
    v.join(",")
}

impl Translator {
    /// ONNX TopK.
    pub(super) fn top_k(&mut self, node: &NodeProto) -> R<()> {
        let attrs = Attrs::of(node);
        let x = self.input(node, 0)?;
        let Some(dims) = x.shape.clone() else {
            return self.err("TopK of an input whose dims are not known (not supported)");
        };
        let r = dims.len();
        let axis = attrs.int("axis").unwrap_or(-1);
        let a = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&a) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        let a = a as usize;
        let k = if self.opset < 10 {
            attrs.int("k")
        } else {
            self.const_ints(node, 1)?
                .filter(|v| v.len() == 1)
                .map(|v| v[0])
        };
        let Some(k) = k else {
            return self.err("TopK's k must be a constant (one value)");
        };
        let n = dims[a];
        if k < 1 || k as u64 > n {
            return self.err(format!(
                "k = {k} for an axis of {n} cells (from 1 to n supported)"
            ));
        }
        if n > 1 << 12 {
            return self.err(format!(
                "TopK over {n} cells (more than 4096; not supported)"
            ));
        }
        if x.elem.is_bool() {
            return self.err("TopK of booleans is not supported");
        }
        let largest = attrs.int("largest").unwrap_or(1) != 0;
        let l: Vec<String> = (0..r).map(|i| format!("a{i}")).collect();
        let rank = self.ranks(&x, &l, (a, n), largest)?;
        // hit[.., i, k] = rank[.., i] == k.
        let k = k as u64;
        let mut dk = dims.clone();
        dk[a] = n;
        dk.insert(a + 1, k);
        let ones = self.fill(Elem::I64, &[k], 1.0);
        let spec = format!("{}; tk => {}", at(&l, a, "ti"), at(&l, a, "ti,tk"));
        let rk = self.einsum(&spec, &[&rank, &ones], None, None, dims_spec(&dk));
        let rk = known(rk, Some(dk.clone()), Some(r + 1));
        let kcol = self.column(
            Elem::I64,
            &(0..k).map(|v| v as f64).collect::<Vec<_>>(),
            r - a - 1,
        )?;
        let hit = self.binary_to("eq", &rk, &kcol, "...".into(), Elem::Bool)?;
        let mut dout = dims.clone();
        dout[a] = k;
        let out = dims_spec(&dout);
        // The values: a where-einsum (no product touches the kept cell).
        let cond = self.unary_to("cast", &hit, "...".into(), x.elem);
        let zero = self.scalar(x.elem, 0.0);
        let spec = format!(
            "{}; {}; => {}",
            at(&l, a, "ti,tk"),
            at(&l, a, "ti"),
            at(&l, a, "tk")
        );
        let values = self.einsum(&spec, &[&cond, &x, &zero], None, Some("where"), out.clone());
        let hi = self.unary_to("cast", &hit, "...".into(), Elem::I64);
        let pos = self.column(Elem::I64, &(0..n).map(|v| v as f64).collect::<Vec<_>>(), 0)?;
        let spec = format!("{}; ti => {}", at(&l, a, "ti,tk"), at(&l, a, "tk"));
        let idx = self.einsum(&spec, &[&hi, &pos], None, None, out);
        self.bind(node, 0, known(values, Some(dout.clone()), Some(r)));
        self.bind(node, 1, known(idx, Some(dout), Some(r)));
        Ok(())
    }

    /// `values` as a column `[n, 1, ..]` with `ones` trailing axes of 1.
    fn column(&mut self, elem: Elem, values: &[f64], ones: usize) -> R<Val> {
        let v = self.vector(elem, values)?;
        if ones == 0 {
            return Ok(v);
        }
        let mut d = vec![values.len() as u64];
        d.extend(std::iter::repeat_n(1, ones));
        let c = self.emit("reshape", &[&v], "", elem, dims_spec(&d), None);
        Ok(known(c, Some(d), None))
    }

    /// The rank of each cell of `x`'s axis `a` (of `n` cells; labels `l`)
    /// among its axis, as int64 of `x`'s dims.
    fn ranks(&mut self, x: &Val, l: &[String], (a, n): (usize, u64), largest: bool) -> R<Val> {
        let dims = x.shape.clone().expect("known dims");
        let r = dims.len();
        let mut dp = dims.clone();
        dp.insert(a + 1, n);
        let ones = self.fill(x.elem, &[n], 1.0);
        let pair = at(l, a, "ti,tj");
        let lift = |t: &mut Self, own: &str, other: &str| {
            let spec = format!("{}; {other} => {pair}", at(l, a, own));
            let v = t.einsum(&spec, &[x, &ones], None, None, dims_spec(&dp));
            known(v, Some(dp.clone()), Some(r + 1))
        };
        let xj = lift(self, "tj", "ti");
        let xi = lift(self, "ti", "tj");
        let cmp = if largest { "gt" } else { "lt" };
        let better = self.binary_to(cmp, &xj, &xi, "...".into(), Elem::Bool)?;
        let same = self.binary_to("eq", &xj, &xi, "...".into(), Elem::Bool)?;
        // j < i: the grid i - j, positive.
        let diff: Vec<f64> = (0..n * n)
            .map(|c| (c / n) as f64 - (c % n) as f64)
            .collect();
        let diff = self.vector(Elem::I64, &diff)?;
        let mut dg = vec![n, n];
        dg.extend(std::iter::repeat_n(1, r - 1 - a));
        let diff = self.emit("reshape", &[&diff], "", Elem::I64, dims_spec(&dg), None);
        let diff = known(diff, Some(dg), None);
        let zero = self.scalar(Elem::I64, 0.0);
        let lower = self.binary_to("gt", &diff, &zero, "...".into(), Elem::Bool)?;
        let tie = self.binary_to("and", &same, &lower, "...".into(), Elem::Bool)?;
        let beats = self.binary_to("or", &better, &tie, "...".into(), Elem::Bool)?;
        let count = self.unary_to("cast", &beats, "...".into(), Elem::I64);
        let spec = format!("{pair} => {}", at(l, a, "ti"));
        let rank = self.einsum(&spec, &[&count], None, None, dims_spec(&dims));
        Ok(with_rank(known(rank, Some(dims), Some(r)), Some(r)))
    }
}
