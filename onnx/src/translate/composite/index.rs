//! The building blocks the compositions share: slices of an axis (block
//! specs), strided reads, reversal, index grids from `ocannl.range`, and
//! result types stated from known dims.

use super::super::axes::Layout;
use super::super::elementwise::with_rank;
use super::super::{R, Translator, Val, dims_spec, multichar};
use crate::tensor::Elem;

/// The dims of `x` with axis `k` (a layout index of a known-rank layout)
/// set to `n`.
pub(super) fn with_axis(x: &Val, k: Option<usize>, n: Option<u64>) -> Option<Vec<u64>> {
    let mut d = x.shape.clone()?;
    let k = k?;
    *d.get_mut(k)? = n?;
    Some(d)
}

/// The index of the one selected axis of `lay` when every axis is a label
/// (the rank known).
pub(super) fn selected_index(lay: &Layout) -> Option<usize> {
    if lay.axes.iter().any(|a| a.starts_with("..")) {
        return None;
    }
    lay.selected.iter().position(|s| *s)
}

/// `v` with its dims (when known) and rank recorded.
pub(super) fn known(mut v: Val, dims: Option<Vec<u64>>, rank: Option<usize>) -> Val {
    if let Some(d) = dims {
        v.rank = Some(d.len());
        v.shape = Some(d);
    }
    with_rank(v, rank)
}

impl Translator {
    /// A result type for an op over `lay` whose selected axis has `n`
    /// cells (when known): the known dims, else fresh dimension variables
    /// around it (the row variable `...`).
    pub(super) fn axis_result(
        &mut self,
        lay: &Layout,
        dims: Option<&[u64]>,
        n: Option<u64>,
    ) -> String {
        if let Some(d) = dims {
            return dims_spec(d);
        }
        let mut axes = Vec::new();
        for (a, &sel) in lay.axes.iter().zip(&lay.selected) {
            axes.push(match (sel, n) {
                (true, Some(n)) => n.to_string(),
                _ if a.starts_with("..") => "...".into(),
                _ => self.fresh_var(),
            });
        }
        axes.join(",")
    }

    /// The cells of `x`'s axis (the selected one of `lay`) between a part
    /// `before` and a part `after`: `p^x^q => x` (parts of size 0 left
    /// out). A size is `None` when not known (at most one of the three);
    /// the known sizes of `p` and `q` are stated by operands read for
    /// their shape only, the kept size by the result type.
    pub(super) fn block_slice(
        &mut self,
        x: &Val,
        lay: &Layout,
        [before, keep, after]: [Option<u64>; 3],
    ) -> R<Val> {
        if [before, keep, after].iter().filter(|p| p.is_none()).count() > 1 {
            return self.err("a slice with more than one unknown size (not supported)");
        }
        if keep == Some(0) {
            return self.err("empty slices (a dim of size 0) are not supported");
        }
        let mut parts = Vec::new();
        let mut operands = vec![x.clone()];
        let mut shapes = Vec::new();
        for (name, size) in [("sp", before), ("sx", keep), ("sq", after)] {
            if size == Some(0) {
                continue;
            }
            parts.push(name);
            if name != "sx"
                && let Some(n) = size
            {
                operands.push(self.fill(x.elem, &[n], 0.0));
                shapes.push(name);
            }
        }
        if parts == ["sx"] {
            return Ok(x.clone());
        }
        let k = selected_index(lay);
        let dims = with_axis(x, k, keep).filter(|_| before.is_some() && after.is_some());
        let out = self.axis_result(lay, dims.as_deref(), keep);
        let mut spec = lay.map(|_| Some(parts.join("^")));
        for s in shapes {
            spec.push_str("; ");
            spec.push_str(s);
        }
        spec.push_str(" => ");
        spec.push_str(&lay.map(|_| Some("sx".into())));
        let refs: Vec<&Val> = operands.iter().collect();
        let v = self.emit(
            "concat",
            &refs,
            &format!("spec = \"{}\"", multichar(&spec)),
            x.elem,
            out,
            None,
        );
        Ok(known(v, dims, x.rank))
    }

    /// Every `step`-th cell of the selected axis from the first:
    /// `step*o@0,0+k` over a kernel of one cell (`ceil(n / step)` cells).
    pub(super) fn every(&mut self, x: &Val, lay: &Layout, step: u64, n: Option<u64>) -> Val {
        if step == 1 {
            return x.clone();
        }
        let m = n.map(|n| n.div_ceil(step));
        let k = selected_index(lay);
        let dims = with_axis(x, k, m);
        let out = self.axis_result(lay, dims.as_deref(), m);
        let one = self.fill(x.elem, &[1], 1.0);
        let spec = format!(
            "{}; sk => {}",
            lay.map(|_| Some(format!("{step}*so@0,0+sk"))),
            lay.map(|_| Some("so".into()))
        );
        let v = self.einsum(&spec, &[x, &one], None, None, out);
        known(v, dims, x.rank)
    }

    /// The `n` cells `start, start + 1, ...` (`ocannl.range` plus a
    /// constant), of element type `elem`.
    pub(super) fn iota(&mut self, elem: Elem, n: u64, start: i64) -> R<Val> {
        // Indices must be exact in the element type.
        let exact: u64 = match elem {
            Elem::F32 => 1 << 24,
            Elem::F64 => 1 << 53,
            Elem::F16 => 1 << 11,
            Elem::BF16 => 1 << 8,
            Elem::I8 => 1 << 7,
            Elem::I16 => 1 << 15,
            Elem::I32 => 1 << 31,
            Elem::I64 => 1 << 62,
            // The grids hold negative values.
            Elem::U8 | Elem::U16 | Elem::U32 | Elem::U64 | Elem::Bool => {
                return self.err(format!(
                    "index grids in {} (here: negative values) are not supported",
                    elem.mlir()
                ));
            }
        };
        if n.saturating_add(start.unsigned_abs()) > exact {
            return self.err(format!(
                "an axis of {n} cells indexed in {} (not exact; not supported)",
                elem.mlir()
            ));
        }
        let r = self.emit(
            "range",
            &[],
            &format!("spec = \"{n}\""),
            elem,
            n.to_string(),
            Some(vec![n]),
        );
        if start == 0 {
            return Ok(r);
        }
        let c = self.scalar(elem, start as f64);
        let v = self.emit("add", &[&r, &c], "", elem, n.to_string(), Some(vec![n]));
        Ok(with_rank(v, Some(1)))
    }

    /// The `rows x cols` grid `a * i + b * j + c` (`a`, `b` each 1 or -1)
    /// of element type `elem`.
    pub(super) fn grid(
        &mut self,
        elem: Elem,
        (rows, cols): (u64, u64),
        (a, b, c): (i64, i64, i64),
    ) -> R<Val> {
        let ri = self.iota(elem, rows, if a > 0 { c } else { 0 })?;
        let rj = self.iota(elem, cols, if a > 0 { 0 } else { c })?;
        let dims = vec![rows, cols];
        let (spec, ops, combine) = match (a > 0, b > 0) {
            (true, true) => ("gi; gj => gi,gj", [&ri, &rj], "add"),
            (true, false) => ("gi; gj => gi,gj", [&ri, &rj], "sub"),
            (false, true) => ("gj; gi => gi,gj", [&rj, &ri], "sub"),
            (false, false) => unreachable!("grid: -i - j is not used"),
        };
        let v = self.einsum(spec, &ops, None, Some(combine), dims_spec(&dims));
        Ok(known(v, Some(dims), None))
    }

    /// The selected axis of `x` (of `n` cells) in reverse order: the sum
    /// over `i` of `i + j == n - 1 ? x[i] : 0` (a `where` einsum, exact:
    /// no product reaches the kept cell).
    pub(super) fn reverse(&mut self, x: &Val, lay: &Layout, n: u64) -> R<Val> {
        if n == 1 {
            return Ok(x.clone());
        }
        let off = self.grid(x.elem, (n, n), (1, 1, -(n as i64 - 1)))?;
        let zero = self.scalar(x.elem, 0.0);
        let spec = format!(
            "ri,rj; ; {} => {}",
            lay.map(|_| Some("ri".into())),
            lay.map(|_| Some("rj".into()))
        );
        let k = selected_index(lay);
        let dims = with_axis(x, k, Some(n));
        let out = self.axis_result(lay, dims.as_deref(), Some(n));
        let v = self.einsum(&spec, &[&off, &zero, x], None, Some("where"), out);
        Ok(known(v, dims, x.rank))
    }
}

impl Translator {
    /// A 1-D constant holding `values` in `elem` (f32, f64, i32, i64).
    pub(super) fn vector(&mut self, elem: Elem, values: &[f64]) -> R<Val> {
        use crate::proto::tensor_proto::DataType as D;
        let mut bytes = Vec::new();
        let data_type = match elem {
            Elem::F32 => {
                values
                    .iter()
                    .for_each(|&v| bytes.extend((v as f32).to_le_bytes()));
                D::Float
            }
            Elem::F64 => {
                values.iter().for_each(|&v| bytes.extend(v.to_le_bytes()));
                D::Double
            }
            Elem::I32 => {
                values
                    .iter()
                    .for_each(|&v| bytes.extend((v as i32).to_le_bytes()));
                D::Int32
            }
            Elem::I64 => {
                values
                    .iter()
                    .for_each(|&v| bytes.extend((v as i64).to_le_bytes()));
                D::Int64
            }
            other => return self.err(format!("{} tensors are not supported here", other.mlir())),
        };
        let t = crate::tensor::Tensor {
            data_type: data_type as i32,
            dims: vec![values.len() as u64],
            bytes,
        };
        self.constant(&t)
    }
}
