//! Nodes that move cells without computing on them: `Concat`, `Split`
//! (sizes as an input, `num_outputs` or equal parts, by opset), `Gather`,
//! `Reshape`, `Flatten`, `Transpose`, `Squeeze` and `Unsqueeze`.

use ocannl_onnx::proto::{TensorProto, tensor_proto::DataType};

use super::{Builder, MAX_CELLS, Value, attr_i, attr_ints, cells};

impl Builder<'_> {
    pub(super) fn concat(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let (a, ai) = self.axis(x.shape.len());
        let mut inputs = vec![x.name.clone()];
        let mut out = x.shape.clone();
        for _ in 0..self.rng.range(1, 2) {
            let same: Vec<Value> = self
                .values
                .iter()
                .filter(|v| {
                    v.shape.len() == x.shape.len()
                        && v.shape
                            .iter()
                            .zip(&x.shape)
                            .enumerate()
                            .all(|(i, (p, q))| i == ai || p == q)
                })
                .cloned()
                .collect();
            if self.rng.chance(0.4) {
                let o = self.rng.pick(&same).clone();
                out[ai] += o.shape[ai];
                inputs.push(o.name);
            } else {
                let mut s = x.shape.clone();
                s[ai] = self.rng.range(1, 3) as i64;
                out[ai] += s[ai];
                inputs.push(self.init_f32(&s, -1.0, 1.0));
            }
        }
        if cells(&out) > MAX_CELLS {
            return false;
        }
        if self.rng.chance(0.5) {
            self.rng.shuffle(&mut inputs);
        }
        self.node1("Concat", inputs, vec![attr_i("axis", a)], out);
        true
    }

    pub(super) fn split(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.iter().any(|&d| d >= 2)) else {
            return false;
        };
        let big: Vec<usize> = (0..x.shape.len()).filter(|&i| x.shape[i] >= 2).collect();
        let ai = *self.rng.pick(&big);
        let r = x.shape.len() as i64;
        let a = if self.rng.chance(0.4) {
            ai as i64 - r
        } else {
            ai as i64
        };
        let d = x.shape[ai];
        let mut inputs = vec![x.name.clone()];
        let mut attrs = vec![];
        if ai != 0 || self.rng.chance(0.5) {
            attrs.push(attr_i("axis", a));
        }
        let sizes: Vec<i64> = match self.rng.index(3) {
            0 => {
                // Explicit sizes.
                let parts = self.rng.range(2, d.min(3) as u64) as i64;
                let mut s = vec![1; parts as usize];
                for _ in 0..d - parts {
                    let i = self.rng.index(s.len());
                    s[i] += 1;
                }
                let c = self.init_i64(s.clone(), false);
                inputs.push(c);
                s
            }
            1 if self.opset >= 18 => {
                let parts = self.rng.range(2, d.min(3) as u64) as i64;
                attrs.push(attr_i("num_outputs", parts));
                let chunk = (d + parts - 1) / parts;
                let mut s = Vec::new();
                let mut left = d;
                while left > 0 {
                    s.push(chunk.min(left));
                    left -= chunk;
                }
                if s.len() as i64 != parts {
                    return false;
                }
                s
            }
            _ => {
                if self.opset >= 18 {
                    return false;
                }
                let parts = if d % 2 == 0 {
                    2
                } else if d % 3 == 0 {
                    3
                } else {
                    return false;
                };
                vec![d / parts; parts as usize]
            }
        };
        let outs: Vec<String> = sizes.iter().map(|_| self.fresh("v")).collect();
        self.node("Split", inputs, outs.clone(), attrs);
        for (o, s) in outs.into_iter().zip(sizes) {
            let mut shape = x.shape.clone();
            shape[ai] = s;
            self.values.push(Value { name: o, shape });
        }
        true
    }

    pub(super) fn gather(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let (a, ai) = self.axis(x.shape.len());
        let d = x.shape[ai];
        let scalar = self.rng.chance(0.3);
        let n = if scalar {
            1
        } else {
            self.rng.range(1, 4) as usize
        };
        let idx: Vec<i64> = (0..n)
            .map(|_| {
                let i = self.rng.below(d as u64) as i64;
                if self.rng.chance(0.2) { i - d } else { i }
            })
            .collect();
        let mut out = x.shape[..ai].to_vec();
        if !scalar {
            out.push(n as i64);
        }
        out.extend(&x.shape[ai + 1..]);
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let ind = if self.rng.chance(0.2) {
            let name = self.fresh("c");
            let dims = if scalar { vec![] } else { vec![n as i64] };
            self.inits.push(TensorProto {
                name: Some(name.clone()),
                dims,
                data_type: Some(DataType::Int32 as i32),
                int32_data: idx.iter().map(|&v| v as i32).collect(),
                ..Default::default()
            });
            name
        } else {
            self.init_i64(idx, scalar)
        };
        let mut attrs = Vec::new();
        if ai != 0 || self.rng.chance(0.5) {
            attrs.push(attr_i("axis", a));
        }
        self.node1("Gather", vec![x.name, ind], attrs, out);
        true
    }

    pub(super) fn reshape(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let total = cells(&x.shape);
        // Factor the cell count into 1 to 4 dims.
        let rank = self.rng.range(1, 4) as usize;
        let mut dims = vec![1i64; rank];
        let mut left = total;
        let mut p = 2;
        while left > 1 {
            while left % p != 0 {
                p += 1;
            }
            left /= p;
            let i = self.rng.index(rank);
            dims[i] *= p;
        }
        let mut spec = dims.clone();
        if self.rng.chance(0.4) {
            let i = self.rng.index(rank);
            spec[i] = -1;
        }
        for i in 0..rank {
            if spec[i] != -1 && i < x.shape.len() && x.shape[i] == dims[i] && self.rng.chance(0.3) {
                spec[i] = 0;
            }
        }
        let c = self.init_i64(spec, false);
        self.node1("Reshape", vec![x.name, c], vec![], dims);
        true
    }

    pub(super) fn flatten(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let r = x.shape.len();
        let ai = self.rng.index(r + 1);
        let a = if ai < r && self.rng.chance(0.3) {
            ai as i64 - r as i64
        } else {
            ai as i64
        };
        let out = vec![cells(&x.shape[..ai]), cells(&x.shape[ai..])];
        let mut attrs = Vec::new();
        if a != 1 || self.rng.chance(0.3) {
            attrs.push(attr_i("axis", a));
        }
        self.node1("Flatten", vec![x.name], attrs, out);
        true
    }

    pub(super) fn transpose(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let mut perm: Vec<usize> = (0..r).collect();
        let mut attrs = Vec::new();
        if self.rng.chance(0.2) {
            perm.reverse();
        } else {
            self.rng.shuffle(&mut perm);
            attrs.push(attr_ints(
                "perm",
                &perm.iter().map(|&p| p as i64).collect::<Vec<_>>(),
            ));
        }
        let out = perm.iter().map(|&p| x.shape[p]).collect();
        self.node1("Transpose", vec![x.name], attrs, out);
        true
    }

    pub(super) fn squeeze(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let r = x.shape.len();
        let ones: Vec<usize> = (0..r).filter(|&i| x.shape[i] == 1).collect();
        if !ones.is_empty() && self.rng.chance(0.5) {
            let mut axes: Vec<usize> = ones
                .iter()
                .copied()
                .filter(|_| self.rng.chance(0.6))
                .collect();
            if axes.is_empty() {
                axes.push(ones[0]);
            }
            let out = (0..r)
                .filter(|i| !axes.contains(i))
                .map(|i| x.shape[i])
                .collect();
            let mut list: Vec<i64> = self.axes_list(&axes, r);
            self.rng.shuffle(&mut list);
            let c = self.init_i64(list, false);
            self.node1("Squeeze", vec![x.name, c], vec![], out);
        } else {
            // Unsqueeze: 1 or 2 new axes of the output.
            let n = self.rng.range(1, 2) as usize;
            let out_r = r + n;
            let mut axes: Vec<usize> = (0..out_r).collect();
            self.rng.shuffle(&mut axes);
            axes.truncate(n);
            let mut out = Vec::new();
            let mut src = x.shape.iter();
            for i in 0..out_r {
                if axes.contains(&i) {
                    out.push(1);
                } else {
                    out.push(*src.next().expect("rank"));
                }
            }
            let list: Vec<i64> = self.axes_list(&axes, out_r);
            let c = self.init_i64(list, false);
            self.node1("Unsqueeze", vec![x.name, c], vec![], out);
        }
        true
    }
}
