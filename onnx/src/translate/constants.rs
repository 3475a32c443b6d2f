//! Constants: ONNX Constant (data kept for the ops that read it, written
//! on first use) and ConstantOfShape.

use super::axes::MAX_AXES;
use super::{Attrs, R, Translator};
use crate::proto::NodeProto;
use crate::tensor::{Elem, Tensor};

impl Translator {
    /// ONNX Constant: its tensor, by the output's name.
    pub(super) fn constant_node(&mut self, node: &NodeProto) -> R<()> {
        let t = constant_value(node).map_err(|m| self.error(m))?;
        if let Some(name) = node.output.first() {
            self.consts.insert(name.clone(), t);
        }
        Ok(())
    }

    /// ONNX ConstantOfShape, to a constant or computed shape (a computed
    /// dim is its dimension variable, see `shape_values`).
    pub(super) fn constant_of_shape(&mut self, node: &NodeProto) -> R<()> {
        use super::shape_values::sym::Sym;
        let a = Attrs::of(node);
        let dims = self.shape_arg(node, 0)?.unwrap_or_default();
        let (elem, v) = match a.tensor("value") {
            Some(t) => {
                let t = Tensor::decode(t).map_err(|m| self.error(m))?;
                let e = Elem::of_onnx(t.data_type).map_err(|m| self.error(m))?;
                if t.len() != 1 {
                    return self.err(format!(
                        "'value' must hold one element, it holds {}",
                        t.len()
                    ));
                }
                (e, t.scalar_attr(e))
            }
            None => (Elem::F32, Elem::F32.scalar_attr(0.0)),
        };
        let shown: Vec<String> = dims.iter().map(ToString::to_string).collect();
        let shown = format!("[{}]", shown.join(", "));
        if dims.len() as u64 > MAX_AXES {
            return self.err(format!(
                "ConstantOfShape to {} axes, more than {MAX_AXES}",
                dims.len()
            ));
        }
        let mut axes = Vec::with_capacity(dims.len());
        let mut known = Vec::with_capacity(dims.len());
        for d in &dims {
            match d {
                Sym::Num(0) => {
                    axes.push("0".into());
                    known.push(0);
                }
                Sym::Num(n) if *n < 0 => {
                    return self.err(format!(
                        "ConstantOfShape to {shown}: sizes must not be negative"
                    ));
                }
                Sym::Num(n) => {
                    axes.push(n.to_string());
                    known.push(*n as u64);
                }
                Sym::Dim(v) => axes.push(v.clone()),
                Sym::Op(..) => {
                    return self.err(format!(
                        "ConstantOfShape to {shown}: a computed size that is not a dimension is not supported"
                    ));
                }
            }
        }
        let out = if known.len() == dims.len() {
            self.fill_attr(elem, &known, &v)
        } else {
            let v = self.emit(
                "constant",
                &[],
                &format!("value = {v}"),
                elem,
                axes.join(","),
                None,
            );
            super::elementwise::with_rank(v, Some(dims.len()))
        };
        self.bind(node, 0, out);
        Ok(())
    }
}

/// A Constant node's tensor (`value`, `value_float(s)`, `value_int(s)`).
pub(super) fn constant_value(node: &NodeProto) -> Result<Tensor, String> {
    let a = Attrs::of(node);
    Ok(if let Some(t) = a.tensor("value") {
        Tensor::decode(t)?
    } else if let Some(f) = a.float("value_float") {
        float_tensor(&[], &[f])
    } else if let Some(fs) = a.floats("value_floats") {
        float_tensor(&[fs.len() as u64], &fs)
    } else if let Some(i) = a.int("value_int") {
        int_tensor(&[], &[i])
    } else if let Some(is) = a.ints("value_ints") {
        int_tensor(&[is.len() as u64], &is)
    } else {
        return Err("Constant needs a value".into());
    })
}

fn float_tensor(dims: &[u64], v: &[f32]) -> Tensor {
    Tensor {
        data_type: crate::proto::tensor_proto::DataType::Float as i32,
        dims: dims.to_vec(),
        bytes: v.iter().flat_map(|f| f.to_le_bytes()).collect(),
    }
}

fn int_tensor(dims: &[u64], v: &[i64]) -> Tensor {
    Tensor {
        data_type: crate::proto::tensor_proto::DataType::Int64 as i32,
        dims: dims.to_vec(),
        bytes: v.iter().flat_map(|f| f.to_le_bytes()).collect(),
    }
}
