//! ONNX Slice: per axis, the cells from the first to the last taken (a
//! block spec), every `|step|`-th of them (a strided read), reversed for a
//! negative step.

use super::super::axes::{Layout, check_axis};
use super::super::{Attrs, R, Translator, Val};
use super::index::selected_index;
use crate::proto::NodeProto;

/// An `end` at least this large reads to the end of an axis whose size is
/// not known (ONNX exporters write `INT_MAX` or `INT64_MAX`).
const TO_END: i64 = i32::MAX as i64;

/// One axis's slice: the sizes of the parts before, taken and after (see
/// `block_slice`), the stride and whether it runs backwards, and how many
/// cells the result has.
struct Cut {
    parts: [Option<u64>; 3],
    step: u64,
    backwards: bool,
    count: Option<u64>,
}

/// The cells `start:end:step` takes of an axis of `dim` (ONNX's clamping;
/// at most 0 when none), for a non-zero `step`.
fn count_known(start: i64, end: i64, step: i64, dim: u64) -> i128 {
    if dim == 0 {
        return 0;
    }
    let d = dim as i128;
    let (s, e, st) = (i128::from(start), i128::from(end), i128::from(step));
    let fix = |v: i128| if v < 0 { v + d } else { v };
    if st > 0 {
        let (s, e) = (fix(s).clamp(0, d), fix(e).clamp(0, d));
        (e - s + st - 1).div_euclid(st)
    } else {
        let (s, e) = (fix(s).clamp(0, d - 1), fix(e).clamp(-1, d - 1));
        (s - e + (-st) - 1).div_euclid(-st)
    }
}

/// ONNX's clamping of `start` and `end` on an axis of `dim` cells, and the
/// cells taken, for a non-zero `step`.
fn cut_known(start: i64, end: i64, step: i64, dim: u64) -> Result<Cut, String> {
    let n = count_known(start, end, step, dim);
    if n <= 0 {
        return Err(format!(
            "slice {start}:{end}:{step} of an axis of {dim} is empty (empty tensors are not supported)"
        ));
    }
    let d = dim as i128;
    let (s, st) = (i128::from(start), i128::from(step));
    let s = if s < 0 { s + d } else { s };
    let s = if st > 0 {
        s.clamp(0, d)
    } else {
        s.clamp(0, d - 1)
    };
    let (lo, hi) = if st > 0 {
        (s, s + st * (n - 1) + 1)
    } else {
        (s + st * (n - 1), s + 1)
    };
    Ok(Cut {
        parts: [
            Some(lo as u64),
            Some((hi - lo) as u64),
            Some((d - hi) as u64),
        ],
        step: step.unsigned_abs(),
        backwards: step < 0,
        count: Some(n as u64),
    })
}

/// The cut when the axis size is not known: `start` and `end` counted
/// from the start or the end, step positive.
fn cut_unknown(start: i64, end: i64, step: i64) -> Result<Cut, String> {
    let needs = || {
        format!(
            "slice {start}:{end}:{step} needs the axis size, which is not known here (not supported)"
        )
    };
    if step < 0 {
        return Err(needs());
    }
    let to_end = end >= TO_END;
    let parts = match (start >= 0, end >= 0) {
        (true, true) if to_end => [Some(start as u64), None, Some(0)],
        (true, true) => {
            if end <= start {
                return Err(format!(
                    "slice {start}:{end} is empty (empty tensors are not supported)"
                ));
            }
            [Some(start as u64), Some((end - start) as u64), None]
        }
        (true, false) => [Some(start as u64), None, Some(end.unsigned_abs())],
        (false, true) if to_end => [None, Some(start.unsigned_abs()), Some(0)],
        (false, false) => {
            if end <= start {
                return Err(format!(
                    "slice {start}:{end} is empty (empty tensors are not supported)"
                ));
            }
            [None, Some((end - start) as u64), Some(end.unsigned_abs())]
        }
        (false, true) => return Err(needs()),
    };
    let count = parts[1].map(|n| n.div_ceil(step as u64));
    Ok(Cut {
        parts,
        step: step as u64,
        backwards: false,
        count,
    })
}

impl Translator {
    /// ONNX Slice (starts, ends, axes and steps as constant inputs from
    /// opset 10, attributes before).
    pub(super) fn slice(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let (starts, ends, axes, steps) = if self.opset < 10 {
            let (Some(s), Some(e)) = (at.ints("starts"), at.ints("ends")) else {
                return self.err("Slice needs its 'starts' and 'ends'");
            };
            (s, e, at.ints("axes"), None)
        } else {
            let (Some(s), Some(e)) = (self.const_ints(node, 1)?, self.const_ints(node, 2)?) else {
                return self.err("Slice needs its starts and ends inputs");
            };
            (s, e, self.const_ints(node, 3)?, self.const_ints(node, 4)?)
        };
        let n = starts.len();
        let axes = axes.unwrap_or_else(|| (0..n as i64).collect());
        let steps = steps.unwrap_or_else(|| vec![1; n]);
        if ends.len() != n || axes.len() != n || steps.len() != n {
            return self.err(format!(
                "Slice's starts, ends, axes and steps differ in length ({n}, {}, {}, {})",
                ends.len(),
                axes.len(),
                steps.len()
            ));
        }
        if steps.contains(&0) {
            return self.err("Slice's steps must not be 0");
        }
        for &a in &axes {
            check_axis(a).map_err(|m| self.error(m))?;
        }
        // Every axis once (negative ones normalised when the rank is known).
        Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
        if let Some(d) = x.shape.clone() {
            // A slice with no cells: a constant of its dims (`empty`).
            let mut dims = d.clone();
            for i in 0..n {
                let r = d.len() as i64;
                let k = if axes[i] < 0 { axes[i] + r } else { axes[i] } as usize;
                let (s, e, st) = (starts[i], ends[i], steps[i]);
                dims[k] = count_known(s, e, st, d[k]).max(0) as u64;
            }
            if dims.contains(&0) {
                self.empty_result(node, 0, x.elem, &dims);
                return Ok(());
            }
        }
        let mut v = x;
        for i in 0..n {
            v = self.slice_axis(&v, axes[i], (starts[i], ends[i], steps[i]))?;
        }
        let v = if v.ssa == self.input(node, 0)?.ssa {
            self.unary("identity", &v, "...".into())
        } else {
            v
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// `x` sliced along `axis`.
    fn slice_axis(&mut self, x: &Val, axis: i64, (start, end, step): (i64, i64, i64)) -> R<Val> {
        let lay = Layout::new(&[axis], x.rank).map_err(|m| self.error(m))?;
        let dim = selected_index(&lay).and_then(|k| x.shape.as_ref().map(|d| d[k]));
        let cut = match dim {
            Some(d) => cut_known(start, end, step, d),
            None => cut_unknown(start, end, step),
        }
        .map_err(|m| self.error(m))?;
        let taken = self.block_slice(x, &lay, cut.parts)?;
        let v = self.every(&taken, &lay, cut.step, cut.parts[1]);
        Ok(match (cut.backwards, cut.count) {
            (true, Some(n)) => self.reverse(&v, &lay, n)?,
            _ => v,
        })
    }
}
