//! ONNX's stateful sequence ops of opset 27 (onnx.ai/onnx/operators;
//! the reference implementations `onnx/reference/ops/op_linear_attention.py`
//! and `op_causal_conv_with_state.py` are followed step by step):
//!
//! - `CausalConvWithState` (`conv`): the carried state (or zeros) in front
//!   of the input along time, a depthwise valid convolution over it (one
//!   einsum), the bias, SiLU, and the last `k - 1` steps as the new state.
//! - `LinearAttention` (`linear`): the recurrence over time, unrolled at
//!   import (the sequence length must be known, at most
//!   [`linear::MAX_STEPS`] steps), exactly the reference's order of
//!   operations; see that module for why not a closed form.

mod conv;
mod linear;

use super::elementwise::with_rank;
use super::{R, Translator, Val};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    Some(match op {
        "CausalConvWithState" => &[("activation", K::String)],
        "LinearAttention" => &[
            ("update_rule", K::String),
            ("scale", K::Float),
            ("q_num_heads", K::Int),
            ("kv_num_heads", K::Int),
            ("chunk_size", K::Int),
        ],
        _ => return None,
    })
}

impl Translator {
    /// Translates `node` if it is one of this module's ops.
    pub(super) fn stateful(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        match op {
            "CausalConvWithState" => self.causal_conv(node)?,
            "LinearAttention" => self.linear_attention(node)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `v` cast to `elem` (itself when it has that type already).
    fn cast_to(&mut self, v: &Val, elem: Elem) -> Val {
        if v.elem == elem {
            return v.clone();
        }
        let r = v.rank;
        with_rank(self.unary_to("cast", v, "...".into(), elem), r)
    }

    /// Input `i` with its dims when known, else those the file records
    /// for it (checked against the solved ones, see `bind`).
    fn input_dims(&mut self, node: &NodeProto, i: usize) -> R<Option<Val>> {
        let Some(mut v) = self.opt_input(node, i)? else {
            return Ok(None);
        };
        if v.shape.is_none()
            && let Some(d) = node.input.get(i).and_then(|n| self.declared.get(n))
            && v.rank.is_none_or(|r| r == d.len())
        {
            v.rank = Some(d.len());
            v.shape = Some(d.clone());
        }
        Ok(Some(v))
    }

    /// Input `i`'s rank, where known, must be `rank` (`what` names it).
    fn check_rank(&self, v: &Val, rank: usize, what: &str) -> R<()> {
        let r = v.shape.as_ref().map(Vec::len).or(v.rank);
        match r {
            Some(r) if r != rank => self.err(format!("{what} must have {rank} axes, it has {r}")),
            _ => Ok(()),
        }
    }
}

/// A spec axis for a size that may not be known.
fn token(n: Option<u64>, var: impl FnOnce() -> String) -> String {
    n.map_or_else(var, |n| n.to_string())
}
