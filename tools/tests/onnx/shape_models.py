#!/usr/bin/env python3
"""Symbolic dimensions and shape computations (issue 40), against onnxruntime.

Each model is written here with onnx.helper the way exporters write it:
graph inputs with `dim_param`s (a dynamic batch, a dynamic sequence), and
shape subgraphs (`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`,
`Range` over a sequence length, `ConstantOfShape`, `Size`, `Equal`/`Where`
on shapes, a length cast to float and used as data, an `If` on a shape,
embeddings looked up at run-time ids). Each is imported
once by `ocannl-import-onnx`, then run by one `ocannl-run` process on
several input sets of different sizes (`--inputs` given once per set:
compiled once per distinct binding), and every output is compared with
onnxruntime's.

Usage: shape_models.py BIN_DIR [--only NAME ...]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(40)


def const(name, value):
    return h.make_node("Constant", [], [name], value=nh.from_array(np.array(value)))


def init(name, shape):
    return nh.from_array(RNG.standard_normal(shape).astype(np.float32), name)


def model(name, nodes, inputs, outputs, inits=()):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    onnx.checker.check_model(m, full_check=True)
    return m


def vi(name, dims, elem=T.FLOAT):
    return h.make_tensor_value_info(name, elem, dims)


def batch_view():
    """`x.view(x.size(0), -1)` after a conv: a dynamic batch."""
    nodes = [
        h.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c"], ["r"]),
        h.make_node("Shape", ["r"], ["s"]),
        const("i0", np.int64(0)),
        h.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        const("ax", np.array([0], np.int64)),
        h.make_node("Unsqueeze", ["b", "ax"], ["bu"]),
        const("m1", np.array([-1], np.int64)),
        h.make_node("Concat", ["bu", "m1"], ["shp"], axis=0),
        h.make_node("Reshape", ["r", "shp"], ["f"]),
        h.make_node("Gemm", ["f", "g"], ["y"], transB=1),
    ]
    m = model("batch_view", nodes, [vi("x", ["batch", 3, 6, 6])], [vi("y", ["batch", 10])],
              [init("w", (4, 3, 3, 3)), init("g", (10, 4 * 6 * 6))])
    return m, [[(1, 3, 6, 6)], [(5, 3, 6, 6)], [(1, 3, 6, 6)]]


def heads():
    """Attention's head split and merge on a dynamic batch and sequence:
    `h.view(*h.shape[:2], 2, 4).transpose(1, 2)`, then back with
    `Shape(x)`."""
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["p"]),
        h.make_node("Shape", ["p"], ["s"]),
        const("z", np.array([0], np.int64)),
        const("two", np.array([2], np.int64)),
        h.make_node("Slice", ["s", "z", "two"], ["lead"]),
        const("hd", np.array([2, 4], np.int64)),
        h.make_node("Concat", ["lead", "hd"], ["s4"], axis=0),
        h.make_node("Reshape", ["p", "s4"], ["p4"]),
        h.make_node("Transpose", ["p4"], ["t"], perm=[0, 2, 1, 3]),
        h.make_node("Softmax", ["t"], ["sm"], axis=-1),
        h.make_node("Transpose", ["sm"], ["u"], perm=[0, 2, 1, 3]),
        h.make_node("Shape", ["x"], ["sx"]),
        h.make_node("Reshape", ["u", "sx"], ["y"]),
    ]
    m = model("heads", nodes, [vi("x", ["batch", "seq", 8])], [vi("y", ["batch", "seq", 8])],
              [init("w", (8, 8))])
    return m, [[(2, 3, 8)], [(1, 7, 8)], [(3, 5, 8)]]


def positions():
    """Position ids `arange(seq)` plus the element count, and a
    ConstantOfShape of the input's shape."""
    nodes = [
        h.make_node("Shape", ["x"], ["s"]),
        const("i1", np.int64(1)),
        h.make_node("Gather", ["s", "i1"], ["n"], axis=0),
        const("zero", np.int64(0)),
        const("one", np.int64(1)),
        h.make_node("Range", ["zero", "n", "one"], ["pos"]),
        h.make_node("Size", ["x"], ["size"]),
        h.make_node("Add", ["pos", "size"], ["p"]),
        h.make_node("ConstantOfShape", ["s"], ["twos"],
                    value=nh.from_array(np.array([2.0], np.float32))),
        h.make_node("Mul", ["x", "twos"], ["y"]),
    ]
    m = model("positions", nodes, [vi("x", ["batch", "seq"])],
              [vi("y", ["batch", "seq"]), vi("p", ["seq"], T.INT64)])
    return m, [[(2, 3)], [(4, 9)]]


def mean_by_hand():
    """`x.sum(-1) / x.shape[-1]`: a length cast to float, used as data."""
    nodes = [
        h.make_node("ReduceSum", ["x", "ax"], ["s"], keepdims=0),
        h.make_node("Shape", ["x"], ["sh"]),
        const("last", np.int64(-1)),
        h.make_node("Gather", ["sh", "last"], ["n"], axis=0),
        h.make_node("Cast", ["n"], ["nf"], to=T.FLOAT),
        h.make_node("Div", ["s", "nf"], ["y"]),
    ]
    m = model("mean_by_hand", nodes, [vi("x", ["batch", "len"])], [vi("y", ["batch"])],
              [nh.from_array(np.array([-1], np.int64), "ax")])
    return m, [[(2, 5)], [(3, 11)]]


def reshape_guard():
    """PyTorch's guard for a 0 in a computed shape: `Where(Equal(shape, 0),
    ones, shape)`, then Reshape; and `Max` with 1."""
    nodes = [
        h.make_node("Shape", ["x"], ["sx"]),
        const("i0", np.array([0], np.int64)),
        h.make_node("Gather", ["sx", "i0"], ["b0"], axis=0),
        const("one", np.array([1], np.int64)),
        h.make_node("Max", ["b0", "one"], ["b"]),
        const("tail", np.array([-1, 1], np.int64)),
        h.make_node("Concat", ["b", "tail"], ["want"], axis=0),
        const("zero", np.array([0], np.int64)),
        h.make_node("Equal", ["want", "zero"], ["is0"]),
        const("ones", np.array([1, 1, 1], np.int64)),
        h.make_node("Where", ["is0", "ones", "want"], ["shp"]),
        h.make_node("Reshape", ["x", "shp"], ["y"]),
    ]
    m = model("reshape_guard", nodes, [vi("x", ["n", 2, 3])], [vi("y", ["n", 6, 1])])
    return m, [[(1, 2, 3)], [(4, 2, 3)]]


def embedding():
    """GPT-2's embeddings: token ids looked up at run time (`Gather` of a
    table at an int64 input, negative ids included), plus the positions'
    embeddings at `Range(0, seq)`."""
    nodes = [
        h.make_node("Gather", ["wte", "ids"], ["tok"]),
        h.make_node("Shape", ["ids"], ["s"]),
        const("i1", np.int64(1)),
        h.make_node("Gather", ["s", "i1"], ["n"], axis=0),
        const("zero", np.int64(0)),
        const("one", np.int64(1)),
        h.make_node("Range", ["zero", "n", "one"], ["pos"]),
        h.make_node("Gather", ["wpe", "pos"], ["pe"]),
        h.make_node("Add", ["tok", "pe"], ["y"]),
    ]
    m = model("embedding", nodes, [vi("ids", ["batch", "seq"], T.INT64)],
              [vi("y", ["batch", "seq", 8])], [init("wte", (50, 8)), init("wpe", (16, 8))])
    return m, [[(2, 3)], [(1, 16)], [(3, 5)]]


def if_on_shape():
    """An If whose condition is a shape computation (`x.shape[1] == 4`):
    folded at import, the chosen branch inlined."""
    x = vi("x", ["n", 4])
    then = h.make_graph([h.make_node("Neg", ["x"], ["a"])], "then", [], [vi("a", None)])
    other = h.make_graph([h.make_node("Relu", ["x"], ["b"])], "else", [], [vi("b", None)])
    nodes = [
        h.make_node("Shape", ["x"], ["s"]),
        const("i", np.int64(1)),
        h.make_node("Gather", ["s", "i"], ["d"]),
        const("four", np.int64(4)),
        h.make_node("Equal", ["d", "four"], ["c"]),
        h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
    ]
    m = model("if_on_shape", nodes, [x], [vi("y", ["n", 4])])
    return m, [[(3, 4)], [(6, 4)]]


MODELS = [batch_view, heads, positions, mean_by_hand, reshape_guard, embedding, if_on_shape]


def inputs_for(m, shapes, k):
    rng = np.random.default_rng(k)
    types = [i.type.tensor_type.elem_type for i in m.graph.input]
    return [rng.integers(-50, 50, s).astype(np.int64) if t == T.INT64
            else rng.standard_normal(s).astype(np.float32) for s, t in zip(shapes, types)]


def check(bin_dir, make, work):
    m, sets = make()
    name = make.__name__
    path = os.path.join(work, f"{name}.onnx")
    onnx.save(m, path)
    mlir = os.path.join(work, f"{name}.mlir")
    r = subprocess.run([os.path.join(bin_dir, "ocannl-import-onnx"), path, "-o", mlir],
                       capture_output=True, text=True)
    if r.returncode:
        return [f"{name}: import failed: {r.stderr.strip()}"]
    session = ort.InferenceSession(path)
    feeds = [i.name for i in session.get_inputs()]
    outs = [o.name for o in session.get_outputs()]
    args = [os.path.join(bin_dir, "ocannl-run"), mlir]
    expected = []
    for k, shapes in enumerate(sets):
        data = inputs_for(m, shapes, k)
        files = []
        for j, a in enumerate(data):
            files.append(os.path.join(work, f"{name}_in{k}_{j}.npy"))
            np.save(files[-1], a)
        expected.append(session.run(None, dict(zip(feeds, data))))
        args += ["--inputs", *files, "--outputs",
                 *[os.path.join(work, f"{name}_out{k}_{j}.npy") for j in range(len(outs))]]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        return [f"{name}: ocannl-run failed: {r.stderr.strip()}"]
    problems = []
    for k, ref in enumerate(expected):
        for j, want in enumerate(ref):
            got = np.load(os.path.join(work, f"{name}_out{k}_{j}.npy"))
            if got.shape != want.shape or got.dtype != want.dtype:
                problems.append(f"{name} set {k} output {j}: {got.dtype}{list(got.shape)}, "
                                f"onnxruntime {want.dtype}{list(want.shape)}")
            elif not np.allclose(got, want, rtol=1e-4, atol=1e-5):
                problems.append(f"{name} set {k} output {j}: max error {np.abs(got - want).max()}")
    sizes = ", ".join(str(s) for s in sets)
    status = "ok" if not problems else "FAILED"
    print(f"{name:14} {status:7} one import, one process, input sets {sizes}")
    return problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin_dir")
    p.add_argument("--only", nargs="*")
    a = p.parse_args()
    problems = []
    with tempfile.TemporaryDirectory() as work:
        for make in MODELS:
            if a.only and make.__name__ not in a.only:
                continue
            problems += check(a.bin_dir, make, work)
    for q in problems:
        print(q)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
