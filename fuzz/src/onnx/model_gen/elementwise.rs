//! Element-wise nodes: unary activations (with their alpha, approximate
//! and Clip bounds), broadcasting binary and variadic ops, and constants
//! (`Constant`, `ConstantOfShape`) added to a value.

use ocannl_onnx::proto::{AttributeProto, attribute_proto::AttributeType};

use super::{Builder, MAX_CELLS, Value, attr_f, attr_s, attr_t, broadcast, cells, f32_tensor};

impl Builder<'_> {
    pub(super) fn unary(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let mut ops = vec![
            "Relu",
            "Sigmoid",
            "Tanh",
            "Exp",
            "Log",
            "Sqrt",
            "Abs",
            "Neg",
            "Reciprocal",
            "Sin",
            "Cos",
            "Erf",
            "Softplus",
            "Identity",
            "Dropout",
            "LeakyRelu",
            "Elu",
            "Clip",
        ];
        if self.opset >= 20 {
            ops.push("Gelu");
        }
        let op = *self.rng.pick(&ops);
        let mut inputs = vec![x.name.clone()];
        let mut attrs = Vec::new();
        match op {
            "LeakyRelu" | "Elu" if self.rng.chance(0.6) => {
                let a = self.floats(1, 0.01, 2.0)[0];
                attrs.push(attr_f("alpha", a));
            }
            "Gelu" if self.rng.chance(0.5) => attrs.push(attr_s("approximate", "tanh")),
            "Clip" => {
                let lo = self.floats(1, -1.5, 0.0)[0];
                let hi = self.floats(1, 0.0, 1.5)[0];
                match self.rng.index(4) {
                    0 => {}
                    1 => inputs.push(self.scalar_f32(lo)),
                    2 => {
                        inputs.push(String::new());
                        inputs.push(self.scalar_f32(hi));
                    }
                    _ => {
                        inputs.push(self.scalar_f32(lo));
                        inputs.push(self.scalar_f32(hi));
                    }
                }
            }
            _ => {}
        }
        self.node1(op, inputs, attrs, x.shape);
        true
    }

    pub(super) fn binary(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let op = *self.rng.pick(&[
            "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean",
        ]);
        // Another value of a compatible shape, or a new operand.
        let others: Vec<Value> = self
            .values
            .iter()
            .filter(|v| {
                v.name != x.name
                    && broadcast(&x.shape, &v.shape).is_some_and(|b| cells(&b) <= MAX_CELLS)
            })
            .cloned()
            .collect();
        let (lo, hi) = match op {
            "Pow" => (0.5, 3.0),
            "Div" => (0.5, 2.0),
            _ => (-2.0, 2.0),
        };
        let (name, shape) = if !others.is_empty() && op != "Pow" && self.rng.chance(0.4) {
            let o = self.rng.pick(&others).clone();
            (o.name, o.shape)
        } else {
            self.broadcast_operand(&x.shape, lo, hi)
        };
        let Some(mut out) = broadcast(&x.shape, &shape) else {
            return false;
        };
        let mut inputs = vec![x.name.clone(), name];
        if op != "Pow" && op != "Div" && self.rng.chance(0.3) {
            inputs.swap(0, 1);
        }
        if matches!(op, "Sum" | "Mean" | "Max" | "Min") && self.rng.chance(0.3) {
            let (n3, s3) = self.broadcast_operand(&out, -2.0, 2.0);
            out = broadcast(&out, &s3).unwrap_or(out);
            inputs.push(n3);
        }
        if matches!(op, "Sum" | "Mean" | "Max" | "Min") && self.rng.chance(0.1) {
            inputs.truncate(1);
            out = x.shape.clone();
            inputs[0] = x.name.clone();
        }
        self.node1(op, inputs, vec![], out);
        true
    }

    pub(super) fn constant(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let name = self.fresh("k");
        let (attr, shape) = match self.rng.index(3) {
            0 => (attr_f("value_float", self.floats(1, -2.0, 2.0)[0]), vec![]),
            1 if !x.shape.is_empty() => {
                let n = *x.shape.last().expect("rank");
                let data = self.floats(n, -2.0, 2.0);
                (
                    AttributeProto {
                        name: Some("value_floats".into()),
                        r#type: Some(AttributeType::Floats as i32),
                        floats: data,
                        ..Default::default()
                    },
                    vec![n],
                )
            }
            _ => {
                let s: Vec<i64> = x.shape[self.rng.index(x.shape.len() + 1)..].to_vec();
                let data = self.floats(cells(&s), -2.0, 2.0);
                let raw = self.rng.chance(0.5);
                (attr_t("value", f32_tensor("", &s, data, raw)), s)
            }
        };
        self.node("Constant", vec![], vec![name.clone()], vec![attr]);
        let out = broadcast(&x.shape, &shape).expect("a suffix broadcasts");
        let op = *self.rng.pick(&["Add", "Mul", "Sub"]);
        self.node1(op, vec![x.name, name], vec![], out);
        true
    }

    pub(super) fn constant_of_shape(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let s: Vec<i64> = x.shape[self.rng.index(x.shape.len() + 1)..].to_vec();
        let dims = self.init_i64(s.clone(), false);
        let name = self.fresh("k");
        let mut attrs = Vec::new();
        if self.rng.chance(0.8) {
            let v = self.floats(1, -2.0, 2.0);
            attrs.push(attr_t("value", f32_tensor("", &[1], v, false)));
        }
        self.node("ConstantOfShape", vec![dims], vec![name.clone()], attrs);
        let out = broadcast(&x.shape, &s).expect("a suffix broadcasts");
        self.node1("Add", vec![x.name, name], vec![], out);
        true
    }

    fn scalar_f32(&mut self, v: f32) -> String {
        let name = self.fresh("s");
        self.inits.push(f32_tensor(&name, &[], vec![v], false));
        name
    }

    /// A second operand broadcasting against `shape`: an initializer or a
    /// Constant node's output.
    fn broadcast_operand(&mut self, shape: &[i64], lo: f32, hi: f32) -> (String, Vec<i64>) {
        let skip = self.rng.index(shape.len() + 1);
        let mut s: Vec<i64> = shape[skip..]
            .iter()
            .map(|&d| if self.rng.chance(0.3) { 1 } else { d })
            .collect();
        if self.rng.chance(0.15) && cells(shape) * 3 <= MAX_CELLS {
            s.insert(0, self.rng.range(1, 3) as i64);
            while s.len() < shape.len() + 1 {
                s.insert(1, 1);
            }
        }
        if self.rng.chance(0.2) {
            // A Constant node rather than an initializer.
            let name = self.fresh("k");
            let data = self.floats(cells(&s), lo, hi);
            let value = if s.is_empty() && self.rng.chance(0.5) {
                attr_f("value_float", data[0])
            } else {
                attr_t("value", f32_tensor("", &s, data, self.rng.chance(0.5)))
            };
            self.node("Constant", vec![], vec![name.clone()], vec![value]);
            return (name, s);
        }
        (self.init_f32(&s, lo, hi), s)
    }
}
