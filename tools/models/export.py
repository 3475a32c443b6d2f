#!/usr/bin/env python3
"""Writes the real-model suite (issue 40): small configurations of common
architectures exported by real exporters with seeded random weights.

Needs torch, torchvision, transformers and onnxscript (not the test
script): install them into a venv, about 6 GB with torch's CUDA
libraries, and run this from the repository root:

    python3 -m venv /tmp/torch-venv
    /tmp/torch-venv/bin/pip install torch torchvision transformers onnxscript onnx
    /tmp/torch-venv/bin/python tools/models/export.py tools/tests/onnx/real_models

Each model is `NAME.onnx` (with `NAME.onnx.data` beside it where the
exporter writes the weights outside the model: `torch.onnx.export(...,
dynamo=True)`, as it does for transformers' models) and `NAME.json`: the
exporter, the inputs (name, dtype, the shapes to run at: a model exported
with dynamic axes lists two) and the integer inputs' range.
`tools/tests/onnx/real_models.py` runs them against onnxruntime.
"""
import json
import os
import sys

import torch
import torchvision
from torch import nn

# The fast path of nn.MultiheadAttention has no ONNX export.
torch.backends.mha.set_fastpath_enabled(False)

OUT = sys.argv[1] if len(sys.argv) > 1 else "tools/tests/onnx/real_models"


def save(name, model, args, inputs, dynamic=None, dynamo=False, note=""):
    torch.manual_seed(0)
    model.eval()
    # Parameters a model initialises to zero (ViT's head, biases) would
    # make its outputs trivial to match: seeded random values instead.
    with torch.no_grad():
        for p in model.parameters():
            if p.abs().max() == 0:
                p.normal_(0.0, 0.5)
    path = os.path.join(OUT, f"{name}.onnx")
    for stale in (path, path + ".data"):
        if os.path.exists(stale):
            os.remove(stale)
    with torch.no_grad():
        if dynamo:
            torch.onnx.export(model, args, path, dynamo=True, input_names=[i["name"] for i in inputs],
                              external_data=True, optimize=True)
        else:
            torch.onnx.export(model, args, path, dynamo=False, opset_version=17,
                              input_names=[i["name"] for i in inputs], dynamic_axes=dynamic)
    meta = {
        "exporter": f"torch {torch.__version__} torch.onnx.export(dynamo={dynamo})",
        "inputs": inputs,
        "note": note,
    }
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    size = os.path.getsize(path) + (os.path.getsize(path + ".data") if os.path.exists(path + ".data") else 0)
    print(f"{name}: {size / 1e6:.2f} MB")


def image(name, shapes):
    return [{"name": name, "dtype": "float32", "shapes": shapes}]


class GroupedCNN(nn.Module):
    """ResNeXt-style blocks: grouped 3x3 convolutions, batch norm, a
    residual add, global pooling and a classifier; flattened as PyTorch
    writes `x.view(x.size(0), -1)`."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.block = nn.Sequential(
            nn.Conv2d(16, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, 1, 1, groups=4, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.stem(x)
        x = torch.relu(x + self.block(x))
        x = nn.functional.adaptive_avg_pool2d(x, 1)
        return self.head(x.view(x.size(0), -1))


class TinyDetector(nn.Module):
    """An FPN-style detector head: strided convolutions down, a transposed
    convolution and a nearest `Resize` (Upsample) up, lateral adds, and
    per-cell class and box outputs."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, 2, 1)
        self.c2 = nn.Conv2d(8, 16, 3, 2, 1)
        self.c3 = nn.Conv2d(16, 16, 3, 2, 1)
        self.up = nn.ConvTranspose2d(16, 16, 2, stride=2)
        self.lat = nn.Conv2d(8, 16, 1)
        self.cls = nn.Conv2d(16, 3, 3, 1, 1)
        self.box = nn.Conv2d(16, 4, 3, 1, 1)

    def forward(self, x):
        a = torch.relu(self.c1(x))
        b = torch.relu(self.c2(a))
        c = torch.relu(self.c3(b))
        p = self.up(c) + b
        p = nn.functional.interpolate(p, scale_factor=2.0, mode="nearest") + self.lat(a)
        return torch.sigmoid(self.cls(p)), self.box(p)


class Logits(nn.Module):
    """A transformers model's first output (GPT-2's logits, BERT's last
    hidden state), without the key-value cache."""

    def __init__(self, model, **options):
        super().__init__()
        self.model = model
        self.options = options

    def forward(self, ids):
        return self.model(input_ids=ids, **self.options)[0]


class Recurrent(nn.Module):
    """A GRU over a sequence, then a linear layer on its last state."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(y[:, -1])


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    m = torchvision.models.mobilenet_v3_small(width_mult=0.25, num_classes=10)
    save("mobilenet_v3_small", m, (torch.randn(1, 3, 64, 64),), image("x", [[1, 3, 64, 64]]),
         note="depthwise convolutions, squeeze-excite, hard-swish and hard-sigmoid (torchvision, width 0.25)")
    torch.manual_seed(0)
    save("grouped_cnn", GroupedCNN(), (torch.randn(2, 3, 32, 32),),
         image("x", [[2, 3, 32, 32], [5, 3, 32, 32]]), dynamic={"x": {0: "batch"}},
         note="grouped convolutions, a residual add, a dynamic batch flattened with x.view(x.size(0), -1)")
    torch.manual_seed(0)
    vit = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                               hidden_dim=32, mlp_dim=64, num_classes=10)
    save("vit", vit, (torch.randn(1, 3, 32, 32),), image("x", [[1, 3, 32, 32]]),
         note="torchvision's VisionTransformer, 2 layers, hidden 32")
    torch.manual_seed(0)
    save("detector", TinyDetector(), (torch.randn(1, 3, 64, 64),), image("x", [[1, 3, 64, 64]]),
         note="ConvTranspose and a nearest Resize (FPN-style)")
    torch.manual_seed(0)
    save("gru", Recurrent(), (torch.randn(2, 6, 8),), image("x", [[2, 6, 8]]),
         note="a GRU over 6 steps")
    from transformers import BertConfig, BertModel, GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=100, n_positions=32))
    ids = [{"name": "input_ids", "dtype": "int64", "shapes": [[1, 8]], "high": 100}]
    save("gpt2", Logits(gpt2, use_cache=False), (torch.randint(0, 100, (1, 8)),), ids, dynamo=True,
         note="transformers' GPT-2, 2 layers, hidden 32, vocabulary 100")
    torch.manual_seed(0)
    bert = BertModel(BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=64, vocab_size=100, max_position_embeddings=32))
    save("bert", Logits(bert), (torch.randint(0, 100, (1, 8)),), ids, dynamo=True,
         note="transformers' BERT, 2 layers, hidden 32, vocabulary 100")


if __name__ == "__main__":
    main()
