#!/usr/bin/env python3
"""The ops of onnx/src/translate/composite/ against onnxruntime on random
data, on shapes larger than ONNX's node tests use (issue 40).

Each case is one node (the constant inputs as initializers) on seeded
random inputs; `via` gives the data input symbolic dims, so that the op
sees a value whose rank is known but whose dims are not (the paths that
do not read the input's dims). The model is
imported with `ocannl-import-onnx --erase-shapes`, run with `ocannl-run`
and compared with onnxruntime (rtol 1e-4, atol 1e-5; NaN equal).

Usage: composite_ort.py BIN_DIR [--only SUBSTRING ...]
Exit 1 when any case fails.
"""
import argparse
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

ort.set_default_logger_severity(3)
from onnx import TensorProto, helper, numpy_helper
from ort_harness import import_model, import_rejects, run_ocannl

F = np.float32


def i64(*v):
    return np.array(v, dtype=np.int64)


def case(name, op, x, consts=(), attrs=None, opset=18, via=False, extra=(), expect=None):
    """x: the data input's shape (or an array); consts: (position, array)
    as initializers; extra: further runtime inputs (arrays); expect: the
    import must fail with this in its message (no panic), nothing is run."""
    return dict(name=name, op=op, x=x, consts=list(consts), attrs=attrs or {}, opset=opset,
                via=via, extra=list(extra), expect=expect)


rng = np.random.default_rng(7)


def rand(*shape):
    return rng.standard_normal(shape).astype(F)


# The scatter cases' own generator (the other cases' data unchanged).
srng = np.random.default_rng(11)


def srand(*shape):
    return srng.standard_normal(shape).astype(F)


def ints(shape, lo, hi):
    return srng.integers(lo, hi, size=shape).astype(np.int64)


def perm_idx(shape, n, axis):
    """Indices of `shape` along `axis`, distinct along it (from `n`),
    negative ones among them."""
    idx = np.argsort(srng.random(shape[:axis] + (n,) + shape[axis + 1:]), axis=axis)
    idx = np.take(idx, np.arange(shape[axis]), axis=axis)
    return np.where(srng.random(shape) < 0.3, idx - n, idx).astype(np.int64)


def pairs(shape, dims):
    """`shape` index tuples into `dims` (duplicates possible), some
    components negative."""
    cols = [srng.integers(-d, d, size=shape) for d in dims]
    return np.stack(cols, axis=-1).astype(np.int64)


CASES = [
    case("slice_mixed", "Slice", (6, 40, 33), [(1, i64(2, -30, 1)), (2, i64(5, 1000, -2)),
                                               (3, i64(0, 1, 2)), (4, i64(1, 3, 2))]),
    # Empty results (a size-0 axis): a constant of their dims.
    case("slice_empty", "Slice", (4, 5), [(1, i64(3)), (2, i64(3))]),
    case("slice_empty_inner", "Slice", (4, 5, 3), [(1, i64(2)), (2, i64(1)), (3, i64(1))]),
    case("slice_neg_steps", "Slice", (6, 40, 33), [(1, i64(-1, 30)), (2, i64(-1000, 2)),
                                                   (3, i64(1, 2)), (4, i64(-4, -3))]),
    case("slice_unknown_dims", "Slice", (6, 40, 33), [(1, i64(1, -30, 3)), (2, i64(2**62, -2, 20)),
                                                      (3, i64(0, 1, 2)), (4, i64(1, 2, 3))], via=True),
    case("slice_opset1", "Slice", (6, 40, 33), attrs=dict(starts=[1, 5], ends=[-1, 30], axes=[0, 2]),
         opset=9),
    case("pad_constant", "Pad", (1, 3, 30, 40), [(1, i64(0, 1, 2, 3, 0, 2, 1, 4)),
                                                 (2, np.array(1.5, F))], dict(mode="constant")),
    case("pad_constant_unknown", "Pad", (2, 3, 30, 40), [(1, i64(0, 0, 2, -3, 0, 0, -1, 4))],
         dict(mode="constant"), via=True),
    case("pad_reflect", "Pad", (2, 3, 30, 40), [(1, i64(0, 0, 5, 7, 0, 0, 6, 2))], dict(mode="reflect")),
    case("pad_edge", "Pad", (2, 3, 30, 40), [(1, i64(0, 0, 5, 7, 0, 0, 6, 2))], dict(mode="edge"),
         via=True),
    case("pad_wrap", "Pad", (2, 3, 30, 40), [(1, i64(0, 0, 5, 7, 0, 0, 6, 2))], dict(mode="wrap"),
         opset=19),
    case("pad_axes_value_input", "Pad", (2, 3, 30, 40), [(1, i64(4, 3, 2, 1)), (3, i64(-1, 1))],
         dict(mode="constant"), extra=[np.array(-2.5, F)]),
    case("expand", "Expand", (3, 1, 5), [(1, i64(2, 3, 4, 5))]),
    case("expand_unknown", "Expand", (3, 1, 5), [(1, i64(2, 1, 6, 1))], via=True),
    case("tile", "Tile", (3, 4, 5), [(1, i64(2, 1, 3))]),
    case("tile_unknown", "Tile", (3, 4, 5), [(1, i64(2, 1, 3))], via=True),
    case("triu", "Trilu", (2, 30, 40), [(1, i64(3))], opset=14),
    case("tril", "Trilu", (2, 30, 40), [(1, i64(-4))], dict(upper=0), opset=14),
    case("eyelike", "EyeLike", (30, 40), attrs=dict(k=-5)),
    case("reduce_l1", "ReduceL1", (8, 16, 32), [(1, i64(1))], dict(keepdims=0)),
    case("reduce_l2", "ReduceL2", (8, 16, 32), [(1, i64(0, 2))], via=True),
    case("reduce_log_sum", "ReduceLogSum", np.abs(rand(8, 16, 32)) + 0.1, [(1, i64(-1))]),
    case("reduce_lse", "ReduceLogSumExp", rand(8, 16, 32) * 30, [(1, i64(1))], dict(keepdims=0)),
    case("reduce_sumsq", "ReduceSumSquare", (8, 16, 32), [(1, i64(2))]),
    case("reduce_prod", "ReduceProd", rand(8, 16, 6) * 0.5 + 1, [(1, i64(2))], dict(keepdims=0)),
    case("reduce_l1_attr", "ReduceL1", (8, 16, 32), attrs=dict(axes=[0, -1]), opset=13),
    case("einsum_bmm", "Einsum", (4, 30, 40), attrs=dict(equation="bij,bjk->bik"), extra=[rand(4, 40, 20)]),
    case("einsum_ellipsis", "Einsum", (4, 5, 30, 40), attrs=dict(equation="...ij->...ji")),
    case("einsum_implicit", "Einsum", (30, 40), attrs=dict(equation="ij,jk"), extra=[rand(40, 7)]),
    case("selu", "Selu", (64, 128), opset=7),
    case("celu", "Celu", (64, 128), attrs=dict(alpha=0.7), opset=12),
    case("thresholded_relu", "ThresholdedRelu", (64, 128), attrs=dict(alpha=0.3), opset=10),
    case("shrink", "Shrink", (64, 128), attrs=dict(lambd=0.6, bias=0.2), opset=9),
    case("softsign", "Softsign", (64, 128)),
    case("mish", "Mish", rand(64, 128) * 10, opset=18),
    case("hardmax", "Hardmax", np.round(rand(8, 100) * 2), opset=13),
    case("hardmax_axis0", "Hardmax", (50, 7, 3), attrs=dict(axis=0), opset=13),
    case("instance_norm", "InstanceNormalization", (2, 16, 32, 32), extra=[rand(16), rand(16)]),
    case("group_norm", "GroupNormalization", (2, 32, 16, 16), attrs=dict(num_groups=8),
         extra=[rand(32), rand(32)], opset=21),
    case("rms_norm", "RMSNormalization", (4, 64, 128), attrs=dict(axis=-1), extra=[rand(128)], opset=23),
    case("mvn", "MeanVarianceNormalization", (2, 8, 16, 16), opset=13),
    case("lp_norm", "LpNormalization", (16, 64), attrs=dict(axis=1, p=1), opset=13),
    case("depth_to_space", "DepthToSpace", (2, 32, 8, 8), attrs=dict(blocksize=2, mode="CRD"), opset=13),
    case("space_to_depth", "SpaceToDepth", (2, 4, 16, 16), attrs=dict(blocksize=4), opset=13),
    case("resize_linear_up", "Resize", (2, 3, 32, 24), [(2, np.array([1, 1, 2, 1.5], F))],
         dict(mode="linear"), opset=19),
    case("resize_nearest_sizes", "Resize", (2, 3, 32, 24), [(3, i64(2, 3, 45, 17))],
         dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"), opset=19),
    case("resize_cubic_down", "Resize", (1, 2, 40, 36), [(2, np.array([1, 1, 0.7, 0.5], F))],
         dict(mode="cubic", coordinate_transformation_mode="pytorch_half_pixel"), opset=19),
    case("resize_linear_align", "Resize", (1, 2, 17, 19), [(3, i64(33, 7))],
         dict(mode="linear", coordinate_transformation_mode="align_corners", axes=[2, 3]), opset=19),
    case("resize_nearest_opset11", "Resize", (1, 2, 17, 19), [(1, np.zeros(0, F)), (2, np.array([1, 1, 3, 2], F))],
         dict(mode="nearest"), opset=11),
    case("resize_linear_antialias", "Resize", (1, 2, 40, 36), [(2, np.array([1, 1, 0.4, 0.3], F))],
         dict(mode="linear", antialias=1), opset=19),
    case("slice_int64", "Slice", rng.integers(-9, 9, (6, 40)), [(1, i64(-2, 30)), (2, i64(0, 2)),
                                                               (3, i64(0, 1)), (4, i64(-1, -7))]),
    case("pad_reflect_int32", "Pad", rng.integers(-9, 9, (5, 7)).astype(np.int32), [(1, i64(2, 3, 4, 1))],
         dict(mode="reflect")),
    case("pad_constant_int64", "Pad", rng.integers(-9, 9, (5, 7)), [(1, i64(2, 3, 4, 1)), (2, i64(7))]),
    case("tile_int32", "Tile", rng.integers(-9, 9, (5, 7)).astype(np.int32), [(1, i64(3, 2))]),
    case("expand_int64", "Expand", rng.integers(-9, 9, (5, 1)), [(1, i64(2, 5, 3))]),
    case("trilu_int64", "Trilu", rng.integers(-9, 9, (3, 9, 7)), [(1, i64(-2))], opset=14),
    case("reduce_prod_int64", "ReduceProd", rng.integers(-3, 4, (5, 6)), [(1, i64(1))]),
    case("reduce_l1_int32", "ReduceL1", rng.integers(-9, 9, (5, 6)).astype(np.int32), [(1, i64(0))]),
    case("reduce_sumsq_int64", "ReduceSumSquare", rng.integers(-9, 9, (5, 6)), [(1, i64(0))]),
    case("einsum_int64", "Einsum", rng.integers(-9, 9, (5, 6)), attrs=dict(equation="ij->ji")),
    case("shrink_int32", "Shrink", rng.integers(-9, 9, (5, 6)).astype(np.int32),
         attrs=dict(lambd=2.0, bias=1.0), opset=9),
    case("resize_nearest_int32", "Resize", rng.integers(-9, 9, (1, 1, 5, 6)).astype(np.int32), [(2, np.array([1, 1, 2, 1.5], F))],
         dict(mode="nearest"), opset=19),
    case("slice_bool", "Slice", rng.integers(0, 2, (6, 9)).astype(bool), [(1, i64(1, 2)), (2, i64(5, -1)),
                                                                        (3, i64(0, 1)), (4, i64(2, 3))]),
    case("pad_bool", "Pad", rng.integers(0, 2, (5, 7)).astype(bool), [(1, i64(2, 3, 4, 1)),
                                                                     (2, np.array(True))]),
    case("pad_edge_uint8", "Pad", rng.integers(0, 200, (5, 7)).astype(np.uint8), [(1, i64(2, 3, 4, 1))],
         dict(mode="edge")),
    case("expand_bool", "Expand", rng.integers(0, 2, (5, 1)).astype(bool), [(1, i64(2, 5, 3))]),
    case("tile_uint8", "Tile", rng.integers(0, 200, (5, 7)).astype(np.uint8), [(1, i64(3, 2))]),
    case("upsample_nearest_unknown", "Resize", (2, 3, 10, 12), [(2, np.array([1, 1, 2, 3], F))],
         dict(mode="nearest"), opset=19, via=True),
    case("upsample_nearest_floor_unknown", "Resize", (2, 3, 10, 12), [(2, np.array([1, 1, 3, 2], F))],
         dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor"), opset=19,
         via=True),
    case("upsample_nearest_opset10_unknown", "Resize", (2, 3, 10, 12), [(1, np.array([1, 1, 2, 2], F))],
         dict(mode="nearest"), opset=10, via=True),
    case("upsample_linear_unknown", "Resize", (2, 3, 10, 12), [(2, np.array([1, 1, 2, 2], F))],
         dict(mode="linear"), opset=19, via=True),
    case("upsample_linear_pytorch_unknown", "Resize", (2, 3, 10, 12), [(2, np.array([1, 1, 3, 4], F))],
         dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"), opset=19, via=True),
    case("upsample_linear_asym_axes_unknown", "Resize", (2, 3, 10, 12), [(2, np.array([3], F))],
         dict(mode="linear", coordinate_transformation_mode="asymmetric", axes=[-1]), opset=19, via=True),
    case("depth_to_space_unknown", "DepthToSpace", (2, 36, 5, 7), attrs=dict(blocksize=3), opset=13,
         via=True),
    case("depth_to_space_crd_unknown", "DepthToSpace", (2, 32, 5, 7), attrs=dict(blocksize=2, mode="CRD"),
         opset=13, via=True),
    case("space_to_depth_unknown", "SpaceToDepth", (2, 3, 12, 6), attrs=dict(blocksize=3), opset=13, via=True),
    case("upsample_opset9", "Upsample", (2, 3, 10, 12), [(1, np.array([1, 1, 2, 3], F))],
         dict(mode="nearest"), opset=9),
    case("upsample_opset9_linear_unknown", "Upsample", (2, 3, 10, 12), [(1, np.array([1, 1, 2, 2], F))],
         dict(mode="linear"), opset=9, via=True),
    case("upsample_opset7", "Upsample", (2, 3, 10, 12), attrs=dict(mode="linear", scales=[1.0, 1.0, 1.5, 2.5]),
         opset=7),
    case("group_norm_opset18", "GroupNormalization", (2, 12, 5, 6), attrs=dict(num_groups=3),
         extra=[rand(3), rand(3)], opset=18),
    case("pad_opset7", "Pad", (2, 3, 10, 12), attrs=dict(pads=[0, 1, 2, 0, 0, 2, 1, 3], value=1.5), opset=7),
    case("conv_transpose", "ConvTranspose", (2, 8, 16, 16),
         attrs=dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]), extra=[rand(8, 4, 3, 3)],
         opset=11),
    case("conv_transpose_group", "ConvTranspose", (2, 8, 9, 10),
         attrs=dict(strides=[3, 2], dilations=[2, 1], group=2, pads=[0, 2, 1, 0]),
         extra=[rand(8, 3, 3, 4), rand(6)], opset=11),
    case("conv_transpose_unknown", "ConvTranspose", (2, 4, 12, 10),
         attrs=dict(strides=[2, 3], pads=[3, 0, 0, 1]), extra=[rand(4, 5, 2, 3)], opset=11, via=True),
    case("center_crop_pad", "CenterCropPad", (3, 20, 17, 5), [(1, i64(13, 24))], dict(axes=[1, -2])),
    case("center_crop_pad_all", "CenterCropPad", (6, 9, 4), [(1, i64(3, 14, 4))]),
    case("reverse_sequence_time", "ReverseSequence", (9, 4, 6), extra=[i64(9, 0, 3, 1)],
         attrs=dict(batch_axis=1, time_axis=0), opset=10),
    case("reverse_sequence_batch", "ReverseSequence", (5, 8, 3, 2), extra=[i64(8, 2, 5, 1, 7)],
         attrs=dict(batch_axis=0, time_axis=1), opset=10),
    case("rotary", "RotaryEmbedding", (2, 4, 7, 16), extra=[rand(30, 8), rand(30, 8),
                                                           rng.integers(0, 30, (2, 7))], opset=23),
    case("rotary_interleaved_dim", "RotaryEmbedding", (2, 4, 7, 16), extra=[rand(30, 4), rand(30, 4),
                                                                          rng.integers(0, 30, (2, 7))],
         attrs=dict(interleaved=1, rotary_embedding_dim=8), opset=23),
    case("rotary_3d_no_ids", "RotaryEmbedding", (2, 7, 24), extra=[rand(2, 7, 3), rand(2, 7, 3)],
         attrs=dict(num_heads=4), opset=23),
    dict(case("quantize_int8_axis", "QuantizeLinear", (np.arange(-600, 600, dtype=F) / 4).reshape(4, 3, 100),
              [(1, np.array([0.5, 1.0, 0.25], F)), (2, np.array([3, -2, 0], np.int8))], opset=13),
         out_elem=TensorProto.INT8),
    dict(case("quantize_uint8", "QuantizeLinear", rand(6, 50) * 100, [(1, np.array(0.5, F))], opset=13),
         out_elem=TensorProto.UINT8),
    dict(case("dequantize_int8_axis", "DequantizeLinear", rng.integers(-128, 128, (5, 4)).astype(np.int8),
              [(1, np.array([0.5, 2.0, 0.1, 3.0], F)), (2, np.array([1, -5, 0, 7], np.int8))],
              dict(axis=-1), opset=13), out_elem=TensorProto.FLOAT),
    dict(case("dequantize_uint8", "DequantizeLinear", rng.integers(0, 256, (5, 4)).astype(np.uint8),
              [(1, np.array(0.3, F)), (2, np.array(128, np.uint8))], opset=13), out_elem=TensorProto.FLOAT),
    case("topk_ties", "TopK", np.round(rand(3, 40, 5) * 2), [(1, i64(7))], dict(axis=1), opset=11),
    dict(case("topk_ties_indices", "TopK", np.round(rand(3, 40, 5) * 2), [(1, i64(7))], dict(axis=1),
              opset=11), second=True, out_elem=TensorProto.INT64),
    dict(case("topk_smallest_indices", "TopK", rng.integers(-5, 5, (6, 30)).astype(np.int32), [(1, i64(30))],
              dict(largest=0), opset=11), second=True, out_elem=TensorProto.INT64),
    case("topk_opset9", "TopK", (4, 9, 3), attrs=dict(k=2, axis=0), opset=9),
    case("dft_real_axis1", "DFT", (2, 12, 5, 1), attrs=dict(axis=1), opset=17),
    case("dft_complex_padded", "DFT", (3, 8, 2), [(1, np.array(11)), (2, np.array(1))], opset=20),
    case("dft_rfft_truncated", "DFT", (2, 16, 1), [(1, np.array(10)), (2, np.array(-2))],
         dict(onesided=1), opset=20),
    case("dft_inverse", "DFT", (2, 5, 9, 2), [(2, np.array(2))], dict(inverse=1), opset=20),
    case("dft_irfft", "DFT", (2, 9, 2), [(2, np.array(1))], dict(inverse=1, onesided=1), opset=20),
    case("stft_window", "STFT", (2, 100, 1), [(1, np.array(7))], extra=[rand(16)], opset=17),
    case("stft_complex_length", "STFT", (1, 60, 2), [(1, np.array(5)), (3, np.array(12))],
         dict(onesided=0), opset=17),
    case("affine_grid_2d", "AffineGrid", (3, 2, 3), [(1, i64(3, 1, 7, 9))], opset=20),
    case("affine_grid_3d_align", "AffineGrid", (2, 3, 4), [(1, i64(2, 4, 3, 5, 6))], dict(align_corners=1),
         opset=20),
    case("grid_sample_bilinear_zeros", "GridSample", (2, 3, 9, 11), extra=[rand(2, 5, 7, 2) * 0.8],
         opset=16),
    case("grid_sample_nearest_border", "GridSample", (2, 3, 9, 11), extra=[rand(2, 5, 7, 2) * 0.8],
         attrs=dict(mode="nearest", padding_mode="border"), opset=16),
    case("grid_sample_cubic_reflect", "GridSample", (1, 2, 8, 6), extra=[rand(1, 4, 5, 2) * 1.5],
         attrs=dict(mode="cubic", padding_mode="reflection"), opset=20),
    case("grid_sample_linear_reflect_align", "GridSample", (1, 2, 8, 6), extra=[rand(1, 4, 5, 2) * 2],
         attrs=dict(padding_mode="reflection", align_corners=1), opset=20),
    case("grid_sample_3d_linear", "GridSample", (1, 2, 4, 5, 6), extra=[rand(1, 3, 2, 4, 3) * 0.9],
         attrs=dict(mode="linear"), opset=20),
    case("col2im_strided", "Col2Im", (2, 3 * 6, 5 * 3), [(1, i64(11, 8)), (2, i64(2, 3))],
         dict(strides=[2, 3], pads=[1, 0, 0, 2], dilations=[2, 1]), opset=18),
    case("col2im_3d", "Col2Im", (1, 2 * 8, 3 * 2 * 3), [(1, i64(4, 3, 4)), (2, i64(2, 2, 2))], opset=18),
    dict(case("dynamic_quantize", "DynamicQuantizeLinear", rand(7, 30) * 5 + 2, opset=11),
         out_elem=TensorProto.UINT8),
    # Scatter: run-time indices (graph inputs) and constants, duplicates
    # for the reductions (and `none`: the last write wins), negative ones.
    case("scatter_elements_axis1", "ScatterElements", (6, 40, 8), attrs=dict(axis=1),
         extra=[perm_idx((6, 12, 8), 40, 1), srand(6, 12, 8)], opset=18),
    case("scatter_elements_dup_none", "ScatterElements", (6, 40, 8), attrs=dict(axis=-2),
         extra=[ints((6, 30, 8), -40, 40), srand(6, 30, 8)], opset=18),
    case("scatter_elements_add", "ScatterElements", (5, 9, 30), attrs=dict(axis=2, reduction="add"),
         extra=[ints((5, 9, 50), -30, 30), srand(5, 9, 50)], opset=18),
    case("scatter_elements_mul", "ScatterElements", (30, 7), attrs=dict(reduction="mul"),
         extra=[ints((45, 7), -30, 30), srand(45, 7)], opset=18),
    case("scatter_elements_max_short", "ScatterElements", (6, 40, 8), attrs=dict(axis=1, reduction="max"),
         extra=[ints((4, 25, 5), -40, 40), srand(4, 25, 5)], opset=18),
    case("scatter_elements_min_const", "ScatterElements", (6, 40, 8), [(1, ints((6, 25, 8), -40, 40))],
         dict(axis=1, reduction="min"), extra=[srand(6, 25, 8)], opset=18),
    case("scatter_elements_unknown", "ScatterElements", (6, 40, 8), attrs=dict(axis=1, reduction="add"),
         extra=[ints((6, 20, 8), -40, 40), srand(6, 20, 8)], opset=18, via=True),
    case("scatter_elements_unknown_none", "ScatterElements", (6, 40, 8), attrs=dict(axis=1),
         extra=[ints((6, 20, 8), -40, 40), srand(6, 20, 8)], opset=18, via=True),
    case("scatter_elements_int", "ScatterElements", ints((7, 30), -50, 50), attrs=dict(axis=1, reduction="add"),
         extra=[ints((7, 40), -30, 30).astype(np.int32), ints((7, 40), -50, 50)], opset=18),
    case("scatter_opset9", "Scatter", (20, 9), attrs=dict(axis=0), extra=[perm_idx((8, 9), 20, 0), srand(8, 9)],
         opset=9),
    case("scatternd_rows", "ScatterND", (30, 12, 7), extra=[perm_idx((10, 1), 30, 0), srand(10, 12, 7)],
         opset=18),
    case("scatternd_pairs_add", "ScatterND", (10, 12, 7), attrs=dict(reduction="add"),
         extra=[pairs((4, 9), (10, 12)), srand(4, 9, 7)], opset=18),
    case("scatternd_pairs_dup_none", "ScatterND", (10, 12, 7),
         extra=[pairs((4, 9), (10, 12)), srand(4, 9, 7)], opset=18),
    case("scatternd_elems_max", "ScatterND", (10, 12, 7), attrs=dict(reduction="max"),
         extra=[pairs((60,), (10, 12, 7)), srand(60)], opset=18),
    case("scatternd_mul_const", "ScatterND", (10, 12, 7), [(1, pairs((30,), (10, 12)))],
         dict(reduction="mul"), extra=[srand(30, 7)], opset=18),
    case("scatternd_min_unknown", "ScatterND", (10, 12, 7), attrs=dict(reduction="min"),
         extra=[pairs((5, 8), (10, 12)), srand(5, 8, 7)], opset=18, via=True),
    case("scatternd_one_tuple", "ScatterND", (10, 12, 7), extra=[i64(3, -2), srand(7)], opset=18),
    case("tensorscatter_linear", "TensorScatter", (3, 4, 32, 16), extra=[srand(3, 4, 5, 16), i64(0, 27, 9)],
         opset=24),
    case("tensorscatter_circular", "TensorScatter", (3, 4, 32, 16), attrs=dict(mode="circular"),
         extra=[srand(3, 4, 9, 16), i64(30, 2, 27)], opset=24),
    case("tensorscatter_axis_unknown", "TensorScatter", (3, 20, 6), attrs=dict(axis=1, mode="circular"),
         extra=[srand(3, 7, 6), i64(15, 0, 19)], opset=24, via=True),
    case("tensorscatter_no_indices", "TensorScatter", (2, 3, 10, 4), extra=[srand(2, 3, 10, 4)], opset=24),
]




class Shaped:
    """A shape standing in for data (a model that is only imported)."""

    def __init__(self, shape):
        self.shape, self.ndim = tuple(shape), len(shape)


# Rejected at import, each with its reason, never a panic.
ERRORS = [
    case("topk_k_too_big", "TopK", (3, 4), [(1, i64(5))], opset=11, expect="k = 5"),
    case("grid_sample_mode", "GridSample", (1, 1, 3, 3), extra=[rand(1, 2, 2, 2)], attrs=dict(mode="area"),
         opset=20, expect="not supported"),
    case("dft_last_axis", "DFT", (2, 4, 1), [(2, np.array(-1))], opset=20, expect="not the last axis"),
    case("quantize_float8", "QuantizeLinear", (2, 4), [(1, np.array(0.5, F))], dict(output_dtype=17),
         opset=21, expect="not supported"),
    case("col2im_wrong_columns", "Col2Im", (1, 4, 7), [(1, i64(4, 4)), (2, i64(2, 2))], opset=18,
         expect="columns"),
    case("slice_step_0", "Slice", (4, 5), [(1, i64(0)), (2, i64(3)), (3, i64(0)), (4, i64(0))],
         expect="must not be 0"),
    case("slice_neg_step_unknown", "Slice", (4, 5), [(1, i64(3)), (2, i64(0)), (3, i64(1)), (4, i64(-1))],
         via=True, expect="needs the axis size"),
    case("pad_huge", "Pad", (4, 5), [(1, i64(0, 2**50, 0, 0))], expect="out of range"),
    case("pad_mode", "Pad", (4, 5), [(1, i64(0, 1, 0, 0))], dict(mode="mirror"), expect="not supported"),
    case("pad_value_not_scalar", "Pad", (4, 5), [(1, i64(0, 1, 0, 0))], extra=[rand(2)],
         expect="must be a scalar"),
    case("trilu_upper_2", "Trilu", (4, 5), attrs=dict(upper=2), opset=14, expect="must be 0 or 1"),
    case("trilu_huge", "Trilu", (2, 2**25), opset=14, expect="not supported"),
    case("tile_zero", "Tile", (4, 5), [(1, i64(0, 2))], expect="not supported"),
    case("expand_negative", "Expand", (4, 5), [(1, i64(-1, 5))], expect="Expand to the shape"),
    case("einsum_four", "Einsum", (3,), attrs=dict(equation="i,i,i,i->i"),
         extra=[rand(3), rand(3), rand(3)], expect="not supported"),
    case("einsum_bad", "Einsum", (3,), attrs=dict(equation="i$->i"), expect="holds"),
    case("convt_huge", "ConvTranspose", (1, 1, 2**50), attrs=dict(strides=[2]), extra=[rand(1, 1, 2)],
         opset=11, expect="not supported"),
    case("convt_pads_too_large", "ConvTranspose", (1, 1, 3), attrs=dict(pads=[5, 5]), extra=[rand(1, 1, 2)],
         opset=11, expect="not supported"),
    case("d2s_blocksize", "DepthToSpace", (1, 4, 2, 2), attrs=dict(blocksize=2**20), opset=13,
         expect="blocksize"),
    case("s2d_overflow", "SpaceToDepth", (1, 2**40, 2**16, 2**16), attrs=dict(blocksize=2**16), opset=13,
         expect="overflow"),
    case("resize_huge", "Resize", (1, 1, 4, 4), [(3, i64(1, 1, 2**30, 4))], opset=19, expect="not supported"),
    case("resize_mode", "Resize", (1, 1, 4, 4), [(2, np.array([1, 1, 2, 2], F))], dict(mode="area"),
         opset=19, expect="not supported"),
    case("resize_scales_input", "Resize", (1, 1, 4, 4), opset=19, extra=["", rand(4)],
         expect="must be a constant"),
    case("resize_unknown_align", "Resize", (1, 1, 4, 4), [(2, np.array([1, 1, 2, 2], F))],
         dict(mode="linear", coordinate_transformation_mode="align_corners"), opset=19, via=True,
         expect="needs the input's dims"),
    case("hardmax_old_axis", "Hardmax", (3, 4), attrs=dict(axis=0), opset=11, expect="not supported"),
    case("reduce_l2_int", "ReduceL2", np.ones((3, 4), np.int64), [(1, i64(1))], expect="not supported"),
    case("group_norm_groups", "GroupNormalization", (2, 6, 4), attrs=dict(num_groups=4),
         extra=[rand(6), rand(6)], opset=21, expect="do not divide"),
    case("eyelike_rank3", "EyeLike", (2, 3, 4), expect="rank 2 only"),
    case("trilu_uint8", "Trilu", np.ones((3, 4), np.uint8), opset=14, expect="not supported"),
    case("pad_reflect_bool", "Pad", np.ones((3, 4), bool), [(1, i64(0, 2, 0, 2))], dict(mode="reflect"),
         expect="not supported"),
    case("scatter_elements_index_range", "ScatterElements", (4, 5), [(1, i64(0, 5, 1, 2).reshape(1, 4))],
         dict(axis=1), extra=[srand(1, 4)], opset=18, expect="out of range"),
    case("scatter_elements_updates_shape", "ScatterElements", (4, 5), [(1, np.zeros((2, 3), np.int64))],
         extra=[srand(2, 4)], opset=18, expect="differs"),
    case("scatternd_too_many_components", "ScatterND", (4, 5), [(1, np.zeros((2, 3), np.int64))],
         extra=[srand(2)], opset=18, expect="components"),
    case("scatternd_updates_shape", "ScatterND", (4, 5), [(1, np.zeros((2, 1), np.int64))],
         extra=[srand(2, 6)], opset=18, expect="updates' dims"),
    case("scatter_reduction_bad", "ScatterElements", (4, 5), [(1, np.zeros((1, 1), np.int64))],
         dict(reduction="sum"), extra=[srand(1, 1)], opset=18, expect="must be one of"),
    case("tensorscatter_write_index", "TensorScatter", (2, 8, 4), [(2, i64(0, 6))], extra=[srand(2, 3, 4)],
         opset=24, expect="write index 6"),
    case("tensorscatter_axis_0", "TensorScatter", (2, 8, 4), attrs=dict(axis=0), extra=[srand(2, 8, 4)],
         opset=24, expect="batch axis"),
]


def model_of(c, x):
    elem = helper.np_dtype_to_tensor_dtype(x.dtype) if isinstance(x, np.ndarray) else TensorProto.FLOAT
    # `via`: the input's dims symbolic (its rank known, its dims not).
    shape = [f"d{i}" for i in range(x.ndim)] if c["via"] else x.shape
    inputs = [helper.make_tensor_value_info("X", elem, shape)]
    inits, names, nodes = [], [], []
    data = "X"
    n_in = 1 + len(c["consts"]) + len(c["extra"])
    names = [""] * max(n_in, 1 + max([p for p, _ in c["consts"]], default=0))
    names[0] = data
    for p, a in c["consts"]:
        names[p] = f"c{p}"
        inits.append(numpy_helper.from_array(a, f"c{p}"))
    k = 1
    for j, a in enumerate(c["extra"]):
        while names[k]:
            k += 1
        if isinstance(a, str):
            names[k] = "-"
            continue
        names[k] = f"e{j}"
        inputs.append(helper.make_tensor_value_info(f"e{j}", helper.np_dtype_to_tensor_dtype(a.dtype),
                                                    a.shape))
    names = ["" if n == "-" else n for n in names]
    while names and names[-1] == "":
        names.pop()
    outs = {"DynamicQuantizeLinear": ["Y", "Y1", "Y2"], "TopK": ["Y", "Y1"]}.get(c["op"], ["Y"])
    if c.get("second"):  # the op's second output compared (TopK's indices)
        outs = ["Y0", "Y"]
    nodes.append(helper.make_node(c["op"], names, outs, **c["attrs"]))
    out = helper.make_tensor_value_info("Y", c.get("out_elem", elem), None)
    g = helper.make_graph(nodes, c["name"], inputs, [out], initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", c["opset"])])


def run_case(c, bin_dir, tmp):
    x = c["x"] if isinstance(c["x"], np.ndarray) else rand(*c["x"])
    m = model_of(c, x)
    feeds = {"X": x, **{f"e{j}": a for j, a in enumerate(c["extra"])}}
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, feeds)[0]
    mlir, r = import_model(bin_dir, m, tmp)
    if r.returncode:
        return f"import: {r.stderr.strip()[-400:]}"
    gots, why = run_ocannl(bin_dir, mlir, [x, *c["extra"]], 1, tmp)
    if why:
        return why
    got = gots[0]
    if got.shape != want.shape:
        return f"shape {got.shape}, onnxruntime {want.shape}"
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True):
        return f"max abs diff {np.nanmax(np.abs(got - want))}"
    return None


def error_case(c, bin_dir, tmp):
    """None when the import fails as expected."""
    x = c["x"] if isinstance(c["x"], np.ndarray) else Shaped(c["x"])
    return import_rejects(bin_dir, model_of(c, x), c["expect"], tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            if args.only and not any(s in c["name"] for s in args.only):
                continue
            why = run_case(c, args.bin_dir, tmp)
            print(f"{c['name']:<28} {'ok' if why is None else 'FAILED: ' + why}")
            bad += why is not None
        for c in ERRORS:
            if args.only and not any(s in c["name"] for s in args.only):
                continue
            why = error_case(c, args.bin_dir, tmp)
            print(f"{c['name']:<28} {'rejected' if why is None else 'FAILED: ' + why}")
            bad += why is not None
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
