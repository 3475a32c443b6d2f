//! Type mutations: dims of graph inputs, initializers and the first
//! input's rank (`onnx-dims`), element types (`onnx-elem`), and declared
//! shapes and types that contradict the nodes (`onnx-declared`).

use ocannl_onnx::proto::{ModelProto, tensor_proto::DataType, tensor_shape_proto};

use super::{count, evil, graph, tensor_of};
use crate::onnx::model_gen::value_info;
use crate::rng::Rng;

fn dim(v: Option<tensor_shape_proto::dimension::Value>) -> tensor_shape_proto::Dimension {
    tensor_shape_proto::Dimension {
        value: v,
        ..Default::default()
    }
}

fn evil_dim(rng: &mut Rng) -> tensor_shape_proto::Dimension {
    use tensor_shape_proto::dimension::Value as D;
    match rng.index(8) {
        0 => dim(Some(D::DimValue(0))),
        1 => dim(Some(D::DimValue(-1))),
        2 => dim(Some(D::DimValue(-(1 << 40)))),
        3 => dim(Some(D::DimValue(1 << 40))),
        4 => dim(Some(D::DimValue(i64::MAX))),
        5 => dim(Some(D::DimParam(
            rng.pick(&["N", "batch", "", "1", "N N", "?"]).to_string(),
        ))),
        6 => dim(None),
        _ => dim(Some(D::DimValue(1 << 20))),
    }
}

/// Dims: of graph inputs (0, negative, 2^40, symbolic, missing shapes,
/// another rank), of initializers (data no longer matching), of
/// `Constant` values.
pub fn dims(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    match rng.index(5) {
        0 | 1 if !g.input.is_empty() => {
            let k = rng.index(g.input.len());
            if let Some(t) = tensor_of(&mut g.input[k]) {
                let shape = t.shape.get_or_insert_with(Default::default);
                match rng.index(4) {
                    0 if !shape.dim.is_empty() => {
                        let j = rng.index(shape.dim.len());
                        shape.dim[j] = evil_dim(rng);
                    }
                    1 => shape.dim.push(evil_dim(rng)),
                    2 => {
                        shape.dim.pop();
                    }
                    _ => {
                        if rng.chance(0.5) {
                            t.shape = None;
                        } else {
                            let n = rng.range(5, 40) as usize;
                            shape.dim = (0..n).map(|_| evil_dim(rng)).collect();
                        }
                    }
                }
            }
        }
        2 | 3 if !g.initializer.is_empty() => {
            let k = rng.index(g.initializer.len());
            let t = &mut g.initializer[k];
            match rng.index(4) {
                0 if !t.dims.is_empty() => {
                    let j = rng.index(t.dims.len());
                    t.dims[j] = evil(rng);
                }
                1 => t.dims.push(evil(rng)),
                2 => t.dims.clear(),
                _ => {
                    // Consistent data, hostile meaning: shapes and axes.
                    if t.data_type == Some(DataType::Int64 as i32) {
                        let data: Vec<i64> = (0..count(&t.dims).clamp(1, 16))
                            .map(|_| evil(rng))
                            .collect();
                        t.dims = vec![data.len() as i64];
                        t.raw_data = None;
                        t.int64_data = data;
                    } else {
                        t.dims = vec![0];
                        t.float_data.clear();
                        t.raw_data = None;
                    }
                }
            }
        }
        _ => {
            // The first input a new rank (what the nodes expect breaks).
            if let Some(v) = g.input.first_mut()
                && let Some(t) = tensor_of(v)
            {
                let n = rng.range(0, 6);
                t.shape = Some(ocannl_onnx::proto::TensorShapeProto {
                    dim: (0..n)
                        .map(|_| {
                            dim(Some(tensor_shape_proto::dimension::Value::DimValue(
                                rng.range(1, 4) as i64,
                            )))
                        })
                        .collect(),
                });
            }
        }
    }
}

/// Element types: every `TensorProto.DataType` (and out-of-range codes) on
/// inputs, outputs, initializers and `Cast`-free graphs.
pub fn elems(rng: &mut Rng, m: &mut ModelProto) {
    let code = if rng.chance(0.9) {
        rng.range(0, 26) as i32
    } else {
        *rng.pick(&[-1, 27, 99, i32::MAX, i32::MIN])
    };
    let g = graph(m);
    match rng.index(4) {
        0 if !g.input.is_empty() => {
            let k = rng.index(g.input.len());
            if let Some(t) = tensor_of(&mut g.input[k]) {
                t.elem_type = Some(code);
            }
        }
        1 if !g.output.is_empty() => {
            let k = rng.index(g.output.len());
            if let Some(t) = tensor_of(&mut g.output[k]) {
                t.elem_type = Some(code);
            }
        }
        2 if !g.initializer.is_empty() => {
            // The type changes, the data stays where it was (or moves to
            // raw bytes of a matching size).
            let k = rng.index(g.initializer.len());
            let t = &mut g.initializer[k];
            t.data_type = Some(code);
            if rng.chance(0.5) {
                let n = count(&t.dims).max(0);
                let width = match DataType::try_from(code) {
                    Ok(DataType::Double | DataType::Int64 | DataType::Uint64) => 8,
                    Ok(DataType::Float16 | DataType::Bfloat16 | DataType::Int16) => 2,
                    Ok(DataType::Uint8 | DataType::Int8 | DataType::Bool) => 1,
                    _ => 4,
                };
                t.float_data.clear();
                t.int64_data.clear();
                t.int32_data.clear();
                t.raw_data = Some(vec![0x3f; (n.min(1 << 16) as usize) * width]);
            }
        }
        _ => {
            // Every input and output of one type (a whole integer or
            // double model).
            let code = *rng.pick(&[
                DataType::Double as i32,
                DataType::Int32 as i32,
                DataType::Int64 as i32,
                DataType::Float16 as i32,
                DataType::Bool as i32,
                code,
            ]);
            for v in g.input.iter_mut().chain(g.output.iter_mut()) {
                if let Some(t) = tensor_of(v) {
                    t.elem_type = Some(code);
                }
            }
        }
    }
}

/// Declared shapes and types that contradict what the nodes compute.
pub fn declared(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    let produced: Vec<String> = g.node.iter().flat_map(|n| n.output.clone()).collect();
    if produced.is_empty() {
        return;
    }
    let name = rng.pick(&produced).clone();
    let r = rng.range(0, 5) as usize;
    let dims: Vec<i64> = (0..r).map(|_| rng.range(1, 9) as i64).collect();
    let elem = if rng.chance(0.8) {
        DataType::Float as i32
    } else {
        rng.range(1, 16) as i32
    };
    let v = value_info(&name, elem, Some(&dims));
    if rng.chance(0.5) {
        if let Some(o) = g
            .output
            .iter_mut()
            .find(|o| o.name.as_deref() == Some(&name))
        {
            *o = v;
        } else if let Some(o) = g.output.first_mut() {
            let name = o.name.clone();
            *o = value_info("", elem, Some(&dims));
            o.name = name;
        }
    } else {
        g.value_info.retain(|x| x.name.as_deref() != Some(&name));
        g.value_info.push(v);
    }
}
