//! Recurrent layers: ONNX `RNN`, `GRU` and `LSTM`, unrolled over a sequence
//! whose length is known at import (onnx.ai/onnx/operators).

use super::{R, Translator};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    #[allow(clippy::match_single_binding)]
    match op {
        _ => None,
    }
}

impl Translator {
    /// Translates `node` when its op is one of this module's; `false`
    /// otherwise.
    pub(super) fn recurrent(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        let _ = node;
        #[allow(clippy::match_single_binding)]
        match op {
            _ => Ok(false),
        }
    }
}
