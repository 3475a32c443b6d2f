//! ONNX LinearAttention (opset 27), the recurrence of the reference
//! unrolled over time: per step `t`, on the state `S [B, H_kv, d_k, d_v]`
//! (in f32, as the reference accumulates),
//!
//! - gated rules: `S *= exp(decay_t)` (per head, or per key dim);
//! - delta rules: `u = beta_t * (v_t - S^T k_t)`, else `u = v_t`;
//! - `S += k_t (x) u` (an outer product);
//! - `o_t = q_t^T S`, each query head reading the state of its key/value
//!   head (`h_q / (H_q / H_kv)`: `q` viewed as `[B, T, H_kv, G, d_k]`);
//!
//! then `output = scale * o` (`scale`, or `1 / sqrt(d_k)` when 0 or
//! absent) back in `[B, T, H_q * d_v]` and the input type, and
//! `present_state` the last `S` in `past_state`'s type (else the
//! query's).
//!
//! Unrolled rather than a closed form: the linear and gated rules have one
//! (a causally masked `Q K^T` weighted by cumulative decays), but it is
//! not the reference's arithmetic (decays as `exp` of cumulative sums
//! differences, not products) and the delta rules' needs a triangular
//! solve; the unrolled steps compute exactly what the reference does, at
//! the cost of a sequence length known at import, at most [`MAX_STEPS`].

use super::super::axes::Layout;
use super::super::elementwise::with_rank;
use super::super::shape_values::sym::Sym;
use super::super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The longest sequence unrolled at import (each step is a handful of
/// ops; a longer one would build a module too large to compile).
pub(super) const MAX_STEPS: u64 = 4096;

/// The most heads read: sizes stay far from 64 bits.
const MAX_HEADS: i64 = 1 << 20;

/// A node's settings and sizes (`batch` a spec token).
struct Lin {
    batch: String,
    steps: u64,
    kv_heads: u64,
    group: u64,
    dk: u64,
    dv: u64,
    /// `decay`'s last axis per head: 1 or `d_k`.
    decay_dim: u64,
    /// `beta`'s last axis: `H_kv` or 1.
    beta_heads: u64,
    scale: f64,
}

impl Lin {
    fn state(&self) -> String {
        format!("{},{},{},{}", self.batch, self.kv_heads, self.dk, self.dv)
    }

    fn bhm(&self) -> String {
        format!("{},{},{}", self.batch, self.kv_heads, self.dv)
    }
}

/// The inputs viewed by head, in f32.
struct Views {
    /// `[B, T, H_kv, G, d_k]`.
    q: Val,
    /// `[B, T, H_kv, d_k]`, `[B, T, H_kv, d_v]`.
    k: Val,
    v: Val,
    /// `exp(decay)`, `[B, T, H_kv, 1 or d_k]`.
    decay: Option<Val>,
    /// `[B, T, H_kv or 1]`.
    beta: Option<Val>,
}

impl Translator {
    /// ONNX LinearAttention.
    pub(super) fn linear_attention(&mut self, node: &NodeProto) -> R<()> {
        let l = self.lin_sizes(node)?;
        let io = self.input(node, 0)?.elem;
        let views = self.lin_views(node, &l)?;
        let past = self.opt_input(node, 3)?;
        let state_elem = past.as_ref().map_or(io, |p| p.elem);
        let mut s = past.map(|p| self.cast_to(&p, Elem::F32));
        let mut outs = Vec::new();
        for t in 0..l.steps {
            let next = self.lin_step(&l, &views, t, s.as_ref())?;
            outs.push(self.einsum(
                &format!("b,{t},h,g,d; b,h,d,m => b,0,h,g,m"),
                &[&views.q, &next],
                None,
                None,
                format!("{},1,{},{},{}", l.batch, l.kv_heads, l.group, l.dv),
            ));
            s = Some(next);
        }
        let Some(s) = s else {
            return self.err("a sequence of no step (empty tensors are not supported)");
        };
        let spec5 = format!(
            "{},{},{},{},{}",
            l.batch, l.steps, l.kv_heads, l.group, l.dv
        );
        let o = if let [one] = outs.as_slice() {
            one.clone()
        } else {
            let lay = Layout::new(&[1], Some(5)).map_err(|m| self.error(m))?;
            let refs: Vec<&Val> = outs.iter().collect();
            self.concat_along(&lay, &refs, spec5)
        };
        let width = l.kv_heads * l.group * l.dv;
        let o = self.emit(
            "reshape",
            &[&o],
            "",
            Elem::F32,
            format!("{},{},{width}", l.batch, l.steps),
            None,
        );
        let scale = self.scalar(Elem::F32, l.scale);
        let o = self.binary("mul", &with_rank(o, Some(3)), &scale, "...".into())?;
        let o = self.cast_to(&o, io);
        self.bind(node, 0, o);
        let s = self.cast_to(&with_rank(s, Some(4)), state_elem);
        self.bind(node, 1, s);
        Ok(())
    }

    /// One step from state `s` (`None`: zeros): the new state.
    fn lin_step(&mut self, l: &Lin, w: &Views, t: u64, s: Option<&Val>) -> R<Val> {
        let st = l.state();
        let s = match (&w.decay, s) {
            (Some(e), Some(s)) => {
                let d = if l.decay_dim == 1 { "0" } else { "d" };
                let spec = format!("b,h,d,m; b,{t},h,{d} => b,h,d,m");
                Some(self.einsum(&spec, &[s, e], None, None, st.clone()))
            }
            (_, s) => s.cloned(),
        };
        let outer = match &w.beta {
            Some(beta) => {
                let diff = match &s {
                    Some(s) => {
                        let r = self.einsum(
                            &format!("b,h,d,m; b,{t},h,d => b,h,m"),
                            &[s, &w.k],
                            None,
                            None,
                            l.bhm(),
                        );
                        let spec = format!("b,{t},h,m; b,h,m => b,h,m");
                        self.einsum(&spec, &[&w.v, &r], None, Some("sub"), l.bhm())
                    }
                    None => {
                        let spec = format!("b,{t},h,m => b,h,m");
                        self.einsum(&spec, &[&w.v], None, None, l.bhm())
                    }
                };
                let h = if l.beta_heads == 1 { "0" } else { "h" };
                let spec = format!("b,{t},{h}; b,h,m => b,h,m");
                let u = self.einsum(&spec, &[beta, &diff], None, None, l.bhm());
                let spec = format!("b,{t},h,d; b,h,m => b,h,d,m");
                self.einsum(&spec, &[&w.k, &u], None, None, st.clone())
            }
            None => {
                let spec = format!("b,{t},h,d; b,{t},h,m => b,h,d,m");
                self.einsum(&spec, &[&w.k, &w.v], None, None, st.clone())
            }
        };
        let outer = with_rank(outer, Some(4));
        Ok(match s {
            Some(s) => self.binary("add", &with_rank(s, Some(4)), &outer, st)?,
            None => outer,
        })
    }

    /// The inputs in f32, viewed by head.
    fn lin_views(&mut self, node: &NodeProto, l: &Lin) -> R<Views> {
        let (b, t, h) = (l.batch.clone(), l.steps, l.kv_heads);
        let view = |me: &mut Self, i: usize, spec: String| -> R<Option<Val>> {
            let Some(v) = me.opt_input(node, i)? else {
                return Ok(None);
            };
            let v = me.cast_to(&v, Elem::F32);
            let rank = spec.split(',').count();
            let r = me.emit("reshape", &[&v], "", Elem::F32, spec, None);
            Ok(Some(with_rank(r, Some(rank))))
        };
        let q = view(self, 0, format!("{b},{t},{h},{},{}", l.group, l.dk))?;
        let k = view(self, 1, format!("{b},{t},{h},{}", l.dk))?;
        let v = view(self, 2, format!("{b},{t},{h},{}", l.dv))?;
        let decay = view(self, 4, format!("{b},{t},{h},{}", l.decay_dim))?;
        let beta = view(self, 5, format!("{b},{t},{}", l.beta_heads))?;
        let (Some(q), Some(k), Some(v)) = (q, k, v) else {
            return self.err("query, key and value are required");
        };
        let decay = decay.map(|d| self.unary("exp", &d, "...".into()));
        Ok(Views {
            q,
            k,
            v,
            decay,
            beta,
        })
    }

    /// The attributes and sizes, every input's shape and type checked.
    fn lin_sizes(&mut self, node: &NodeProto) -> R<Lin> {
        let at = Attrs::of(node);
        let rule = at
            .string("update_rule")
            .unwrap_or_else(|| "gated_delta".into());
        let (gating, delta) = match rule.as_str() {
            "linear" => (false, false),
            "gated" => (true, false),
            "delta" => (false, true),
            "gated_delta" => (true, true),
            r => {
                return self.err(format!(
                    "update_rule '{r}' (linear, gated, delta or gated_delta)"
                ));
            }
        };
        let (Some(hq), Some(hkv)) = (at.int("q_num_heads"), at.int("kv_num_heads")) else {
            return self.err("q_num_heads and kv_num_heads are required");
        };
        if !(1..=MAX_HEADS).contains(&hq) || !(1..=MAX_HEADS).contains(&hkv) || hq % hkv != 0 {
            return self.err(format!(
                "q_num_heads {hq} must be a multiple of kv_num_heads {hkv}, both from 1 to {MAX_HEADS}"
            ));
        }
        let (hq, hkv) = (hq as u64, hkv as u64);
        let named = |i: usize| node.input.get(i).is_some_and(|n| !n.is_empty());
        for (i, what, needed, rules) in [
            (4, "decay", gating, "gated and gated_delta"),
            (5, "beta", delta, "delta and gated_delta"),
        ] {
            if named(i) != needed {
                let how = if needed { "requires" } else { "forbids" };
                return self.err(format!(
                    "update_rule '{rule}' {how} the {what} input (only {rules} take it)"
                ));
            }
        }
        self.lin_types(node)?;
        let d = self.lin_dims(node)?;
        self.lin_shapes(&d, hq, hkv, at.float("scale"))
    }

    /// Element types: T (float, float16, bfloat16) for the query, key,
    /// value, decay and beta; S (the same set) for `past_state`.
    fn lin_types(&mut self, node: &NodeProto) -> R<()> {
        let ok = |e: Elem| matches!(e, Elem::F32 | Elem::F16 | Elem::BF16);
        let q = self.input(node, 0)?;
        if !ok(q.elem) {
            return self.err(format!(
                "LinearAttention takes float, float16 or bfloat16 tensors, the query is {}",
                q.elem.mlir()
            ));
        }
        for (i, what) in [(1, "key"), (2, "value"), (4, "decay"), (5, "beta")] {
            if let Some(v) = self.opt_input(node, i)?
                && v.elem != q.elem
            {
                return self.err(format!(
                    "{what} is {}, the query {} (one element type T)",
                    v.elem.mlir(),
                    q.elem.mlir()
                ));
            }
        }
        if let Some(p) = self.opt_input(node, 3)?
            && !ok(p.elem)
        {
            return self.err(format!(
                "past_state is {} (float, float16 or bfloat16)",
                p.elem.mlir()
            ));
        }
        Ok(())
    }

    /// The dims of the inputs present (by name, so that views stay in
    /// place), each of the rank the spec gives it.
    fn lin_dims(&mut self, node: &NodeProto) -> R<Vec<Option<Vec<Sym>>>> {
        let names = ["query", "key", "value", "past_state", "decay", "beta"];
        let mut out = Vec::new();
        for (i, what) in names.iter().enumerate() {
            let Some(name) = node.input.get(i).filter(|n| !n.is_empty()).cloned() else {
                out.push(None);
                continue;
            };
            if let Some(d) = self.input_dims(node, i)?.and_then(|v| v.shape) {
                let rank = if i == 3 { 4 } else { 3 };
                if d.len() != rank {
                    return self.err(format!("{what} must have {rank} axes, it has {}", d.len()));
                }
                out.push(Some(d.iter().map(|&n| Sym::Num(n as i64)).collect()));
                continue;
            }
            let d = self.dims_of(&name).map_err(|_| {
                self.error(format!(
                    "LinearAttention needs the rank of {what}, which is not known here (not supported)"
                ))
            })?;
            let rank = if i == 3 { 4 } else { 3 };
            if d.len() != rank {
                return self.err(format!("{what} must have {rank} axes, it has {}", d.len()));
            }
            out.push(Some(d));
        }
        Ok(out)
    }

    /// The sizes, every input's dims checked against them where known:
    /// `query [B, T, H_q * d_k]`, `key [B, T, H_kv * d_k]`, `value [B, T,
    /// H_kv * d_v]`, `past_state [B, H_kv, d_k, d_v]`, `decay [B, T, H_kv
    /// or H_kv * d_k]`, `beta [B, T, H_kv or 1]`.
    fn lin_shapes(
        &mut self,
        d: &[Option<Vec<Sym>>],
        hq: u64,
        hkv: u64,
        scale: Option<f32>,
    ) -> R<Lin> {
        let names = ["query", "key", "value", "past_state", "decay", "beta"];
        let (Some(q), Some(k), Some(v)) = (&d[0], &d[1], &d[2]) else {
            return self.err("query, key and value are required");
        };
        // The batch (and the steps, past_state aside) agree where known.
        for (i, x) in d.iter().enumerate().skip(1) {
            let Some(x) = x else { continue };
            let axes = if i == 3 { 1 } else { 2 };
            for a in 0..axes {
                if let (Some(m), Some(n)) = (x[a].num(), q[a].num())
                    && m != n
                {
                    return self.err(format!("{}'s axis {a} is {m}, the query's {n}", names[i]));
                }
            }
        }
        let steps = match q[1].num() {
            Some(n) if n >= 1 && n.unsigned_abs() <= MAX_STEPS => n.unsigned_abs(),
            Some(n) if n >= 1 => {
                return self.err(format!(
                    "LinearAttention is unrolled over the sequence; its length {n} is past the limit of {MAX_STEPS} steps (not supported)"
                ));
            }
            Some(_) => return self.err("a sequence of no step (empty tensors are not supported)"),
            None => {
                return self.err(format!(
                    "LinearAttention is unrolled over the sequence, whose length must be known at import; the query's axis 1 is {} (not supported)",
                    q[1]
                ));
            }
        };
        let last = |x: &[Sym], what: &str| -> R<u64> {
            match x[2].num() {
                Some(n) if n >= 1 => Ok(n.unsigned_abs()),
                Some(n) => self.err(format!(
                    "{what}'s last dim {n} (empty tensors are not supported)"
                )),
                None => self.err(format!(
                    "{what}'s last dim must be known at import (not supported)"
                )),
            }
        };
        let ql = last(q, "query")?;
        if ql % hq != 0 {
            return self.err(format!(
                "the query's last dim {ql} is not a multiple of q_num_heads {hq}"
            ));
        }
        let dk = ql / hq;
        let kl = hkv * dk;
        if let Some(n) = k[2].num().filter(|&n| n.unsigned_abs() != kl) {
            return self.err(format!(
                "the key's last dim is {n}, expected kv_num_heads * d_k = {kl}"
            ));
        }
        let vl = last(v, "value")?;
        if vl % hkv != 0 {
            return self.err(format!(
                "the value's last dim {vl} is not a multiple of kv_num_heads {hkv}"
            ));
        }
        let dv = vl / hkv;
        let (decay_dim, beta_heads) = self.lin_gates(d, hkv, dk, dv)?;
        let batch = match &q[0] {
            Sym::Num(n) => n.to_string(),
            Sym::Dim(v) => v.clone(),
            Sym::Op(..) => self.fresh_var(),
        };
        let scale = match scale {
            Some(s) if s != 0.0 => f64::from(s),
            _ => 1.0 / (dk as f64).sqrt(),
        };
        Ok(Lin {
            batch,
            steps,
            kv_heads: hkv,
            group: hq / hkv,
            dk,
            dv,
            decay_dim,
            beta_heads,
            scale,
        })
    }

    /// `decay`'s and `beta`'s last axes per head (1 when absent), and
    /// `past_state`'s dims checked.
    fn lin_gates(&self, d: &[Option<Vec<Sym>>], hkv: u64, dk: u64, dv: u64) -> R<(u64, u64)> {
        let kl = hkv * dk;
        let last = |x: &[Sym], what: &str| -> R<u64> {
            match x[2].num() {
                Some(n) if n >= 1 => Ok(n.unsigned_abs()),
                Some(n) => self.err(format!(
                    "{what}'s last dim {n} (empty tensors are not supported)"
                )),
                None => self.err(format!(
                    "{what}'s last dim must be known at import (not supported)"
                )),
            }
        };
        let decay_dim = match &d[4] {
            None => 1,
            Some(x) => match last(x, "decay")? {
                n if n == hkv => 1,
                n if n == kl => dk,
                n => {
                    return self.err(format!(
                        "decay's last dim is {n}, expected kv_num_heads ({hkv}) or kv_num_heads * d_k ({kl})"
                    ));
                }
            },
        };
        let beta_heads = match &d[5] {
            None => 1,
            Some(x) => match last(x, "beta")? {
                n if n == hkv || n == 1 => n,
                n => {
                    return self.err(format!(
                        "beta's last dim is {n}, expected kv_num_heads ({hkv}) or 1"
                    ));
                }
            },
        };
        if let Some(p) = &d[3] {
            for (a, want) in [(1, hkv), (2, dk), (3, dv)] {
                if let Some(n) = p[a].num().filter(|&n| n.unsigned_abs() != want) {
                    return self.err(format!(
                        "past_state's axis {a} is {n}, expected {want} ([B, H_kv, d_k, d_v])"
                    ));
                }
            }
        }
        Ok((decay_dim, beta_heads))
    }
}
