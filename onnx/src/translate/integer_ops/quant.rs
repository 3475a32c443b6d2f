//! ONNX MatMulInteger, ConvInteger, QLinearConv and QLinearMatMul: the
//! products of 8-bit integers less their zero points, accumulated in i32
//! (MatMul's and Conv's translations over the i32 operands); the QLinear
//! ops requantize the result (`round_half_even(acc * x_scale * w_scale / y_scale) +
//! y_zero_point`, saturated).

use super::super::{R, Translator, Val, dims_spec};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The 8-bit integer types these ops take.
fn eight_bit(e: Elem) -> bool {
    matches!(e, Elem::I8 | Elem::U8)
}

impl Translator {
    /// `x - zero_point` in i32; `zp` broadcasts as it is when it has one
    /// cell, else it is 1-D with `n` cells along the axis followed by
    /// `trailing` axes (per row, per output channel).
    fn centred(&mut self, x: &Val, zp: Option<Val>, n: Option<u64>, trailing: usize) -> R<Val> {
        if !eight_bit(x.elem) {
            return self.err(format!(
                "an operand of {} (8-bit integers are supported)",
                x.elem.mlir()
            ));
        }
        let xi = self.unary_to("cast", x, "...".into(), Elem::I32);
        let Some(z) = zp else {
            return Ok(xi);
        };
        if z.elem != x.elem {
            return self.err(format!(
                "a zero point of {} for an operand of {}",
                z.elem.mlir(),
                x.elem.mlir()
            ));
        }
        let z = self.per_axis(z, n, trailing, "zero point")?;
        let zi = self.unary_to("cast", &z, "...".into(), Elem::I32);
        let mut v = self.binary("sub", &xi, &zi, "...".into())?;
        if v.shape.is_none() {
            v.shape.clone_from(&x.shape);
            v.rank = x.rank;
        }
        Ok(v)
    }

    /// A scale or zero point: as it is with one cell, else 1-D with `n`
    /// cells, reshaped to `[n, 1, ...]` (`trailing` ones).
    fn per_axis(&mut self, v: Val, n: Option<u64>, trailing: usize, what: &str) -> R<Val> {
        let cells = Self::cells(&v);
        if cells == Some(1) && v.rank.is_none_or(|r| r <= 1) {
            return Ok(v);
        }
        match (cells, n) {
            (Some(c), Some(n)) if c == n && v.rank == Some(1) => {
                let dims: Vec<u64> = std::iter::once(n)
                    .chain(std::iter::repeat_n(1, trailing))
                    .collect();
                let mut r = self.emit("reshape", &[&v], "", v.elem, dims_spec(&dims), None);
                r.rank = Some(dims.len());
                r.shape = Some(dims);
                Ok(r)
            }
            (Some(_), Some(n)) => self.err(format!(
                "a {what} of shape {:?}: a scalar or 1-D with {n} cells",
                v.shape.unwrap_or_default()
            )),
            _ => self.err(format!(
                "a {what} whose shape or whose operand's is not known here (not supported)"
            )),
        }
    }

    /// ONNX MatMulInteger (onnx__MatMulInteger.html): `(A - a_zero_point)
    /// @ (B - b_zero_point)` in i32; `a_zero_point` per row of A (its
    /// next-to-last axis), `b_zero_point` per column of B.
    pub(super) fn matmul_integer(&mut self, node: &NodeProto) -> R<()> {
        let (a, b) = (self.input(node, 0)?, self.input(node, 1)?);
        let (za, zb) = (self.opt_input(node, 2)?, self.opt_input(node, 3)?);
        let m = a
            .shape
            .as_ref()
            .and_then(|d| d.len().checked_sub(2).map(|i| d[i]));
        let n = b.shape.as_ref().and_then(|d| d.last().copied());
        let ai = self.centred(&a, za, m, 1)?;
        let bi = self.centred(&b, zb, n, 0)?;
        let fake = self.with_inputs(node, vec![Some(ai), Some(bi)]);
        self.matmul(&fake)
    }

    /// ONNX ConvInteger (onnx__ConvInteger.html): Conv of `x - x_zero_point`
    /// by `w - w_zero_point` (per output channel) in i32.
    pub(super) fn conv_integer(&mut self, node: &NodeProto) -> R<()> {
        let (x, w) = (self.input(node, 0)?, self.input(node, 1)?);
        let (zx, zw) = (self.opt_input(node, 2)?, self.opt_input(node, 3)?);
        let (xi, wi) = self.conv_operands(&x, zx, &w, zw)?;
        let fake = self.with_inputs(node, vec![Some(xi), Some(wi)]);
        self.conv(&fake)
    }

    /// The i32 operands of an integer convolution (the weight's shape is
    /// needed, as Conv's).
    fn conv_operands(
        &mut self,
        x: &Val,
        zx: Option<Val>,
        w: &Val,
        zw: Option<Val>,
    ) -> R<(Val, Val)> {
        let Some(wd) = w.shape.clone() else {
            return self
                .err("the weight's shape is needed (an initializer or an input with a shape)");
        };
        if wd.len() < 3 {
            return self.err(format!("a weight of shape {wd:?}: rank at least 3"));
        }
        if let Some(z) = &zx
            && Self::cells(z).is_none_or(|c| c != 1)
        {
            return self.err("x_zero_point must be a scalar");
        }
        let xi = self.centred(x, zx, None, 0)?;
        let mut wi = self.centred(w, zw, Some(wd[0]), wd.len() - 1)?;
        wi.shape = Some(wd.clone());
        wi.rank = Some(wd.len());
        Ok((xi, wi))
    }

    /// ONNX QLinearConv (onnx__QLinearConv.html): the integer convolution
    /// plus the i32 bias `B`, requantized to `y_zero_point`'s type.
    pub(super) fn qlinear_conv(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let (xs, zx) = (self.input(node, 1)?, self.opt_input(node, 2)?);
        let w = self.input(node, 3)?;
        let (ws, zw) = (self.input(node, 4)?, self.opt_input(node, 5)?);
        let (ys, zy) = (self.input(node, 6)?, self.opt_input(node, 7)?);
        let bias = self.opt_input(node, 8)?;
        if let Some(b) = &bias
            && b.elem != Elem::I32
        {
            return self.err(format!("the bias B must be i32, it is {}", b.elem.mlir()));
        }
        let f = xs.elem;
        if f != Elem::F32 || ws.elem != f || ys.elem != f {
            return self.err("the scales must be f32 scalars (w_scale per output channel)");
        }
        for (s, what) in [(&xs, "x_scale"), (&ys, "y_scale")] {
            if Self::cells(s) != Some(1) {
                return self.err(format!("{what} must be a scalar"));
            }
        }
        let out = zy.as_ref().map_or(x.elem, |z| z.elem);
        if !eight_bit(out) {
            return self.err(format!("an output of {} (not supported)", out.mlir()));
        }
        let (xi, wi) = self.conv_operands(&x, zx, &w, zw)?;
        let wd = wi.shape.clone().unwrap_or_default();
        let acc = self.integer_product(node, vec![Some(xi), Some(wi), bias], true)?;
        let accf = self.unary_to("cast", &acc, "...".into(), f);
        let ws = self.per_axis(ws, wd.first().copied(), wd.len() - 2, "w_scale")?;
        let m = self.binary("mul", &xs, &ws, "...".into())?;
        let m = self.binary("div", &m, &ys, "...".into())?;
        let q = self.binary("mul", &accf, &m, "...".into())?;
        let y = self.requantize(node, q, zy, (out, true))?;
        self.bind(node, 0, y);
        Ok(())
    }

    /// The i32 product of `node` over `inputs` (its Conv's, `conv`, else
    /// its MatMul's translation, on a copy of the node).
    fn integer_product(
        &mut self,
        node: &NodeProto,
        inputs: Vec<Option<Val>>,
        conv: bool,
    ) -> R<Val> {
        let mut fake = self.with_inputs(node, inputs);
        let acc_name = format!("\u{2}{}", self.next);
        fake.output = vec![acc_name.clone()];
        if conv {
            self.conv(&fake)?;
        } else {
            self.matmul(&fake)?;
        }
        self.value(&acc_name)
    }

    /// ONNX QLinearMatMul (onnx__QLinearMatMul.html): `(a - a_zero_point) @
    /// (b - b_zero_point)` in i32, times `a_scale * b_scale / y_scale`
    /// (computed in the scales' type, f32 or f16, as ONNX's reference
    /// does), plus `y_zero_point`, rounded half to even and saturated; the
    /// product is formed in f64, as NumPy's promotion of i32 by a float
    /// scale does. `a`'s scale and zero point are scalars or per row, `b`'s
    /// scalars or per column.
    pub(super) fn qlinear_matmul(&mut self, node: &NodeProto) -> R<()> {
        let a = self.input(node, 0)?;
        let (a_scale, za) = (self.input(node, 1)?, self.opt_input(node, 2)?);
        let b = self.input(node, 3)?;
        let (b_scale, zb) = (self.input(node, 4)?, self.opt_input(node, 5)?);
        let (y_scale, zy) = (self.input(node, 6)?, self.opt_input(node, 7)?);
        let f = a_scale.elem;
        if !matches!(f, Elem::F32 | Elem::F16) || b_scale.elem != f || y_scale.elem != f {
            return self.err("the scales must be f32 or f16, all of one type");
        }
        if Self::cells(&y_scale) != Some(1) {
            return self.err("y_scale must be a scalar");
        }
        let out = zy.as_ref().map_or(a.elem, |z| z.elem);
        if !eight_bit(out) {
            return self.err(format!("an output of {} (not supported)", out.mlir()));
        }
        let m = a
            .shape
            .as_ref()
            .and_then(|d| d.len().checked_sub(2).map(|i| d[i]));
        let n = b.shape.as_ref().and_then(|d| d.last().copied());
        let ai = self.centred(&a, za, m, 1)?;
        let bi = self.centred(&b, zb, n, 0)?;
        let acc = self.integer_product(node, vec![Some(ai), Some(bi)], false)?;
        let a_scale = self.per_axis(a_scale, m, 1, "a_scale")?;
        let b_scale = self.per_axis(b_scale, n, 0, "b_scale")?;
        let s = self.binary("mul", &a_scale, &b_scale, "...".into())?;
        let s = self.binary("div", &s, &y_scale, "...".into())?;
        let s = self.unary_to("cast", &s, "...".into(), Elem::F64);
        let accf = self.unary_to("cast", &acc, "...".into(), Elem::F64);
        let q = self.binary("mul", &accf, &s, "...".into())?;
        let y = self.requantize(node, q, zy, (out, false))?;
        self.bind(node, 0, y);
        Ok(())
    }

    /// `q` requantized to `out` (i8 or u8) in its float type: rounded half
    /// to even and `y_zero_point` added (`round_first`: in that order, as
    /// QLinearConv; else the zero point first, as ONNX's QLinearMatMul
    /// reference), saturated and converted.
    fn requantize(
        &mut self,
        node: &NodeProto,
        q: Val,
        zy: Option<Val>,
        (out, round_first): (Elem, bool),
    ) -> R<Val> {
        let f = q.elem;
        let mut q = if round_first {
            self.unary("round", &q, "...".into())
        } else {
            q
        };
        if let Some(z) = zy {
            if Self::cells(&z) != Some(1) {
                return self.err("y_zero_point must be a scalar");
            }
            let zf = self.unary_to("cast", &z, "...".into(), f);
            q = self.binary("add", &q, &zf, "...".into())?;
        }
        if !round_first {
            q = self.unary("round", &q, "...".into());
        }
        let (lo, hi) = if out == Elem::I8 {
            (-128.0, 127.0)
        } else {
            (0.0, 255.0)
        };
        let lo = self.scalar(f, lo);
        let hi = self.scalar(f, hi);
        let q = self.binary("max", &q, &lo, "...".into())?;
        let q = self.binary("min", &q, &hi, "...".into())?;
        Ok(self.unary_to("cast", &q, self.out_spec(node, 0), out))
    }
}
