//! ONNX QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear over
//! 8- and 16-bit integers (and int32 for DequantizeLinear), per tensor or
//! per axis (a 1-D scale along `axis`):
//! `y = saturate(round_half_even(x / scale) + zero_point)` and
//! `y = (x - zero_point) * scale`, computed in the scale's float type;
//! blocked ones (`block_size`: the scale repeated along `axis` by a
//! gather); the float8/4-bit types are not supported.

use super::super::axes::check_axis;
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val, dims_spec};
use super::index::known;
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The range of a quantized integer type.
fn range(e: Elem) -> Option<(f64, f64)> {
    Some(match e {
        Elem::I8 => (-128.0, 127.0),
        Elem::U8 => (0.0, 255.0),
        Elem::I16 => (-32768.0, 32767.0),
        Elem::U16 => (0.0, 65535.0),
        _ => return None,
    })
}

impl Translator {
    /// `v` (a scale or zero point) shaped to broadcast against `x`: as
    /// is when it has one cell, else (1-D) along `x`'s `axis`.
    fn along_axis(&mut self, v: Val, x: &Val, (axis, block): (i64, i64)) -> R<Val> {
        let one_cell = match (&v.shape, v.rank) {
            (Some(d), _) => d.iter().product::<u64>() == 1 && d.len() <= 1,
            (None, Some(0)) => true,
            _ => false,
        };
        if one_cell {
            return Ok(v);
        }
        let Some(dims) = x.shape.clone() else {
            return self.err("per-axis quantization of an input whose dims are not known");
        };
        let r = dims.len() as i64;
        check_axis(axis).map_err(|m| self.error(m))?;
        let a = if axis < 0 { axis + r } else { axis };
        if !(0..r).contains(&a) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        if block > 0 {
            return self.blocks(v, &dims, a as usize, block as u64);
        }
        if v.rank.is_some_and(|r| r != 1) {
            return self.err("a per-axis scale or zero point must be 1-D");
        }
        let n = dims[a as usize];
        if v.shape.as_ref().is_some_and(|d| d != &[n]) {
            return self.err(format!(
                "a per-axis scale or zero point must have {n} cells"
            ));
        }
        let col: Vec<u64> = std::iter::once(n).chain((a + 1..r).map(|_| 1)).collect();
        let out = self.emit("reshape", &[&v], "", v.elem, dims_spec(&col), None);
        Ok(known(out, Some(col.clone()), Some(col.len())))
    }

    /// A blocked scale or zero point (`x`'s rank, `ceil(n / block)`
    /// cells along `a`) with each cell repeated `block` times (cut to
    /// `x`'s `n`): `ocannl.gather` at the constant indices `i / block`.
    fn blocks(&mut self, v: Val, dims: &[u64], a: usize, block: u64) -> R<Val> {
        let n = dims[a];
        let mut want = dims.to_vec();
        want[a] = n.div_ceil(block);
        if v.shape.as_ref().is_some_and(|d| d != &want) {
            return self.err(format!(
                "a blocked scale or zero point must have the dims {want:?}"
            ));
        }
        if n > 1 << 24 {
            return self.err("a blocked axis of more than 2^24 cells (not supported)");
        }
        let idx: Vec<f64> = (0..n).map(|i| (i / block) as f64).collect();
        let idx = self.vector(Elem::I64, &idx)?;
        let l: Vec<String> = (0..dims.len()).map(|i| format!("a{i}")).collect();
        let with = |name: &str| {
            let mut w = l.clone();
            w[a] = name.into();
            w.join(",")
        };
        let spec = format!("{}; bw => {}", with("bv"), with("bw"));
        let attrs = format!("spec = \"{}\"", super::super::multichar(&spec));
        let g = self.emit_mixed("gather", &[&v, &idx], &attrs, v.elem, dims_spec(dims), None);
        Ok(known(g, Some(dims.to_vec()), Some(dims.len())))
    }

    /// The checks the three ops share (`precision` unsupported): the axis
    /// and block size.
    fn quant_attrs(&mut self, node: &NodeProto) -> R<(i64, i64)> {
        let at = Attrs::of(node);
        let block = at.int("block_size").unwrap_or(0);
        if !(0..=1 << 40).contains(&block) {
            return self.err(format!("block_size {block} is out of range"));
        }
        if at.int("precision").unwrap_or(0) != 0 {
            return self.err("QuantizeLinear's precision attribute is not supported");
        }
        Ok((at.int("axis").unwrap_or(1), block))
    }

    /// ONNX DequantizeLinear: `(x - zero_point) * scale`.
    pub(super) fn dequantize(&mut self, node: &NodeProto) -> R<()> {
        let axis = self.quant_attrs(node)?;
        let x = self.input(node, 0)?;
        let scale = self.input(node, 1)?;
        let zp = self.opt_input(node, 2)?;
        if range(x.elem).is_none() && x.elem != Elem::I32 {
            return self.err(format!(
                "DequantizeLinear of {} is not supported",
                x.elem.mlir()
            ));
        }
        let f = scale.elem;
        if !f.is_float() {
            return self.err("the scale must be a float");
        }
        let out = Attrs::of(node).int("output_dtype").unwrap_or(0);
        if out != 0 && Elem::of_onnx(out as i32).ok() != Some(f) {
            return self.err("an output_dtype other than the scale's is not supported");
        }
        let xf = self.unary_to("cast", &x, "...".into(), f);
        let d = match zp {
            Some(z) => {
                if z.elem != x.elem {
                    return self.err("the zero point must have the input's element type");
                }
                let z = self.along_axis(z, &x, axis)?;
                let zf = self.unary_to("cast", &z, "...".into(), f);
                self.binary("sub", &xf, &zf, "...".into())?
            }
            None => xf,
        };
        let s = self.along_axis(scale, &x, axis)?;
        let y = self.binary("mul", &d, &s, "...".into())?;
        self.bind(node, 0, known(y, x.shape.clone(), x.rank));
        Ok(())
    }

    /// `round_half_even(x / s) + z` clipped to `elem`'s range and cast.
    fn quantize_to(&mut self, x: &Val, s: &Val, z: Option<&Val>, elem: Elem) -> R<Val> {
        let (lo, hi) = range(elem).expect("a quantized type");
        let q = self.binary("div", x, s, "...".into())?;
        let mut q = self.unary("round", &q, "...".into());
        if let Some(z) = z {
            let zf = if z.elem == x.elem {
                z.clone()
            } else {
                self.unary_to("cast", z, "...".into(), x.elem)
            };
            q = self.binary("add", &q, &zf, "...".into())?;
        }
        let lo = self.scalar(x.elem, lo);
        let hi = self.scalar(x.elem, hi);
        let q = self.binary("max", &q, &lo, "...".into())?;
        let q = self.binary("min", &q, &hi, "...".into())?;
        let v = self.unary_to("cast", &q, "...".into(), elem);
        Ok(known(v, x.shape.clone(), x.rank))
    }

    /// ONNX QuantizeLinear: the output type is the zero point's, else
    /// `output_dtype`'s, else uint8.
    pub(super) fn quantize(&mut self, node: &NodeProto) -> R<()> {
        let axis = self.quant_attrs(node)?;
        let x = self.input(node, 0)?;
        let scale = self.input(node, 1)?;
        let zp = self.opt_input(node, 2)?;
        if !x.elem.is_float() || scale.elem != x.elem {
            return self.err("QuantizeLinear of a float input by a scale of its type is supported");
        }
        let attr = Attrs::of(node).int("output_dtype").unwrap_or(0);
        let elem = match (&zp, attr) {
            (Some(z), _) => z.elem,
            (None, 0) => Elem::U8,
            (None, t) => Elem::of_onnx(t as i32).map_err(|m| self.error(m))?,
        };
        if attr != 0 && Elem::of_onnx(attr as i32).ok() != Some(elem) {
            return self.err("output_dtype differs from the zero point's type");
        }
        if range(elem).is_none() {
            return self.err(format!(
                "QuantizeLinear to {} is not supported",
                elem.mlir()
            ));
        }
        let s = self.along_axis(scale, &x, axis)?;
        let z = match zp {
            Some(z) => Some(self.along_axis(z, &x, axis)?),
            None => None,
        };
        let y = self.quantize_to(&x, &s, z.as_ref(), elem)?;
        self.bind(node, 0, y);
        Ok(())
    }

    /// ONNX DynamicQuantizeLinear: uint8 over the range of `x` widened to
    /// hold 0; outputs y, the scale and the zero point.
    pub(super) fn dynamic_quantize(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        if x.elem != Elem::F32 {
            return self.err("DynamicQuantizeLinear takes a float input");
        }
        let Some(r) = x.rank else {
            return self.err("DynamicQuantizeLinear of an input of unknown rank");
        };
        let all: Vec<String> = (0..r).map(|i| format!("a{i}")).collect();
        let spec = format!("{} => ", all.join(","));
        let zero = self.scalar(x.elem, 0.0);
        let mx = self.einsum(&spec, &[&x], Some("max"), None, String::new());
        let mn = self.einsum(&spec, &[&x], Some("min"), None, String::new());
        let mx = self.binary("max", &with_rank(mx, Some(0)), &zero, String::new())?;
        let mn = self.binary("min", &with_rank(mn, Some(0)), &zero, String::new())?;
        let width = self.binary("sub", &mx, &mn, String::new())?;
        let flat = self.binary_to("eq", &width, &zero, String::new(), Elem::Bool)?;
        let one = self.scalar(x.elem, 1.0);
        let width = self.ternary("where", &flat, &one, &width, String::new())?;
        let q = self.scalar(x.elem, 255.0);
        let scale = self.binary("div", &width, &q, String::new())?;
        let m = self.binary("div", &mn, &scale, String::new())?;
        let zp = self.unary("neg", &m, String::new());
        let (lo, hi) = (self.scalar(x.elem, 0.0), self.scalar(x.elem, 255.0));
        let zp = self.binary("max", &zp, &lo, String::new())?;
        let zp = self.binary("min", &zp, &hi, String::new())?;
        let zp = self.unary("round", &zp, String::new());
        let y = self.quantize_to(&x, &scale, Some(&zp), Elem::U8)?;
        let zq = self.unary_to("cast", &zp, String::new(), Elem::U8);
        self.bind(node, 0, y);
        self.bind(node, 1, known(scale, Some(vec![]), Some(0)));
        self.bind(node, 2, known(zq, Some(vec![]), Some(0)));
        Ok(())
    }
}
