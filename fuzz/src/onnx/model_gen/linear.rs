//! Matrix products: `MatMul` (vector, matrix and batched operands) and
//! `Gemm` (transposes, bias shapes, alpha and beta).

use super::{Builder, MAX_CELLS, attr_f, attr_i, cells};

impl Builder<'_> {
    pub(super) fn matmul(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let k = x.shape[r - 1];
        let n = self.rng.range(1, 6) as i64;
        if r == 1 && self.rng.chance(0.3) {
            // A matrix times the vector.
            let m = self.rng.range(1, 5) as i64;
            let a = self.init_f32(&[m, k], -1.0, 1.0);
            self.node1("MatMul", vec![a, x.name], vec![], vec![m]);
            return true;
        }
        let (b_shape, out): (Vec<i64>, Vec<i64>) = match self.rng.index(3) {
            0 if r >= 2 => (vec![k], x.shape[..r - 1].to_vec()),
            1 if r >= 3 => {
                let mut b = x.shape[..r - 2].to_vec();
                b.extend([k, n]);
                let mut o = x.shape[..r - 1].to_vec();
                o.push(n);
                (b, o)
            }
            _ => {
                let mut o = x.shape[..r - 1].to_vec();
                o.push(n);
                (vec![k, n], o)
            }
        };
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let b = self.init_f32(&b_shape, -1.0, 1.0);
        self.node1("MatMul", vec![x.name, b], vec![], out);
        true
    }

    pub(super) fn gemm(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 2) else {
            return false;
        };
        let trans_a = self.rng.chance(0.3);
        let trans_b = self.rng.chance(0.4);
        let (m, k) = if trans_a {
            (x.shape[1], x.shape[0])
        } else {
            (x.shape[0], x.shape[1])
        };
        let n = self.rng.range(1, 6) as i64;
        let b_shape = if trans_b { vec![n, k] } else { vec![k, n] };
        let b = self.init_f32(&b_shape, -1.0, 1.0);
        let mut inputs = vec![x.name, b];
        if self.rng.chance(0.7) {
            let c_shape = match self.rng.index(5) {
                0 => vec![n],
                1 => vec![1, n],
                2 => vec![m, n],
                3 => vec![m, 1],
                _ => vec![],
            };
            let c = self.init_f32(&c_shape, -1.0, 1.0);
            inputs.push(c);
        }
        let mut attrs = Vec::new();
        if trans_a {
            attrs.push(attr_i("transA", 1));
        } else if self.rng.chance(0.1) {
            attrs.push(attr_i("transA", 0));
        }
        if trans_b {
            attrs.push(attr_i("transB", 1));
        }
        if self.rng.chance(0.3) {
            let a = self.floats(1, -2.0, 2.0)[0];
            attrs.push(attr_f("alpha", a));
        }
        if self.rng.chance(0.3) {
            let b = self.floats(1, -2.0, 2.0)[0];
            attrs.push(attr_f("beta", b));
        }
        self.node1("Gemm", inputs, attrs, vec![m, n]);
        true
    }
}
