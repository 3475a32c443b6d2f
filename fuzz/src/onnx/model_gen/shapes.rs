//! Shape computations and control: `Shape` (start, end) and `Size` feeding
//! `Reshape`, `Expand` and `ConstantOfShape` through `Gather`, `Slice`,
//! `Unsqueeze`, `Concat` and arithmetic; `Range` (float, int64, and with a
//! limit read from a shape); `Gather` with indices computed at run time;
//! `If` on a condition known at import or computed at run time, with
//! branches reading outer values.

use ocannl_onnx::proto::{GraphProto, NodeProto};

use super::extra::{BOOL, FLOAT, INT64};
use super::{Builder, MAX_CELLS, Value, attr_i, attr_t, cells, f32_tensor, value_info};

impl Builder<'_> {
    /// `Shape(x)` (with start and end from opset 15) as an int64 vector.
    fn shape_of(&mut self, x: &str, start: i64, end: Option<i64>) -> String {
        let mut attrs = vec![];
        if self.opset >= 15 {
            if start != 0 {
                attrs.push(attr_i("start", start));
            }
            if let Some(e) = end {
                attrs.push(attr_i("end", e));
            }
            return self.aux("Shape", vec![x.to_string()], attrs);
        }
        let s = self.aux("Shape", vec![x.to_string()], vec![]);
        let starts = self.init_i64(vec![start], false);
        let ends = self.init_i64(vec![end.unwrap_or(i64::MAX)], false);
        self.aux("Slice", vec![s, starts, ends], vec![])
    }

    /// Dim `i` of `x` as a one-element vector.
    fn dim_of(&mut self, x: &str, i: i64) -> String {
        let s = self.aux("Shape", vec![x.to_string()], vec![]);
        let idx = self.init_i64(vec![i], true);
        let g = self.aux("Gather", vec![s, idx], vec![attr_i("axis", 0)]);
        let axes = self.init_i64(vec![0], false);
        self.aux("Unsqueeze", vec![g, axes], vec![])
    }

    pub(super) fn shape_reshape(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len() as i64;
        let (spec, out) = match self.rng.index(5) {
            0 => {
                // Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])).
                let d = self.dim_of(&x.name, 0);
                let rest = self.init_i64(vec![-1], false);
                let c = self.aux("Concat", vec![d, rest], vec![attr_i("axis", 0)]);
                (c, vec![x.shape[0], cells(&x.shape[1..])])
            }
            1 => {
                let k = self.rng.range(1, r as u64) as i64;
                let s = self.shape_of(&x.name, 0, Some(k));
                let rest = self.init_i64(vec![-1], false);
                let c = self.aux("Concat", vec![s, rest], vec![attr_i("axis", 0)]);
                let mut out = x.shape[..k as usize].to_vec();
                out.push(cells(&x.shape[k as usize..]));
                (c, out)
            }
            2 => {
                let n = self.aux("Size", vec![x.name.clone()], vec![]);
                let axes = self.init_i64(vec![0], false);
                (
                    self.aux("Unsqueeze", vec![n, axes], vec![]),
                    vec![cells(&x.shape)],
                )
            }
            3 => {
                // The dims in another order: Gather(Shape(x), perm).
                let mut perm: Vec<usize> = (0..r as usize).collect();
                self.rng.shuffle(&mut perm);
                let s = self.shape_of(&x.name, 0, None);
                let p = self.init_i64(perm.iter().map(|&i| i as i64).collect(), false);
                let g = self.aux("Gather", vec![s, p], vec![]);
                (g, perm.iter().map(|&i| x.shape[i]).collect())
            }
            _ => {
                // The product of the last two dims (or the last one).
                let last = self.dim_of(&x.name, r - 1);
                let (prod, keep) = if r >= 2 {
                    let prev = self.dim_of(&x.name, r - 2);
                    (self.aux("Mul", vec![prev, last], vec![]), r as usize - 2)
                } else {
                    (last, 0)
                };
                let head = self.shape_of(&x.name, 0, Some(keep as i64));
                let mut out = x.shape[..keep].to_vec();
                out.push(cells(&x.shape[keep..]));
                if keep == 0 {
                    (prod, out)
                } else {
                    (
                        self.aux("Concat", vec![head, prod], vec![attr_i("axis", 0)]),
                        out,
                    )
                }
            }
        };
        let y = self.node1("Reshape", vec![x.name.clone(), spec], vec![], out.clone());
        if self.rng.chance(0.3) {
            // A constant of the computed shape, added.
            let s = self.shape_of(&y, 0, None);
            let v = self.floats(1, -2.0, 2.0);
            let k = self.aux(
                "ConstantOfShape",
                vec![s],
                vec![attr_t("value", f32_tensor("", &[1], v, false))],
            );
            self.node1("Add", vec![y, k], vec![], out);
        }
        true
    }

    pub(super) fn range(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let n = *x.shape.last().expect("rank");
        let r = match self.rng.index(3) {
            0 => {
                let delta = *self.rng.pick(&[0.5f32, 1.0, -0.25, 2.0]);
                let start = self.floats(1, -2.0, 2.0)[0];
                let limit = start + (n as f32 - 0.5) * delta;
                let mut sc = |v: f32| {
                    let name = self.fresh("s");
                    self.inits.push(f32_tensor(&name, &[], vec![v], false));
                    name
                };
                let ins = vec![sc(start), sc(limit), sc(delta)];
                self.aux("Range", ins, vec![])
            }
            1 => {
                let delta = *self.rng.pick(&[1i64, 2, -1, -3]);
                let start = self.rng.range(0, 6) as i64 - 3;
                let limit = start + (n - 1) * delta + delta.signum();
                let ins = vec![
                    self.init_i64(vec![start], true),
                    self.init_i64(vec![limit], true),
                    self.init_i64(vec![delta], true),
                ];
                let g = self.aux("Range", ins, vec![]);
                self.cast(g, FLOAT)
            }
            _ => {
                // Range(0, last dim of x, 1): a limit from the shape.
                let s = self.aux("Shape", vec![x.name.clone()], vec![]);
                let idx = self.init_i64(vec![-1], true);
                let lim = self.aux("Gather", vec![s, idx], vec![attr_i("axis", 0)]);
                let ins = vec![
                    self.init_i64(vec![0], true),
                    lim,
                    self.init_i64(vec![1], true),
                ];
                let g = self.aux("Range", ins, vec![]);
                self.cast(g, FLOAT)
            }
        };
        self.node1("Add", vec![x.name, r], vec![], x.shape);
        true
    }

    /// `Gather` with indices computed from an exact value: `Mod` of
    /// `Floor(|v| * 8)` cast to int64 by the axis size, negative at times.
    pub(super) fn gather_run_time(&mut self) -> bool {
        let Some(data) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let Some(v) = self.pick_exact(|s| s.len() <= 2 && cells(s) <= 16) else {
            return false;
        };
        let (a, ai) = self.axis(data.shape.len());
        let d = data.shape[ai];
        let mut out = data.shape[..ai].to_vec();
        out.extend(&v.shape);
        out.extend(&data.shape[ai + 1..]);
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let k = self.init_f32(&[], 8.0, 8.0);
        let lo = self.init_f32(&[], -2.0, -2.0);
        let hi = self.init_f32(&[], 2.0, 2.0);
        let c = self.aux("Clip", vec![v.name, lo, hi], vec![]);
        let m = self.aux("Mul", vec![c, k], vec![]);
        let ab = self.aux("Abs", vec![m], vec![]);
        let i = self.cast(ab, INT64);
        let dd = self.init_i64(vec![d], true);
        let mut idx = self.aux("Mod", vec![i, dd.clone()], vec![]);
        if self.rng.chance(0.3) {
            idx = self.aux("Sub", vec![idx, dd], vec![]);
        }
        let mut attrs = vec![];
        if ai != 0 || self.rng.chance(0.5) {
            attrs.push(attr_i("axis", a));
        }
        self.node1("Gather", vec![data.name, idx], attrs, out);
        true
    }

    /// `If`: a condition known at import (a constant, or a comparison of
    /// a dim) or computed from an exact value at run time; each branch
    /// computes a value of x's shape from outer values.
    pub(super) fn if_node(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let cond = match self.rng.index(3) {
            0 => {
                let b = self.rng.index(2) as i64;
                self.init_int(&[], BOOL, &[b])
            }
            1 if !x.shape.is_empty() => {
                let s = self.aux("Shape", vec![x.name.clone()], vec![]);
                let idx = self.init_i64(vec![0], true);
                let g = self.aux("Gather", vec![s, idx], vec![attr_i("axis", 0)]);
                let d = self.rng.range(1, 3) as i64;
                let k = self.init_i64(vec![d], true);
                self.aux("Equal", vec![g, k], vec![])
            }
            _ => {
                let Some(e) = self.pick_exact(|_| true) else {
                    return false;
                };
                let m = self.aux("ReduceMax", vec![e.name], vec![attr_i("keepdims", 0)]);
                let t = self.init_f32(&[], -0.5, 0.5);
                self.aux("Greater", vec![m, t], vec![])
            }
        };
        let then_g = self.branch(&x);
        let else_g = self.branch(&x);
        let mut attrs = vec![];
        for (name, g) in [("then_branch", then_g), ("else_branch", else_g)] {
            attrs.push(ocannl_onnx::proto::AttributeProto {
                name: Some(name.into()),
                r#type: Some(ocannl_onnx::proto::attribute_proto::AttributeType::Graph as i32),
                g: Some(g),
                ..Default::default()
            });
        }
        self.node1("If", vec![cond], attrs, x.shape);
        true
    }

    /// A branch: one or two nodes on `x` (and another outer value), one
    /// output of x's shape.
    fn branch(&mut self, x: &Value) -> GraphProto {
        let out = self.fresh("b");
        let mut nodes = vec![];
        let mut inits = vec![];
        let op = *self
            .rng
            .pick(&["Relu", "Neg", "Identity", "Add", "Mul", "Sigmoid"]);
        let mut inputs = vec![x.name.clone()];
        if op == "Add" || op == "Mul" {
            let k = self.fresh("bw");
            let v = self.floats(1, -2.0, 2.0);
            inits.push(f32_tensor(&k, &[], v, false));
            inputs.push(k);
        }
        nodes.push(NodeProto {
            name: Some(self.fresh("bn")),
            op_type: Some(op.into()),
            input: inputs,
            output: vec![out.clone()],
            ..Default::default()
        });
        let declared = self.rng.chance(0.5).then_some(&x.shape[..]);
        GraphProto {
            name: Some(self.fresh("branch")),
            node: nodes,
            initializer: inits,
            output: vec![value_info(&out, FLOAT, declared)],
            ..Default::default()
        }
    }
}
