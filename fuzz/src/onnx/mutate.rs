//! Hostile ONNX models: a well-formed model mutated in its structure
//! (attributes, dims, element types, wiring, declared shapes, opsets,
//! tensor data, sizes) or in its bytes (truncated, flipped, spliced).
//!
//! The shared helpers and the byte-level damage are here; the structural
//! mutations of each kind are in a submodule: `attributes`, `types`
//! (dims, element types, declared shapes), `topology` (wiring),
//! `integers`, `model` (opsets, tensor data, size).

mod attributes;
mod integers;
mod model;
mod topology;
mod types;

pub use attributes::attrs;
pub use integers::ints;
pub use model::{big, data, opsets};
pub use topology::wiring;
pub use types::{declared, dims, elems};

use ocannl_onnx::proto::{ModelProto, ValueInfoProto, type_proto};
use prost::Message as _;

use crate::rng::Rng;

/// Integers that break assumptions: huge, negative, at the edges.
pub const EVIL_INTS: &[i64] = &[
    0,
    -1,
    -2,
    1,
    2,
    3,
    7,
    -7,
    1 << 31,
    (1 << 31) - 1,
    -(1 << 31),
    1 << 32,
    1 << 40,
    -(1 << 40),
    1 << 62,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
];

/// The cell count of `dims`, saturated (mutated dims overflow).
fn count(dims: &[i64]) -> i64 {
    dims.iter()
        .try_fold(1i64, |a, &d| a.checked_mul(d))
        .unwrap_or(i64::MAX)
}

fn evil(rng: &mut Rng) -> i64 {
    *rng.pick(EVIL_INTS)
}

fn graph(m: &mut ModelProto) -> &mut ocannl_onnx::proto::GraphProto {
    m.graph.get_or_insert_with(Default::default)
}

fn random_node(rng: &mut Rng, m: &mut ModelProto) -> Option<usize> {
    let n = graph(m).node.len();
    (n > 0).then(|| rng.index(n))
}

fn tensor_of(v: &mut ValueInfoProto) -> Option<&mut type_proto::Tensor> {
    match v.r#type.as_mut()?.value.as_mut()? {
        type_proto::Value::TensorType(t) => Some(t),
        _ => None,
    }
}

/// Byte-level damage to an encoded model: truncation, bit flips, splices
/// from another model, inserted or duplicated ranges, varints made huge.
pub fn bytes(rng: &mut Rng, b: &mut Vec<u8>, donor: &[u8]) {
    for _ in 0..rng.range(1, 3) {
        if b.is_empty() {
            b.extend_from_slice(donor);
        }
        let len = b.len();
        match rng.index(7) {
            0 => b.truncate(rng.index(len)),
            1 => {
                for _ in 0..rng.range(1, 8) {
                    let i = rng.index(len);
                    b[i] ^= 1 << rng.index(8);
                }
            }
            2 => {
                let i = rng.index(len);
                b[i] = *rng.pick(&[0, 0xff, 0x80, 0x7f, 0x0a, 0x12, 0x1a]);
            }
            3 if !donor.is_empty() => {
                // Splice: a donor's tail after our head, or a donor range
                // inserted.
                let at = rng.index(len);
                let from = rng.index(donor.len());
                let to = from + rng.index(donor.len() - from + 1);
                b.splice(at..at, donor[from..to].iter().copied());
            }
            4 => {
                let from = rng.index(len);
                let to = (from + rng.range(1, 64) as usize).min(len);
                let chunk = b[from..to].to_vec();
                let at = rng.index(len);
                b.splice(at..at, chunk);
            }
            5 => {
                // A length or varint made huge: 0xff bytes at a random spot.
                let i = rng.index(len);
                let n = rng.range(1, 10) as usize;
                b.splice(i..i, std::iter::repeat_n(0xff, n));
            }
            _ => {
                let from = rng.index(len);
                let to = (from + rng.range(1, 32) as usize).min(len);
                b.drain(from..to);
            }
        }
    }
}

/// Encodes a model.
pub fn encode(m: &ModelProto) -> Vec<u8> {
    m.encode_to_vec()
}
