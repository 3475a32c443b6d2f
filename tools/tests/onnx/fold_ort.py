#!/usr/bin/env python3
"""Per-channel affine ops folded into convolutions and matrix products at
import (onnx/src/translate/fold.rs) against onnxruntime with its own graph
optimisations off (so it computes each node as written): Conv (1-D, 2-D,
3-D, grouped, strided, with and without bias), ConvTranspose (grouped),
Gemm (transB either way, alpha, beta, C of one row or a full matrix) and
MatMul (2-D and batched) followed by BatchNormalization, a per-channel Mul
and an Add, alone or chained, their parameters initializers or Constant
nodes; and chains that must not fold (a second reader, a graph output,
weights that are graph inputs, a constant along another axis, f16).

Each case imports the model with `ocannl-import-onnx`, checks which nodes
folded (a folded node has no op of its own: its name is in no location;
a kept one's is), runs it with `ocannl-run` and compares every output with
onnxruntime's (rtol 1e-4, atol 1e-5; f16 looser).

Every model runs at one thread and at two. The wide convolutions also
check their weights laid out in micro-panels when compiling
(passes/src/lower_to_affine/cpu/blocked.rs).

Usage: fold_ort.py BIN_DIR [--only SUBSTRING ...]
Exit 1 when any case fails.
"""
import argparse
import sys
import tempfile

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from ort_harness import compare, import_model, run_ocannl

ort.set_default_logger_severity(3)
F = np.float32
rng = np.random.default_rng(41)


def r(*sh, dtype=F):
    return rng.standard_normal(sh).astype(dtype)


def bn_params(prefix, c, dtype=F):
    """Scale, bias, mean and a positive variance of `c` channels."""
    return {f"{prefix}_s": r(c, dtype=dtype), f"{prefix}_b": r(c, dtype=dtype),
            f"{prefix}_m": r(c, dtype=dtype),
            f"{prefix}_v": rng.uniform(0.5, 1.5, c).astype(dtype)}


def bn(name, x, out, eps=1e-3):
    p = [f"{name}_{k}" for k in "sbmv"]
    return helper.make_node("BatchNormalization", [x, *p], [out], epsilon=eps, name=name)


def node(op, ins, out, name, **attrs):
    return helper.make_node(op, ins, [out], name=name, **attrs)


def case(name, nodes, inputs, inits, outputs, folded, kept, const_nodes=(), tol=(1e-4, 1e-5)):
    """`inputs`/`inits`: {name: array}; `const_nodes`: initializers given as
    Constant nodes instead; `folded`/`kept`: node names that must have no
    op of their own / must keep theirs."""
    return dict(name=name, nodes=nodes, inputs=inputs, inits=inits, outputs=outputs,
                folded=folded, kept=kept, const_nodes=set(const_nodes), tol=tol)


def conv_cases():
    x4, x3, x5 = r(2, 3, 8, 8), r(2, 3, 10), r(1, 2, 4, 5, 6)
    return [
        case("conv_bn", [node("Conv", ["x", "w", "b"], "c", "conv", pads=[1, 1, 1, 1]),
                         bn("bn", "c", "y")],
             {"x": x4}, {"w": r(4, 3, 3, 3), "b": r(4), **bn_params("bn", 4)}, ["y"],
             ["bn"], ["conv"]),
        # Wide enough for the register block: its constant weights are laid
        # out in micro-panels when compiling (cpu/blocked.rs), the last one
        # padded (40 output channels), once folded.
        case("conv_bn_wide", [node("Conv", ["x", "w", "b"], "c", "conv", pads=[1, 1, 1, 1]),
                              bn("bn", "c", "y"), node("Relu", ["y"], "z", "relu")],
             {"x": r(1, 24, 10, 9)}, {"w": r(40, 24, 3, 3), "b": r(40), **bn_params("bn", 40)},
             ["z"], ["bn"], ["conv", "relu"]),
        case("conv_wide_strided", [node("Conv", ["x", "w"], "y", "conv", strides=[2, 1],
                                        pads=[0, 1, 2, 0])],
             {"x": r(2, 16, 11, 12)}, {"w": r(72, 16, 3, 2)}, ["y"], [], ["conv"]),
        case("conv_bn_grouped_strided",
             [node("Conv", ["x", "w"], "c", "conv", group=3, strides=[2, 2]),
              bn("bn", "c", "y"), node("Relu", ["y"], "z", "relu")],
             {"x": x4}, {"w": r(6, 1, 3, 3), **bn_params("bn", 6)}, ["z"], ["bn"],
             ["conv", "relu"]),
        case("conv_bn_constant_nodes", [node("Conv", ["x", "w", "b"], "c", "conv"),
                                        bn("bn", "c", "y")],
             {"x": x4}, {"w": r(5, 3, 1, 1), "b": r(5), **bn_params("bn", 5)}, ["y"],
             ["bn"], ["conv"], const_nodes=["w", "b", "bn_s", "bn_v"]),
        case("conv_mul_add", [node("Conv", ["x", "w"], "c", "conv"),
                              node("Mul", ["c", "k"], "d", "mul"),
                              node("Add", ["a", "d"], "y", "add")],
             {"x": x4}, {"w": r(4, 3, 3, 3), "k": r(4, 1, 1), "a": r(1, 4, 1, 1)}, ["y"],
             ["mul", "add"], ["conv"]),
        case("conv_bn_mul_add_chain",
             [node("Conv", ["x", "w", "b"], "c", "conv", pads=[0, 1, 0, 1]),
              bn("bn", "c", "d"), node("Mul", ["d", "k"], "e", "mul"),
              node("Add", ["e", "a"], "y", "add")],
             {"x": x4}, {"w": r(4, 3, 2, 3), "b": r(4), **bn_params("bn", 4), "k": r(1),
                         "a": r(4, 1, 1)}, ["y"], ["bn", "mul", "add"], ["conv"]),
        case("conv1d_bn_mul", [node("Conv", ["x", "w"], "c", "conv", dilations=[2]),
                               bn("bn", "c", "d"), node("Mul", ["d", "k"], "y", "mul")],
             {"x": x3}, {"w": r(4, 3, 3), **bn_params("bn", 4), "k": r(4, 1)}, ["y"],
             ["bn", "mul"], ["conv"]),
        case("conv3d_bn", [node("Conv", ["x", "w", "b"], "c", "conv"), bn("bn", "c", "y")],
             {"x": x5}, {"w": r(3, 2, 2, 2, 2), "b": r(3), **bn_params("bn", 3)}, ["y"],
             ["bn"], ["conv"]),
        case("convtranspose_bn", [node("ConvTranspose", ["x", "w", "b"], "c", "convt",
                                       strides=[2, 2]), bn("bn", "c", "y")],
             {"x": x4}, {"w": r(3, 4, 3, 3), "b": r(4), **bn_params("bn", 4)}, ["y"],
             ["bn"], ["convt"]),
        case("convtranspose_grouped_mul_add",
             [node("ConvTranspose", ["x", "w"], "c", "convt", group=3, pads=[1, 1, 1, 1]),
              node("Mul", ["c", "k"], "d", "mul"), node("Add", ["d", "a"], "y", "add")],
             {"x": x4}, {"w": r(3, 2, 3, 3), "k": r(6, 1, 1), "a": r(6, 1, 1)}, ["y"],
             ["mul", "add"], ["convt"]),
    ]


def product_cases():
    a, x3 = r(5, 6), r(2, 5, 6)
    return [
        case("gemm_bn", [node("Gemm", ["a", "w", "cc"], "c", "gemm", alpha=0.5, beta=2.0),
                         bn("bn", "c", "y")],
             {"a": a}, {"w": r(6, 4), "cc": r(4), **bn_params("bn", 4)}, ["y"], ["bn"],
             ["gemm"]),
        case("gemm_transb_bn", [node("Gemm", ["a", "w"], "c", "gemm", transB=1),
                                bn("bn", "c", "y")],
             {"a": a}, {"w": r(4, 6), **bn_params("bn", 4)}, ["y"], ["bn"], ["gemm"]),
        case("gemm_full_c_mul_add",
             [node("Gemm", ["a", "w", "cc"], "c", "gemm", transA=1, beta=0.5),
              node("Mul", ["c", "k"], "d", "mul"), node("Add", ["d", "t"], "y", "add")],
             {"a": r(6, 5)}, {"w": r(6, 4), "cc": r(5, 4), "k": r(4), "t": r(1, 4)}, ["y"],
             ["mul", "add"], ["gemm"]),
        case("gemm_column_c_bn", [node("Gemm", ["a", "w", "cc"], "c", "gemm"),
                                  bn("bn", "c", "y")],
             {"a": a}, {"w": r(6, 4), "cc": r(5, 1), **bn_params("bn", 4)}, ["y"], ["bn"],
             ["gemm"]),
        case("matmul_bn", [node("MatMul", ["a", "w"], "c", "mm"), bn("bn", "c", "y")],
             {"a": a}, {"w": r(6, 4), **bn_params("bn", 4)}, ["y"], ["bn"], ["mm"]),
        case("matmul_batched_mul_add", [node("MatMul", ["x", "w"], "c", "mm"),
                                        node("Mul", ["k", "c"], "d", "mul"),
                                        node("Add", ["d", "t"], "y", "add")],
             {"x": x3}, {"w": r(6, 4), "k": r(4), "t": r(4)}, ["y"], ["mul", "add"], ["mm"]),
        case("matmul_mul_only", [node("MatMul", ["x", "w"], "c", "mm"),
                                 node("Mul", ["c", "k"], "y", "mul")],
             {"x": x3}, {"w": r(6, 4), "k": r(4)}, ["y"], ["mul"], ["mm"]),
    ]


def kept_cases():
    x4 = r(2, 3, 8, 8)
    p = {"w": r(4, 3, 3, 3), **bn_params("bn", 4)}
    return [
        case("keep_second_reader", [node("Conv", ["x", "w"], "c", "conv"),
                                    bn("bn", "c", "y"), node("Relu", ["c"], "z", "relu")],
             {"x": x4}, p, ["y", "z"], [], ["conv", "bn", "relu"]),
        case("keep_graph_output", [node("Conv", ["x", "w"], "c", "conv"),
                                   bn("bn", "c", "y")],
             {"x": x4}, p, ["y", "c"], [], ["conv", "bn"]),
        case("keep_weights_as_input", [node("Conv", ["x", "w"], "c", "conv"),
                                       bn("bn", "c", "y")],
             {"x": x4, "w": p["w"]}, bn_params("bn", 4), ["y"], [], ["conv", "bn"]),
        case("keep_mul_along_width", [node("Conv", ["x", "w"], "c", "conv"),
                                      node("Mul", ["c", "k"], "y", "mul")],
             {"x": x4}, {"w": p["w"], "k": r(1, 1, 1, 6)}, ["y"], [], ["conv", "mul"]),
        case("keep_matmul_bn_rank_3", [node("MatMul", ["x", "w"], "c", "mm"),
                                       bn("bn", "c", "y")],
             {"x": r(2, 5, 6)}, {"w": r(6, 4), **bn_params("bn", 5)}, ["y"], [],
             ["mm", "bn"]),
        case("keep_f16", [node("Conv", ["x", "w"], "c", "conv"), bn("bn", "c", "y")],
             {"x": x4.astype(np.float16)},
             {"w": p["w"].astype(np.float16), **bn_params("bn", 4, dtype=np.float16)}, ["y"],
             [], ["conv", "bn"], tol=(2e-2, 2e-2)),
    ]


def elem(a):
    return {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
            np.dtype(np.float16): TensorProto.FLOAT16}[a.dtype]


def model_of(c):
    nodes, inits = [], []
    for n, a in c["inits"].items():
        if n in c["const_nodes"]:
            nodes.append(helper.make_node("Constant", [], [n], value=numpy_helper.from_array(a),
                                          name=f"const_{n}"))
        else:
            inits.append(numpy_helper.from_array(a, n))
    ins = [helper.make_tensor_value_info(n, elem(a), a.shape) for n, a in c["inputs"].items()]
    dtype = next(iter(c["inputs"].values()))
    outs = [helper.make_tensor_value_info(o, elem(dtype), None) for o in c["outputs"]]
    g = helper.make_graph(nodes + c["nodes"], c["name"], ins, outs, initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def run_case(c, bin_dir, tmp):
    m = model_of(c)
    mlir, res = import_model(bin_dir, m, tmp)
    if res.returncode:
        return f"import: {res.stderr.strip()[-400:]}"
    text = open(mlir).read()
    for n in c["folded"]:
        if f"node '{n}' (" in text:
            return f"'{n}' is not folded"
    for n in c["kept"]:
        if f"node '{n}' (" not in text:
            return f"'{n}' has no op of its own"
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    want = sess.run(None, c["inputs"])
    rtol, atol = c["tol"]
    # At one thread and at two (the planner splits wide products into one
    # tile per thread).
    for threads in (1, 2):
        gots, why = run_ocannl(bin_dir, mlir, list(c["inputs"].values()), len(want), tmp, threads)
        why = why or compare(c["outputs"], gots, want, rtol, atol)
        if why:
            return f"{threads} thread(s): {why}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in conv_cases() + product_cases() + kept_cases():
            if args.only and not any(s in c["name"] for s in args.only):
                continue
            why = run_case(c, args.bin_dir, tmp)
            print(f"{c['name']:<32} {'ok' if why is None else 'FAILED: ' + why}", flush=True)
            bad += why is not None
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
