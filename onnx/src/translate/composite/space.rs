//! ONNX DepthToSpace and SpaceToDepth: reshapes and one permuting einsum
//! (the spatial axes read as strided axes `b*h+i` for SpaceToDepth).

use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val, dims_spec};
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
            if x.rank.is_some_and(|r| r != 4) {
                return self.err(format!(
                    "a rank-{} input (rank 4 only)",
                    x.rank.unwrap_or(0)
                ));
            }
            let v = self.depth_space_named(&x, b, crd, to_space);
            self.bind(node, 0, with_rank(v, Some(4)));
            return Ok(());
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

    /// DepthToSpace or SpaceToDepth of `x` whose dims are not known: the
    /// same reshapes and einsum over dimension variables, each reshape
    /// with one unknown (DepthToSpace merges the height, then the width).
    fn depth_space_named(&mut self, x: &Val, b: u64, crd: bool, to_space: bool) -> Val {
        let [n, c, h, w] = [0; 4].map(|_| self.fresh_var());
        let e = x.elem;
        let order = if crd { "n,c,i,j,h,w" } else { "n,i,j,c,h,w" };
        if to_space {
            let view = self.einsum(
                "n,c,h,w => n,c,h,w",
                &[x],
                None,
                None,
                format!("{n},{c},{h},{w}"),
            );
            let cc = self.fresh_var();
            let split = if crd {
                format!("{n},{cc},{b},{b},{h},{w}")
            } else {
                format!("{n},{b},{b},{cc},{h},{w}")
            };
            let r = self.emit("reshape", &[&view], "", e, split, None);
            let mid = format!("{n},{cc},{h},{b},{w},{b}");
            let t = self.einsum(&format!("{order} => n,c,h,i,w,j"), &[&r], None, None, mid);
            let h2 = self.fresh_var();
            let r1 = self.emit(
                "reshape",
                &[&t],
                "",
                e,
                format!("{n},{cc},{h2},{w},{b}"),
                None,
            );
            let w2 = self.fresh_var();
            self.emit(
                "reshape",
                &[&r1],
                "",
                e,
                format!("{n},{cc},{h2},{w2}"),
                None,
            )
        } else {
            let mid = if crd {
                format!("{n},{c},{b},{b},{h},{w}")
            } else {
                format!("{n},{b},{b},{c},{h},{w}")
            };
            let t = self.einsum(
                &format!("n,c,{b}*h+i,{b}*w+j => {order}"),
                &[x],
                None,
                None,
                mid,
            );
            let c2 = self.fresh_var();
            self.emit("reshape", &[&t], "", e, format!("{n},{c2},{h},{w}"), None)
        }
    }
}
