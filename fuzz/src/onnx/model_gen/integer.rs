//! The ops of the importer's `integer_ops` family and the outputs added
//! with it: Pow with an exponent of another element type, BitCast between
//! integer types, MatMulInteger, ConvInteger and QLinearConv over 8-bit
//! operands made from exact values, Det of small matrices, MaxPool's
//! Indices (ties among exact values included) and MaxUnpool of them,
//! Dropout's mask, BatchNormalization in training mode and
//! MelWeightMatrix. Integer results are cast back to floats to join the
//! values.

use ocannl_onnx::proto::tensor_proto::DataType as D;

use super::extra::{FLOAT, INT64};
use super::{Builder, Value, attr_f, attr_i, attr_ints};

const INT8: i32 = D::Int8 as i32;
const UINT8: i32 = D::Uint8 as i32;
const INT32: i32 = D::Int32 as i32;
const UINT32: i32 = D::Uint32 as i32;

impl Builder<'_> {
    pub(super) fn integer_ops(&mut self) -> bool {
        match self.rng.index(11) {
            0 => self.pow_mixed(),
            1 => self.bitcast(),
            2 => self.matmul_integer(),
            3 => self.conv_integer(),
            4 => self.det(),
            5 => self.maxpool_indices(),
            6 => self.dropout_mask(),
            7 => self.batchnorm_training(),
            8 => self.mel_weight_matrix(),
            9 => self.qlinear_matmul(),
            _ => self.qlinear_conv(),
        }
    }

    /// A float value joining the values.
    fn join(&mut self, name: String, shape: Vec<i64>) {
        self.values.push(Value { name, shape });
    }

    /// An exact value of `shape`'s kind clipped to `lo..=hi` and cast to
    /// `elem`.
    fn small_ints(
        &mut self,
        want: impl Fn(&[i64]) -> bool,
        lo: f32,
        hi: f32,
        elem: i32,
    ) -> Option<(String, Vec<i64>)> {
        let v = self.pick_exact(want)?;
        let l = self.init_f32(&[], lo, lo);
        let h = self.init_f32(&[], hi, hi);
        let c = self.aux("Clip", vec![v.name, l, h], vec![]);
        Some((self.cast(c, elem), v.shape))
    }

    fn pow_mixed(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let elem = *self.rng.pick(&[INT32, INT64]);
        if self.rng.chance(0.5) {
            // A float base, small integer exponents.
            let n = x.shape[x.shape.len() - 1];
            let data = self.ints(n, 0, 3);
            let e = self.init_int(&[n], elem, &data);
            self.node1("Pow", vec![x.name, e], vec![], x.shape);
        } else {
            // An integer base, a float exponent (integral: no rounding at
            // the truncation).
            let Some((b, shape)) = self.small_ints(|s| !s.is_empty(), -4.0, 4.0, elem) else {
                return false;
            };
            let e = self.init_f32(&[], 2.0, 2.0);
            let p = self.aux("Pow", vec![b, e], vec![]);
            let out = self.cast(p, FLOAT);
            self.join(out, shape);
        }
        true
    }

    /// BitCast exists from opset 26: a model of opset 20 or more is
    /// raised to it (as the stateful family raises to 27).
    fn bitcast(&mut self) -> bool {
        if self.opset < 20 {
            return false;
        }
        let Some((i, shape)) = self.small_ints(|s| !s.is_empty(), -100.0, 100.0, INT32) else {
            return false;
        };
        let u = self.aux("BitCast", vec![i], vec![attr_i("to", i64::from(UINT32))]);
        // Back to i32 (the bits again), then to floats.
        let back = self.aux("BitCast", vec![u], vec![attr_i("to", i64::from(INT32))]);
        let out = self.cast(back, FLOAT);
        self.join(out, shape);
        self.opset = self.opset.max(26);
        true
    }

    fn matmul_integer(&mut self) -> bool {
        let elem = *self.rng.pick(&[INT8, UINT8]);
        let Some((a, b, n, shape)) = self.matmul8(elem) else {
            return false;
        };
        let mut inputs = vec![a, b];
        if self.rng.chance(0.6) {
            // (onnxruntime takes one zero point for A, not one per row.)
            let lo = if elem == INT8 { -8 } else { 0 };
            let d = self.ints(1, lo, 3);
            inputs.push(self.init_int(&[], elem, &d));
            let d = self.ints(n, lo, 3);
            inputs.push(self.init_int(&[n], elem, &d));
        }
        let p = self.aux("MatMulInteger", inputs, vec![]);
        let out = self.cast(p, FLOAT);
        self.join(out, shape);
        true
    }

    /// QLinearMatMul of an 8-bit value by a constant, per-column scales
    /// and zero points for B.
    fn qlinear_matmul(&mut self) -> bool {
        let elem = *self.rng.pick(&[INT8, UINT8]);
        let Some((a, b, n, shape)) = self.matmul8(elem) else {
            return false;
        };
        let a_scale = self.init_f32(&[], 0.5, 0.5);
        let za = self.init_int(&[], elem, &[1]);
        let b_scale = self.init_f32(&[n], 0.25, 1.0);
        let zb = self.init_int(&[n], elem, &vec![0; n as usize]);
        let y_scale = self.init_f32(&[], 2.0, 2.0);
        let zy = self.init_int(&[], elem, &[3]);
        let inputs = vec![a, a_scale, za, b, b_scale, zb, y_scale, zy];
        let p = self.aux("QLinearMatMul", inputs, vec![]);
        let out = self.cast(p, FLOAT);
        self.join(out, shape);
        true
    }

    /// An 8-bit value `a` of rank at least 2 and a constant `b` `[k, n]`
    /// to multiply it by: `(a, b, n, the product's shape)`.
    fn matmul8(&mut self, elem: i32) -> Option<(String, String, i64, Vec<i64>)> {
        let lo = if elem == INT8 { -8.0 } else { 0.0 };
        let (a, shape) = self.small_ints(|s| s.len() >= 2, lo, 8.0, elem)?;
        let k = shape[shape.len() - 1];
        let n = self.rng.range(1, 6) as i64;
        let data = self.ints(k * n, lo as i64, 8);
        let b = self.init_int(&[k, n], elem, &data);
        let mut out = shape[..shape.len() - 1].to_vec();
        out.push(n);
        Some((a, b, n, out))
    }

    /// An 8-bit input `[n, c, h, w]` and weight `[m, c, k, k]`, the
    /// output's shape (no padding, stride 1).
    fn conv8(&mut self, elem: i32) -> Option<(String, String, i64, Vec<i64>)> {
        let lo = if elem == INT8 { -8.0 } else { 0.0 };
        let (x, s) = self.small_ints(|s| s.len() == 4 && s[2] >= 2 && s[3] >= 2, lo, 8.0, elem)?;
        let k = self.rng.range(1, 2) as i64;
        let m = self.rng.range(1, 4) as i64;
        let data = self.ints(m * s[1] * k * k, lo as i64, 8);
        let w = self.init_int(&[m, s[1], k, k], elem, &data);
        Some((x, w, m, vec![s[0], m, s[2] - k + 1, s[3] - k + 1]))
    }

    fn conv_integer(&mut self) -> bool {
        let elem = *self.rng.pick(&[INT8, UINT8]);
        let Some((x, w, _, shape)) = self.conv8(elem) else {
            return false;
        };
        let zx = self.init_int(&[], elem, &[2]);
        // (onnxruntime takes one weight zero point, not one per channel.)
        let d = self.ints(1, 0, 3);
        let zw = self.init_int(&[], elem, &d);
        let p = self.aux("ConvInteger", vec![x, w, zx, zw], vec![]);
        let out = self.cast(p, FLOAT);
        self.join(out, shape);
        true
    }

    fn qlinear_conv(&mut self) -> bool {
        let elem = *self.rng.pick(&[INT8, UINT8]);
        let Some((x, w, m, shape)) = self.conv8(elem) else {
            return false;
        };
        let xs = self.init_f32(&[], 0.5, 0.5);
        let zx = self.init_int(&[], elem, &[1]);
        let ws = self.init_f32(&[m], 0.25, 1.0);
        let zw = self.init_int(&[m], elem, &vec![0; m as usize]);
        let ys = self.init_f32(&[], 4.0, 4.0);
        let zy = self.init_int(&[], elem, &[3]);
        let b = self.ints(m, -20, 20);
        let b = self.init_int(&[m], INT32, &b);
        let inputs = vec![x, xs, zx, w, ws, zw, ys, zy, b];
        let p = self.aux("QLinearConv", inputs, vec![]);
        let out = self.cast(p, FLOAT);
        self.join(out, shape);
        true
    }

    fn det(&mut self) -> bool {
        let Some(x) =
            self.pick(|s| s.len() >= 3 && s[s.len() - 1] == s[s.len() - 2] && s[s.len() - 1] <= 4)
        else {
            // A square initializer batch.
            let n = self.rng.range(1, 4) as i64;
            let x = self.init_f32(&[2, n, n], -2.0, 2.0);
            self.node1("Det", vec![x], vec![], vec![2]);
            return true;
        };
        let r = x.shape.len();
        self.node1("Det", vec![x.name], vec![], x.shape[..r - 2].to_vec());
        true
    }

    fn maxpool_indices(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 4 && s[2] >= 2 && s[3] >= 2) else {
            return false;
        };
        let k = self.rng.range(1, 2) as i64;
        let st = self.rng.range(1, 2) as i64;
        let (oh, ow) = ((x.shape[2] - k) / st + 1, (x.shape[3] - k) / st + 1);
        let attrs = vec![
            attr_ints("kernel_shape", &[k, k]),
            attr_ints("strides", &[st, st]),
        ];
        let (y, i) = (self.fresh("v"), self.fresh("t"));
        self.node(
            "MaxPool",
            vec![x.name],
            vec![y.clone(), i.clone()],
            attrs.clone(),
        );
        let pooled = vec![x.shape[0], x.shape[1], oh, ow];
        self.join(y.clone(), pooled.clone());
        if self.rng.chance(0.5) {
            let f = self.cast(i, FLOAT);
            self.join(f, pooled);
        } else {
            let out = vec![x.shape[0], x.shape[1], (oh - 1) * st + k, (ow - 1) * st + k];
            self.node1("MaxUnpool", vec![y, i], attrs, out);
        }
        true
    }

    fn dropout_mask(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let (y, mask) = (self.fresh("v"), self.fresh("t"));
        self.node(
            "Dropout",
            vec![x.name],
            vec![y.clone(), mask.clone()],
            vec![],
        );
        self.join(y, x.shape.clone());
        let f = self.cast(mask, FLOAT);
        self.join(f, x.shape);
        true
    }

    fn batchnorm_training(&mut self) -> bool {
        if self.opset < 14 {
            return false;
        }
        let Some(x) = self.pick(|s| (2..=4).contains(&s.len()) && s[0] * s.len() as i64 >= 4)
        else {
            return false;
        };
        let c = x.shape[1];
        let scale = self.init_f32(&[c], 0.5, 1.5);
        let bias = self.init_f32(&[c], -1.0, 1.0);
        let mean = self.init_f32(&[c], -1.0, 1.0);
        let var = self.init_f32(&[c], 0.5, 2.0);
        let outs = vec![self.fresh("v"), self.fresh("v"), self.fresh("v")];
        let attrs = vec![attr_i("training_mode", 1), attr_f("momentum", 0.8)];
        self.node(
            "BatchNormalization",
            vec![x.name, scale, bias, mean, var],
            outs.clone(),
            attrs,
        );
        self.join(outs[0].clone(), x.shape);
        self.join(outs[1].clone(), vec![c]);
        self.join(outs[2].clone(), vec![c]);
        true
    }

    fn mel_weight_matrix(&mut self) -> bool {
        if self.opset < 17 {
            return false;
        }
        let mel = self.rng.range(1, 8) as i64;
        let dft = self.rng.range(8, 64) as i64;
        let inputs = vec![
            self.init_int(&[], INT64, &[mel]),
            self.init_int(&[], INT64, &[dft]),
            self.init_int(&[], INT64, &[8000]),
            self.init_f32(&[], 0.0, 100.0),
            self.init_f32(&[], 3000.0, 4000.0),
        ];
        self.node1("MelWeightMatrix", inputs, vec![], vec![dft / 2 + 1, mel]);
        true
    }
}
