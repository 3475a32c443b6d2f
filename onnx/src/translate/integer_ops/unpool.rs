//! ONNX MaxUnpool (onnx__MaxUnpool.html): zeros of the unpooled shape
//! with each input cell written at its flat index. Composed per `(n, c)`
//! plane as a ScatterElements along the flattened spatial axes (the
//! index less the plane's offset; an index outside its plane is dropped,
//! as the scatter drops an index out of range): O(cells in x cells out)
//! per plane, refused past [`MAX_PAIRS`].

use super::super::{Attrs, R, Translator, Val, dims_spec};
use crate::proto::{AttributeProto, NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::{Elem, Tensor};

/// The most (input cell, output cell) pairs of a plane the scatter
/// compares.
const MAX_PAIRS: u64 = 1 << 24;

impl Translator {
    /// `v` as the dims `dims` (the same cells in memory order).
    fn reshaped(&mut self, v: &Val, dims: &[u64]) -> Val {
        let mut r = self.emit("reshape", &[v], "", v.elem, dims_spec(dims), None);
        r.shape = Some(dims.to_vec());
        r.rank = Some(dims.len());
        r
    }

    /// The unpooled spatial dims: `output_shape` (input #2) when given,
    /// else `(in - 1) * stride + kernel - pads`.
    fn unpooled(&self, node: &NodeProto, xd: &[u64]) -> R<Vec<u64>> {
        let a = Attrs::of(node);
        let s = xd.len() - 2;
        let Some(k) = a.ints("kernel_shape").filter(|k| k.len() == s) else {
            return self.err(format!("'kernel_shape' with {s} sizes is required"));
        };
        let strides = a.ints("strides").unwrap_or_else(|| vec![1; s]);
        let pads = a.ints("pads").unwrap_or_else(|| vec![0; 2 * s]);
        if strides.len() != s || pads.len() != 2 * s {
            return self.err(format!("strides and pads must fit {s} spatial axes"));
        }
        let ok = |v: &[i64], lo: i64| v.iter().all(|&x| (lo..=1 << 32).contains(&x));
        if !ok(&k, 1) || !ok(&strides, 1) || !ok(&pads, 0) {
            return self.err("kernel_shape, strides and pads out of range");
        }
        if let Some(o) = self.const_ints(node, 2)? {
            if o.len() != xd.len() || o[0] as u64 != xd[0] || o[1] as u64 != xd[1] {
                return self.err(format!("output_shape {o:?} for an input of shape {xd:?}"));
            }
            if o[2..].iter().any(|&d| !(1..=1 << 32).contains(&d)) {
                return self.err(format!("output_shape {o:?} out of range"));
            }
            return Ok(o[2..].iter().map(|&d| d as u64).collect());
        }
        (0..s)
            .map(|i| {
                let w = |v: i64| i128::from(v);
                let d = (i128::from(xd[i + 2]) - 1) * w(strides[i]) + w(k[i])
                    - w(pads[i])
                    - w(pads[i + s]);
                match u64::try_from(d) {
                    Ok(d) if d >= 1 => Ok(d),
                    _ => self.err(format!("the unpooled axis {} would have {d} cells", i + 2)),
                }
            })
            .collect()
    }

    pub(super) fn max_unpool(&mut self, node: &NodeProto) -> R<()> {
        let (x, idx) = (self.input(node, 0)?, self.input(node, 1)?);
        let Some(xd) = x.shape.clone().filter(|d| d.len() >= 3) else {
            return self.err("MaxUnpool needs its input's dims (N, C and spatial axes), which are not known here (not supported)");
        };
        if idx.elem != Elem::I64 {
            return self.err(format!(
                "the indices must be i64, they are {}",
                idx.elem.mlir()
            ));
        }
        if idx.shape.as_ref().is_some_and(|d| d != &xd) || idx.rank.is_some_and(|r| r != xd.len()) {
            return self.err(format!(
                "the indices' shape {:?} differs from the input's {xd:?}",
                idx.shape
            ));
        }
        let out = self.unpooled(node, &xd)?;
        let prod = |d: &[u64]| d.iter().try_fold(1u64, |a, &b| a.checked_mul(b));
        let (Some(pin), Some(pout)) = (prod(&xd[2..]), prod(&out)) else {
            return self.err("the sizes overflow 64 bits");
        };
        if pin.checked_mul(pout).is_none_or(|p| p > MAX_PAIRS) {
            return self.err(format!(
                "a MaxUnpool of {pin} cells into {pout} per plane: more than {MAX_PAIRS} pairs (not supported)"
            ));
        }
        let (n, c) = (xd[0], xd[1]);
        let Some(planes) = n.checked_mul(c).filter(|&p| p <= 1 << 24) else {
            return self.err("more than 2^24 planes (not supported)");
        };
        let flat = [n, c, pin];
        let xr = self.reshaped(&x, &flat);
        let ir = self.reshaped(&idx, &flat);
        let bytes = (0..planes)
            .flat_map(|p| ((p * pout) as i64).to_le_bytes())
            .collect();
        let offsets = self.constant(&Tensor {
            data_type: crate::proto::tensor_proto::DataType::Int64 as i32,
            dims: vec![n, c, 1],
            bytes,
        })?;
        let local = self.binary("sub", &ir, &offsets, dims_spec(&flat))?;
        let zeros = self.fill(x.elem, &[n, c, pout], 0.0);
        let mut fake = self.with_inputs(node, vec![Some(zeros), Some(local), Some(xr)]);
        let name = format!("\u{2}{}", self.next);
        fake.output = vec![name.clone()];
        fake.op_type = Some("ScatterElements".into());
        fake.attribute = vec![AttributeProto {
            name: Some("axis".into()),
            i: Some(2),
            r#type: Some(K::Int as i32),
            ..Default::default()
        }];
        self.scatter(&fake, "ScatterElements")?;
        let y = self.value(&name)?;
        let mut dims = vec![n, c];
        dims.extend(&out);
        let y = self.reshaped(&y, &dims);
        self.bind(node, 0, y);
        Ok(())
    }
}
