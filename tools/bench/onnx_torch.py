"""An ONNX graph run op by op in PyTorch: the GPU benchmark's peer for a
model when the device's onnxruntime has no CUDA provider (tools/bench/gpu.py).

Each node becomes the torch.nn.functional call PyTorch's own models make
(cuDNN for Conv, cuBLAS for Gemm), in eager mode: what a PyTorch user of
the same network gets. Initializers are uploaded once. Only the ops of the
benchmark's CNNs are known (Conv, BatchNormalization, Relu, Sum/Add/Mul,
MaxPool, AveragePool, GlobalAveragePool, Reshape, Flatten, Gemm, MatMul,
Softmax, Concat, Clip, Dropout, Identity); any other is an error naming it.
"""

import math

from onnx import helper, numpy_helper


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def split_pads(pads):
    """ONNX pads (begins then ends) as (symmetric padding, or None, and
    F.pad's list for the asymmetric case: last axis first)."""
    n = len(pads) // 2
    begins, ends = pads[:n], pads[n:]
    if list(begins) == list(ends):
        return list(begins), None
    flat = []
    for b, e in reversed(list(zip(begins, ends))):
        flat += [b, e]
    return [0] * n, flat


class OnnxTorch:
    """`OnnxTorch(model, torch, device)(*inputs)`: the graph's outputs."""

    def __init__(self, model, torch, device):
        self.torch, self.F = torch, torch.nn.functional
        g = model.graph
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 1)
        # Integer initializers (Reshape's shapes) stay on the host, so that
        # no op copies from the device (the graph can be captured).
        arrays = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        self.consts = {n: a if a.dtype.kind in "iu" else torch.from_numpy(a.copy()).to(device)
                       for n, a in arrays.items()}
        self.inputs = [i.name for i in g.input if i.name not in self.consts]
        self.outputs = [o.name for o in g.output]
        self.nodes = list(g.node)
        for n in self.nodes:
            if not hasattr(self, "op_" + n.op_type):
                raise ValueError(f"onnx_torch: no PyTorch form for op {n.op_type} ({n.name})")

    def __call__(self, *xs):
        env = dict(self.consts)
        env.update(zip(self.inputs, xs))
        for n in self.nodes:
            ins = [env[i] if i else None for i in n.input]
            outs = getattr(self, "op_" + n.op_type)(ins, attrs(n))
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            env.update(zip(n.output, outs))
        return [env[o] for o in self.outputs]

    def op_Conv(self, ins, a):
        x, w = ins[0], ins[1]
        b = ins[2] if len(ins) > 2 else None
        pad, flat = split_pads(a.get("pads", [0] * (2 * (w.dim() - 2))))
        if flat:
            x = self.F.pad(x, flat)
        conv = {3: self.F.conv1d, 4: self.F.conv2d, 5: self.F.conv3d}[w.dim()]
        return conv(x, w, b, stride=a.get("strides", 1), padding=pad,
                    dilation=a.get("dilations", 1), groups=a.get("group", 1))

    def op_BatchNormalization(self, ins, a):
        x, s, b, m, v = ins[:5]
        return self.F.batch_norm(x, m, v, s, b, training=False, eps=a.get("epsilon", 1e-5))

    def op_Relu(self, ins, a):
        return self.torch.relu(ins[0])

    def op_Sum(self, ins, a):
        y = ins[0]
        for x in ins[1:]:
            y = y + x
        return y

    def op_Add(self, ins, a):
        return ins[0] + ins[1]

    def op_Mul(self, ins, a):
        return ins[0] * ins[1]

    def op_MaxPool(self, ins, a):
        x = ins[0]
        k = a["kernel_shape"]
        pad, flat = split_pads(a.get("pads", [0] * (2 * len(k))))
        if flat:
            x = self.F.pad(x, flat, value=float("-inf"))
        pool = {1: self.F.max_pool1d, 2: self.F.max_pool2d, 3: self.F.max_pool3d}[len(k)]
        return pool(x, k, stride=a.get("strides", 1), padding=pad,
                    ceil_mode=bool(a.get("ceil_mode", 0)))

    def op_AveragePool(self, ins, a):
        x = ins[0]
        k = a["kernel_shape"]
        pad, flat = split_pads(a.get("pads", [0] * (2 * len(k))))
        include = bool(a.get("count_include_pad", 0))
        if flat:
            if not include:
                raise ValueError("onnx_torch: asymmetric AveragePool pads without count_include_pad")
            x = self.F.pad(x, flat)
        pool = {1: self.F.avg_pool1d, 2: self.F.avg_pool2d, 3: self.F.avg_pool3d}[len(k)]
        return pool(x, k, stride=a.get("strides", 1), padding=pad,
                    ceil_mode=bool(a.get("ceil_mode", 0)), count_include_pad=include)

    def op_GlobalAveragePool(self, ins, a):
        x = ins[0]
        return x.mean(dim=tuple(range(2, x.dim())), keepdim=True)

    def op_Reshape(self, ins, a):
        x, shape = ins[0], [int(d) for d in ins[1].tolist()]  # a host array
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
        return x.reshape(shape)

    def op_Flatten(self, ins, a):
        x = ins[0]
        axis = a.get("axis", 1) % max(1, x.dim())
        return x.reshape(math.prod(x.shape[:axis]), -1)

    def op_Gemm(self, ins, a):
        x, w = ins[0], ins[1]
        if a.get("transA", 0):
            x = x.t()
        if a.get("transB", 0):
            w = w.t()
        y = a.get("alpha", 1.0) * (x @ w)
        if len(ins) > 2 and ins[2] is not None:
            y = y + a.get("beta", 1.0) * ins[2]
        return y

    def op_MatMul(self, ins, a):
        return ins[0] @ ins[1]

    def op_Softmax(self, ins, a):
        x = ins[0]
        if self.opset >= 13:
            return self.torch.softmax(x, dim=a.get("axis", -1))
        # Before opset 13: the input as a matrix [prod(shape[:axis]), rest], axis 1 by default.
        axis = a.get("axis", 1) % max(1, x.dim())
        return self.torch.softmax(x.reshape(math.prod(x.shape[:axis]), -1), dim=-1).reshape(x.shape)

    def op_Concat(self, ins, a):
        return self.torch.cat(ins, dim=a["axis"])

    def op_Clip(self, ins, a):
        lo = ins[1] if len(ins) > 1 and ins[1] is not None else a.get("min")
        hi = ins[2] if len(ins) > 2 and ins[2] is not None else a.get("max")
        return self.torch.clamp(ins[0], min=lo, max=hi)

    def op_Dropout(self, ins, a):
        return ins[0]

    def op_Identity(self, ins, a):
        return ins[0]
