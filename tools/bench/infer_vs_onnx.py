#!/usr/bin/env python3
"""Shape inference, ocannl-opt's `ocannl-infer-shapes` against ONNX's
`onnx.shape_inference.infer_shapes`, on GPT-2-like decoder stacks of L layers.

Both sides get the same pre-LN decoder layer, repeated L times on an input of
batch 8, sequence 128, width 768, 12 heads of 64 (MLP width 3072):

    h = LN1(x); q, k, v = h Wq + bq, h Wk + bk, h Wv + bv (split into heads)
    a = softmax(q k^T / 8) v (heads merged); x = x + (a Wo + bo)
    h = LN2(x); x = x + (gelu(h W1 + b1) W2 + b2)

- ONNX (opset 20): x [8, 128, 768] and all 16 weights of a layer are graph
  inputs with their full shapes (no weight data, so the model stays small);
  the Reshape targets and the scale are tiny shared initializers. A layer is
  29 nodes: LayerNormalization, 3 x (MatMul, Add, Reshape, Transpose),
  MatMul, Div, Softmax, MatMul, Transpose, Reshape, MatMul, Add, Add,
  LayerNormalization, MatMul, Add, Gelu, MatMul, Add, Add. Timed:
  `infer_shapes(model, strict_mode=True)` (C++, on the in-memory ModelProto,
  value_info cleared first).
- ocannl: one `func.func` whose weights are arguments of unknown or partly
  known shape, the OCANNL way, inferred by the pass: Q/K/V weights
  `...->12,64` (the head split is in the weight's output row, so there is
  no Reshape/Transpose), every other weight and bias `...->...` or `...`
  (Wo and W2 entirely backward, from the residual adds), W1 `...->3072`. The
  sequence is the input row of x, `8|128->768`, as in the "transformer"
  workload of shape/benches/inference.rs, whose op structure this follows
  (attention einsums over row variables). A layer is 39 ops, the ONNX
  nodes spelt out as the ONNX importer does: LayerNormalization 9 (sum,
  scale, sub, sum of squares, scale, add eps, sqrt, div, gain-and-bias
  einsum), Softmax 5 (max, sub, exp, sum, div), Gelu 5 (mul, erf, add,
  mul, mul), each MatMul+Add(+Reshape+Transpose) one `ocannl.fma`, the
  attention MatMuls one einsum each, Div a mul. Every result type is
  `...|...->...`.

Timed (best of --repeat): the pass alone, from `--mlir-timing` (its wall
time; the report also splits out parsing and printing), and the whole
`ocannl-opt FILE -p 'builtin.module(ocannl-infer-shapes)' -o /dev/null`
process, twice: on the text file, and on the same module as MLIR bytecode
written back as bytecode (`--emit-bytecode`; column `bc ms`). ONNX's
`infer_shapes` also reads and writes a binary model (the Python API
serialises the ModelProto for the C++ inference and parses its result), so
bytecode is the like-for-like form; the goal line judges the text file. A line
before the table gives the floor under every process time: the same command
on an empty module (loading the binary and registering every upstream dialect
and pass, as mlir-opt does). The table shows per L: ocannl ops and ms, ONNX nodes and ms, the
throughput ratios (our ops/s over ONNX nodes/s, for the pass and the whole
process; goals: pass >= 3x, process >= 1x) and, since one layer is 39 ops
against 29 nodes, the same-model ratios (ONNX ms over ours). Before timing,
a run checks that the pass infers the weights' shapes (layers 0 and L-1).

A second table bounds the process goal from below, with nothing of ours in
it: stock MLIR 22's parser (tools/bench/mlir_parse_floor.cpp, built here with
g++ against /usr/lib/llvm-22) reads the same module with every `!ocannl.tensor`
replaced by the builtin `tensor<*xf32>` and the ops unregistered (no IRDL
dialect, no verifier of ours, no pass, no process start-up), as text and as
bytecode: a fresh process's first context, parse and print (best over
several processes), and a later parse of the text in the same process
(caches warm). Context + parse + print, as a ratio, is the most any process
that reads and writes the module with MLIR could reach against ONNX,
however fast everything else were (--no-floor skips it).

    .onnx-venv/bin/python tools/bench/infer_vs_onnx.py --bin-dir target/release
        [--layers 12,48,400] [--repeat 3] [--keep DIR] [--solver] [--no-floor]

For the solver alone (no MLIR parsing or printing), --solver prints the
command of the Rust benchmark: cargo bench -p ocannl-shape --bench inference
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import TensorProto, helper

BATCH, SEQ, D, HEADS, MLP = 8, 128, 768, 12, 3072
DH = D // HEADS
OPSET = 20
PASS = "ocannl-infer-shapes"
SOLVER_CMD = "cargo bench -p ocannl-shape --bench inference -- transformer"

# ---------------------------------------------------------------- ONNX side


def onnx_model(layers):
    """The decoder stack as an ONNX ModelProto; returns (model, nodes)."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    inputs = [helper.make_tensor_value_info("x", f32, [BATCH, SEQ, D])]
    inits = [
        helper.make_tensor("heads_shape", i64, [4], [BATCH, SEQ, HEADS, DH]),
        helper.make_tensor("model_shape", i64, [3], [BATCH, SEQ, D]),
        helper.make_tensor("scale", f32, [], [float(DH) ** 0.5]),
    ]
    nodes = []

    def weight(name, shape):
        inputs.append(helper.make_tensor_value_info(name, f32, shape))
        return name

    def node(op, ins, name, **attrs):
        nodes.append(helper.make_node(op, ins, [name], name=name, **attrs))
        return name

    def linear(h, p, n_in, n_out):
        m = node("MatMul", [h, weight(f"{p}_w", [n_in, n_out])], f"{p}_mm")
        return node("Add", [m, weight(f"{p}_b", [n_out])], f"{p}_out")

    def layer_norm(h, p):
        return node("LayerNormalization", [h, weight(f"{p}_g", [D]), weight(f"{p}_b", [D])],
                    f"{p}_out", axis=-1, epsilon=1e-5)

    x = "x"
    for i in range(layers):
        p = f"l{i}"
        h = layer_norm(x, f"{p}_ln1")
        heads = {}
        for t, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            lin = linear(h, f"{p}_{t}", D, D)
            r = node("Reshape", [lin, "heads_shape"], f"{p}_{t}_split")
            heads[t] = node("Transpose", [r], f"{p}_{t}_heads", perm=perm)
        s = node("MatMul", [heads["q"], heads["k"]], f"{p}_scores")
        s = node("Div", [s, "scale"], f"{p}_scaled")
        pr = node("Softmax", [s], f"{p}_probs", axis=-1)
        a = node("MatMul", [pr, heads["v"]], f"{p}_attend")
        a = node("Transpose", [a], f"{p}_merge_t", perm=[0, 2, 1, 3])
        a = node("Reshape", [a, "model_shape"], f"{p}_merged")
        o = linear(a, f"{p}_o", D, D)
        x = node("Add", [x, o], f"{p}_res1")
        h = layer_norm(x, f"{p}_ln2")
        u = node("Gelu", [linear(h, f"{p}_up", D, MLP)], f"{p}_gelu")
        x = node("Add", [x, linear(u, f"{p}_down", MLP, D)], f"{p}_res2")
    out = helper.make_tensor_value_info(x, f32, [BATCH, SEQ, D])
    graph = helper.make_graph(nodes, "gpt2_like", inputs, [out], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    return model, len(nodes)


def time_onnx(model, repeat):
    """Best seconds of `repeat` strict shape inferences, and the result."""
    best, inferred = None, None
    for _ in range(repeat):
        m = onnx.ModelProto()
        m.CopyFrom(model)
        del m.graph.value_info[:]
        start = time.perf_counter()
        inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
        secs = time.perf_counter() - start
        best = secs if best is None else min(best, secs)
    return best, inferred


# -------------------------------------------------------------- ocannl side

OPEN = '!ocannl.tensor<f32, "...|...->...">'
SCALAR = '!ocannl.tensor<f32, "">'


def ty(spec):
    return f'!ocannl.tensor<f32, "{spec}">'


# The weight arguments of one layer: (name, spec). Q/K/V fix the head split
# in their output row; everything else is inferred.
WEIGHTS = [
    ("ln1_g", "..."), ("ln1_b", "..."),
    ("wq", "...->12,64"), ("bq", "..."),
    ("wk", "...->12,64"), ("bk", "..."),
    ("wv", "...->12,64"), ("bv", "..."),
    ("wo", "...->..."), ("bo", "..."),
    ("ln2_g", "..."), ("ln2_b", "..."),
    ("w1", f"...->{MLP}"), ("b1", "..."),
    ("w2", "...->..."), ("b2", "..."),
]
assert WEIGHTS[2][1] == f"...->{HEADS},{DH}"

# What the pass must infer for them.
EXPECTED = {
    "ln1_g": f"{D}", "ln1_b": f"{D}",
    "wq": f"{D}->{HEADS},{DH}", "bq": f"{HEADS},{DH}",
    "wk": f"{D}->{HEADS},{DH}", "bk": f"{HEADS},{DH}",
    "wv": f"{D}->{HEADS},{DH}", "bv": f"{HEADS},{DH}",
    "wo": f"{HEADS},{DH}->{D}", "bo": f"{D}",
    "ln2_g": f"{D}", "ln2_b": f"{D}",
    "w1": f"{D}->{MLP}", "b1": f"{MLP}",
    "w2": f"{MLP}->{D}", "b2": f"{D}",
}

# (name, value): scalar constants shared by every layer.
CONSTANTS = [("inv_d", 1.0 / D), ("eps", 1e-5), ("inv_scale", 1.0 / DH ** 0.5),
             ("inv_sqrt2", 0.5 ** 0.5), ("one", 1.0), ("half", 0.5)]


class Func:
    """Writes one func.func, op by op, with every result `...|...->...`."""

    def __init__(self):
        self.lines, self.ops, self.n, self.types = [], 0, 0, {}

    def op(self, name, operands, attrs=""):
        res = f"%v{self.n}"
        self.n += 1
        self.ops += 1
        ins = ", ".join(operands)
        tys = ", ".join(self.types[o] for o in operands)
        self.lines.append(f'  {res} = "ocannl.{name}"({ins}){attrs} : ({tys}) -> {OPEN}')
        self.types[res] = OPEN
        return res

    def einsum(self, spec, operands, accum=None):
        extra = f', accum = "{accum}"' if accum else ""
        return self.op("einsum", operands, f' {{spec = "{spec}"{extra}}}')


def ocannl_func(layers):
    """The decoder stack as ocannl MLIR; returns (text, ops)."""
    f = Func()
    args = [("%x", ty(f"{BATCH}|{SEQ}->{D}"))]
    for i in range(layers):
        args += [(f"%l{i}_{n}", ty(s)) for n, s in WEIGHTS]
    f.types.update(args)
    for name, value in CONSTANTS:
        f.lines.append(f'  %{name} = "ocannl.constant"() {{value = {value:.9e} : f32}} : () -> {SCALAR}')
        f.types[f"%{name}"] = SCALAR
        f.ops += 1

    def layer_norm(x, g, b):
        mean = f.op("mul", [f.einsum("...|s->d => ...|s->", [x]), "%inv_d"])
        c = f.op("sub", [x, mean])
        var = f.op("mul", [f.einsum("...|s->d; ...|s->d => ...|s->", [c, c]), "%inv_d"])
        sd = f.op("sqrt", [f.op("add", [var, "%eps"])])
        n = f.op("div", [c, sd])
        return f.einsum("...|s->d; d; d => ...|s->d", [n, g, b])

    x = "%x"
    for i in range(layers):
        w = {n: f"%l{i}_{n}" for n, _ in WEIGHTS}
        h = layer_norm(x, w["ln1_g"], w["ln1_b"])
        q, k, v = (f.op("fma", [w[f"w{t}"], h, w[f"b{t}"]]) for t in "qkv")
        # Scores: batch `...`, queries `s`, keys `t`, heads `h`, head width
        # `e`; the query axis joins the batch row so that softmax over the
        # keys (the input row) broadcasts from the end.
        s = f.op("mul", [f.einsum("...|s->h,e; ...|t->h,e => ...,s|t->h", [q, k]), "%inv_scale"])
        m = f.einsum("...|t->h => ...|h", [s], accum="max")
        e = f.op("exp", [f.op("sub", [s, m])])
        p = f.op("div", [e, f.einsum("...|t->h => ...|h", [e])])
        a = f.einsum("...,s|t->h; ...|t->h,e => ...|s->h,e", [p, v])
        x = f.op("add", [x, f.op("fma", [w["wo"], a, w["bo"]])])
        h = layer_norm(x, w["ln2_g"], w["ln2_b"])
        u = f.op("fma", [w["w1"], h, w["b1"]])
        t = f.op("add", [f.op("erf", [f.op("mul", [u, "%inv_sqrt2"])]), "%one"])
        g = f.op("mul", [f.op("mul", [u, "%half"]), t])
        x = f.op("add", [x, f.op("fma", [w["w2"], g, w["b2"]])])
    sig = ", ".join(f"{n}: {t}" for n, t in args)
    text = (f"func.func @gpt2_like({sig}) -> {OPEN} {{\n" + "\n".join(f.lines)
            + f"\n  return {x} : {OPEN}\n}}\n")
    return text, f.ops


def run_opt(opt, path, extra, out=os.devnull):
    cmd = [opt, path, "-p", f"builtin.module({PASS})", "-o", out, *extra]
    start = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    secs = time.perf_counter() - start
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace")
        sys.exit(f"infer_vs_onnx.py: ocannl-opt failed on {path}:\n{err[:2000]}")
    return secs, r.stderr.decode(errors="replace")


def timing_report(text):
    """{row name: wall seconds} from a --mlir-timing text report."""
    rows = {}
    for m in re.finditer(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.+?)\s*$", text, re.M):
        rows[m.group(2)] = float(m.group(1))
    if PASS not in rows:
        sys.exit(f"infer_vs_onnx.py: no '{PASS}' row in the --mlir-timing report:\n{text[:2000]}")
    return rows


def check_weights(opt, path, layers, d):
    """Runs the pass once, printing, and checks layers 0 and L-1's weights."""
    out = os.path.join(d, "inferred.mlir")
    run_opt(opt, path, [], out)
    with open(out) as fh:
        sig = next((l for l in fh if "func.func @gpt2_like(" in l), "")
    got = re.findall(r'%arg\d+: !ocannl\.tensor<f32, "([^"]*)">', sig)
    if len(got) != 1 + len(WEIGHTS) * layers:
        sys.exit(f"infer_vs_onnx.py: {len(got)} arguments in the inferred signature of {path}")
    for i in {0, layers - 1}:
        for j, (n, _) in enumerate(WEIGHTS):
            shape = got[1 + i * len(WEIGHTS) + j]
            if shape != EXPECTED[n]:
                sys.exit(f"infer_vs_onnx.py: layer {i} {n}: inferred {shape!r}, "
                         f"expected {EXPECTED[n]!r} ({out})")
    os.remove(out)


def to_bytecode(opt, path, *extra):
    """The module of `path` as MLIR bytecode (no pass run), next to it,
    written by the `mlir-opt`-like tool `opt` (given `extra` flags)."""
    out = path + "bc"
    r = subprocess.run([opt, path, *extra, "--emit-bytecode", "-o", out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"infer_vs_onnx.py: {os.path.basename(opt)} --emit-bytecode failed on {path}:\n"
                 f"{r.stderr.decode(errors='replace')[:2000]}")
    return out


def time_ocannl(opt, path, repeat):
    """Best (pass s, process s, bytecode process s, {timing row: s}) of
    `repeat` runs."""
    bc = to_bytecode(opt, path)
    best_pass, best_proc, best_bc, best_rows = None, None, None, None
    for _ in range(repeat):
        _, report = run_opt(opt, path, ["--mlir-timing"])
        rows = timing_report(report)
        if best_pass is None or rows[PASS] < best_pass:
            best_pass, best_rows = rows[PASS], rows
        secs, _ = run_opt(opt, path, [])
        best_proc = secs if best_proc is None else min(best_proc, secs)
        secs, _ = run_opt(opt, bc, ["--emit-bytecode"])
        best_bc = secs if best_bc is None else min(best_bc, secs)
    return best_pass, best_proc, best_bc, best_rows


def time_startup(opt, tmp, repeat):
    """Best process time of the same command on an empty module: the
    floor under every `proc ms` (loading the binary, registering every
    upstream dialect and pass, as mlir-opt does)."""
    path = os.path.join(tmp, "empty.mlir")
    with open(path, "w") as fh:
        fh.write("module {}\n")
    return min(run_opt(opt, path, [])[0] for _ in range(max(repeat, 5)))


# -------------------------------------------------- MLIR's parser, alone

LLVM = "/usr/lib/llvm-22"
FLOOR_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mlir_parse_floor.cpp")


def build_floor(tmp):
    """Builds the parser probe; returns (path, None) or (None, why not)."""
    if not os.path.isdir(os.path.join(LLVM, "include", "mlir")):
        return None, f"no MLIR headers under {LLVM}/include (scripts/setup.sh installs them)"
    exe = os.path.join(tmp, "mlir_parse_floor")
    cmd = ["g++", "-O2", "-std=c++17", FLOOR_SRC, f"-I{LLVM}/include", f"-L{LLVM}/lib",
           "-lMLIR", "-lLLVM", f"-Wl,-rpath,{LLVM}/lib", "-o", exe]
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except FileNotFoundError:
        return None, "no g++"
    if r.returncode != 0:
        return None, "g++ failed: " + r.stderr.decode(errors="replace")[:500]
    return exe, None


def builtin_typed(text):
    """The module with every ocannl tensor type as `tensor<*xf32>`."""
    return re.sub(r'!ocannl\.tensor<f32, "[^"]*">', "tensor<*xf32>", text)


def time_floor(exe, text, d, layers, repeat):
    """Stock MLIR on the builtin-typed module, in seconds: (context, text
    parse, print, bytecode parse, warm text parse). All but the last are a
    fresh process's first (what one run pays: its code and tables touched
    for the first time); warm: a later parse in the same process (caches
    hot, as for ONNX's best of `repeat` calls in one Python process)."""
    path = os.path.join(d, f"gpt2-{layers}-builtin.mlir")
    with open(path, "w") as fh:
        fh.write(builtin_typed(text))
    bc = to_bytecode(os.path.join(LLVM, "bin", "mlir-opt"), path, "--allow-unregistered-dialect")

    def probe(f, n):
        r = subprocess.run([exe, f, "--repeat", str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        m = re.match(r"first context (-?\d+) parse (-?\d+) print (-?\d+) "
                     r"warm context (-?\d+) parse (-?\d+) print (-?\d+)", r.stdout.decode())
        if r.returncode != 0 or not m:
            sys.exit(f"infer_vs_onnx.py: the parser probe failed on {f}:\n"
                     f"{r.stderr.decode(errors='replace')[:2000]}")
        return [int(g) * 1e-6 for g in m.groups()]

    # Each figure the best over `runs` fresh processes.
    runs = max(repeat, 3)
    text_runs = [probe(path, 1) for _ in range(runs)]
    ctx, parse, printed = (min(t[k] for t in text_runs) for k in range(3))
    bc_parse = min(probe(bc, 1)[1] for _ in range(runs))
    warm = probe(path, runs + 1)[4]
    return ctx, parse, printed, bc_parse, warm


def check_onnx(inferred, layers):
    """Strict inference must have typed every node's output (the last
    layer's attention and MLP checked)."""
    vi = {v.name: v for v in inferred.graph.value_info}
    if len(vi) != len(inferred.graph.node) - 1:  # the last is the graph output
        sys.exit(f"infer_vs_onnx.py: ONNX typed {len(vi)} of {len(inferred.graph.node) - 1} values")
    p = f"l{layers - 1}"
    for name, want in ((f"{p}_probs", [BATCH, HEADS, SEQ, SEQ]), (f"{p}_gelu", [BATCH, SEQ, MLP]),
                       (f"{p}_merged", [BATCH, SEQ, D])):
        v = vi.get(name)
        dims = [d.dim_value for d in v.type.tensor_type.shape.dim] if v else None
        if dims != want:
            sys.exit(f"infer_vs_onnx.py: ONNX inferred {dims} for {name}, not {want}")


def positive(text):
    """An argparse type: a count from 1 up."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive count, not {text!r}")
    return n


def layer_list(text):
    """An argparse type: comma-separated positive layer counts."""
    return [positive(s) for s in text.split(",")]


def main():
    if sys.stdout is None:
        sys.exit("infer_vs_onnx.py: standard output is closed")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default="target/release")
    ap.add_argument("--layers", type=layer_list, default="12,48,400")
    ap.add_argument("--repeat", type=positive, default=3)
    ap.add_argument("--keep", metavar="DIR", help="write the .mlir and .onnx files to DIR")
    ap.add_argument("--no-floor", action="store_true",
                    help="skip the bound from stock MLIR's parser (second table)")
    ap.add_argument("--solver", action="store_true",
                    help="print the command for solver-only figures (the Rust benchmark) and exit")
    args = ap.parse_args()
    if args.solver:
        print("solver only (no MLIR parse/print), transformer-block workload, 1k to 1M ops:")
        print(f"    {SOLVER_CMD}")
        return
    opt = os.path.join(args.bin_dir, "ocannl-opt")
    if not os.path.exists(opt):
        sys.exit(f"infer_vs_onnx.py: {opt} is missing (cargo build --release -p ocannl-tools)")
    layers = args.layers
    print(f"shape inference, GPT-2-like stack ({BATCH}x{SEQ}x{D}, {HEADS} heads, MLP {MLP}); "
          f"best of {args.repeat}")
    print(f"ocannl: {opt} -p 'builtin.module({PASS})'; "
          f"ONNX {onnx.__version__}: infer_shapes(strict_mode=True), opset {OPSET}")
    head = (f"{'L':>4} {'ops':>6} {'pass ms':>8} {'proc ms':>8} {'parse ms':>8} {'bc ms':>7} "
            f"{'nodes':>6} {'onnx ms':>8} {'pass x':>7} {'proc x':>7} {'bc x':>6} "
            f"{'model pass x':>13} {'model proc x':>13}")
    ratios, floors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        d = args.keep or tmp
        os.makedirs(d, exist_ok=True)
        probe, no_probe = (None, "--no-floor") if args.no_floor else build_floor(tmp)
        start_s = time_startup(opt, tmp, args.repeat)
        print(f"process floor (the same command on an empty module): {start_s * 1e3:.1f} ms")
        print(head)
        for n in layers:
            text, ops = ocannl_func(n)
            path = os.path.join(d, f"gpt2-{n}.mlir")
            with open(path, "w") as fh:
                fh.write(text)
            model, nodes = onnx_model(n)
            onnx.checker.check_model(model)
            if args.keep:
                onnx.save(model, os.path.join(d, f"gpt2-{n}.onnx"))
            check_weights(opt, path, n, d)
            pass_s, proc_s, bc_s, rows = time_ocannl(opt, path, args.repeat)
            onnx_s, inferred = time_onnx(model, args.repeat)
            check_onnx(inferred, n)
            onnx_rate = nodes / onnx_s
            r = (ops / pass_s / onnx_rate, ops / proc_s / onnx_rate,
                 onnx_s / pass_s, onnx_s / proc_s, ops / bc_s / onnx_rate)
            ratios.append(r)
            if probe:
                ctx_s, parse_s, print_s, bc_s, warm_s = time_floor(probe, text, d, n, args.repeat)
                times = (ctx_s, parse_s, print_s, bc_s, warm_s, onnx_s)
                bounds = (ops / (ctx_s + parse_s + print_s) / onnx_rate,
                          ops / (ctx_s + bc_s) / onnx_rate, ops / warm_s / onnx_rate)
                floors.append((n, times, bounds))
            print(f"{n:>4} {ops:>6} {pass_s * 1e3:>8.1f} {proc_s * 1e3:>8.1f} "
                  f"{rows.get('Parser', 0) * 1e3:>8.1f} {bc_s * 1e3:>7.1f} {nodes:>6} "
                  f"{onnx_s * 1e3:>8.1f} {r[0]:>6.2f}x {r[1]:>6.2f}x {r[4]:>5.2f}x "
                  f"{r[2]:>12.2f}x {r[3]:>12.2f}x")
    print("pass x / proc x / bc x: ocannl ops/s (pass alone / whole process on text / "
          "whole process on bytecode) over ONNX nodes/s; model x: ONNX ms over ocannl ms "
          "for the same model")
    if floors:
        print()
        print("stock MLIR alone on the same module (builtin tensor<*xf32> types, ops unregistered, "
              "no dialect or pass of\nours; tools/bench/mlir_parse_floor.cpp): the most a process "
              "that reads and writes it with MLIR can reach")
        print(f"{'L':>4} {'ctx ms':>7} {'parse ms':>9} {'print ms':>9} {'bc ms':>7} {'warm ms':>8} "
              f"{'onnx ms':>8} {'text x':>7} {'bc x':>6} {'warm x':>7}")
        for n, times, (text_x, bc_x, warm_x) in floors:
            ms = [t * 1e3 for t in times]
            print(f"{n:>4} {ms[0]:>7.2f} {ms[1]:>9.2f} {ms[2]:>9.2f} {ms[3]:>7.2f} {ms[4]:>8.2f} "
                  f"{ms[5]:>8.1f} {text_x:>6.2f}x {bc_x:>5.2f}x {warm_x:>6.2f}x")
        print("ctx / parse / print / bc ms: a fresh process's first MLIRContext, parse of the text, "
              "printing it, and\nparse of the bytecode (each the best of several processes); warm "
              "ms: a later parse of the text in\nthe same process. text x: ocannl ops/s were ctx + "
              "parse + print the whole process, over ONNX nodes/s;\nbc x: ctx + bytecode parse "
              "(writing not counted); warm x: the warm parse alone")
    elif no_probe:
        print(f"(stock MLIR's parser bound skipped: {no_probe})")
    for label, k, goal in (("pass", 0, 3.0), ("process", 1, 1.0)):
        worst = min(r[k] for r in ratios)
        print(f"goal: {label} >= {goal:g}x ONNX nodes/s: worst {worst:.2f}x, "
              f"{'met' if worst >= goal else 'NOT met'}")
    if floors:
        bound = min(bounds[0] for _, _, bounds in floors)
        if bound < 1.0:
            print(f"      process: stock MLIR's context, parser and printer alone reach at most "
                  f"{bound:.2f}x on the text file:\n      below the goal however fast the pass, "
                  f"the dialect and the start-up were")
    print(f"solver alone (no MLIR parse/print): {SOLVER_CMD}")


if __name__ == "__main__":
    try:
        main()
        sys.stdout.flush()
    except OSError as e:  # a full disk or standard output, a closed pipe
        # Nothing more reaches the broken standard output at exit.
        sys.stdout = None
        sys.exit(f"infer_vs_onnx.py: {e}")
