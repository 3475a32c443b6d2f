//! ONNX ops written as compositions of the dialect's existing ops
//! (einsums, concatenations, pointwise ops): each names the ONNX operator
//! semantics it follows (onnx.ai/onnx/operators).
//!
//! `index` holds the shared blocks (block-spec slices, strided reads,
//! reversal by a where-einsum on a range grid, index grids, padding);
//! each other submodule a family: `slice` (Slice), `pad` (Pad), `repeat`
//! (Expand, Tile, Trilu, EyeLike), `reduce` (ReduceL1/L2/LogSum/
//! LogSumExp/SumSquare/Prod), `einsum` (Einsum), `act` (Selu, Celu,
//! ThresholdedRelu, Shrink, Softsign, Mish, Swish, Hardmax), `norm`
//! (Instance/Group/RMS/MeanVariance/Lp normalisation), `space`
//! (DepthToSpace, SpaceToDepth), `convt` (ConvTranspose), `resize` and
//! `interp` (Resize, Upsample; `upsample`: integer scales on inputs whose
//! dims are not known), `window` (Hann/Hamming/BlackmanWindow, SwiGLU,
//! CenterCropPad), `rotary` (RotaryEmbedding), `sequence` (ReverseSequence), `quant`
//! (Quantize/Dequantize/DynamicQuantizeLinear), `topk` (TopK), `dft` (DFT, STFT), `affine_grid`
//! (AffineGrid), `grid_sample` (GridSample), `col2im` (Col2Im). Where an op needs the input's dims and they are
//! not known at import, the error says so ("not supported").

mod act;
mod affine_grid;
mod col2im;
mod convt;
mod dft;
mod einsum;
mod grid_sample;
mod index;
mod interp;
mod norm;
mod pad;
mod quant;
mod reduce;
mod repeat;
mod resize;
mod rotary;
mod sequence;
mod slice;
mod space;
mod topk;
mod upsample;
mod window;

use super::{R, Translator};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    use K::{Float, Floats, Int, Ints, String};
    Some(match op {
        "Slice" => &[("starts", Ints), ("ends", Ints), ("axes", Ints)],
        "Pad" => &[
            ("mode", String),
            ("pads", Ints),
            ("paddings", Ints),
            ("value", Float),
        ],
        "Expand" | "Tile" => &[],
        "Trilu" => &[("upper", Int)],
        "EyeLike" => &[("dtype", Int), ("k", Int)],
        "ReduceL1" | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare"
        | "ReduceProd" => &[
            ("axes", Ints),
            ("keepdims", Int),
            ("noop_with_empty_axes", Int),
        ],
        "Selu" => &[("alpha", Float), ("gamma", Float)],
        "Celu" | "ThresholdedRelu" | "Swish" => &[("alpha", Float)],
        "Shrink" => &[("bias", Float), ("lambd", Float)],
        "Softsign" | "Mish" => &[],
        "Hardmax" => &[("axis", Int)],
        "Einsum" => &[("equation", String)],
        "InstanceNormalization" => &[("epsilon", Float)],
        "GroupNormalization" => &[("epsilon", Float), ("num_groups", Int), ("stash_type", Int)],
        "RMSNormalization" => &[("axis", Int), ("epsilon", Float), ("stash_type", Int)],
        "MeanVarianceNormalization" => &[("axes", Ints)],
        "LpNormalization" => &[("axis", Int), ("p", Int)],
        "DepthToSpace" | "SpaceToDepth" => &[("blocksize", Int), ("mode", String)],
        "ConvTranspose" => &[
            ("auto_pad", String),
            ("dilations", Ints),
            ("group", Int),
            ("kernel_shape", Ints),
            ("output_padding", Ints),
            ("output_shape", Ints),
            ("pads", Ints),
            ("strides", Ints),
        ],
        "Resize" => &[
            ("antialias", Int),
            ("axes", Ints),
            ("coordinate_transformation_mode", String),
            ("cubic_coeff_a", Float),
            ("exclude_outside", Int),
            ("extrapolation_value", Float),
            ("keep_aspect_ratio_policy", String),
            ("mode", String),
            ("nearest_mode", String),
        ],
        "Upsample" => &[("mode", String), ("scales", Floats)],
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => {
            &[("output_datatype", Int), ("periodic", Int)]
        }
        "SwiGLU" => &[("alpha", Float)],
        "CenterCropPad" => &[("axes", Ints)],
        "QuantizeLinear" | "DequantizeLinear" => &[
            ("axis", Int),
            ("block_size", Int),
            ("output_dtype", Int),
            ("precision", Int),
            ("saturate", Int),
        ],
        "DynamicQuantizeLinear" => &[],
        "DFT" => &[("axis", Int), ("inverse", Int), ("onesided", Int)],
        "STFT" => &[("onesided", Int)],
        "AffineGrid" => &[("align_corners", Int)],
        "Col2Im" => &[("dilations", Ints), ("pads", Ints), ("strides", Ints)],
        "GridSample" => &[
            ("align_corners", Int),
            ("mode", String),
            ("padding_mode", String),
        ],
        "TopK" => &[("axis", Int), ("k", Int), ("largest", Int), ("sorted", Int)],
        "ReverseSequence" => &[("batch_axis", Int), ("time_axis", Int)],
        "RotaryEmbedding" => &[
            ("interleaved", Int),
            ("num_heads", Int),
            ("rotary_embedding_dim", Int),
        ],
        _ => return None,
    })
}

impl Translator {
    /// Translates `node` when its op is one of this module's; `false`
    /// otherwise.
    pub(super) fn composite(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        match op {
            "Slice" => self.slice(node)?,
            "Pad" => self.pad(node)?,
            "Expand" => self.expand(node)?,
            "Tile" => self.tile(node)?,
            "Trilu" => self.trilu(node)?,
            "EyeLike" => self.eye_like(node)?,
            "ReduceL1" | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare"
            | "ReduceProd" => self.reduce_composite(node, op)?,
            "Selu" | "Celu" | "ThresholdedRelu" | "Shrink" | "Softsign" | "Mish" | "Swish" => {
                self.activation(node, op)?;
            }
            "Hardmax" => self.hardmax(node)?,
            "Einsum" => self.einsum_node(node)?,
            "InstanceNormalization" => self.instance_norm(node)?,
            "GroupNormalization" => self.group_norm(node)?,
            "RMSNormalization" => self.rms_norm(node)?,
            "MeanVarianceNormalization" => self.mvn(node)?,
            "LpNormalization" => self.lp_norm(node)?,
            "DepthToSpace" | "SpaceToDepth" => self.depth_space(node, op == "DepthToSpace")?,
            "ConvTranspose" => self.conv_transpose(node)?,
            "Resize" | "Upsample" => self.resize(node)?,
            "HannWindow" | "HammingWindow" | "BlackmanWindow" => self.window_node(node, op)?,
            "SwiGLU" => self.swiglu(node)?,
            "CenterCropPad" => self.center_crop_pad(node)?,
            "RotaryEmbedding" => self.rotary(node)?,
            "ReverseSequence" => self.reverse_sequence(node)?,
            "QuantizeLinear" => self.quantize(node)?,
            "DequantizeLinear" => self.dequantize(node)?,
            "DynamicQuantizeLinear" => self.dynamic_quantize(node)?,
            "TopK" => self.top_k(node)?,
            "DFT" => self.dft(node)?,
            "AffineGrid" => self.affine_grid(node)?,
            "GridSample" => self.grid_sample(node)?,
            "Col2Im" => self.col2im(node)?,
            "STFT" => self.stft(node)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
