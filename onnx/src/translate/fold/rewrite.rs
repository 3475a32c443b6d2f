//! The folded product: its weights scaled along the output channels, its
//! bias shifted, rounded once to the weights' element type; the node that
//! reads them (and, for a `MatMul`, which has no bias, an `Add` of it).

use super::{Affine, Kind, Names, Product};
use crate::proto::attribute_proto::AttributeType as K;
use crate::proto::tensor_proto::DataType as D;
use crate::proto::{AttributeProto, NodeProto};
use crate::tensor::Tensor;

/// The nodes replacing `node` (producing `out`) and the constants they
/// read, for the chain `affine` after it; `None` when a new weight or
/// bias is not finite in its type.
#[allow(clippy::type_complexity)]
pub(super) fn rewrite(
    node: &NodeProto,
    p: &Product<'_>,
    affine: &Affine,
    out: &str,
    names: &mut Names,
) -> Option<(Vec<NodeProto>, Vec<(String, Tensor)>)> {
    // Only shifts: the weights stay (a MatMul then gains nothing).
    let scaled = affine.scale.iter().any(|&s| s != 1.0);
    if !scaled && p.kind == Kind::MatMul {
        return None;
    }
    let (bias_dims, bias) = shifted_bias(p, affine)?;
    let bias = tensor(p.data_type, bias_dims, &bias)?;
    let mut product = node.clone();
    let mut consts = Vec::with_capacity(2);
    if scaled {
        let weight = scaled_weight(p, &affine.scale)?;
        let w_name = names.fresh(&format!("{}.folded", node.input[1]));
        product.input[1].clone_from(&w_name);
        consts.push((w_name, weight));
    }
    let b_name = names.fresh(&format!("{}.folded_bias", node.output[0]));
    product.output[0] = out.to_owned();
    let mut nodes = Vec::with_capacity(2);
    match p.kind {
        Kind::MatMul if affine.shift.iter().all(|&t| t == 0.0) => nodes.push(product),
        Kind::MatMul => {
            let unbiased = names.fresh(&format!("{out}.unbiased"));
            product.output[0].clone_from(&unbiased);
            let add = NodeProto {
                name: node.name.clone(),
                op_type: Some("Add".into()),
                input: vec![unbiased, b_name.clone()],
                output: vec![out.to_owned()],
                ..Default::default()
            };
            nodes.extend([product, add]);
            consts.push((b_name, bias));
        }
        Kind::Conv | Kind::ConvTranspose { .. } | Kind::Gemm { .. } => {
            product.input.truncate(2);
            product.input.push(b_name.clone());
            if matches!(p.kind, Kind::Gemm { .. }) {
                set_beta_one(&mut product);
            }
            nodes.push(product);
            consts.push((b_name, bias));
        }
    }
    Some((nodes, consts))
}

/// `W` with each cell scaled by its output channel's `s` (in `f64`),
/// rounded to `W`'s element type (`FLOAT` or `DOUBLE`) cell by cell: a
/// model's weights are its largest tensors, and two `f64` copies of
/// ResNet-50's were 400 MB of fresh pages. `None` when a cell is not
/// finite in its type.
fn scaled_weight(p: &Product<'_>, s: &[f64]) -> Option<Tensor> {
    let w = &p.weight;
    let width = match D::try_from(w.data_type).ok()? {
        D::Float => 4,
        D::Double => 8,
        _ => return None,
    };
    let len = w.bytes.len() / width;
    let dims: Vec<usize> = w.dims.iter().map(|&d| d as usize).collect();
    let channel: Box<dyn Fn(usize) -> usize> = match p.kind {
        Kind::Conv => {
            let per = len / dims[0];
            Box::new(move |i| i / per)
        }
        Kind::ConvTranspose { group } => {
            // `W[c, j, k...]` feeds channel `g * M/group + j`, `g` the
            // group of input channel `c`.
            let kernel: usize = dims[2..].iter().product();
            let (mg, cg) = (dims[1], dims[0] / group);
            Box::new(move |i| {
                let (c, j) = (i / (mg * kernel), i / kernel % mg);
                c / cg * mg + j
            })
        }
        Kind::Gemm { trans_b: true, .. } => {
            let k = dims[1];
            Box::new(move |i| i / k)
        }
        Kind::Gemm { trans_b: false, .. } | Kind::MatMul => {
            let n = dims[1];
            Box::new(move |i| i % n)
        }
    };
    let mut bytes = Vec::with_capacity(w.bytes.len());
    for (i, cell) in w.bytes.chunks_exact(width).enumerate() {
        if width == 4 {
            let v = f32::from_le_bytes(cell.try_into().ok()?);
            let r = (f64::from(v) * s[channel(i)]) as f32;
            if !r.is_finite() {
                return None;
            }
            bytes.extend(r.to_le_bytes());
        } else {
            let r = f64::from_le_bytes(cell.try_into().ok()?) * s[channel(i)];
            if !r.is_finite() {
                return None;
            }
            bytes.extend(r.to_le_bytes());
        }
    }
    Some(Tensor {
        data_type: w.data_type,
        dims: w.dims.clone(),
        bytes,
    })
}

/// The new bias and its dims: `B * s + t` for a convolution (`B` 0 when
/// absent), `beta * C * s + t` for a Gemm (`C` broadcast to its rows and
/// the `N` columns), `t` for a MatMul.
fn shifted_bias(p: &Product<'_>, a: &Affine) -> Option<(Vec<u64>, Vec<f64>)> {
    let n = p.channels;
    let Some(b) = &p.bias else {
        return Some((vec![n as u64], a.shift.clone()));
    };
    let v = b.to_f64()?;
    match p.kind {
        Kind::Conv | Kind::ConvTranspose { .. } => {
            let out = (0..n).map(|m| v[m] * a.scale[m] + a.shift[m]).collect();
            Some((vec![n as u64], out))
        }
        Kind::Gemm { beta, .. } => {
            let last = b.dims.last().map_or(1, |&d| d as usize);
            let rows = if b.dims.len() == 2 { b.dims[0] } else { 1 };
            let mut out = Vec::with_capacity(rows as usize * n);
            for r in 0..rows as usize {
                for m in 0..n {
                    let c = v[r * last + if last == 1 { 0 } else { m }];
                    out.push(beta * c * a.scale[m] + a.shift[m]);
                }
            }
            let dims = if b.dims.len() == 2 {
                vec![rows, n as u64]
            } else {
                vec![n as u64]
            };
            Some((dims, out))
        }
        Kind::MatMul => None,
    }
}

/// Gemm's `beta` as 1: the new `C` holds it.
fn set_beta_one(node: &mut NodeProto) {
    node.attribute.retain(|a| a.name.as_deref() != Some("beta"));
    node.attribute.push(AttributeProto {
        name: Some("beta".into()),
        r#type: Some(K::Float as i32),
        f: Some(1.0),
        ..Default::default()
    });
}

/// `values` rounded to `data_type` (`FLOAT` or `DOUBLE`), when every one
/// is finite there.
fn tensor(data_type: i32, dims: Vec<u64>, values: &[f64]) -> Option<Tensor> {
    let mut bytes = Vec::with_capacity(values.len() * 8);
    for &v in values {
        if data_type == D::Float as i32 {
            let r = v as f32;
            if !r.is_finite() {
                return None;
            }
            bytes.extend(r.to_le_bytes());
        } else {
            if !v.is_finite() {
                return None;
            }
            bytes.extend(v.to_le_bytes());
        }
    }
    Some(Tensor {
        data_type,
        dims,
        bytes,
    })
}
