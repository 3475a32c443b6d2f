//! Recurrent nodes: `RNN`, `GRU` and `LSTM` over a rank-3 value (layout
//! 0: onnxruntime has no batch-first kernels), forward, reverse or bidirectional, with the
//! optional bias, sequence lengths (the full length), initial states and
//! peepholes, activations (with their alpha and beta), clip,
//! `linear_before_reset` and the outputs Y, Y_h (and Y_c) in any
//! combination.

use ocannl_onnx::proto::{AttributeProto, attribute_proto::AttributeType};

use super::{Builder, Value, attr_f, attr_i, attr_s};

/// Activations and the alpha (and beta) each takes: the lists are
/// consumed in the order of the activations, each taking what it uses.
type Params = Option<(f32, Option<f32>)>;
const ACTIVATIONS: &[(&str, Params)] = &[
    ("Tanh", None),
    ("Sigmoid", None),
    ("Relu", None),
    ("LeakyRelu", Some((0.1, None))),
    ("ThresholdedRelu", Some((0.25, None))),
    ("HardSigmoid", Some((0.2, Some(0.5)))),
    ("Affine", Some((0.5, Some(0.25)))),
    ("ScaledTanh", Some((1.5, Some(0.75)))),
    ("Softsign", None),
    ("Softplus", None),
    ("Elu", Some((0.5, None))),
];

impl Builder<'_> {
    pub(super) fn recurrent(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 3 && s.iter().product::<i64>() <= 256) else {
            return false;
        };
        let op = *self.rng.pick(&["RNN", "GRU", "LSTM"]);
        let gates: i64 = match op {
            "RNN" => 1,
            "GRU" => 3,
            _ => 4,
        };
        // layout 1 (batch first, opset 14) is valid ONNX, but
        // onnxruntime's CPU kernels refuse it: no oracle.
        let layout = false;
        let (seq, batch, input) = if layout {
            (x.shape[1], x.shape[0], x.shape[2])
        } else {
            (x.shape[0], x.shape[1], x.shape[2])
        };
        let dir = *self.rng.pick(&["forward", "reverse", "bidirectional"]);
        let dirs = if dir == "bidirectional" { 2 } else { 1 };
        let h = self.rng.range(1, 4) as i64;
        let w = self.init_f32(&[dirs, gates * h, input], -0.5, 0.5);
        let r = self.init_f32(&[dirs, gates * h, h], -0.5, 0.5);
        let mut inputs = vec![x.name.clone(), w, r];
        let state = if layout {
            vec![batch, dirs, h]
        } else {
            vec![dirs, batch, h]
        };
        let optional = [
            (0.5, vec![dirs, 2 * gates * h]),
            (0.1, vec![batch]),
            (0.4, state.clone()),
            (if op == "LSTM" { 0.3 } else { 0.0 }, state),
            (if op == "LSTM" { 0.2 } else { 0.0 }, vec![dirs, 3 * h]),
        ];
        let mut last = inputs.len();
        for (k, (p, shape)) in optional.iter().enumerate() {
            if self.rng.chance(*p) {
                let name = if k == 1 {
                    self.init_int(&[batch], 6, &vec![seq; batch as usize])
                } else {
                    self.init_f32(shape, -0.5, 0.5)
                };
                inputs.resize(3 + k, String::new());
                inputs.push(name);
                last = inputs.len();
            }
        }
        inputs.truncate(last);
        let attrs = self.recurrent_attrs(op, dir, h, layout);
        self.recurrent_outputs(op, inputs, attrs, (seq, batch, dirs, h), layout);
        true
    }

    fn recurrent_attrs(
        &mut self,
        op: &str,
        dir: &str,
        h: i64,
        layout: bool,
    ) -> Vec<AttributeProto> {
        let mut attrs = vec![attr_i("hidden_size", h)];
        if dir != "forward" || self.rng.chance(0.2) {
            attrs.push(attr_s("direction", dir));
        }
        if layout {
            attrs.push(attr_i("layout", 1));
        }
        if self.rng.chance(0.3) {
            let per = match op {
                "RNN" => 1,
                "GRU" => 2,
                _ => 3,
            };
            let n = per * if dir == "bidirectional" { 2 } else { 1 };
            // Either none takes alpha and beta or all do, given: ONNX
            // leaves their defaults to the implementation, and which
            // activation a list entry belongs to when some take none.
            let with_params = self.rng.chance(0.5);
            let pool: Vec<(&str, Params)> = ACTIVATIONS
                .iter()
                .copied()
                .filter(|a| a.1.is_some() == with_params)
                .collect();
            let (mut names, mut alphas, mut betas) = (vec![], vec![], vec![]);
            for _ in 0..n {
                let (name, params) = *self.rng.pick(&pool);
                names.push(name.as_bytes().to_vec());
                if let Some((a, b)) = params {
                    alphas.push(a);
                    betas.extend(b);
                }
            }
            attrs.push(AttributeProto {
                name: Some("activations".into()),
                r#type: Some(AttributeType::Strings as i32),
                strings: names,
                ..Default::default()
            });
            if with_params {
                for (name, v) in [("activation_alpha", alphas), ("activation_beta", betas)] {
                    if v.is_empty() {
                        continue;
                    }
                    attrs.push(AttributeProto {
                        name: Some(name.into()),
                        r#type: Some(AttributeType::Floats as i32),
                        floats: v,
                        ..Default::default()
                    });
                }
            }
        }
        if self.rng.chance(0.2) {
            attrs.push(attr_f("clip", *self.rng.pick(&[0.5, 1.0, 3.0])));
        }
        if op == "GRU" && self.rng.chance(0.5) {
            attrs.push(attr_i("linear_before_reset", self.rng.index(2) as i64));
        }
        attrs
    }

    /// The node with some of its outputs (Y, Y_h, Y_c), each joining the
    /// values.
    fn recurrent_outputs(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        attrs: Vec<AttributeProto>,
        (seq, batch, dirs, h): (i64, i64, i64, i64),
        layout: bool,
    ) {
        let n_out = if op == "LSTM" { 3 } else { 2 };
        let mut want: Vec<bool> = (0..n_out).map(|_| self.rng.chance(0.5)).collect();
        if !want.iter().any(|&w| w) {
            want[self.rng.index(n_out)] = true;
        }
        let y_shape = if layout {
            vec![batch, seq, dirs, h]
        } else {
            vec![seq, dirs, batch, h]
        };
        let s_shape = if layout {
            vec![batch, dirs, h]
        } else {
            vec![dirs, batch, h]
        };
        let mut outs = vec![];
        let mut made = vec![];
        for (k, &w) in want.iter().enumerate() {
            if w {
                let name = self.fresh("v");
                outs.push(name.clone());
                made.push((
                    name,
                    if k == 0 {
                        y_shape.clone()
                    } else {
                        s_shape.clone()
                    },
                ));
            } else {
                outs.push(String::new());
            }
        }
        while outs.last().is_some_and(String::is_empty) {
            outs.pop();
        }
        self.node(op, inputs, outs, attrs);
        for (name, shape) in made {
            self.values.push(Value { name, shape });
        }
    }
}
