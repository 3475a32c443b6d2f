//! Ops that move or regroup axes: Concat, Reshape, Flatten, the reductions.

use super::axes::{Layout, MAX_AXES, labels};
use super::elementwise::with_rank;
use super::{Attrs, R, Translator, Val, dims_spec};
use crate::proto::NodeProto;

impl Translator {
    /// ONNX Concat along `axis`: a block spec `..., p0^p1^..., ...`.
    pub(super) fn concat(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let Some(axis) = at.int("axis") else {
            return self.err("'axis' is required");
        };
        let mut xs = Vec::new();
        for i in 0..node.input.len() {
            xs.push(self.input(node, i)?);
        }
        if xs.is_empty() {
            return self.err("Concat needs at least one input");
        }
        let rank = xs.iter().find_map(|x| x.rank);
        let lay = Layout::new(&[axis], rank).map_err(|m| self.error(m))?;
        let refs: Vec<&Val> = xs.iter().collect();
        let v = self.concat_along(&lay, &refs, self.out_spec(node, 0));
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }

    /// ONNX Reshape to a constant or computed shape (see
    /// `shape_values`): `-1` is a fresh dimension variable (the element
    /// count decides it), `0` copies the input's size at that position (a
    /// known size, or a dimension variable shared with a view of the
    /// input), a computed dim is its dimension variable, or a fresh one
    /// for an expression over several.
    pub(super) fn reshape(&mut self, node: &NodeProto) -> R<()> {
        use super::shape_values::sym::Sym;
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let target: Vec<Sym> = match at.ints("shape") {
            Some(s) if self.opset < 5 => s.into_iter().map(Sym::Num).collect(),
            _ => match self.shape_arg(node, 1)? {
                Some(s) => s,
                None => return self.err("Reshape needs its shape input"),
            },
        };
        let shown: Vec<String> = target.iter().map(ToString::to_string).collect();
        let shown = format!("[{}]", shown.join(", "));
        let allowzero = at.int("allowzero").unwrap_or(0) == 1;
        if target.len() as u64 > super::axes::MAX_AXES {
            return self.err(format!(
                "a shape of {} axes, more than {}",
                target.len(),
                super::axes::MAX_AXES
            ));
        }
        let is = |k: i64| move |d: &Sym| d.num() == Some(k);
        if target.iter().filter(|d| is(-1)(d)).count() > 1 {
            return self.err(format!("shape {shown} has more than one -1"));
        }
        if allowzero && target.iter().any(is(0)) {
            // A size-0 axis: the input has no cells either, the result is
            // a constant of the target's dims (`empty`).
            let dims: Option<Vec<u64>> = target
                .iter()
                .map(|d| d.num().and_then(|n| u64::try_from(n).ok()))
                .collect();
            let cells = x.shape.as_ref().map(|d| d.iter().product::<u64>());
            return match (dims, cells) {
                (Some(dims), Some(0)) => {
                    self.empty_result(node, 0, x.elem, &dims);
                    Ok(())
                }
                (_, Some(c)) if c > 0 => self.err(format!(
                    "shape {shown} has no cells, the input has {c}"
                )),
                _ => self.err(format!(
                    "shape {shown}: an empty result needs every size known, and the input's (not supported)"
                )),
            };
        }
        if target.iter().any(|d| d.num().is_some_and(|n| n < -1)) {
            return self.err(format!("shape {shown}: sizes must be positive, 0 or -1"));
        }
        let unknown = target
            .iter()
            .filter(|d| matches!(d, Sym::Op(..)) || is(-1)(d))
            .count();
        if unknown > 1 {
            return self.err(format!(
                "shape {shown}: more than one size is left to the element count (a -1 and computed dims that are not dimensions)"
            ));
        }
        let copies: Vec<usize> = (0..target.len()).filter(|&i| is(0)(&target[i])).collect();
        let mut src = x.clone();
        let mut names: Vec<Option<String>> = vec![None; target.len()];
        if let Some(&last) = copies.last() {
            match &x.shape {
                Some(d) if d.len() > last => {
                    for &i in &copies {
                        names[i] = Some(d[i].to_string());
                    }
                }
                Some(d) => {
                    return self.err(format!(
                        "shape {shown} copies axis {last} of a rank-{} input",
                        d.len()
                    ));
                }
                None => {
                    // A view of the input whose leading sizes are named.
                    let vars: Vec<String> = (0..=last).map(|_| self.fresh_var()).collect();
                    for &i in &copies {
                        names[i] = Some(vars[i].clone());
                    }
                    let l = labels("a", last + 1);
                    let spec = format!("{},..r.. => {},..r..", l.join(","), l.join(","));
                    src = self.einsum(&spec, &[&x], None, None, format!("{},...", vars.join(",")));
                }
            }
        }
        let mut axes: Vec<String> = Vec::new();
        for (i, d) in target.iter().enumerate() {
            axes.push(match (&names[i], d) {
                (Some(n), _) => n.clone(),
                (None, Sym::Num(d)) if *d > 0 => d.to_string(),
                (None, Sym::Dim(v)) => v.clone(),
                (None, _) => self.fresh_var(),
            });
        }
        let elem = x.elem;
        let v = self.emit("reshape", &[&src], "", elem, axes.join(","), None);
        self.bind(node, 0, with_rank(v, Some(target.len())));
        Ok(())
    }

    /// ONNX Flatten: `[prod(d[..axis]), prod(d[axis..])]`.
    pub(super) fn flatten(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let axis = Attrs::of(node).int("axis").unwrap_or(1);
        super::axes::check_axis(axis).map_err(|m| self.error(m))?;
        let axis = match (axis < 0, x.rank) {
            (false, _) => axis as usize,
            (true, Some(r)) if axis + r as i64 >= 0 => (axis + r as i64) as usize,
            _ => return self.err(format!("axis {axis} needs the input's rank")),
        };
        let elem = x.elem;
        let v = if let Some(d) = &x.shape {
            if axis > d.len() {
                return self.err(format!("axis {axis} of a rank-{} input", d.len()));
            }
            let product = |d: &[u64]| d.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
            let (Some(p), Some(q)) = (product(&d[..axis]), product(&d[axis..])) else {
                return self.err(format!("the sizes {d:?} overflow 64 bits when flattened"));
            };
            self.emit("reshape", &[&x], "", elem, dims_spec(&[p, q]), None)
        } else if axis == 0 {
            let q = self.fresh_var();
            self.emit("reshape", &[&x], "", elem, format!("1,{q}"), None)
        } else {
            // Name the leading sizes on a view of the input, fold the rest
            // (one unknown), then the leading ones (one unknown).
            let vars: Vec<String> = (0..axis).map(|_| self.fresh_var()).collect();
            let l = labels("a", axis);
            let spec = format!("{},..r.. => {},..r..", l.join(","), l.join(","));
            let view = self.einsum(&spec, &[&x], None, None, format!("{},...", vars.join(",")));
            let q = self.fresh_var();
            let out = format!("{},{q}", vars.join(","));
            let r = self.emit("reshape", &[&view], "", elem, out, None);
            if axis == 1 {
                r
            } else {
                let p = self.fresh_var();
                self.emit("reshape", &[&r], "", elem, format!("{p},{q}"), None)
            }
        };
        self.bind(node, 0, with_rank(v, Some(2)));
        Ok(())
    }

    /// ONNX ReduceSum / ReduceMean / ReduceMax / ReduceMin: an einsum whose
    /// result drops the reduced axes, or keeps them as fixed index 0 (size
    /// 1) with `keepdims`.
    pub(super) fn reduce(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let axes_in_input = (op == "ReduceSum" && self.opset >= 13) || self.opset >= 18;
        let axes = if axes_in_input {
            self.const_ints(node, 1)?
        } else {
            at.ints("axes")
        };
        let keep = at.int("keepdims").unwrap_or(1) == 1;
        let axes = match axes {
            Some(a) if !a.is_empty() => a,
            _ if at.int("noop_with_empty_axes").unwrap_or(0) == 1 => {
                let v = self.unary("identity", &x, self.out_spec(node, 0));
                self.bind(node, 0, v);
                return Ok(());
            }
            _ => {
                // All axes.
                let Some(r) = x.rank else {
                    return self.err(format!("{op} over all axes needs the input's rank"));
                };
                (0..r as i64).collect()
            }
        };
        let lay = Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
        let res = if keep {
            lay.map(|_| Some("0".into()))
        } else {
            lay.map(|_| None)
        };
        let spec = format!("{} => {res}", lay.all());
        let accum = match op {
            "ReduceMax" => Some("max"),
            "ReduceMin" => Some("min"),
            _ => None,
        };
        let pinned = self.pinned(&res);
        let v = if op == "ReduceMean" {
            let s = self.einsum(&spec, &[&x], None, None, pinned);
            let c = self.count(&x, &spec)?;
            self.binary("div", &s, &c, s.spec.clone())?
        } else {
            self.einsum(&spec, &[&x], accum, None, pinned)
        };
        self.bind(node, 0, with_rank(v, lay.rank_after(keep)));
        Ok(())
    }

    /// The size of `x`'s axis `axis` (negative: from the end), when known.
    fn axis_size(x: &Val, axis: i64) -> Option<u64> {
        let d = x.shape.as_ref()?;
        let k = if axis < 0 {
            axis + d.len() as i64
        } else {
            axis
        };
        usize::try_from(k).ok().and_then(|k| d.get(k).copied())
    }

    /// ONNX Gather with constant indices along `axis` (run-time indices:
    /// see `gather`): a scalar index is
    /// a fixed index (the axis goes); a list of indices is one size-1
    /// slice per index (a fixed index kept as an axis of size 1),
    /// concatenated. Negative indices need the axis size.
    pub(super) fn gather(&mut self, node: &NodeProto) -> R<()> {
        if !self.known_input(node, 1) {
            return self.gather_dynamic(node);
        }
        let x = self.input(node, 0)?;
        let axis = Attrs::of(node).int("axis").unwrap_or(0);
        let Some(idx) = self.const_input(node, 1)? else {
            return self.err("Gather needs its indices");
        };
        let Some(values) = idx.to_i64() else {
            return self.err("Gather's indices must be integers");
        };
        if idx.dims.len() > 1 {
            // As data: `ocannl.gather` takes indices of any rank.
            return self.gather_dynamic(node);
        }
        if values.is_empty() {
            return self.err("Gather with no indices (an empty result) is not supported");
        }
        let lay = Layout::new(&[axis], x.rank).map_err(|m| self.error(m))?;
        let mut fixed = Vec::new();
        for &v in &values {
            let i = if v >= 0 {
                if let Some(n) = Self::axis_size(&x, axis)
                    && v as u64 >= n
                {
                    return self.err(format!("index {v} of an axis of size {n}"));
                }
                v as u64
            } else {
                match Self::axis_size(&x, axis) {
                    Some(n) if v.unsigned_abs() <= n => n - v.unsigned_abs(),
                    Some(n) => return self.err(format!("index {v} of an axis of size {n}")),
                    // Wrapped at run time by `ocannl.gather`.
                    None => return self.gather_dynamic(node),
                }
            };
            fixed.push(i);
        }
        let v = if idx.dims.is_empty() {
            let spec = format!(
                "{} => {}",
                lay.map(|_| Some(fixed[0].to_string())),
                lay.map(|_| None)
            );
            let v = self.einsum(&spec, &[&x], None, None, self.out_spec(node, 0));
            with_rank(v, lay.rank_after(false))
        } else {
            let mut parts = Vec::new();
            let out = lay.map(|_| Some("0".into()));
            for &i in &fixed {
                let spec = format!("{} => {out}", lay.map(|_| Some(i.to_string())));
                let pinned = self.pinned(&out);
                parts.push(self.einsum(&spec, &[&x], None, None, pinned));
            }
            let refs: Vec<&Val> = parts.iter().collect();
            let v = self.concat_along(&lay, &refs, self.out_spec(node, 0));
            with_rank(v, x.rank)
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Split along `axis` into parts of the given sizes (the `split`
    /// attribute or input), or equal parts when the axis size is known.
    /// Each part is sliced off what is left (`x^rest => x` and `x^rest =>
    /// rest`): with the part's size stated, one unknown per slice.
    pub(super) fn split(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let axis = at.int("axis").unwrap_or(0);
        super::axes::check_axis(axis).map_err(|m| self.error(m))?;
        let n = node.output.len();
        if n == 0 {
            return self.err("Split needs at least one output");
        }
        let sized = at.ints("split").is_some_and(|s| !s.is_empty()) || self.known_input(node, 1);
        if !sized && Self::axis_size(&x, axis).is_none() {
            return self.split_equal(node, &x, axis);
        }
        if let Some(d) = x.shape.clone().filter(|d| d.contains(&0)) {
            return self.split_empty(node, &x, axis, &d);
        }
        let sizes = self.split_sizes(node, &x, axis)?;
        let lay = Layout::new(&[axis], x.rank).map_err(|m| self.error(m))?;
        if let Some(total) = Self::axis_size(&x, axis) {
            let sum = sizes
                .iter()
                .try_fold(0u64, |acc, &s| acc.checked_add(s as u64));
            if sum != Some(total) {
                return self.err(format!(
                    "split sizes {sizes:?} do not add up to the axis's size {total}"
                ));
            }
        }
        self.slice_parts(node, &x, axis, &lay, &sizes)
    }

    /// The sizes of Split's parts, one per output of `node`, each at least
    /// 1: the `split` attribute or input, else equal parts of the axis's
    /// known size (the last one smaller when it does not divide).
    fn split_sizes(&self, node: &NodeProto, x: &Val, axis: i64) -> R<Vec<i64>> {
        let at = Attrs::of(node);
        let n = node.output.len();
        let sizes: Vec<i64> = match at.ints("split").filter(|s| !s.is_empty()) {
            Some(s) => s,
            None => match self.const_ints(node, 1)? {
                Some(s) => s,
                None => {
                    let Some(total) = Self::axis_size(x, axis) else {
                        return self.err(
                            "Split into equal parts needs the axis size, which is not known here (not supported)",
                        );
                    };
                    let parts = match at.int("num_outputs") {
                        None => n as u64,
                        Some(k) if k == n as i64 => n as u64,
                        Some(k) => {
                            return self.err(format!("num_outputs {k} for {n} outputs"));
                        }
                    };
                    let each = total.div_ceil(parts);
                    (0..parts)
                        .map(|j| each.min(total.saturating_sub(j.saturating_mul(each))) as i64)
                        .collect()
                }
            },
        };
        if sizes.contains(&0) {
            return self.err(format!(
                "split sizes {sizes:?}: empty parts are not supported"
            ));
        }
        if sizes.len() != n || sizes.iter().any(|&s| s < 1) {
            return self.err(format!("split sizes {sizes:?} for {n} outputs"));
        }
        Ok(sizes)
    }

    /// A result type of Split with the split axis (of `lay`) stated as
    /// `size`: the axes before it are fresh dimension variables (or named
    /// by a known rank), the ones after it a row variable.
    fn split_spec(&mut self, lay: &Layout, size: i64) -> String {
        let mut axes = Vec::new();
        for (a, &sel) in lay.axes.iter().zip(&lay.selected) {
            axes.push(if sel {
                size.to_string()
            } else if a.starts_with("..") {
                "...".into()
            } else {
                self.fresh_var()
            });
        }
        axes.join(",")
    }

    /// Binds Split's outputs: each part of `sizes` sliced off what is left
    /// of `x` along `axis`, the last one what remains.
    fn slice_parts(
        &mut self,
        node: &NodeProto,
        x: &Val,
        axis: i64,
        lay: &Layout,
        sizes: &[i64],
    ) -> R<()> {
        let n = sizes.len();
        let take = format!(
            "{} => {}",
            lay.map(|_| Some("x^q".into())),
            lay.map(|_| Some("x".into()))
        );
        // What is left after a part: the part is a second operand, read
        // for its shape only, so that its size is the one sliced off (the
        // sizes must add up to the axis, known at import or not).
        let drop = format!(
            "{}; {} => {}",
            lay.map(|_| Some("x^q".into())),
            lay.map(|_| Some("x".into())),
            lay.map(|_| Some("q".into()))
        );
        let mut rest = x.clone();
        // What is left, when the axis size is known: stated on each rest
        // (discardable parts are otherwise free to close small).
        let mut left = Self::axis_size(x, axis).map(|t| t as i64);
        for (j, &size) in sizes.iter().enumerate() {
            let elem = x.elem;
            left = left.map(|l| l - size);
            let part = if j + 1 == n {
                let spec = self.split_spec(lay, size);
                let id = format!("{} => {}", lay.all(), lay.all());
                self.einsum(&id, &[&rest], None, None, spec)
            } else {
                let spec = self.split_spec(lay, size);
                let rest_spec = match left {
                    Some(l) if l >= 1 => self.split_spec(lay, l),
                    Some(_) => return self.err(format!("split sizes {sizes:?} exceed the axis")),
                    None => "...".into(),
                };
                let p = self.emit(
                    "concat",
                    &[&rest],
                    &format!("spec = \"{}\"", super::multichar(&take)),
                    elem,
                    spec,
                    None,
                );
                rest = self.emit(
                    "concat",
                    &[&rest, &p],
                    &format!("spec = \"{}\"", super::multichar(&drop)),
                    elem,
                    rest_spec,
                    None,
                );
                rest = with_rank(rest, x.rank);
                p
            };
            self.bind(node, j, with_rank(part, x.rank));
        }
        Ok(())
    }

    /// ONNX Transpose.
    pub(super) fn transpose(&mut self, node: &NodeProto) -> R<()> {
        let a = Attrs::of(node);
        let x = self.input(node, 0)?;
        let perm: Vec<i64> = match a.ints("perm") {
            Some(p) => p,
            None => match x.rank {
                Some(r) => (0..r as i64).rev().collect(),
                None => return self.err("Transpose without 'perm' needs its input's rank"),
            },
        };
        let r = perm.len();
        if r as u64 > MAX_AXES {
            return self.err(format!("'perm' of {r} axes, more than {MAX_AXES}"));
        }
        let mut seen = vec![false; r];
        for &p in &perm {
            if p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true) {
                return self.err(format!("'perm' {perm:?} is not a permutation"));
            }
        }
        let l = labels("a", r);
        let out: Vec<&str> = perm.iter().map(|&p| l[p as usize].as_str()).collect();
        let spec = format!("{} => {}", l.join(","), out.join(","));
        let mut v = self.einsum(&spec, &[&x], None, None, self.out_spec(node, 0));
        // Known dims stay known (an RNN's sequence length, a Resize's input).
        if let Some(d) = x.shape.as_ref().filter(|d| d.len() == r) {
            v.shape = Some(perm.iter().map(|&p| d[p as usize]).collect());
        }
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }

    /// ONNX Squeeze and Unsqueeze.
    pub(super) fn squeeze_unsqueeze(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let a = Attrs::of(node);
        let x = self.input(node, 0)?;
        let axes = match a.ints("axes") {
            Some(v) => v,
            None => self.const_ints(node, 1)?.unwrap_or_default(),
        };
        if axes.is_empty() {
            return self.err(format!("{op} without axes is not supported"));
        }
        if axes.len() as u64 > MAX_AXES {
            return self.err(format!("{} axes, more than {MAX_AXES}", axes.len()));
        }
        let v = if op == "Squeeze" {
            let lay = Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
            if let Some(d) = &x.shape {
                for (k, _) in lay.selected.iter().enumerate().filter(|(_, s)| **s) {
                    if d[k] != 1 {
                        return self.err(format!(
                            "Squeeze of axis {k}, of size {} (only axes of size 1 squeeze)",
                            d[k]
                        ));
                    }
                }
            }
            // The squeezed axes summed against a size-1 tensor of
            // ones (`s`): their size must be 1, known or not.
            let sq = labels("s", lay.selected.iter().filter(|s| **s).count());
            let mut n = 0;
            let xs = lay.map(|_| {
                n += 1;
                Some(sq[n - 1].clone())
            });
            let ones = self.fill(
                x.elem,
                &vec![1; lay.selected.iter().filter(|s| **s).count()],
                1.0,
            );
            let spec = format!("{xs}; {} => {}", sq.join(","), lay.map(|_| None));
            let mut v = self.einsum(&spec, &[&x, &ones], None, None, self.out_spec(node, 0));
            if let Some(d) = x.shape.as_ref().filter(|d| d.len() == lay.selected.len()) {
                let kept = d.iter().zip(&lay.selected).filter(|(_, s)| !**s);
                v.shape = Some(kept.map(|(n, _)| *n).collect());
            }
            with_rank(v, lay.rank_after(false))
        } else {
            // The axes index the result.
            let out_rank = x.rank.map(|r| r + axes.len());
            let lay = Layout::new(&axes, out_rank).map_err(|m| self.error(m))?;
            let out = lay.map(|_| Some("0".into()));
            let spec = format!("{} => {out}", lay.map(|_| None));
            let pinned = self.pinned(&out);
            let mut v = self.einsum(&spec, &[&x], None, None, pinned);
            if let Some(d) = &x.shape
                && lay.selected.len() == d.len() + axes.len()
            {
                let mut rest = d.iter();
                let dims = lay
                    .selected
                    .iter()
                    .map(|&s| if s { Some(1) } else { rest.next().copied() });
                v.shape = dims.collect();
            }
            with_rank(v, out_rank)
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// `ocannl.concat` of `parts` on the axis of `lay` (the other axes
    /// shared): `lay(cp0); lay(cp1)... => lay(cp0^cp1...)`.
    pub(super) fn concat_along(&mut self, lay: &Layout, parts: &[&Val], out_spec: String) -> Val {
        let names: Vec<String> = (0..parts.len()).map(|k| format!("cp{k}")).collect();
        let ins: Vec<String> = names.iter().map(|n| lay.map(|_| Some(n.clone()))).collect();
        let spec = format!(
            "{} => {}",
            ins.join("; "),
            lay.map(|_| Some(names.join("^")))
        );
        self.emit(
            "concat",
            parts,
            &format!("spec = \"{}\"", super::multichar(&spec)),
            parts[0].elem,
            out_spec,
            None,
        )
    }
}
