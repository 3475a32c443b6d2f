"""The ONNX wheel's light models with seeded random weights: what
tools/tests/onnx/light.py and tools/bench/onnx_models.py share. Importing
this module has no side effects (no argv, no subprocess).

The light models ship `ConstantOfShape` fills for their weights (which
make their shipped output a uniform softmax); `randomized` replaces them
with seeded random arrays, either as graph inputs (light.py feeds them to
both runners) or as initializers (the benchmark: weights in the model, as
users ship them).
"""
import os

import numpy as np
import onnx
from onnx import helper, numpy_helper

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/light")


def dummy(vi):
    """ONNX's runner input (`generate_dummy_data(seed=0, random=False)`):
    0, 1/n, 2/n, ... in the value info's shape (unknown dimensions 1)."""
    shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in vi.type.tensor_type.shape.dim)
    n = int(np.prod(shape))
    return (np.arange(n).reshape(shape) / n).astype(np.float32)


def random_fills(g, rng):
    """{fill output: seeded random array} for each ConstantOfShape of `g`
    (BatchNormalization variances in [0.5, 1.5), the rest normal / sqrt(fan-in))."""
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    variances = {n.input[4] for n in g.node if n.op_type == "BatchNormalization"}
    arrays = {}
    for n in g.node:
        if n.op_type != "ConstantOfShape":
            continue
        shape = tuple(int(d) for d in consts[n.input[0]])
        if n.output[0] in variances:
            a = rng.uniform(0.5, 1.5, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            a = rng.standard_normal(shape) / np.sqrt(fan_in)
        arrays[n.output[0]] = a.astype(np.float32)
    return arrays


def randomized(model, rng, as_initializers=False, logits=True):
    """ConstantOfShape fills → random weights: graph inputs (default) or
    initializers (`as_initializers`; then no initializer is also listed
    as a graph input, so both runners may fold them). With `logits`, the
    softmax's input becomes an extra output. Returns (model, {name: array})
    where the arrays are the fills' (inputs or initializers)."""
    g = model.graph
    arrays = random_fills(g, rng)
    names = set(arrays)
    keep = [n for n in g.node if n.op_type != "ConstantOfShape"]
    del g.node[:]
    g.node.extend(keep)
    # The fills' shape constants go; the fills become inputs or initializers
    # (replacing the inputs listed for them, if any).
    inputs = [i for i in g.input if i.name not in names]
    del g.input[:]
    g.input.extend(inputs)
    for name, a in arrays.items():
        if as_initializers:
            g.initializer.append(numpy_helper.from_array(a, name))
        else:
            g.input.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, a.shape))
    used = {i for n in g.node for i in n.input}
    inits = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(inits)
    outputs = {o.name for o in g.output}
    drop = {t.name for t in inits} if as_initializers else set()
    inputs = [i for i in g.input if (i.name in used or i.name in outputs) and i.name not in drop]
    del g.input[:]
    g.input.extend(inputs)
    if as_initializers and model.ir_version < 4:
        model.ir_version = 4  # initializers need not be graph inputs from IR 4 on
    soft = [n for n in g.node if n.op_type == "Softmax"]
    if logits and soft:
        g.output.append(helper.make_empty_tensor_value_info(soft[-1].input[0]))
    return model, arrays
