//! `Scan` (opset 9 and later): one state of the shape of a slice of `x`,
//! updated by a pointwise op with each slice along a random axis and
//! direction, and one scan output stacked along a random axis and
//! direction; the body reads an outer initializer half the time.

use ocannl_onnx::proto::{AttributeProto, GraphProto, NodeProto, attribute_proto::AttributeType};

use super::extra::FLOAT;
use super::{Builder, Value, attr_i, attr_ints, f32_tensor, value_info};

impl Builder<'_> {
    /// A Scan over an axis of a value of rank 1 to 3; false when none.
    pub(super) fn scan(&mut self) -> bool {
        if self.opset < 9 {
            return false;
        }
        let Some(x) = self.pick(|s| (1..=3).contains(&s.len())) else {
            return false;
        };
        let r = x.shape.len();
        let (ai, a) = self.axis(r);
        let len = x.shape[a];
        let mut slice = x.shape.clone();
        slice.remove(a);
        let s0 = self.fresh("s0");
        let n = slice.iter().product::<i64>().max(1);
        let data = self.floats(n, -1.0, 1.0);
        self.inits.push(f32_tensor(&s0, &slice, data, false));
        let body = self.scan_body(&slice);
        let out_axis = self.rng.index(r);
        let mut stacked = slice.clone();
        stacked.insert(out_axis, len);
        let out_ai = if self.rng.chance(0.3) {
            out_axis as i64 - r as i64
        } else {
            out_axis as i64
        };
        let attrs = vec![
            AttributeProto {
                name: Some("body".into()),
                r#type: Some(AttributeType::Graph as i32),
                g: Some(body),
                ..Default::default()
            },
            attr_i("num_scan_inputs", 1),
            attr_ints("scan_input_axes", &[ai]),
            attr_ints("scan_input_directions", &[self.rng.index(2) as i64]),
            attr_ints("scan_output_axes", &[out_ai]),
            attr_ints("scan_output_directions", &[self.rng.index(2) as i64]),
        ];
        let (last, ys) = (self.fresh("v"), self.fresh("v"));
        self.node(
            "Scan",
            vec![s0, x.name],
            vec![last.clone(), ys.clone()],
            attrs,
        );
        self.values.push(Value {
            name: last,
            shape: slice,
        });
        self.values.push(Value {
            name: ys,
            shape: stacked,
        });
        true
    }

    /// The body: `s_out = op(s_in, x_t)`, `y_t` a unary op of it (or its
    /// product with an outer initializer), each of the slice's shape.
    fn scan_body(&mut self, slice: &[i64]) -> GraphProto {
        let (s_in, x_t, s_out, y_t) = (
            self.fresh("si"),
            self.fresh("xt"),
            self.fresh("so"),
            self.fresh("yt"),
        );
        let op = *self.rng.pick(&["Add", "Max", "Sub"]);
        let mut nodes = vec![NodeProto {
            name: Some(self.fresh("sn")),
            op_type: Some(op.into()),
            input: vec![s_in.clone(), x_t.clone()],
            output: vec![s_out.clone()],
            ..Default::default()
        }];
        let mut second = vec![s_out.clone()];
        if self.rng.chance(0.5) {
            // An outer initializer read inside the body.
            let k = self.fresh("sk");
            let v = self.floats(1, -2.0, 2.0);
            self.inits.push(f32_tensor(&k, &[], v, false));
            second.push(k);
        }
        let op2 = if second.len() == 2 {
            "Mul"
        } else {
            *self.rng.pick(&["Relu", "Neg", "Identity"])
        };
        nodes.push(NodeProto {
            name: Some(self.fresh("sn")),
            op_type: Some(op2.into()),
            input: second,
            output: vec![y_t.clone()],
            ..Default::default()
        });
        let declared = self.rng.chance(0.5).then_some(slice);
        GraphProto {
            name: Some(self.fresh("scan_body")),
            node: nodes,
            input: vec![
                value_info(&s_in, FLOAT, declared),
                value_info(&x_t, FLOAT, declared),
            ],
            output: vec![
                value_info(&s_out, FLOAT, declared),
                value_info(&y_t, FLOAT, declared),
            ],
            ..Default::default()
        }
    }
}
