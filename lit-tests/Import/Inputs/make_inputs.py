#!/usr/bin/env python3
"""Writes the small ONNX models the Import lit tests read (run it from this
directory with the onnx package installed; the outputs are checked in)."""
import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT


def vi(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


def save(graph, name, opset=17):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), name)


# The Rosette README's example: T1 = Gemm(A, I1, C1); T2 = Add(T1, I2);
# T3 = Gemm(T2, I3, C3). I1, I2, I3 get erased on import.
save(helper.make_graph(
    [helper.make_node("Gemm", ["A", "I1", "C1"], ["T1"], name="gemm1"),
     helper.make_node("Add", ["T1", "I2"], ["T2"], name="add"),
     helper.make_node("Gemm", ["T2", "I3", "C3"], ["T3"], name="gemm2")],
    "rosette",
    [vi("A", [3, 4]), vi("C1", [3, 5]), vi("C3", [3, 7]),
     vi("I1", [4, 5]), vi("I2", [3, 5]), vi("I3", [5, 7])],
    [vi("T3", [3, 7])]), "rosette.onnx")

# Shapes that contradict each other: 'widen' claims (2, 4) for the result
# of negating a (2, 3) tensor.
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["Y"], name="first"),
     helper.make_node("Neg", ["Y"], ["W"], name="widen")],
    "contradiction", [vi("X", [2, 3])], [vi("W", [2, 4])],
    value_info=[vi("Y", [2, 3])]), "contradiction.onnx")

# A cycle: a -> b -> a.
save(helper.make_graph(
    [helper.make_node("Relu", ["X", ], ["P"], name="entry"),
     helper.make_node("Add", ["P", "R"], ["Q"], name="a"),
     helper.make_node("Relu", ["Q"], ["R"], name="b")],
    "cycle", [vi("X", [2])], [vi("Q", [2])]), "cycle.onnx")

# An initializer whose data does not match its dims.
bad = helper.make_tensor("W", F, [3], [1.0, 2.0, 3.0])
bad.dims[:] = [2, 3]
save(helper.make_graph(
    [helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
    "bad_initializer", [vi("X", [2, 3])], [vi("Y", [2, 3])], initializer=[bad]),
    "bad-initializer.onnx")

# An opset from the future.
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["Y"], name="relu")],
    "future", [vi("X", [2])], [vi("Y", [2])]), "future-opset.onnx", opset=99)

# An op the importer does not know, and an attribute it does not.
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["Y"], name="relu"),
     helper.make_node("Unique", ["Y"], ["Z"], name="uniq")],
    "unsupported", [vi("X", [2])], [vi("Z", [2])]), "unsupported-op.onnx")

# Truncated: the first half of a valid model.
with open("rosette.onnx", "rb") as f:
    data = f.read()
with open("truncated.onnx", "wb") as f:
    f.write(data[: len(data) // 2])

# A shape subgraph as exporters write attention's head split: the leading
# dims of a MatMul's result, read with Shape and Slice, concatenated with
# (2, 4) as Reshape's shape; and x.view(x.size(0), -1).
I64 = TensorProto.INT64


def ints(name, vals):
    return helper.make_tensor(name, I64, [len(vals)], vals)


save(helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["p"], name="proj"),
     helper.make_node("Shape", ["p"], ["s"], name="shape"),
     helper.make_node("Slice", ["s", "zero", "two"], ["lead"], name="lead"),
     helper.make_node("Concat", ["lead", "heads"], ["s4"], axis=0, name="cat"),
     helper.make_node("Reshape", ["p", "s4"], ["p4"], name="split"),
     helper.make_node("Transpose", ["p4"], ["t"], perm=[0, 2, 1, 3], name="swap"),
     helper.make_node("Shape", ["x"], ["sx"], name="shape_x"),
     helper.make_node("Gather", ["sx", "zero"], ["b"], axis=0, name="batch"),
     helper.make_node("Concat", ["b", "minus1"], ["flat"], axis=0, name="cat2"),
     helper.make_node("Reshape", ["x", "flat"], ["f"], name="view")],
    "shape_subgraph", [vi("x", ["batch", "seq", 8])],
    [vi("t", ["batch", 2, "seq", 4]), vi("f", ["batch", None])],
    initializer=[helper.make_tensor("w", F, [8, 8], [0.0] * 64),
                 ints("zero", [0]), ints("two", [2]), ints("heads", [2, 4]),
                 ints("minus1", [-1])]), "shape-subgraph.onnx")
