//! The ops of a shape computation evaluated on shape values, each as its
//! ONNX operator page says (onnx.ai/onnx/operators) for the 0-D and 1-D
//! integer tensors shapes are. `None`: not evaluated here (a float or
//! undecidable case), the op is then translated on materialised data.

use super::super::{Attrs, R, Translator};
use super::sym::{Arith, ShapeVal, Sym};
use crate::proto::NodeProto;
use crate::tensor::Elem;

type Ins = [Option<ShapeVal>];

impl Translator {
    /// `op` on the shape values `ins` (one per input, `None` if absent).
    pub(super) fn evaluate(&self, node: &NodeProto, op: &str, ins: &Ins) -> R<Option<ShapeVal>> {
        let Some(Some(x)) = ins.first() else {
            return Ok(None);
        };
        let a = Attrs::of(node);
        let err = |m: String| self.error(m);
        Ok(match op {
            "Identity" => Some(x.clone()),
            "Cast" => {
                let Ok(to) = Elem::of_onnx(a.int("to").unwrap_or(0) as i32) else {
                    return Ok(None);
                };
                (!x.logical).then(|| ShapeVal {
                    elem: to,
                    ..x.clone()
                })
            }
            "Neg" if !x.elem.is_float() => {
                let items = x
                    .items
                    .iter()
                    .map(|s| Sym::apply(Arith::Sub, &Sym::Num(0), s));
                Some(ShapeVal {
                    items: items.collect::<Result<_, _>>().map_err(err)?,
                    ..x.clone()
                })
            }
            "Mod" if a.int("fmod").unwrap_or(0) != 0 => None,
            _ if Arith::of(op).is_some() => self.shape_arith(op, ins)?,
            "Equal" => equal(ins),
            "Where" => select(ins),
            "Gather" => self.gather_shape(node, x, ins)?,
            "Slice" => self.slice_shape(node, x, ins)?,
            "Concat" => self.concat_shape(node, ins)?,
            "Unsqueeze" | "Squeeze" => self.squeeze_shape(node, op, x, ins)?,
            "Reshape" => self.reshape_shape(node, x, ins)?,
            "ConstantOfShape" => self.filled(node, x)?,
            _ => None,
        })
    }

    /// `Add`, `Sub`, `Mul`, `Div`, `Mod`, `Max`, `Min` (the last two of
    /// any number of inputs) on integers, broadcast.
    fn shape_arith(&self, op: &str, ins: &Ins) -> R<Option<ShapeVal>> {
        let Some(f) = Arith::of(op) else {
            return Ok(None);
        };
        let Some(mut acc) = ins.first().cloned().flatten() else {
            return Ok(None);
        };
        for b in &ins[1..] {
            let Some(b) = b else {
                return Ok(None);
            };
            if acc.elem.is_float() || b.elem.is_float() || acc.logical || b.logical {
                return Ok(None);
            }
            let Some((dims, n)) = broadcast(&[&acc, b]) else {
                return Ok(None);
            };
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                let v = Sym::apply(f, cell(&acc, i), cell(b, i)).map_err(|m| self.error(m))?;
                items.push(v);
            }
            acc = ShapeVal { dims, items, ..acc };
        }
        Ok(Some(acc))
    }

    /// `Gather` along axis 0 of a 1-D shape value with known indices.
    fn gather_shape(&self, node: &NodeProto, x: &ShapeVal, ins: &Ins) -> R<Option<ShapeVal>> {
        let axis = Attrs::of(node).int("axis").unwrap_or(0);
        let (Some(Some(idx)), [n]) = (ins.get(1), x.dims.as_slice()) else {
            return Ok(None);
        };
        let Some(idx_n) = idx.numbers() else {
            return Ok(None);
        };
        if axis != 0 && axis != -1 {
            return self.err(format!("Gather axis {axis} of a 1-D shape"));
        }
        let n = *n as i64;
        let mut items = Vec::with_capacity(idx_n.len());
        for k in idx_n {
            let j = if k < 0 { k + n } else { k };
            if !(0..n).contains(&j) {
                return self.err(format!(
                    "Gather index {k} is out of range for a shape of {n} dims"
                ));
            }
            items.push(x.items[j as usize].clone());
        }
        Ok(Some(ShapeVal {
            dims: idx.dims.clone(),
            items,
            ..x.clone()
        }))
    }

    /// `Slice` of a 1-D shape value (starts, ends, axes and steps known).
    fn slice_shape(&self, node: &NodeProto, x: &ShapeVal, ins: &Ins) -> R<Option<ShapeVal>> {
        let a = Attrs::of(node);
        let nums = |i: usize| ins.get(i).cloned().flatten().and_then(|v| v.numbers());
        let (starts, ends, axes, steps) = if self.opset < 10 {
            (a.ints("starts"), a.ints("ends"), a.ints("axes"), None)
        } else {
            (nums(1), nums(2), nums(3), nums(4))
        };
        let (Some(starts), Some(ends), [n]) = (starts, ends, x.dims.as_slice()) else {
            return Ok(None);
        };
        if starts.len() != 1 || ends.len() != 1 {
            return self.err("Slice of a 1-D shape takes one start and one end");
        }
        if axes.is_some_and(|a| a != [0] && a != [-1]) {
            return self.err("Slice of a 1-D shape: axes must be [0]");
        }
        let step = steps.map_or(1, |s| s.first().copied().unwrap_or(1));
        if step == 0 {
            return self.err("Slice with a step of 0");
        }
        let n = *n as i64;
        let norm = |v: i64| if v < 0 { v.saturating_add(n) } else { v };
        let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
        let (start, end) = (
            norm(starts[0]).clamp(lo.max(0), hi),
            norm(ends[0]).clamp(lo, hi),
        );
        let mut items = Vec::new();
        let mut i = start;
        while (step > 0 && i < end) || (step < 0 && i > end) {
            items.push(x.items[i as usize].clone());
            i = i.saturating_add(step);
        }
        Ok(Some(ShapeVal {
            dims: vec![items.len() as u64],
            items,
            ..x.clone()
        }))
    }

    /// `Concat` of 1-D shape values (axis 0).
    fn concat_shape(&self, node: &NodeProto, ins: &Ins) -> R<Option<ShapeVal>> {
        let axis = Attrs::of(node).int("axis").unwrap_or(0);
        let mut items = Vec::new();
        let mut elem = None;
        for v in ins {
            let Some(v) = v else {
                return Ok(None);
            };
            if v.dims.len() != 1 || v.logical || *elem.get_or_insert(v.elem) != v.elem {
                return Ok(None);
            }
            items.extend(v.items.iter().cloned());
        }
        if axis != 0 && axis != -1 {
            return self.err(format!("Concat axis {axis} of 1-D shapes"));
        }
        let mut v = ShapeVal::vector(items);
        v.elem = elem.unwrap_or(Elem::I64);
        Ok(Some(v))
    }

    /// `Unsqueeze` and `Squeeze`: the same cells, other dims.
    fn squeeze_shape(
        &self,
        node: &NodeProto,
        op: &str,
        x: &ShapeVal,
        ins: &Ins,
    ) -> R<Option<ShapeVal>> {
        let from_input = ins.get(1).cloned().flatten().and_then(|v| v.numbers());
        let axes = Attrs::of(node).ints("axes").or(from_input);
        let mut dims = x.dims.clone();
        if op == "Unsqueeze" {
            let Some(axes) = axes else {
                return self.err("Unsqueeze needs its axes");
            };
            let r = (dims.len() + axes.len()) as i64;
            let mut at: Vec<i64> = axes
                .iter()
                .map(|&k| if k < 0 { k + r } else { k })
                .collect();
            at.sort_unstable();
            if at.iter().any(|&k| !(0..r).contains(&k)) || at.windows(2).any(|w| w[0] == w[1]) {
                return self.err(format!("Unsqueeze axes {axes:?} for a result of rank {r}"));
            }
            for k in at {
                dims.insert(k as usize, 1);
            }
        } else {
            let r = dims.len() as i64;
            let mut keep = vec![true; dims.len()];
            for k in axes.unwrap_or_else(|| (0..r).filter(|&k| dims[k as usize] == 1).collect()) {
                let j = if k < 0 { k + r } else { k };
                if !(0..r).contains(&j) || dims[j as usize] != 1 {
                    return self.err(format!("Squeeze axis {k} of a shape of dims {dims:?}"));
                }
                keep[j as usize] = false;
            }
            dims = dims
                .iter()
                .zip(keep)
                .filter(|(_, k)| *k)
                .map(|(d, _)| *d)
                .collect();
        }
        Ok(Some(ShapeVal { dims, ..x.clone() }))
    }

    /// `ConstantOfShape` of known dims with an integer value: a small
    /// integer tensor (exporters build shapes from them).
    fn filled(&self, node: &NodeProto, dims: &ShapeVal) -> R<Option<ShapeVal>> {
        let Some(dims) = dims.numbers() else {
            return Ok(None);
        };
        let Some(value) = Attrs::of(node).tensor("value") else {
            return Ok(None);
        };
        let t = crate::tensor::Tensor::decode(value).map_err(|m| self.error(m))?;
        let Some(v) = ShapeVal::of_tensor(&t, 1) else {
            return Ok(None);
        };
        let Ok(dims) = dims
            .iter()
            .map(|&d| u64::try_from(d))
            .collect::<Result<Vec<u64>, _>>()
        else {
            return Ok(None);
        };
        let n = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
        match n {
            Some(n) if (1..=super::MAX_CELLS as u64).contains(&n) => Ok(Some(ShapeVal {
                dims,
                items: vec![v.items[0].clone(); n as usize],
                ..v
            })),
            _ => Ok(None),
        }
    }

    /// `Reshape` of a shape value to known dims.
    fn reshape_shape(&self, node: &NodeProto, x: &ShapeVal, ins: &Ins) -> R<Option<ShapeVal>> {
        let Some(to) = ins.get(1).cloned().flatten().and_then(|v| v.numbers()) else {
            return Ok(None);
        };
        let allowzero = Attrs::of(node).int("allowzero").unwrap_or(0) == 1;
        let n = x.items.len() as u64;
        let mut dims = Vec::with_capacity(to.len());
        for (i, &d) in to.iter().enumerate() {
            dims.push(match d {
                0 if !allowzero => *x.dims.get(i).unwrap_or(&0),
                -1 => 0,
                d if d > 0 => d as u64,
                _ => return self.err(format!("Reshape of a shape to {to:?}")),
            });
        }
        let known: u64 = dims.iter().filter(|&&d| d > 0).product();
        if let Some(k) = to.iter().position(|&d| d == -1) {
            dims[k] = if known > 0 && n.is_multiple_of(known) {
                n / known
            } else {
                0
            };
        }
        if dims.iter().product::<u64>() != n || to.iter().filter(|&&d| d == -1).count() > 1 {
            return self.err(format!("Reshape of a shape of {n} cells to {to:?}"));
        }
        Ok(Some(ShapeVal { dims, ..x.clone() }))
    }
}

/// The dims and cell count of broadcast 0-D/1-D values, or `None`.
fn broadcast(vs: &[&ShapeVal]) -> Option<(Vec<u64>, usize)> {
    let mut n = 1;
    let mut rank = 0;
    for v in vs {
        if v.dims.len() > 1 {
            return None;
        }
        rank = rank.max(v.dims.len());
        let m = v.items.len();
        if m != 1 && n != 1 && m != n {
            return None;
        }
        n = n.max(m);
    }
    Some((
        if rank == 1 {
            vec![n as u64]
        } else {
            Vec::new()
        },
        n,
    ))
}

/// The `i`-th cell of a value broadcast to more cells.
fn cell(v: &ShapeVal, i: usize) -> &Sym {
    &v.items[if v.items.len() == 1 { 0 } else { i }]
}

/// `Equal`, when every comparison can be told (see [`Sym::equal`]).
fn equal(ins: &Ins) -> Option<ShapeVal> {
    let [Some(a), Some(b)] = ins else {
        return None;
    };
    let (dims, n) = broadcast(&[a, b])?;
    let items = (0..n)
        .map(|i| Sym::equal(cell(a, i), cell(b, i)).map(|t| Sym::Num(i64::from(t))))
        .collect::<Option<_>>()?;
    Some(ShapeVal {
        elem: Elem::I64,
        dims,
        items,
        logical: true,
    })
}

/// `Where` with a known condition.
fn select(ins: &Ins) -> Option<ShapeVal> {
    let [Some(c), Some(a), Some(b)] = ins else {
        return None;
    };
    if a.elem != b.elem || a.logical != b.logical {
        return None;
    }
    let conds = c.numbers()?;
    let (dims, n) = broadcast(&[c, a, b])?;
    let items = (0..n)
        .map(|i| {
            let take = conds[if conds.len() == 1 { 0 } else { i }] != 0;
            cell(if take { a } else { b }, i).clone()
        })
        .collect();
    Some(ShapeVal {
        dims,
        items,
        ..a.clone()
    })
}

impl Translator {
    /// `Range(start, limit, delta)` of constants (or known shape values):
    /// `max(ceil((limit - start) / delta), 0)` cells `start + i * delta`
    /// in the inputs' type; `None` when an input is not known.
    pub(super) fn const_range(&self, node: &NodeProto) -> R<Option<crate::tensor::Tensor>> {
        use crate::proto::tensor_proto::DataType as D;
        let mut ts = Vec::new();
        for i in 0..3 {
            let Some(name) = node.input.get(i).filter(|s| !s.is_empty()) else {
                return self.err(format!("input #{i} is required"));
            };
            let t = match self.shape_vals.get(name) {
                Some(v) => v.to_tensor(),
                None => self.consts.get(name).cloned(),
            };
            match t {
                Some(t) if t.len() == 1 => ts.push(t),
                Some(t) => {
                    return self.err(format!(
                        "input #{i} must be a scalar, it has {} cells",
                        t.len()
                    ));
                }
                None => return Ok(None),
            }
        }
        let data_type = ts[0].data_type;
        if ts.iter().any(|t| t.data_type != data_type) {
            return self.err("Range's inputs must have one element type");
        }
        let elem = Elem::of_onnx(data_type).map_err(|m| self.error(m))?;
        if !matches!(elem, Elem::I32 | Elem::I64 | Elem::F32 | Elem::F64) {
            return self.err(format!("Range of {} is not supported", elem.mlir()));
        }
        let too_many = |n: f64| {
            self.err(format!(
                "Range of {n} cells is not supported (at most {MAX_RANGE})"
            ))
        };
        let bytes: Vec<u8> = if elem.is_float() {
            let v: Vec<f64> = ts
                .iter()
                .map(|t| t.to_f64().map_or(0.0, |v| v[0]))
                .collect();
            let n = ((v[1] - v[0]) / v[2]).ceil().max(0.0);
            if !n.is_finite() || n > MAX_RANGE as f64 {
                return too_many(n);
            }
            let n = n as usize;
            if data_type == D::Float as i32 {
                let (s, d) = (v[0] as f32, v[2] as f32);
                (0..n)
                    .flat_map(|i| (s + i as f32 * d).to_le_bytes())
                    .collect()
            } else {
                (0..n)
                    .flat_map(|i| (v[0] + i as f64 * v[2]).to_le_bytes())
                    .collect()
            }
        } else {
            let v: Vec<i64> = ts.iter().map(|t| t.to_i64().map_or(0, |v| v[0])).collect();
            if v[2] == 0 {
                return self.err("Range with a delta of 0");
            }
            let span = i128::from(v[1]) - i128::from(v[0]);
            let d = i128::from(v[2]);
            let n = (span / d + i128::from(span % d != 0 && (span < 0) == (d < 0))).max(0);
            if n > MAX_RANGE as i128 {
                return too_many(n as f64);
            }
            let cells = (0..n as i64).map(|i| v[0] + i * v[2]);
            match elem {
                Elem::I32 => cells.flat_map(|c| (c as i32).to_le_bytes()).collect(),
                _ => cells.flat_map(|c| c.to_le_bytes()).collect(),
            }
        };
        let n = bytes.len()
            / if matches!(elem, Elem::I32 | Elem::F32) {
                4
            } else {
                8
            };
        if n == 0 {
            return self.err("Range with no cells (an empty result) is not supported");
        }
        Ok(Some(crate::tensor::Tensor {
            data_type,
            dims: vec![n as u64],
            bytes,
        }))
    }
}

/// The most cells a constant Range may have.
const MAX_RANGE: usize = 1 << 24;
