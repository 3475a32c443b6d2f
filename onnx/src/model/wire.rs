//! A bound on the memory a model takes once decoded, read off the protobuf
//! wire format before decoding it.
//!
//! Decoding allocates far more than the file holds where the file is
//! dense: an empty `NodeProto` is 2 bytes on the wire and a few hundred in
//! memory, a packed `int64` of 1 byte is 8. A 40 MB file of empty nodes
//! would decode to gigabytes and abort the process on a failed allocation.
//! [`decoded_size`] walks the messages the importer decodes (the model, its
//! graph, nodes, attributes, tensors, value infos and their types; any
//! other field counts as its bytes), adding each message's in-memory size
//! and each repeated element's, without allocating.

use std::mem::size_of;

use crate::proto::{
    AttributeProto, GraphProto, NodeProto, TensorProto, TensorShapeProto, TypeProto,
    ValueInfoProto, tensor_shape_proto, type_proto,
};

/// Nesting deeper than this is refused (prost's own decoding limit is 100).
const MAX_DEPTH: u32 = 100;

/// The messages whose fields the walk knows.
#[derive(Clone, Copy)]
enum Msg {
    Model,
    Graph,
    Node,
    Attribute,
    Tensor,
    ValueInfo,
    Type,
    TensorType,
    Shape,
    Dim,
}

/// What a length-delimited field holds.
enum Field {
    /// A message (its in-memory size is added, then its fields).
    Message(Msg, usize),
    /// A string or bytes: its length plus a `String`'s header when repeated.
    Bytes { repeated: bool },
    /// Packed numbers, each taking `usize` bytes decoded; `varint`: one per
    /// byte with the top bit clear, else one per `wire` bytes.
    Packed {
        decoded: usize,
        varint: bool,
        wire: usize,
    },
}

fn field(msg: Msg, number: u64) -> Field {
    use Field::{Bytes, Message, Packed};
    let packed_varint = |decoded| Packed {
        decoded,
        varint: true,
        wire: 1,
    };
    match (msg, number) {
        (Msg::Model, 7) => Message(Msg::Graph, size_of::<GraphProto>()),
        (Msg::Graph, 1) => Message(Msg::Node, size_of::<NodeProto>()),
        (Msg::Graph, 5) => Message(Msg::Tensor, size_of::<TensorProto>()),
        (Msg::Graph, 11..=13) => Message(Msg::ValueInfo, size_of::<ValueInfoProto>()),
        (Msg::Node, 1 | 2) => Bytes { repeated: true },
        (Msg::Node, 5) => Message(Msg::Attribute, size_of::<AttributeProto>()),
        (Msg::Attribute, 5 | 10) => Message(Msg::Tensor, size_of::<TensorProto>()),
        (Msg::Attribute, 6 | 11) => Message(Msg::Graph, size_of::<GraphProto>()),
        (Msg::Attribute, 7) => Packed {
            decoded: 4,
            varint: false,
            wire: 4,
        },
        (Msg::Attribute, 8) => packed_varint(8),
        (Msg::Attribute, 9) | (Msg::Tensor, 6) => Bytes { repeated: true },
        (Msg::Tensor, 1 | 7 | 11) => packed_varint(8),
        (Msg::Tensor, 5) => packed_varint(4),
        (Msg::Tensor, 4) => Packed {
            decoded: 4,
            varint: false,
            wire: 4,
        },
        (Msg::Tensor, 10) => Packed {
            decoded: 8,
            varint: false,
            wire: 8,
        },
        (Msg::ValueInfo, 2) => Message(Msg::Type, size_of::<TypeProto>()),
        (Msg::Type, 1) => Message(Msg::TensorType, size_of::<type_proto::Tensor>()),
        (Msg::TensorType, 2) => Message(Msg::Shape, size_of::<TensorShapeProto>()),
        (Msg::Shape, 1) => Message(Msg::Dim, size_of::<tensor_shape_proto::Dimension>()),
        _ => Bytes { repeated: false },
    }
}

/// The decoded size of a repeated numeric field's unpacked element.
fn unpacked(msg: Msg, number: u64) -> usize {
    match (msg, number) {
        (Msg::Attribute, 8) | (Msg::Tensor, 1 | 7 | 10 | 11) => 8,
        (Msg::Attribute, 7) | (Msg::Tensor, 4 | 5) => 4,
        _ => 0,
    }
}

fn varint(buf: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*at).ok_or("truncated varint")?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("a varint longer than 10 bytes".into())
}

/// The bytes `bytes` (a `ModelProto`) take once decoded, roughly (each
/// message's struct, each repeated element, each string's and buffer's
/// contents), or why the wire format is malformed.
///
/// # Errors
///
/// A truncated or malformed field, or nesting past 100 messages.
pub fn decoded_size(bytes: &[u8]) -> Result<u64, String> {
    walk(bytes, Msg::Model, 0)
}

fn walk(buf: &[u8], msg: Msg, depth: u32) -> Result<u64, String> {
    if depth > MAX_DEPTH {
        return Err(format!("messages nested more than {MAX_DEPTH} deep"));
    }
    let mut total = 0u64;
    let mut at = 0;
    while at < buf.len() {
        let key = varint(buf, &mut at)?;
        let number = key >> 3;
        match key & 7 {
            0 => {
                varint(buf, &mut at)?;
                total += unpacked(msg, number) as u64;
            }
            1 | 5 => {
                at += if key & 7 == 1 { 8 } else { 4 };
                total += unpacked(msg, number) as u64;
            }
            2 => {
                let len = usize::try_from(varint(buf, &mut at)?).map_err(|_| "length overflow")?;
                let end = at
                    .checked_add(len)
                    .filter(|&e| e <= buf.len())
                    .ok_or("a length past the end of the data")?;
                let body = &buf[at..end];
                total += match field(msg, number) {
                    Field::Message(kind, size) => size as u64 + walk(body, kind, depth + 1)?,
                    Field::Bytes { repeated } => len as u64 + if repeated { 24 } else { 0 },
                    Field::Packed {
                        decoded,
                        varint: true,
                        ..
                    } => (body.iter().filter(|b| *b & 0x80 == 0).count() * decoded) as u64,
                    Field::Packed { decoded, wire, .. } => (len / wire * decoded) as u64,
                };
                at = end;
            }
            // Groups (deprecated): no message the importer reads has one.
            w => return Err(format!("wire type {w} in field {number}")),
        }
    }
    if at > buf.len() {
        return Err("a field past the end of the data".into());
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message as _;

    use crate::proto::ModelProto;

    #[test]
    fn empty_nodes_count_at_their_decoded_size() {
        let model = ModelProto {
            graph: Some(GraphProto {
                node: vec![NodeProto::default(); 1000],
                ..Default::default()
            }),
            ..Default::default()
        };
        let bytes = model.encode_to_vec();
        let size = decoded_size(&bytes).unwrap();
        assert!(size >= 1000 * size_of::<NodeProto>() as u64, "{size}");
        assert!(bytes.len() < 3000);
    }

    #[test]
    fn packed_integers_count_eight_bytes_each() {
        let t = TensorProto {
            dims: vec![1000],
            int64_data: vec![1; 1000],
            ..Default::default()
        };
        let model = ModelProto {
            graph: Some(GraphProto {
                initializer: vec![t],
                ..Default::default()
            }),
            ..Default::default()
        };
        let size = decoded_size(&model.encode_to_vec()).unwrap();
        assert!(size >= 8_000, "{size}");
    }

    #[test]
    fn malformed_wire_data_is_an_error() {
        assert!(decoded_size(&[0x3a, 0x05, 0x01]).is_err());
        assert!(decoded_size(&[0x0b]).is_err());
        assert!(decoded_size(&[0xff; 12]).is_err());
    }
}
