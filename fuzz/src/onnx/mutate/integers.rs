//! Integer mutations (`onnx-ints`): one to three of the integers a
//! well-formed model's meaning hangs on replaced by an edge value.

use ocannl_onnx::proto::{ModelProto, tensor_proto::DataType, tensor_shape_proto, type_proto};

use super::{count, evil, graph, tensor_of};
use crate::rng::Rng;

/// Integer parameters: one to three of the integers a well-formed model's
/// meaning hangs on (integer attributes such as kernel_shape, pads,
/// strides, dilations, group, axis, perm, split, num_outputs; the data of
/// integer initializers: Reshape and ConstantOfShape shapes, axes, split
/// sizes, Gather indices; graph input dims) replaced by an edge value.
pub fn ints(rng: &mut Rng, m: &mut ModelProto) {
    use tensor_shape_proto::dimension::Value as D;
    let g = graph(m);
    // Every integer slot, as (kind, index, position).
    let mut slots: Vec<(u8, usize, usize, usize)> = Vec::new();
    for (n, node) in g.node.iter().enumerate() {
        for (a, attr) in node.attribute.iter().enumerate() {
            if attr.i.is_some() {
                slots.push((0, n, a, usize::MAX));
            }
            for k in 0..attr.ints.len() {
                slots.push((0, n, a, k));
            }
        }
    }
    for (t, init) in g.initializer.iter().enumerate() {
        let ty = init.data_type.unwrap_or(0);
        if ty == DataType::Int64 as i32 || ty == DataType::Int32 as i32 {
            let n = count(&init.dims).clamp(0, 64) as usize;
            for k in 0..n {
                slots.push((1, t, 0, k));
            }
        }
    }
    for (i, v) in g.input.iter().enumerate() {
        if let Some(type_proto::Value::TensorType(t)) =
            v.r#type.as_ref().and_then(|t| t.value.as_ref())
            && let Some(s) = &t.shape
        {
            for k in 0..s.dim.len() {
                slots.push((2, i, 0, k));
            }
        }
    }
    if slots.is_empty() {
        return;
    }
    // Each kind of slot (attributes, initializer data, input dims) as
    // likely as the others, however many of each there are.
    let kinds: Vec<u8> = (0..3u8)
        .filter(|k| slots.iter().any(|s| s.0 == *k))
        .collect();
    for _ in 0..rng.range(1, 3) {
        let kind = *rng.pick(&kinds);
        let of_kind: Vec<_> = slots.iter().filter(|s| s.0 == kind).collect();
        let (kind, a, b, k) = **rng.pick(&of_kind);
        let v = if rng.chance(0.8) {
            evil(rng)
        } else {
            // Just past a plausible range: rank-sized, small negatives.
            rng.range(0, 12) as i64 - 6
        };
        match kind {
            0 => {
                let attr = &mut g.node[a].attribute[b];
                if k == usize::MAX {
                    attr.i = Some(v);
                } else if let Some(x) = attr.ints.get_mut(k) {
                    *x = v;
                }
            }
            1 => {
                let init = &mut g.initializer[a];
                let is64 = init.data_type == Some(DataType::Int64 as i32);
                if let Some(raw) = &mut init.raw_data {
                    let w = if is64 { 8 } else { 4 };
                    if raw.len() >= (k + 1) * w {
                        let bytes = if is64 {
                            v.to_le_bytes().to_vec()
                        } else {
                            (v as i32).to_le_bytes().to_vec()
                        };
                        raw[k * w..(k + 1) * w].copy_from_slice(&bytes);
                    }
                } else if is64 {
                    if let Some(x) = init.int64_data.get_mut(k) {
                        *x = v;
                    }
                } else if let Some(x) = init.int32_data.get_mut(k) {
                    *x = v as i32;
                }
            }
            _ => {
                if let Some(t) = tensor_of(&mut g.input[a])
                    && let Some(d) = t.shape.as_mut().and_then(|s| s.dim.get_mut(k))
                {
                    d.value = Some(D::DimValue(v));
                }
            }
        }
    }
}
