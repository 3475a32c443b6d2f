//! ONNX DepthToSpace and SpaceToDepth: reshapes and one permuting einsum
//! (the spatial axes read as strided axes `b*h+i` for SpaceToDepth).

use super::super::{Attrs, R, Translator, dims_spec};
use super::index::known;
use crate::proto::NodeProto;

impl Translator {
    /// ONNX DepthToSpace (`mode` DCR or CRD) and SpaceToDepth (DCR, or
    /// CRD where the opset has `mode`), on an input of known dims.
    pub(super) fn depth_space(&mut self, node: &NodeProto, to_space: bool) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let Some(b) = at.int("blocksize").filter(|&b| (1..=1 << 16).contains(&b)) else {
            return self.err("'blocksize' (1 to 65536) is required");
        };
        let b = b as u64;
        let crd = match at.string("mode").as_deref().unwrap_or("DCR") {
            "DCR" => false,
            "CRD" => true,
            m => return self.err(format!("mode '{m}' is not supported")),
        };
        let Some(d) = x.shape.clone() else {
            return self.err("DepthToSpace and SpaceToDepth need the input's dims, which are not known here (not supported)");
        };
        let [n, c, h, w] = d[..] else {
            return self.err(format!("a rank-{} input (rank 4 only)", d.len()));
        };
        if h.max(w).max(c) > 1 << 40 {
            return self.err("DepthToSpace and SpaceToDepth of sizes above 2^40 are not supported");
        }
        let bb = b * b;
        let (mid, out) = if to_space {
            if c % bb != 0 {
                return self.err(format!(
                    "blocksize {b} squared does not divide {c} channels"
                ));
            }
            let cc = c / bb;
            let (split, from) = if crd {
                (vec![n, cc, b, b, h, w], "n,c,i,j,h,w")
            } else {
                (vec![n, b, b, cc, h, w], "n,i,j,c,h,w")
            };
            let r = self.emit("reshape", &[&x], "", x.elem, dims_spec(&split), None);
            let mid = vec![n, cc, h, b, w, b];
            let t = self.einsum(
                &format!("{from} => n,c,h,i,w,j"),
                &[&r],
                None,
                None,
                dims_spec(&mid),
            );
            (t, vec![n, cc, h * b, w * b])
        } else {
            if h % b != 0 || w % b != 0 {
                return self.err(format!(
                    "blocksize {b} does not divide the spatial dims {h}, {w}"
                ));
            }
            let (hh, ww) = (h / b, w / b);
            let to = if crd { "n,c,i,j,h,w" } else { "n,i,j,c,h,w" };
            let mid = if crd {
                vec![n, c, b, b, hh, ww]
            } else {
                vec![n, b, b, c, hh, ww]
            };
            let t = self.einsum(
                &format!("n,c,{b}*h+i,{b}*w+j => {to}"),
                &[&x],
                None,
                None,
                dims_spec(&mid),
            );
            let Some(cc) = c.checked_mul(bb) else {
                return self.err("SpaceToDepth's channels overflow 64 bits");
            };
            (t, vec![n, cc, hh, ww])
        };
        let v = self.emit("reshape", &[&mid], "", x.elem, dims_spec(&out), None);
        self.bind(node, 0, known(v, Some(out), None));
        Ok(())
    }
}
