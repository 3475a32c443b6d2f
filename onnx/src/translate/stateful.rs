//! ONNX the stateful sequence ops of opset 26: LinearAttention and CausalConvWithState (onnx.ai/onnx/operators).

use super::{R, Translator};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    let _ = op;
    None
}

impl Translator {
    /// Translates `node` if it is one of this module's ops.
    pub(super) fn stateful(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        let _ = (node, op);
        Ok(false)
    }
}
