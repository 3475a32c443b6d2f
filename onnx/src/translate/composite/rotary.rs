//! ONNX RotaryEmbedding (opset 23; onnx.ai/onnx/operators/
//! onnx__RotaryEmbedding.html): the first `rotary_embedding_dim` cells of
//! each head rotated in pairs (the two halves, or even and odd cells when
//! `interleaved`) by the cos/sin caches, read at `position_ids` by
//! `ocannl.gather` when given; the other cells kept. A 4-D input is
//! `[batch, heads, seq, head]`, a 3-D one `[batch, seq, heads * head]`
//! (`num_heads` given). The input's dims must be known.

use super::super::axes::Layout;
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val, dims_spec, multichar};
use super::index::known;
use crate::proto::NodeProto;

impl Translator {
    /// ONNX RotaryEmbedding.
    pub(super) fn rotary(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let Some(dims) = x.shape.clone() else {
            return self
                .err("RotaryEmbedding of an input whose dims are not known (not supported)");
        };
        if !x.elem.is_float() {
            return self.err("RotaryEmbedding takes a floating-point input");
        }
        // The input as 4-D, its labels and the head axis last.
        let (x4, labels, d4) = match dims.len() {
            4 => (x.clone(), "b,h,s,d", dims.clone()),
            3 => {
                let n = at.int("num_heads").unwrap_or(0);
                if n <= 0 || dims[2] % n as u64 != 0 {
                    return self.err("a 3-D input needs num_heads dividing its last dim");
                }
                let d4 = vec![dims[0], dims[1], n as u64, dims[2] / n as u64];
                let v = self.emit("reshape", &[&x], "", x.elem, dims_spec(&d4), None);
                (known(v, Some(d4.clone()), Some(4)), "b,s,h,d", d4)
            }
            r => return self.err(format!("RotaryEmbedding of a rank-{r} input")),
        };
        let head = d4[3];
        let rot = match at.int("rotary_embedding_dim").unwrap_or(0) {
            0 => head,
            r if r > 0 && r as u64 <= head && r % 2 == 0 => r as u64,
            r => return self.err(format!("rotary_embedding_dim {r} for heads of {head}")),
        };
        let half = rot / 2;
        let (cos, sin) = self.rotary_caches(node, half)?;
        let lay = Layout::new(&[-1], Some(4)).map_err(|m| self.error(m))?;
        let x_rot = self.block_slice(&x4, &lay, [Some(0), Some(rot), Some(head - rot)])?;
        let interleaved = at.int("interleaved").unwrap_or(0) != 0;
        let (x1, x2) = if interleaved {
            let odd = self.block_slice(&x_rot, &lay, [Some(1), Some(rot - 1), Some(0)])?;
            (
                self.every(&x_rot, &lay, 2, Some(rot)),
                self.every(&odd, &lay, 2, Some(rot - 1)),
            )
        } else {
            (
                self.block_slice(&x_rot, &lay, [Some(0), Some(half), Some(half)])?,
                self.block_slice(&x_rot, &lay, [Some(half), Some(half), Some(0)])?,
            )
        };
        let mut hd = d4.clone();
        hd[3] = half;
        let cache = labels.replace(",h", "").replace("h,", "");
        let cache = cache.replace('d', "r");
        let xl = labels.replace('d', "r");
        let mut prod = |c: &Val, v: &Val| {
            let spec = format!("{cache}; {xl} => {xl}");
            let p = self.einsum(&spec, &[c, v], None, Some("mul"), dims_spec(&hd));
            known(p, Some(hd.clone()), Some(4))
        };
        let (c1, s2, s1, c2) = (
            prod(&cos, &x1),
            prod(&sin, &x2),
            prod(&sin, &x1),
            prod(&cos, &x2),
        );
        let real = self.binary("sub", &c1, &s2, "...".into())?;
        let imag = self.binary("add", &s1, &c2, "...".into())?;
        let rotated = if interleaved {
            self.interleave(&real, &imag, &hd)?
        } else {
            let mut dr = hd.clone();
            dr[3] = rot;
            let v = self.concat_along(&lay, &[&real, &imag], dims_spec(&dr));
            known(v, Some(dr), Some(4))
        };
        let out = if rot < head {
            let pass = self.block_slice(&x4, &lay, [Some(rot), Some(head - rot), Some(0)])?;
            let v = self.concat_along(&lay, &[&rotated, &pass], dims_spec(&d4));
            known(v, Some(d4.clone()), Some(4))
        } else {
            rotated
        };
        let out = if dims.len() == 3 {
            self.emit("reshape", &[&out], "", x.elem, dims_spec(&dims), None)
        } else {
            self.unary("identity", &out, dims_spec(&dims))
        };
        self.bind(node, 0, known(out, Some(dims), Some(x.rank.unwrap_or(4))));
        Ok(())
    }

    /// The cos and sin caches as `[batch, seq, half]`: read at the
    /// position ids (`[batch, seq]`) when given.
    fn rotary_caches(&mut self, node: &NodeProto, half: u64) -> R<(Val, Val)> {
        let cos = self.input(node, 1)?;
        let sin = self.input(node, 2)?;
        let ids = self.opt_input(node, 3)?;
        let mut out = Vec::new();
        for c in [cos, sin] {
            if c.elem != self.input(node, 0)?.elem {
                return self.err("the caches must have the input's element type");
            }
            if c.shape
                .as_ref()
                .and_then(|d| d.last())
                .is_some_and(|&n| n != half)
            {
                return self.err(format!("the caches' last dim must be {half}"));
            }
            let v = match &ids {
                Some(p) => {
                    if p.rank.is_some_and(|r| r != 2) || c.rank.is_some_and(|r| r != 2) {
                        return self.err("position_ids must be 2-D and the caches 2-D");
                    }
                    let attrs = format!("spec = \"{}\"", multichar("p,r; b,s => b,s,r"));
                    let v = self.emit_mixed("gather", &[&c, p], &attrs, c.elem, "...".into(), None);
                    with_rank(v, Some(3))
                }
                None => {
                    if c.rank.is_some_and(|r| r != 3) {
                        return self.err("without position_ids the caches must be 3-D");
                    }
                    c
                }
            };
            out.push(v);
        }
        let sin = out.pop().expect("two caches");
        let cos = out.pop().expect("two caches");
        Ok((cos, sin))
    }

    /// `real` and `imag` (4-D, of dims `hd`) interleaved along the last
    /// axis: pairs along a new last axis, then flattened.
    fn interleave(&mut self, real: &Val, imag: &Val, hd: &[u64]) -> R<Val> {
        let mut d5 = hd.to_vec();
        d5.push(1);
        let lift = |t: &mut Self, v: &Val| {
            let e = t.einsum("a,b,c,e => a,b,c,e,0", &[v], None, None, dims_spec(&d5));
            known(e, Some(d5.clone()), Some(5))
        };
        let (r5, i5) = (lift(self, real), lift(self, imag));
        let lay5 = Layout::new(&[-1], Some(5)).map_err(|m| self.error(m))?;
        let mut d2 = d5.clone();
        d2[4] = 2;
        let pair = self.concat_along(&lay5, &[&r5, &i5], dims_spec(&d2));
        let mut dr = hd.to_vec();
        dr[3] *= 2;
        let v = self.emit("reshape", &[&pair], "", real.elem, dims_spec(&dr), None);
        Ok(known(v, Some(dr), Some(4)))
    }
}
