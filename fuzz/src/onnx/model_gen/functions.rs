//! Scalar functions and activations: the trigonometric and hyperbolic
//! functions (`Tan`, `Atan`, `Asin`, `Acos`, `Sinh`, `Cosh`, `Asinh`,
//! `Acosh`, `Atanh`, their input mostly brought into their domain), and
//! `Selu`, `Celu`, `ThresholdedRelu`, `Shrink`, `Softsign`, `Mish` and
//! `Hardmax` with their attributes.

use super::{Builder, attr_f, attr_i};

impl Builder<'_> {
    pub(super) fn trig(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let op = *self.rng.pick(&[
            "Tan", "Atan", "Asin", "Acos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
        ]);
        let into_domain = self.rng.chance(0.85);
        let input = match op {
            "Asin" | "Acos" | "Atanh" if into_domain => {
                // |tanh(x)| * 0.96875 < 1.
                let t = self.aux("Tanh", vec![x.name.clone()], vec![]);
                let k = self.init_f32(&[], 0.96875, 0.96875);
                self.aux("Mul", vec![t, k], vec![])
            }
            "Acosh" if into_domain => {
                let sq = self.aux("Mul", vec![x.name.clone(), x.name.clone()], vec![]);
                let one = self.init_f32(&[], 1.0, 1.0);
                self.aux("Add", vec![sq, one], vec![])
            }
            "Tan" if into_domain => {
                let k = self.init_f32(&[], 0.5, 0.5);
                self.aux("Mul", vec![x.name.clone(), k], vec![])
            }
            _ => x.name.clone(),
        };
        self.node1(op, vec![input], vec![], x.shape);
        true
    }

    pub(super) fn activation(&mut self) -> bool {
        let mut ops = vec![
            "Selu",
            "Celu",
            "ThresholdedRelu",
            "Shrink",
            "Softsign",
            "Hardmax",
        ];
        if self.opset >= 18 {
            ops.push("Mish");
        }
        let op = *self.rng.pick(&ops);
        // Thresholds and the argmax are discontinuous: exact inputs.
        let x = if matches!(op, "ThresholdedRelu" | "Shrink" | "Hardmax") {
            self.pick_exact(|s| op != "Hardmax" || !s.is_empty())
        } else {
            self.pick(|_| true)
        };
        let Some(x) = x else {
            return false;
        };
        let mut attrs = Vec::new();
        match op {
            "Selu" => {
                if self.rng.chance(0.5) {
                    attrs.push(attr_f("alpha", self.floats(1, 0.5, 2.0)[0]));
                }
                if self.rng.chance(0.5) {
                    attrs.push(attr_f("gamma", self.floats(1, 0.5, 2.0)[0]));
                }
            }
            "Celu" | "ThresholdedRelu" if self.rng.chance(0.7) => {
                attrs.push(attr_f("alpha", self.floats(1, 0.25, 1.5)[0]));
            }
            "Shrink" => {
                if self.rng.chance(0.6) {
                    attrs.push(attr_f("lambd", self.floats(1, 0.0, 1.5)[0]));
                }
                if self.rng.chance(0.6) {
                    attrs.push(attr_f("bias", self.floats(1, -1.0, 1.0)[0]));
                }
            }
            "Hardmax" if self.rng.chance(0.7) => {
                let (a, _) = self.axis(x.shape.len());
                attrs.push(attr_i("axis", a));
            }
            _ => {}
        }
        let out = self.node1(op, vec![x.name], attrs, x.shape);
        if op == "Hardmax" {
            self.mark_exact(&out);
        }
        true
    }
}
