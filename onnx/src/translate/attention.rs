//! ONNX Attention (onnx.ai/onnx/operators/onnx__Attention.html, opset 23
//! on; its reference implementation `onnx/reference/ops/op_attention.py`
//! is followed step by step): 3-D inputs split into heads, Q and K each
//! scaled by `sqrt(scale)`, the past keys and values concatenated in front,
//! grouped heads repeated, `softcap`, the additive bias of `attn_mask`
//! (a boolean one as `0` / `-inf`) and `is_causal` (bottom-right aligned
//! after the past), a softmax whose fully masked rows are 0, and the
//! outputs `Y`, `present_key`, `present_value` and `qk_matmul_output`
//! (modes 0 to 3); `nonpad_kv_seqlen` (opset 24: an external cache, its
//! padding masked and the causal frontier per batch) and the sliding
//! windows of opset 25.

use super::axes::Layout;
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The 4-D `[batch, heads, seq, head]` views of Q, K and V.
struct Heads {
    q: Val,
    k: Val,
    v: Val,
    /// Q's heads and head size, K's and V's heads, the inputs' rank.
    q_heads: i64,
    head: i64,
    kv_heads: i64,
    rank: usize,
    /// The batch and query length (3-D inputs are merged back with them).
    batch: String,
    q_len: String,
}

impl Translator {
    /// A dim as a spec axis (a fresh variable for an expression).
    fn axis_text(&mut self, d: &Sym) -> String {
        match d {
            Sym::Num(n) => n.to_string(),
            Sym::Dim(v) => v.clone(),
            Sym::Op(..) => self.fresh_var(),
        }
    }

    /// ONNX Attention.
    pub(super) fn attention(&mut self, node: &NodeProto) -> R<()> {
        let a = Attrs::of(node);
        let mode = a.int("qk_matmul_output_mode").unwrap_or(0);
        if !(0..=3).contains(&mode) {
            return self.err(format!("qk_matmul_output_mode {mode} is not 0 to 3"));
        }
        let h = self.attention_heads(node)?;
        let io = h.q.elem;
        if !io.is_float() || h.k.elem != io || h.v.elem != io {
            return self.err("Attention takes Q, K and V of one floating-point type");
        }
        // Half-precision inputs compute in f32 (the reference's numpy
        // rounds each op to f16 but computes it wider), the outputs cast
        // back.
        let elem = if matches!(io, Elem::F16 | Elem::BF16) {
            Elem::F32
        } else {
            io
        };
        let widen = |t: &mut Self, v: &Val| -> Val {
            if v.elem == elem {
                v.clone()
            } else {
                let r = v.rank;
                with_rank(t.unary_to("cast", v, "...".into(), elem), r)
            }
        };
        let narrow = |t: &mut Self, v: &Val| -> Val {
            if v.elem == io {
                v.clone()
            } else {
                let r = v.rank;
                with_rank(t.unary_to("cast", v, "...".into(), io), r)
            }
        };
        let scale = match a.float("scale") {
            Some(s) => f64::from(s),
            None => 1.0 / (h.head as f64).sqrt(),
        };
        // The reference rounds sqrt(scale) to the input type.
        let root = match elem {
            Elem::F32 => f64::from(scale.sqrt() as f32),
            _ => scale.sqrt(),
        };
        let s = self.scalar(elem, root);
        let q = widen(self, &h.q);
        let q = self.binary("mul", &q, &s, "...".into())?;
        // The past in front of the new keys and values (the present
        // outputs), then scaled as the reference does.
        let (k_all, present_k, past) = self.with_past(node, &h.k, 4)?;
        let (v, present_v, _) = self.with_past(node, &h.v, 5)?;
        let (k_all, v) = (widen(self, &k_all), widen(self, &v));
        let k = self.binary("mul", &k_all, &s, "...".into())?;
        let k = with_rank(k, Some(4));
        let (k, v) = self.grouped(&h, k, v)?;
        let qk = self.scores(&q, &k, a.float("softcap"), elem)?;
        let causal = a.int("is_causal").unwrap_or(0) != 0;
        let bias = self.attention_bias(node, (&h.q_len, &h.batch), &past, causal, elem)?;
        let biased = match &bias {
            Some(b) => self.binary("add", &qk, b, "...".into())?,
            None => qk.clone(),
        };
        let p = self.guarded_softmax(&biased, bias.as_ref())?;
        let y = self.einsum(
            "b,h,q,k; b,h,k,e => b,h,q,e",
            &[&p, &v],
            None,
            None,
            "...".into(),
        );
        let y = with_rank(y, Some(4));
        let y = if h.rank == 3 {
            let t = self.einsum("b,h,q,e => b,q,h,e", &[&y], None, None, "...".into());
            let spec = format!("{},{},{}", h.batch, h.q_len, self.fresh_var());
            with_rank(self.emit("reshape", &[&t], "", elem, spec, None), Some(3))
        } else {
            y
        };
        let y = narrow(self, &y);
        self.bind(node, 0, y);
        self.bind(node, 1, present_k.unwrap_or(h.k));
        self.bind(node, 2, present_v.unwrap_or(h.v));
        let out = match mode {
            0 | 1 => qk,
            2 => biased,
            _ => p,
        };
        let out = narrow(self, &out);
        self.bind(node, 3, out);
        Ok(())
    }

    /// K and V with each of their heads repeated for the query heads it
    /// serves (grouped-query attention).
    fn grouped(&mut self, h: &Heads, k: Val, v: Val) -> R<(Val, Val)> {
        if h.kv_heads != h.q_heads && h.kv_heads > 0 && h.q_heads % h.kv_heads == 0 {
            let n = h.q_heads / h.kv_heads;
            Ok((
                self.repeat_heads(&k, h.q_heads, n)?,
                self.repeat_heads(&v, h.q_heads, n)?,
            ))
        } else {
            Ok((k, v))
        }
    }

    /// `Q K^T` (both already scaled), soft-capped: `c * tanh(qk / c)`.
    fn scores(&mut self, q: &Val, k: &Val, softcap: Option<f32>, elem: Elem) -> R<Val> {
        let qk = self.einsum(
            "b,h,q,d; b,h,k,d => b,h,q,k",
            &[q, k],
            None,
            None,
            "...".into(),
        );
        let mut qk = with_rank(qk, Some(4));
        if let Some(c) = softcap.filter(|&c| c > 0.0) {
            let c = self.scalar(elem, f64::from(c));
            let t = self.binary("div", &qk, &c, "...".into())?;
            let t = self.unary("tanh", &t, "...".into());
            qk = self.binary("mul", &t, &c, "...".into())?;
        }
        Ok(qk)
    }

    /// The dims of input `i` (by name, so that views stay in place).
    fn dims_of_input(&mut self, node: &NodeProto, i: usize) -> R<Vec<Sym>> {
        let name = node.input.get(i).cloned().unwrap_or_default();
        self.dims_of(&name)
    }

    /// Q, K and V as `[batch, heads, seq, head]`: 3-D inputs
    /// `[batch, seq, heads * head]` split by `q_num_heads` and
    /// `kv_num_heads`.
    fn attention_heads(&mut self, node: &NodeProto) -> R<Heads> {
        let a = Attrs::of(node);
        let dq = self.dims_of_input(node, 0)?;
        let dk = self.dims_of_input(node, 1)?;
        let dv = self.dims_of_input(node, 2)?;
        let r = dq.len();
        if r != dk.len() || r != dv.len() || !(r == 3 || r == 4) {
            return self.err("Q, K and V must all be 3-D or all 4-D");
        }
        let (q, k, v) = (
            self.input(node, 0)?,
            self.input(node, 1)?,
            self.input(node, 2)?,
        );
        let batch = self.axis_text(&dq[0]);
        if r == 4 {
            if a.int("q_num_heads").is_some() || a.int("kv_num_heads").is_some() {
                return self.err("q_num_heads and kv_num_heads are for 3-D inputs");
            }
            let (Some(heads), Some(head), Some(kv_heads)) = (dq[1].num(), dq[3].num(), dk[1].num())
            else {
                return self.err("Attention needs the heads and head size (not known here)");
            };
            let q_len = self.axis_text(&dq[2]);
            let q = with_rank(q, Some(4));
            let k = with_rank(k, Some(4));
            let v = with_rank(v, Some(4));
            return Ok(Heads {
                q,
                k,
                v,
                q_heads: heads,
                head,
                kv_heads,
                rank: 4,
                batch,
                q_len,
            });
        }
        let (Some(qh), Some(kh)) = (a.int("q_num_heads"), a.int("kv_num_heads")) else {
            return self.err("3-D inputs need q_num_heads and kv_num_heads");
        };
        let q_len = self.axis_text(&dq[1]);
        let split = |t: &mut Self, x: &Val, d: &[Sym], heads: i64| -> R<(Val, i64)> {
            let Some(hidden) = d[2].num() else {
                return t.err("Attention needs the hidden sizes of 3-D inputs (not known here)");
            };
            if heads < 1 || hidden % heads != 0 {
                return t.err(format!("a hidden size of {hidden} in {heads} heads"));
            }
            let (b, s) = (t.axis_text(&d[0]), t.axis_text(&d[1]));
            let spec = format!("{b},{s},{heads},{}", hidden / heads);
            let r = t.emit("reshape", &[x], "", x.elem, spec, None);
            let r = with_rank(r, Some(4));
            let v = t.einsum("b,s,h,d => b,h,s,d", &[&r], None, None, "...".into());
            Ok((with_rank(v, Some(4)), hidden / heads))
        };
        let (q, head) = split(self, &q, &dq, qh)?;
        let (k, _) = split(self, &k, &dk, kh)?;
        let (v, _) = split(self, &v, &dv, kh)?;
        Ok(Heads {
            q,
            k,
            v,
            q_heads: qh,
            head,
            kv_heads: kh,
            rank: 3,
            batch,
            q_len,
        })
    }

    /// `x` with the past (input `i`: past_key or past_value) in front
    /// along the sequence axis; the present value when there is a past,
    /// and the past's length (0 without).
    fn with_past(&mut self, node: &NodeProto, x: &Val, i: usize) -> R<(Val, Option<Val>, Sym)> {
        let Some(past) = self.opt_input(node, i)? else {
            return Ok((x.clone(), None, Sym::Num(0)));
        };
        let len = self
            .dims_of_input(node, i)?
            .get(2)
            .cloned()
            .unwrap_or(Sym::Num(0));
        let past = with_rank(past, Some(4));
        let lay = Layout::new(&[2], Some(4)).map_err(|m| self.error(m))?;
        let v = self.concat_along(&lay, &[&past, x], "...".into());
        let v = with_rank(v, Some(4));
        Ok((v.clone(), Some(v), len))
    }

    /// `x` `[b, h, s, d]` with each head repeated `n` times in place
    /// (`h0, h0, h1, h1, ...`, `heads` in all): a gather of the heads.
    fn repeat_heads(&mut self, x: &Val, heads: i64, n: i64) -> R<Val> {
        let which: Vec<i64> = (0..heads).map(|h| h / n).collect();
        let t = crate::tensor::Tensor {
            data_type: crate::proto::tensor_proto::DataType::Int64 as i32,
            dims: vec![heads as u64],
            bytes: which.iter().flat_map(|v| v.to_le_bytes()).collect(),
        };
        let idx = self.constant(&t)?;
        let g = self.emit_gather(x, &idx, "b,v,s,d; h => b,h,s,d", "...".into());
        Ok(with_rank(g, Some(4)))
    }

    /// `attn_mask` (input #3) as an additive bias of `elem`: a boolean one
    /// as 0 / -inf, a float one as it is; one shorter than the keys
    /// (`kv_len`) padded with -inf, as ONNX says.
    fn mask_bias(&mut self, node: &NodeProto, elem: Elem, kv_len: Option<i64>) -> R<Option<Val>> {
        let zero = self.scalar(elem, 0.0);
        let minus_inf = self.scalar(elem, f64::NEG_INFINITY);
        Ok(match self.opt_input(node, 3)? {
            None => None,
            Some(m) => {
                let dims = self.dims_of_input(node, 3)?;
                let pad = match (dims.last(), kv_len) {
                    (Some(Sym::Num(l)), Some(kv)) if *l < kv => Some(kv - l),
                    _ => None,
                };
                let bias = if m.elem == Elem::Bool {
                    let r = m.rank;
                    with_rank(
                        self.ternary("where", &m, &zero, &minus_inf, "...".into())?,
                        r,
                    )
                } else if m.elem != elem {
                    let r = m.rank;
                    with_rank(self.unary_to("cast", &m, "...".into(), elem), r)
                } else {
                    m
                };
                Some(match pad {
                    None => bias,
                    Some(p) => self.pad_mask(&bias, &dims, p, elem)?,
                })
            }
        })
    }

    /// A mask bias (dims `dims`) shorter than the keys by `p`, padded with
    /// -inf along its last axis (onnx.ai, Attention: "padded to the total
    /// sequence length with -inf").
    fn pad_mask(&mut self, bias: &Val, dims: &[Sym], p: i64, elem: Elem) -> R<Val> {
        let Some(mut known) = dims
            .iter()
            .map(|d| d.num().map(|n| n as u64))
            .collect::<Option<Vec<u64>>>()
        else {
            return self.err(
                "an attn_mask shorter than the keys is padded, which needs its dims (not known here; not supported)",
            );
        };
        let r = known.len();
        known[r - 1] = p as u64;
        let fill = self.fill(elem, &known, f64::NEG_INFINITY);
        let lay = Layout::new(&[-1], Some(r)).map_err(|m| self.error(m))?;
        let v = self.concat_along(&lay, &[bias, &fill], "...".into());
        Ok(with_rank(v, Some(r)))
    }

    /// The additive bias of `attn_mask` (input #3; a boolean one as 0 /
    /// -inf) and `is_causal` (key `j` allowed for query `i` when
    /// `j <= i + past`), or `None` without either.
    fn attention_bias(
        &mut self,
        node: &NodeProto,
        (q_len, batch): (&str, &str),
        past: &Sym,
        causal: bool,
        elem: Elem,
    ) -> R<Option<Val>> {
        let zero = self.scalar(elem, 0.0);
        let minus_inf = self.scalar(elem, f64::NEG_INFINITY);
        let kv_dims = self.dims_of_input(node, 1)?;
        let new_kv = &kv_dims[kv_dims.len() - 2];
        let kv_len = match (new_kv, past) {
            (Sym::Num(a), Sym::Num(b)) => Some(a + b),
            _ => None,
        };
        let mask = self.mask_bias(node, elem, kv_len)?;
        let at = Attrs::of(node);
        let (left, right) = (
            at.int("left_window_size").unwrap_or(-1),
            at.int("right_window_size").unwrap_or(-1),
        );
        let nonpad = self.opt_input(node, 6)?;
        if !causal && left < 0 && right < 0 && nonpad.is_none() {
            return Ok(mask);
        }
        if nonpad.is_some() && self.opt_input(node, 4)?.is_some() {
            return self.err("nonpad_kv_seqlen cannot be combined with past_key and past_value");
        }
        let (Some(kv), Sym::Num(p), Ok(q)) = (kv_len, past, q_len.parse::<i64>()) else {
            return self.err(
                "the causal or padding mask needs the query, key and past lengths (not known here)",
            );
        };
        let range = |t: &mut Self, n: i64, spec: String| -> Val {
            let r = t.emit(
                "range",
                &[],
                &format!("spec = \"{n}\""),
                Elem::I64,
                n.to_string(),
                None,
            );
            with_rank(t.emit("reshape", &[&r], "", Elem::I64, spec, None), Some(2))
        };
        let i = range(self, q, format!("{q},1"));
        let j = range(self, kv, format!("1,{kv}"));
        // The frontier of query i: i + past, or per batch (an external
        // cache) i + nonpad_kv_seqlen[b] - q.
        let lengths = self.kv_lengths(nonpad.as_ref(), batch);
        let offset = match &lengths {
            Some(n) => {
                let qv = self.fill_attr(Elem::I64, &[], &format!("{q} : i64"));
                self.binary("sub", n, &qv, "...".into())?
            }
            None => self.fill_attr(Elem::I64, &[], &format!("{p} : i64")),
        };
        let frontier = self.binary("add", &i, &offset, "...".into())?;
        let diff = self.binary("sub", &frontier, &j, "...".into())?;
        let rank = if lengths.is_some() { 4 } else { 2 };
        let diff = with_rank(diff, Some(rank));
        let allowed = self.window_allowed(&diff, causal, left, right)?;
        let mut terms: Vec<Val> = mask.into_iter().collect();
        if let Some(allowed) = allowed {
            let allowed = with_rank(allowed, Some(rank));
            terms.push(with_rank(
                self.ternary("where", &allowed, &zero, &minus_inf, "...".into())?,
                Some(rank),
            ));
        }
        if let Some(n) = &lengths {
            let ok = self.binary_to("lt", &j, n, "...".into(), Elem::Bool)?;
            let ok = with_rank(ok, Some(4));
            terms.push(with_rank(
                self.ternary("where", &ok, &zero, &minus_inf, "...".into())?,
                Some(4),
            ));
        }
        self.sum_terms(terms)
    }

    /// Which keys each query may see (`diff`: frontier minus key
    /// position): causal `diff >= 0`, a left window `diff <= left`, a right
    /// one `diff >= -right`; `None` without any.
    fn window_allowed(
        &mut self,
        diff: &Val,
        causal: bool,
        left: i64,
        right: i64,
    ) -> R<Option<Val>> {
        let mut allowed: Option<Val> = None;
        let mut limit = |t: &mut Self, pred: &str, bound: i64| -> R<()> {
            let b = t.fill_attr(Elem::I64, &[], &format!("{bound} : i64"));
            let ok = t.binary_to(pred, diff, &b, "...".into(), Elem::Bool)?;
            allowed = Some(match allowed.take() {
                Some(a) => t.binary_to("and", &a, &ok, "...".into(), Elem::Bool)?,
                None => ok,
            });
            Ok(())
        };
        if causal {
            limit(self, "ge", 0)?;
        }
        if left >= 0 {
            limit(self, "le", left)?;
        }
        if right >= 0 {
            limit(self, "ge", -right)?;
        }
        Ok(allowed)
    }

    /// The sum of additive bias terms (broadcast), `None` without any.
    fn sum_terms(&mut self, terms: Vec<Val>) -> R<Option<Val>> {
        let mut total: Option<Val> = None;
        for t in terms {
            let r = t.rank;
            total = Some(match total {
                None => t,
                Some(a) => {
                    let rr = a.rank.zip(r).map(|(x, y)| x.max(y));
                    with_rank(self.binary("add", &a, &t, "...".into())?, rr)
                }
            });
        }
        Ok(total)
    }

    /// `nonpad_kv_seqlen` as int64 `[batch, 1, 1, 1]`.
    fn kv_lengths(&mut self, nonpad: Option<&Val>, batch: &str) -> Option<Val> {
        match nonpad {
            Some(n) => {
                let n = if n.elem == Elem::I64 {
                    n.clone()
                } else {
                    self.unary_to("cast", n, "...".into(), Elem::I64)
                };
                let spec = format!("{batch},1,1,1");
                Some(with_rank(
                    self.emit("reshape", &[&n], "", Elem::I64, spec, None),
                    Some(4),
                ))
            }
            None => None,
        }
    }

    /// Softmax over the last axis of `x` (`[b, h, q, k]`) as the reference
    /// computes it: a row whose max is -inf uses 0 in its place, a zero
    /// sum is 1, and rows whose `bias` is all -inf are 0.
    fn guarded_softmax(&mut self, x: &Val, bias: Option<&Val>) -> R<Val> {
        let elem = x.elem;
        let zero = self.scalar(elem, 0.0);
        let one = self.scalar(elem, 1.0);
        let minus_inf = self.scalar(elem, f64::NEG_INFINITY);
        let m = self.einsum("b,h,q,k => b,h,q", &[x], Some("max"), None, "...".into());
        let m = with_rank(m, Some(3));
        let none = self.binary_to("eq", &m, &minus_inf, "...".into(), Elem::Bool)?;
        let safe = with_rank(
            self.ternary("where", &none, &zero, &m, "...".into())?,
            Some(3),
        );
        let d = self.einsum(
            "b,h,q,k; b,h,q => b,h,q,k",
            &[x, &safe],
            None,
            Some("sub"),
            "...".into(),
        );
        let e = self.unary("exp", &with_rank(d, Some(4)), "...".into());
        let s = self.einsum("b,h,q,k => b,h,q", &[&e], None, None, "...".into());
        let s = with_rank(s, Some(3));
        let empty = self.binary_to("eq", &s, &zero, "...".into(), Elem::Bool)?;
        let s = with_rank(
            self.ternary("where", &empty, &one, &s, "...".into())?,
            Some(3),
        );
        let p = self.einsum(
            "b,h,q,k; b,h,q => b,h,q,k",
            &[&e, &s],
            None,
            Some("div"),
            "...".into(),
        );
        let p = with_rank(p, Some(4));
        let Some(bias) = bias else {
            return Ok(p);
        };
        let Some(r) = bias.rank.filter(|&r| r >= 1) else {
            return self.err("the attention mask's rank is not known here (not supported)");
        };
        let lay = Layout::new(&[-1], Some(r)).map_err(|m| self.error(m))?;
        let kept = lay.map(|_| Some("0".into()));
        let pinned = self.pinned(&kept);
        let bm = self.einsum(
            &format!("{} => {kept}", lay.all()),
            &[bias],
            Some("max"),
            None,
            pinned,
        );
        let bm = with_rank(bm, Some(r));
        let masked = self.binary_to("eq", &bm, &minus_inf, "...".into(), Elem::Bool)?;
        Ok(with_rank(
            self.ternary("where", &masked, &zero, &p, "...".into())?,
            Some(4),
        ))
    }
}
