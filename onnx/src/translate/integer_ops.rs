//! ONNX the remaining ops of ONNX's operator list that compose from the
//! dialect's ops (onnx.ai/onnx/operators): BitCast between integer types
//! of one width, the integer products (MatMulInteger, ConvInteger,
//! QLinearConv, QLinearMatMul), Det, MaxUnpool and MelWeightMatrix.

mod det;
mod mel;
mod quant;
mod unpool;

use super::{R, Translator, Val};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    Some(match op {
        "BitCast" => &[("to", K::Int)],
        "MelWeightMatrix" => &[("output_datatype", K::Int)],
        "MatMulInteger" | "QLinearMatMul" | "Det" => &[],
        "MaxUnpool" => &[
            ("kernel_shape", K::Ints),
            ("pads", K::Ints),
            ("strides", K::Ints),
        ],
        "ConvInteger" | "QLinearConv" => &[
            ("auto_pad", K::String),
            ("dilations", K::Ints),
            ("group", K::Int),
            ("kernel_shape", K::Ints),
            ("pads", K::Ints),
            ("strides", K::Ints),
        ],
        _ => return None,
    })
}

/// The width in bits of an element type (`i1`: 8, ONNX's bool is a byte).
fn width(e: Elem) -> u32 {
    match e {
        Elem::I8 | Elem::U8 | Elem::Bool => 8,
        Elem::I16 | Elem::U16 | Elem::F16 | Elem::BF16 => 16,
        Elem::I32 | Elem::U32 | Elem::F32 => 32,
        Elem::I64 | Elem::U64 | Elem::F64 => 64,
    }
}

impl Translator {
    /// Translates `node` if it is one of this module's ops.
    pub(super) fn integer_ops(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        match op {
            "BitCast" => self.bitcast(node)?,
            "MatMulInteger" => self.matmul_integer(node)?,
            "ConvInteger" => self.conv_integer(node)?,
            "QLinearConv" => self.qlinear_conv(node)?,
            "QLinearMatMul" => self.qlinear_matmul(node)?,
            "Det" => self.det(node)?,
            "MelWeightMatrix" => self.mel_weight_matrix(node)?,
            "MaxUnpool" => self.max_unpool(node)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// ONNX BitCast (onnx__BitCast.html): the same bits read as the type
    /// `to` of the same width. Between integer types (bool and 8-bit
    /// integers included) that is a conversion keeping the low bits; a
    /// float on either side would need a bit-level reinterpretation the
    /// dialect does not have.
    fn bitcast(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let Some(to) = super::Attrs::of(node).int("to") else {
            return self.err("BitCast needs the attribute 'to'");
        };
        let to = Elem::of_onnx(i32::try_from(to).unwrap_or(-1))
            .map_err(|m| self.error(format!("BitCast to {m}")))?;
        if width(to) != width(x.elem) {
            return self.err(format!(
                "BitCast from {} to {}: the widths differ (invalid)",
                x.elem.mlir(),
                to.mlir()
            ));
        }
        if x.elem.is_float() || to.is_float() {
            return self.err(format!(
                "BitCast from {} to {} (a float's bits) is not supported",
                x.elem.mlir(),
                to.mlir()
            ));
        }
        let spec = self.out_spec(node, 0);
        let v = if to == x.elem {
            self.unary("identity", &x, spec)
        } else {
            // Same-width integers keep the low bits; a byte read as a bool
            // is true when not 0 (NumPy's `view(bool)`).
            self.unary_to("cast", &x, spec, to)
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// How many cells `v` has, when known.
    fn cells(v: &Val) -> Option<u64> {
        match (&v.shape, v.rank) {
            (Some(d), _) => d.iter().try_fold(1u64, |a, &b| a.checked_mul(b)),
            (None, Some(0)) => Some(1),
            _ => None,
        }
    }

    /// A copy of `node` whose inputs are `vals` (bound under internal
    /// names), to translate with another op's translation.
    fn with_inputs(&mut self, node: &NodeProto, vals: Vec<Option<Val>>) -> NodeProto {
        let mut n = node.clone();
        n.input = vals
            .into_iter()
            .map(|v| match v {
                Some(v) => {
                    let name = format!("\u{1}{}", v.ssa);
                    self.values.insert(name.clone(), v);
                    name
                }
                None => String::new(),
            })
            .collect();
        n
    }
}
