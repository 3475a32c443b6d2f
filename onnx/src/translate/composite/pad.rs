//! ONNX Pad: per axis, negative pads crop (a block slice), positive ones
//! pad: `constant` by an einsum whose padded axis reads outside the input
//! (the accumulator's 0) and a `where` on the same padding of ones for
//! another value; `edge`, `reflect` and `wrap` by concatenating blocks of
//! the input (the first or last cell repeated, reversed slices, slices).

use super::super::axes::{Layout, check_axis};
use super::super::{Attrs, R, Translator, Val};
use super::index::{known, selected_index, with_axis};
use crate::proto::NodeProto;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Constant,
    Reflect,
    Edge,
    Wrap,
}

impl Translator {
    /// ONNX Pad (pads and value as attributes before opset 11, inputs
    /// from it; the axes input from opset 18).
    pub(super) fn pad(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let mode = match at.string("mode").as_deref().unwrap_or("constant") {
            "constant" => Mode::Constant,
            "reflect" => Mode::Reflect,
            "edge" => Mode::Edge,
            "wrap" if self.opset >= 19 => Mode::Wrap,
            other => return self.err(format!("Pad mode '{other}' is not supported")),
        };
        let (pads, axes) = if self.opset < 11 {
            let name = if self.opset < 2 { "paddings" } else { "pads" };
            let Some(p) = at.ints(name) else {
                return self.err(format!("Pad needs its '{name}'"));
            };
            (p, None)
        } else {
            let Some(p) = self.const_ints(node, 1)? else {
                return self.err("Pad needs its pads input");
            };
            (p, self.const_ints(node, 3)?)
        };
        let axes = match axes {
            Some(a) => a,
            None => (0..pads.len() as i64 / 2).collect(),
        };
        if pads.len() != 2 * axes.len() {
            return self.err(format!(
                "{} pads for {} axes (Pad needs a begin and an end per axis)",
                pads.len(),
                axes.len()
            ));
        }
        if let Some(r) = x.rank
            && node.input.get(3).is_none_or(|s| s.is_empty())
            && axes.len() != r
        {
            return self.err(format!("{} pads for a rank-{r} input", pads.len()));
        }
        for &a in &axes {
            check_axis(a).map_err(|m| self.error(m))?;
        }
        if let Some(p) = pads.iter().find(|p| p.unsigned_abs() > 1 << 40) {
            return self.err(format!("the pad {p} is out of range"));
        }
        Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
        let value = self.pad_value(node, &x)?;
        let k = axes.len();
        let mut v = x.clone();
        let mut mask = None;
        for (i, &a) in axes.iter().enumerate() {
            let (lo, hi) = (pads[i], pads[i + k]);
            let lay = Layout::new(&[a], v.rank).map_err(|m| self.error(m))?;
            if lo < 0 || hi < 0 {
                let crop = |p: i64| Some(if p < 0 { p.unsigned_abs() } else { 0 });
                let dim = selected_index(&lay).and_then(|j| v.shape.as_ref().map(|d| d[j]));
                let keep =
                    dim.map(|d| d.saturating_sub(crop(lo).unwrap_or(0) + crop(hi).unwrap_or(0)));
                if keep == Some(0) {
                    return self.err("pads that crop every cell are not supported (empty tensors)");
                }
                v = self.block_slice(&v, &lay, [crop(lo), keep, crop(hi)])?;
                if let Some(m) = mask.take() {
                    mask = Some(self.block_slice(&m, &lay, [crop(lo), keep, crop(hi)])?);
                }
            }
            let (lo, hi) = (lo.max(0) as u64, hi.max(0) as u64);
            if lo == 0 && hi == 0 {
                continue;
            }
            if mode == Mode::Constant {
                if value.is_some() && mask.is_none() {
                    mask = Some(self.ones_like(&x));
                }
                v = self.pad_zeros(&v, &lay, lo, hi);
                if let Some(m) = mask.take() {
                    mask = Some(self.pad_zeros(&m, &lay, lo, hi));
                }
            } else {
                v = self.pad_blocks(&v, &lay, (lo, hi), mode)?;
            }
        }
        let v = match (value, mask) {
            (Some(c), Some(m)) => {
                let dims = v.shape.clone();
                let w = self.ternary("where", &m, &v, &c, v.spec.clone())?;
                known(w, dims, x.rank)
            }
            _ if v.ssa == x.ssa => self.unary("identity", &x, "...".into()),
            _ => v,
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// The constant a `constant` Pad fills with, when it is not 0: a
    /// scalar value (a constant, or any one-cell input).
    fn pad_value(&mut self, node: &NodeProto, x: &Val) -> R<Option<Val>> {
        if self.opset < 11 {
            let v = f64::from(Attrs::of(node).float("value").unwrap_or(0.0));
            return Ok((v != 0.0).then(|| self.scalar(x.elem, v)));
        }
        let Some(name) = node.input.get(2).filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        if let Some(t) = self.consts.get(name.as_str()) {
            if t.len() != 1 {
                return self.err("Pad's constant_value must be one value");
            }
            if t.to_f64()
                .is_some_and(|v| v[0] == 0.0 && v[0].is_sign_positive())
            {
                return Ok(None);
            }
        }
        let c = self.input(node, 2)?;
        match &c.shape {
            Some(d) if d.iter().product::<u64>() == 1 && d.len() <= 1 => Ok(Some(c)),
            None if c.rank == Some(0) => Ok(Some(c)),
            _ => self.err("Pad's constant_value must be a scalar (its shape known)"),
        }
    }

    /// `x` with `lo` zeros before and `hi` after along the selected axis:
    /// `1*o@lo,hi+k` over a kernel of one cell (outside reads add 0).
    pub(super) fn pad_zeros(&mut self, x: &Val, lay: &Layout, lo: u64, hi: u64) -> Val {
        let k = selected_index(lay);
        let n = k.and_then(|k| x.shape.as_ref().map(|d| d[k] + lo + hi));
        let dims = with_axis(x, k, n);
        let out = self.axis_result(lay, dims.as_deref(), n);
        let one = self.fill(x.elem, &[1], 1.0);
        let spec = format!(
            "{}; pk => {}",
            lay.map(|_| Some(format!("1*po@{lo},{hi}+pk"))),
            lay.map(|_| Some("po".into()))
        );
        let v = self.einsum(&spec, &[x, &one], None, None, out);
        known(v, dims, x.rank)
    }

    /// `edge`, `reflect` or `wrap` padding of the selected axis: the
    /// blocks before and after `x`, concatenated with it.
    fn pad_blocks(&mut self, x: &Val, lay: &Layout, (lo, hi): (u64, u64), mode: Mode) -> R<Val> {
        let k = selected_index(lay);
        let dim = k.and_then(|k| x.shape.as_ref().map(|d| d[k]));
        if let Some(d) = dim {
            let limit = match mode {
                Mode::Reflect => d - 1,
                Mode::Wrap => d,
                _ => u64::MAX,
            };
            if lo > limit || hi > limit {
                return self.err(format!(
                    "pads ({lo}, {hi}) past an axis of {d} cells in this mode are not supported"
                ));
            }
        }
        let mut parts = Vec::new();
        for (n, first) in [(lo, true), (hi, false)] {
            if n == 0 {
                continue;
            }
            let block = match (mode, first) {
                (Mode::Edge, _) => {
                    let cell = if first {
                        self.block_slice(x, lay, [Some(0), Some(1), None])?
                    } else {
                        self.block_slice(x, lay, [None, Some(1), Some(0)])?
                    };
                    self.repeat_cell(&cell, lay, n)
                }
                (Mode::Wrap, true) => self.block_slice(x, lay, [None, Some(n), Some(0)])?,
                (Mode::Wrap, false) => self.block_slice(x, lay, [Some(0), Some(n), None])?,
                (_, true) => {
                    let s = self.block_slice(x, lay, [Some(1), Some(n), None])?;
                    self.reverse(&s, lay, n)?
                }
                (_, false) => {
                    let s = self.block_slice(x, lay, [None, Some(n), Some(1)])?;
                    self.reverse(&s, lay, n)?
                }
            };
            parts.push((first, block));
        }
        let mut ops: Vec<&Val> = Vec::new();
        if let Some((_, b)) = parts.iter().find(|p| p.0) {
            ops.push(b);
        }
        ops.push(x);
        if let Some((_, b)) = parts.iter().find(|p| !p.0) {
            ops.push(b);
        }
        let n = dim.map(|d| d + lo + hi);
        let dims = with_axis(x, k, n);
        let out = self.axis_result(lay, dims.as_deref(), n);
        Ok(known(self.concat_along(lay, &ops, out), dims, x.rank))
    }

    /// The one cell of the selected axis of `x` repeated `n` times (a
    /// fixed index read, a label the result alone has).
    fn repeat_cell(&mut self, x: &Val, lay: &Layout, n: u64) -> Val {
        let k = selected_index(lay);
        let dims = with_axis(x, k, Some(n));
        let out = self.axis_result(lay, dims.as_deref(), Some(n));
        let spec = format!(
            "{} => {}",
            lay.map(|_| Some("0".into())),
            lay.map(|_| Some("rt".into()))
        );
        let v = self.einsum(&spec, &[x], None, None, out);
        known(v, dims, x.rank)
    }
}
