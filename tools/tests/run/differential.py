#!/usr/bin/python3
"""Numerical differential tests of `ocannl-run` against NumPy.

For every op kind of the ocannl dialect this draws random shapes and values
(numpy Generator, reproducible from --seed), writes a one-function module
`@f` whose argument types are concrete and whose intermediate/result types
are left to shape inference ("...|...->..."), runs

    ocannl-run f.mlir --entry f --inputs a0.npy ... --outputs r0.npy ...

and compares every output with an independent NumPy reference: the shape
must be exactly the reference's, the values np.allclose (float32: rtol 1e-4,
atol 1e-5; float64: rtol 1e-9, atol 1e-12). Then it checks that bad inputs
(a .npy contradicting the inferred shape, a missing entry function, a
non-numeric dtype, ...) are user errors: exit status 1 and an `error:` that
names the problem, never a crash.

Memory layout (the contract with the runner): a tensor of shape
`batch|input->output` is the C-order numpy array of shape
batch + output + input.

Usage:
    /usr/bin/python3 tools/tests/run/differential.py --bin-dir target/debug
        [--seed N] [--cases N] [--keep DIR] [--only KIND,...] [--keep-going]
        [--infer-only]

--infer-only checks the generators without ocannl-run: it runs
DIR/ocannl-opt (ocannl-infer-shapes, then ocannl-to-affine) on every case
and compares the inferred argument and result shapes with the reference.

Exit status: 0 all passed, 1 a mismatch or a failed check (details printed),
2 the tool is missing or the command line is wrong.

Reference semantics worth knowing (after OCANNL's assignments.ml):
- pointwise ops broadcast NumPy-style separately in each row (batch, input,
  output): right-aligned, size-1 axes and missing leading axes;
- einsum: labels absent from the result are reduced with `accum` (default
  add), operands are joined with `combine` (default mul); a result that the
  projection does not cover entirely (diagonal `i=>ii`, fixed index `i=>i0`)
  is first filled with the neutral element of `accum` (0 for add, -inf for
  max, +inf for min, 1 for mul) -- OCANNL's `is_total`/`initialize_neutral`
  rule;
- fma(a, b, c) = matmul(a, b) + c.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
except ImportError:  # pragma: no cover
    sys.stderr.write(
        "differential.py: numpy is required (run with /usr/bin/python3)\n")
    sys.exit(2)

NP_DTYPE = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}
TOL = {"f32": dict(rtol=1e-4, atol=1e-5), "f64": dict(rtol=1e-9, atol=1e-12),
       "i32": dict(rtol=0, atol=0), "i64": dict(rtol=0, atol=0),
       "ui8": dict(rtol=0, atol=0), "ui64": dict(rtol=0, atol=0)}
RUN_TIMEOUT_S = 300
# With --target grid-on-cpu: (ptxas, its toolkit or None), when there is one.
PTXAS = None


# --------------------------------------------------------------------------
# Shapes, specs, types


class Sh:
    """A concrete OCANNL shape: three rows of sizes."""

    def __init__(self, batch=(), inp=(), out=()):
        self.batch, self.inp, self.out = tuple(batch), tuple(inp), tuple(out)

    def np(self):
        """The numpy shape: memory order batch, output, input."""
        return self.batch + self.out + self.inp

    def spec(self):
        j = lambda row: ",".join(str(d) for d in row)
        return f"{j(self.batch)}|{j(self.inp)}->{j(self.out)}"

    def rows(self):
        return (self.batch, self.out, self.inp)

    def __repr__(self):
        return f'"{self.spec()}" numpy {self.np()}'


UNKNOWN = "...|...->..."


def ttype(dt, spec):
    return f'!ocannl.tensor<{dt}, "{spec}">'


def parse_spec(spec):
    """Parses a printed concrete shape spec into an Sh."""
    spec = spec.strip()
    batch, rest = spec.split("|", 1) if "|" in spec else ("", spec)
    inp, out = rest.split("->", 1) if "->" in rest else ("", rest)
    row = lambda s: tuple(int(d) for d in s.split(",") if d.strip())
    return Sh(row(batch), row(inp), row(out))


def fmt_float(v, dt):
    return f"{float(v):.9e}" if dt == "f32" else f"{float(v):.17e}"


class Func:
    """Builds the text of `func.func @f` with generic-syntax ops."""

    def __init__(self, dt="f32"):
        self.dt = dt
        self.args = []  # (name, type)
        self.lines = []
        self.types = {}
        self.n = 0

    def arg(self, sh, dt=None):
        name = f"%a{len(self.args)}"
        t = ttype(dt or self.dt, sh.spec() if isinstance(sh, Sh) else sh)
        self.args.append((name, t))
        self.types[name] = t
        return name

    def op(self, opname, operands, attrs="", result=UNKNOWN, dt=None):
        name = f"%v{self.n}"
        self.n += 1
        rt = ttype(dt or self.dt, result.spec() if isinstance(result, Sh) else result)
        ins = ", ".join(self.types[o] for o in operands)
        attrs = f" {{{attrs}}}" if attrs else ""
        self.lines.append(
            f'  {name} = "ocannl.{opname}"({", ".join(operands)}){attrs} : ({ins}) -> {rt}')
        self.types[name] = rt
        return name

    def text(self, results):
        rtypes = [self.types[r] for r in results]
        rsig = rtypes[0] if len(rtypes) == 1 else f"({', '.join(rtypes)})"
        head = ", ".join(f"{n}: {t}" for n, t in self.args)
        body = "\n".join(self.lines)
        return (f"func.func @f({head}) -> {rsig} {{\n{body}\n"
                f"  return {', '.join(results)} : {', '.join(rtypes)}\n}}\n")


# --------------------------------------------------------------------------
# Random shapes and values


def rand_row(rng, lo=0, hi=3, dmax=4):
    return tuple(int(d) for d in rng.integers(1, dmax + 1, size=int(rng.integers(lo, hi + 1))))


def rand_sh(rng, ranks=((0, 2), (0, 2), (0, 2)), dmax=4, max_size=512):
    while True:
        sh = Sh(*(rand_row(rng, lo, hi, dmax) for lo, hi in ranks))
        if int(np.prod(sh.np(), dtype=np.int64)) <= max_size:
            return sh


def sub_row(rng, row, p_one=0.3):
    """A row that broadcasts to `row`: a suffix of it, some sizes made 1."""
    r = int(rng.integers(0, len(row) + 1))
    tail = row[len(row) - r:]
    return tuple(1 if rng.random() < p_one else d for d in tail)


def sub_sh(rng, sh, p_one=0.3):
    return Sh(sub_row(rng, sh.batch, p_one), sub_row(rng, sh.inp, p_one),
              sub_row(rng, sh.out, p_one))


def values(rng, shape, dt, lo=-2.0, hi=2.0):
    if dt in ("i32", "i64"):  # small integers: exact references
        return rng.integers(-5, 6, size=shape).astype(NP_DTYPE[dt])
    return rng.uniform(lo, hi, size=shape).astype(NP_DTYPE[dt])


def nonzero_values(rng, shape, dt, lo=0.5, hi=2.0):
    mag = rng.uniform(lo, hi, size=shape)
    sign = np.where(rng.random(size=shape) < 0.5, -1.0, 1.0)
    return (mag * sign).astype(NP_DTYPE[dt])


def expand(arr, sh, ranks):
    """Reshapes `arr` (laid out as `sh`) to the given per-row ranks
    (batch, output, input) by adding leading size-1 axes in each row."""
    shape = ()
    for row, k in zip(sh.rows(), ranks):
        shape += (1,) * (k - len(row)) + row
    return arr.reshape(shape)


def pointwise_ref(fn, operands):
    """NumPy broadcasting per row. operands: [(array, Sh)]."""
    ranks = tuple(max(len(sh.rows()[r]) for _, sh in operands) for r in range(3))
    xs = [expand(a.astype(np.float64), sh, ranks) for a, sh in operands]
    return fn(*xs)


def out_dtype(ref, dt):
    return np.asarray(ref).astype(NP_DTYPE[dt])


# --------------------------------------------------------------------------
# Einsum reference


NEUTRAL = {"add": 0.0, "mul": 1.0, "max": -np.inf, "min": np.inf}
REDUCE = {"add": np.sum, "mul": np.prod, "max": np.max, "min": np.min}
COMBINE = {"mul": np.multiply, "add": np.add, "sub": np.subtract,
           "div": np.divide, "max": np.maximum, "min": np.minimum,
           "pow": np.power}


def einsum_ref(operands, result_layout, result_shape, accum="add", combine=None):
    """operands: [(array, layout)] where layout lists the label of each numpy
    axis. result_layout: per numpy axis of the result, a label or an int
    (fixed index). Labels repeated within an operand take its diagonal."""
    labels = []
    for _, lay in operands:
        for l in lay:
            if l not in labels:
                labels.append(l)
    size = {}
    for a, lay in operands:
        for l, d in zip(lay, a.shape):
            assert size.setdefault(l, d) == d, "inconsistent label sizes"
    full = []
    for a, lay in operands:
        a = a.astype(np.float64)
        # Take diagonals of repeated labels via einsum on the operand alone.
        uniq = []
        for l in lay:
            if l not in uniq:
                uniq.append(l)
        sub = "".join(chr(97 + labels.index(l)) for l in lay)
        usub = "".join(chr(97 + labels.index(l)) for l in uniq)
        a = np.einsum(f"{sub}->{usub}", a)
        # Permute into label order, add missing labels as size-1 axes.
        order = sorted(range(len(uniq)), key=lambda i: labels.index(uniq[i]))
        a = np.transpose(a, order)
        shape = [size[l] if l in uniq else 1 for l in labels]
        full.append(np.broadcast_to(a.reshape(shape), [size[l] for l in labels]))
    if len(full) == 1:
        val = full[0]
    elif len(full) == 2:
        val = COMBINE[combine or "mul"](full[0], full[1])
    else:
        assert combine in (None, "fma")
        val = full[0] * full[1] + full[2]
    kept = [l for l in labels if l in result_layout]
    reduced = tuple(i for i, l in enumerate(labels) if l not in result_layout)
    if reduced:
        val = REDUCE[accum](val, axis=reduced)
    val = np.asarray(val)
    seen = set()
    surjective = True
    for x in result_layout:
        if isinstance(x, int) or x in seen:
            surjective = False
        else:
            seen.add(x)
    # OCANNL: a result the projection does not cover is filled with the
    # neutral element of the accumulation first.
    res = np.full(result_shape, NEUTRAL[accum] if not surjective else 0.0)
    grids = np.indices(val.shape) if val.ndim else []
    idx = tuple(x if isinstance(x, int) else grids[kept.index(x)]
                for x in result_layout)
    res[idx] = val
    return res


def layout(b, i, o):
    """The numpy layout (batch, output, input) of a slot's label rows."""
    return list(b) + list(o) + list(i)


def slot(b, i, o):
    return f"{''.join(b)}|{''.join(i)}->{''.join(o)}"


# --------------------------------------------------------------------------
# Case generators. Each returns (mlir_text, inputs, expected, dtype).

UNARY = {
    "neg": np.negative,
    "relu": lambda x: np.maximum(x, 0.0),
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "abs": np.abs,
    "recip": lambda x: 1.0 / x,
}
POSITIVE = {"log", "sqrt", "recip"}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum,
}


def broadcast_pair(rng, n=2, max_size=512):
    """A result shape (ranks 0-3 per row) and n operand shapes that broadcast
    to it (missing leading axes, size-1 axes)."""
    while True:
        res = rand_sh(rng, ranks=((0, 3), (0, 3), (0, 3)), dmax=3, max_size=max_size)
        ops = [sub_sh(rng, res) for _ in range(n)]
        # Make sure one operand is "big" now and then.
        if rng.random() < 0.5:
            ops[int(rng.integers(0, n))] = res
        return ops


def gen_binary(rng, case, dt="f32"):
    names = list(BINARY)
    name = names[case % len(names)] if case < len(names) else names[int(rng.integers(0, len(names)))]
    sa, sb = broadcast_pair(rng)
    a = values(rng, sa.np(), dt)
    b = nonzero_values(rng, sb.np(), dt) if name == "div" else values(rng, sb.np(), dt)
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    r = f.op(name, [x, y])
    ref = pointwise_ref(BINARY[name], [(a, sa), (b, sb)])
    return f.text([r]), [a, b], [out_dtype(ref, dt)], dt, f"{name} {sa} {sb}"


def gen_binary_all(rng, case, dt="f32"):
    """All six binary ops in one function (one result each), so every op is
    exercised in every case."""
    sa, sb = broadcast_pair(rng)
    a = values(rng, sa.np(), dt)
    b = nonzero_values(rng, sb.np(), dt)
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    rs, refs = [], []
    for name, fn in BINARY.items():
        rs.append(f.op(name, [x, y]))
        refs.append(out_dtype(pointwise_ref(fn, [(a, sa), (b, sb)]), dt))
    return f.text(rs), [a, b], refs, dt, f"add..min {sa} {sb}"


def gen_unary(rng, case, dt="f32"):
    sh = rand_sh(rng, ranks=((0, 2), (0, 2), (0, 2)))
    f = Func(dt)
    ins, refs, rs = [], [], []
    # One positive input for log/sqrt/recip, one signed input for the others.
    pos = values(rng, sh.np(), dt, 0.1, 3.0)
    sig = values(rng, sh.np(), dt, -3.0, 3.0)
    xp, xs = f.arg(sh), f.arg(sh)
    ins = [pos, sig]
    for name, fn in UNARY.items():
        src, arr = (xp, pos) if name in POSITIVE else (xs, sig)
        rs.append(f.op(name, [src]))
        refs.append(out_dtype(fn(arr.astype(np.float64)), dt))
    return f.text(rs), ins, refs, dt, f"neg..recip {sh}"


def gen_where(rng, case, dt="f32"):
    sc, sa, sb = broadcast_pair(rng, 3)
    # Odd cases: an i32 condition (the condition's element type may differ).
    cdt = "i32" if case % 2 else dt
    c = rng.choice(np.array([0.0, 0.0, 1.0, -2.0, 3.0]), size=sc.np()).astype(NP_DTYPE[cdt])
    a, b = values(rng, sa.np(), dt), values(rng, sb.np(), dt)
    f = Func(dt)
    xc, xa, xb = f.arg(sc, cdt), f.arg(sa), f.arg(sb)
    r = f.op("where", [xc, xa, xb])
    ref = pointwise_ref(lambda c, a, b: np.where(c != 0, a, b), [(c, sc), (a, sa), (b, sb)])
    return f.text([r]), [c, a, b], [out_dtype(ref, dt)], dt, f"where {sc} {sa} {sb}"


def gen_pow(rng, case, dt="f32"):
    sa, sb = broadcast_pair(rng)
    a = values(rng, sa.np(), dt, 0.2, 3.0)
    b = values(rng, sb.np(), dt, -2.0, 2.5)
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    r = f.op("pow", [x, y])
    ref = pointwise_ref(np.power, [(a, sa), (b, sb)])
    return f.text([r]), [a, b], [out_dtype(ref, dt)], dt, f"pow {sa} {sb}"


def gen_int_binary(rng, case, dt="i32"):
    """add sub mul max min on integers (no div: its rounding is not specified)."""
    sa, sb = broadcast_pair(rng)
    a, b = values(rng, sa.np(), dt), values(rng, sb.np(), dt)
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    rs, refs = [], []
    for name in ("add", "sub", "mul", "max", "min"):
        rs.append(f.op(name, [x, y]))
        refs.append(out_dtype(pointwise_ref(BINARY[name], [(a, sa), (b, sb)]), dt))
    return f.text(rs), [a, b], refs, dt, f"add sub mul max min {sa} {sb}"


def gen_int_unary(rng, case, dt="i32"):
    """neg, abs and relu on integers (math.absi has no NVVM conversion of
    its own: the GPU pipeline expands it)."""
    sh = rand_sh(rng, ranks=((0, 2), (0, 2), (0, 2)))
    x = values(rng, sh.np(), dt, -100, 100)
    f = Func(dt)
    a = f.arg(sh)
    rs, refs = [], []
    for name in ("neg", "abs", "relu"):
        rs.append(f.op(name, [a]))
        refs.append(out_dtype(UNARY[name](x), dt))
    return f.text(rs), [x], refs, dt, f"neg abs relu {sh}"


def gen_compare_where(rng, case, dt="f32"):
    """Comparisons (i1 results; NaN compares false but for ne), logic on
    them, where on an i1 condition, and casts to and from integers and
    booleans (docs/decisions/0047-unsigned-integers.md)."""
    sa, sb = broadcast_pair(rng)
    a, b = values(rng, sa.np(), dt, -3.0, 3.0), values(rng, sb.np(), dt, -3.0, 3.0)
    if b.size > 1:
        b.flat[1] = a.flat[0] if a.size else 0  # an equal pair (broadcast or not)
    if dt in ("f32", "f64") and a.size:
        a.flat[-1] = np.nan
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    ops = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
    rs, refs, cmp = [], [], {}
    for name, fn in ops.items():
        cmp[name] = f.op(name, [x, y], dt="i1")
        rs.append(cmp[name])
        refs.append(pointwise_ref(fn, [(a, sa), (b, sb)]))
    both = f.op("and", [cmp["lt"], cmp["ne"]], dt="i1")
    either = f.op("xor", [cmp["gt"], cmp["eq"]], dt="i1")
    rs += [both, either, f.op("not", [both], dt="i1")]
    refs += [refs[2] & refs[1], refs[4] ^ refs[0], ~(refs[2] & refs[1])]
    ranks = tuple(max(len(sh.rows()[k]) for sh in (sa, sb)) for k in range(3))
    xa, yb = np.broadcast_arrays(expand(a, sa, ranks), expand(b, sb, ranks))
    rs.append(f.op("where", [cmp["lt"], x, y]))
    refs.append(np.where(xa < yb, xa, yb).astype(NP_DTYPE[dt]))
    other = "i32" if dt in ("f32", "f64") else "f64"
    rs.append(f.op("cast", [x], dt=other))
    with np.errstate(invalid="ignore"):
        refs.append(np.asarray(np.trunc(a).astype(NP_DTYPE[other]) if other == "i32"
                               else a.astype(NP_DTYPE[other])))
    if dt in ("f32", "f64") and a.size:
        refs[-1].flat[-1] = 0  # NaN converts to 0
    rs.append(f.op("cast", [x], dt="i1"))
    refs.append(a != 0)
    rs.append(f.op("cast", [cmp["le"]], dt=dt))
    refs.append(refs[3].astype(NP_DTYPE[dt]))
    return f.text(rs), [a, b], refs, dt, f"compare, logic, where, cast {sa} {sb}"


def gen_unsigned(rng, case, dt="ui8"):
    """Unsigned integers computed unsigned: div and mod (by 0: 0), max,
    min, shifts by any amount, comparisons, casts to float, and a max
    reduction starting from 0."""
    npdt = {"ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}[dt]
    bits = np.iinfo(npdt).bits
    sa, sb = broadcast_pair(rng)
    a = rng.integers(0, np.iinfo(npdt).max, size=sa.np(), dtype=npdt, endpoint=True)
    b = rng.integers(0, 8, size=sb.np(), dtype=npdt)
    if a.size:
        a.flat[0] = np.iinfo(npdt).max
    if b.size:
        b.flat[-1] = 0
    ranks = tuple(max(len(sh.rows()[k]) for sh in (sa, sb)) for k in range(3))
    xa, yb = np.broadcast_arrays(expand(a, sa, ranks), expand(b, sb, ranks))
    safe = np.where(yb == 0, 1, yb).astype(npdt)
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    rs = [f.op(n, [x, y]) for n in ("div", "mod", "max", "min", "shl", "shr")]
    big = yb.astype(np.uint64) >= bits
    amount = np.where(big, 0, yb).astype(npdt)
    refs = [np.where(yb == 0, 0, xa // safe).astype(npdt),
            np.where(yb == 0, 0, xa % safe).astype(npdt),
            np.maximum(xa, yb), np.minimum(xa, yb),
            np.where(big, 0, np.left_shift(xa, amount)).astype(npdt),
            np.where(big, 0, np.right_shift(xa, amount)).astype(npdt)]
    rs.append(f.op("lt", [x, y], dt="i1"))
    refs.append(xa < yb)
    rs.append(f.op("cast", [x], dt="f64"))
    refs.append(a.astype(np.float64))
    if a.size:
        rs.append(f.op("einsum", [x], f'spec = "{einsum_all(sa)}", accum = "max"'))
        refs.append(np.asarray(a.max(), dtype=npdt).reshape(()))
    return f.text(rs), [a, b], refs, dt, f"unsigned {dt} {sa} {sb}"


def einsum_all(sh):
    """An einsum spec reducing every axis of `sh` to a scalar."""
    it = iter(LETTERS)
    rows = [[next(it) for _ in r] for r in (sh.batch, sh.inp, sh.out)]
    return f"{slot(*rows)} => {slot([], [], [])}"


def matmul_shapes(rng):
    """lhs "Bl|I->O", rhs "Br|J->I"; batch rows broadcast."""
    while True:
        I = rand_row(rng, 1, 2, 4)
        O = rand_row(rng, 0, 2, 4)
        J = rand_row(rng, 0, 2, 4)
        B = rand_row(rng, 0, 2, 3)
        Bl, Br = sub_row(rng, B), sub_row(rng, B)
        if rng.random() < 0.5:
            Br = B
        lhs, rhs = Sh(Bl, I, O), Sh(Br, J, I)
        if max(np.prod(lhs.np()), np.prod(rhs.np()), np.prod(B + O + J) * np.prod(I)) <= 2048:
            return lhs, rhs


def matmul_ref(a, sl, b, sr):
    kb = max(len(sl.batch), len(sr.batch))
    A = expand(a.astype(np.float64), sl, (kb, len(sl.out), len(sl.inp)))
    Bm = expand(b.astype(np.float64), sr, (kb, len(sr.out), len(sr.inp)))
    batch = np.broadcast_shapes(A.shape[:kb], Bm.shape[:kb])
    A = np.broadcast_to(A, batch + A.shape[kb:])
    Bm = np.broadcast_to(Bm, batch + Bm.shape[kb:])
    L = "abcdefghijklmnopqrstuvwxyz"
    zb = L[:kb]
    o = L[kb:kb + len(sl.out)]
    i = L[kb + len(sl.out):kb + len(sl.out) + len(sl.inp)]
    j = L[kb + len(sl.out) + len(sl.inp):][:len(sr.inp)]
    return np.einsum(f"{zb}{o}{i},{zb}{i}{j}->{zb}{o}{j}", A, Bm)


def gen_matmul(rng, case, dt="f32"):
    sl, sr = matmul_shapes(rng)
    a, b = values(rng, sl.np(), dt), values(rng, sr.np(), dt)
    f = Func(dt)
    x, y = f.arg(sl), f.arg(sr)
    r = f.op("matmul", [x, y])
    return (f.text([r]), [a, b], [out_dtype(matmul_ref(a, sl, b, sr), dt)], dt,
            f"matmul {sl} {sr}")


def gen_fma(rng, case, dt="f32"):
    sl, sr = matmul_shapes(rng)
    kb = max(len(sl.batch), len(sr.batch))
    mm_batch = tuple(max(x, y) for x, y in zip(
        (1,) * (kb - len(sl.batch)) + sl.batch, (1,) * (kb - len(sr.batch)) + sr.batch))
    res = Sh(mm_batch, sr.inp, sl.out)
    sc = sub_sh(rng, res)
    a, b, c = (values(rng, s.np(), dt) for s in (sl, sr, sc))
    f = Func(dt)
    x, y, z = f.arg(sl), f.arg(sr), f.arg(sc)
    r = f.op("fma", [x, y, z])
    mm = matmul_ref(a, sl, b, sr)
    ref = mm + expand(c.astype(np.float64), sc, (len(res.batch), len(res.out), len(res.inp)))
    return (f.text([r]), [a, b, c], [out_dtype(ref, dt)], dt, f"fma {sl} {sr} {sc}")


def gen_transpose(rng, case, dt="f32"):
    sh = rand_sh(rng, ranks=((0, 2), (0, 3), (0, 3)))
    x = values(rng, sh.np(), dt)
    f = Func(dt)
    a = f.arg(sh)
    r = f.op("transpose", [a])
    nb, no, ni = len(sh.batch), len(sh.out), len(sh.inp)
    perm = list(range(nb)) + list(range(nb + no, nb + no + ni)) + list(range(nb, nb + no))
    return f.text([r]), [x], [np.transpose(x, perm).copy()], dt, f"transpose {sh}"


LETTERS = "ijklmnpqrstuvwxyz"


def rand_sizes(rng, labels, dmax=4):
    return {l: int(rng.integers(1, dmax + 1)) for l in labels}


def split_rows(rng, labels, rows=True):
    """Splits a label list into (batch, input, output) rows."""
    if not rows:
        return [], [], list(labels)
    kinds = rng.integers(0, 3, size=len(labels))
    return ([l for l, k in zip(labels, kinds) if k == 0],
            [l for l, k in zip(labels, kinds) if k == 1],
            [l for l, k in zip(labels, kinds) if k == 2])


def einsum1_case(rng, dt, opl, resl, res_rows_fixed=None, accum=None, result_type=UNKNOWN,
                 rows=False, desc="einsum"):
    """One-operand einsum: operand labels `opl`, result labels `resl`."""
    ob, oi, oo = split_rows(rng, opl, rows)
    if res_rows_fixed is not None:
        rb, ri, ro = res_rows_fixed
    else:
        rb, ri, ro = split_rows(rng, resl, rows)
    size = rand_sizes(rng, set(opl))
    osh = Sh([size[l] for l in ob], [size[l] for l in oi], [size[l] for l in oo])
    x = values(rng, osh.np(), dt)
    spec = f"{slot(ob, oi, oo)} => {slot(rb, ri, ro)}"
    attrs = f'spec = "{spec}"' + (f', accum = "{accum}"' if accum else "")
    f = Func(dt)
    a = f.arg(osh)
    r = f.op("einsum", [a], attrs, result_type)
    res_layout = layout(rb, ri, ro)
    if isinstance(result_type, Sh):
        res_shape = result_type.np()
    else:
        res_shape = tuple(size[l] for l in res_layout)
    ref = einsum_ref([(x, layout(ob, oi, oo))], res_layout, res_shape, accum or "add")
    return f.text([r]), [x], [out_dtype(ref, dt)], dt, f"{desc} {spec!r} {osh}"


def gen_einsum_permute(rng, case, dt="f32"):
    n = int(rng.integers(2, 5))
    labels = list(LETTERS[:n])
    perm = list(rng.permutation(labels))
    return einsum1_case(rng, dt, labels, perm, rows=bool(case % 2), desc="permute")


def gen_einsum_reduce(rng, case, dt="f32", accum=None):
    n = int(rng.integers(2, 5))
    labels = list(LETTERS[:n])
    k = int(rng.integers(0, n))
    keep = list(rng.permutation(labels)[:k])
    return einsum1_case(rng, dt, labels, keep, rows=bool(case % 2), accum=accum,
                        desc=f"reduce/{accum or 'add'}")


def gen_einsum_reduce_max(rng, case, dt="f32"):
    accums = ["max", "min", "max", "mul"] if dt[0] == "f" else ["add", "max", "min"]
    return gen_einsum_reduce(rng, case, dt, accum=accums[case % len(accums)])


def gen_einsum_outer(rng, case, dt="f32"):
    na, nb = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    la, lb = list(LETTERS[:na]), list(LETTERS[na:na + nb])
    rows = bool(case % 2)
    ab, ai, ao = split_rows(rng, la, rows)
    bb, bi, bo = split_rows(rng, lb, rows)
    res = list(rng.permutation(la + lb))
    rb, ri, ro = split_rows(rng, res, rows)
    size = rand_sizes(rng, la + lb)
    sa = Sh([size[l] for l in ab], [size[l] for l in ai], [size[l] for l in ao])
    sb = Sh([size[l] for l in bb], [size[l] for l in bi], [size[l] for l in bo])
    a, b = values(rng, sa.np(), dt), values(rng, sb.np(), dt)
    spec = f"{slot(ab, ai, ao)}; {slot(bb, bi, bo)} => {slot(rb, ri, ro)}"
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    r = f.op("einsum", [x, y], f'spec = "{spec}"')
    rl = layout(rb, ri, ro)
    ref = einsum_ref([(a, layout(ab, ai, ao)), (b, layout(bb, bi, bo))], rl,
                     tuple(size[l] for l in rl))
    return f.text([r]), [a, b], [out_dtype(ref, dt)], dt, f"outer {spec!r} {sa} {sb}"


def gen_einsum_diag(rng, case, dt="f32", accum=None):
    # i=>ii (and with an extra label carried along: ij=>iij etc.)
    if case % 2 == 0:
        return einsum1_case(rng, dt, ["i"], None, res_rows_fixed=([], [], ["i", "i"]),
                            accum=accum, desc=f"diag/{accum or 'add'}")
    return einsum1_case(rng, dt, ["i", "j"], None, res_rows_fixed=(["j"], [], ["i", "i"]),
                        accum=accum, desc=f"diag/{accum or 'add'}")


def gen_einsum_diag_max(rng, case, dt="f32"):
    return gen_einsum_diag(rng, case, dt, accum="max")


def gen_einsum_fixed(rng, case, dt="f32", accum=None):
    # i=>i0 with the second axis size from the declared result type.
    n, m = int(rng.integers(1, 5)), int(rng.integers(2, 5))
    col = int(rng.integers(0, m)) if case % 2 else 0
    x = values(rng, (n,), dt)
    spec = f"i=>i{col}"
    attrs = f'spec = "{spec}"' + (f', accum = "{accum}"' if accum else "")
    f = Func(dt)
    a = f.arg(Sh((), (), (n,)))
    r = f.op("einsum", [a], attrs, Sh((), (), (n, m)))
    ref = einsum_ref([(x, ["i"])], ["i", col], (n, m), accum or "add")
    return f.text([r]), [x], [out_dtype(ref, dt)], dt, f"fixed/{accum or 'add'} {spec!r} n={n} m={m}"


def gen_einsum_fixed_max(rng, case, dt="f32"):
    return gen_einsum_fixed(rng, case, dt, accum="max")


def gen_einsum_diag_extract(rng, case, dt="f32"):
    # Repeated label in the operand: ii=>i (diagonal) and ii=> (trace).
    n = int(rng.integers(1, 5))
    x = values(rng, (n, n), dt)
    res = ["i"] if case % 2 == 0 else []
    spec = f"ii=>{''.join(res)}"
    f = Func(dt)
    a = f.arg(Sh((), (), (n, n)))
    r = f.op("einsum", [a], f'spec = "{spec}"')
    ref = einsum_ref([(x, ["i", "i"])], res, (n,) * len(res))
    return f.text([r]), [x], [out_dtype(ref, dt)], dt, f"{spec!r} n={n}"


def gen_einsum_rows2(rng, case, dt="f32"):
    """b|i->h; b|h->o => b|i->o (and the a|..; b|.. => ab|.. variant)."""
    s = rand_sizes(rng, "abiho")
    if case % 2 == 0:
        spec = "b|i->h; b|h->o => b|i->o"
        la, lb, lr = ["b", "h", "i"], ["b", "o", "h"], ["b", "o", "i"]
    else:
        spec = "a|i->h; b|h->o => ab|i->o"
        la, lb, lr = ["a", "h", "i"], ["b", "o", "h"], ["a", "b", "o", "i"]
    sa = Sh([s[la[0]]], [s["i"]], [s["h"]])
    sb = Sh([s[lb[0]]], [s["h"]], [s["o"]])
    a, b = values(rng, sa.np(), dt), values(rng, sb.np(), dt)
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    r = f.op("einsum", [x, y], f'spec = "{spec}"')
    ref = einsum_ref([(a, la), (b, lb)], lr, tuple(s[l] for l in lr))
    return f.text([r]), [a, b], [out_dtype(ref, dt)], dt, f"{spec!r} {sa} {sb}"


def gen_einsum_combine(rng, case, dt="f32"):
    """ij;j=>i with combine/accum attributes."""
    combos = [("add", "max"), ("sub", "min"), ("max", "add"), ("div", "add"), ("min", "max")]
    combine, accum = combos[case % len(combos)]
    n, m = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    a = values(rng, (n, m), dt)
    b = nonzero_values(rng, (m,), dt) if combine == "div" else values(rng, (m,), dt)
    spec = "ij;j=>i"
    f = Func(dt)
    x, y = f.arg(Sh((), (), (n, m))), f.arg(Sh((), (), (m,)))
    r = f.op("einsum", [x, y], f'spec = "{spec}", accum = "{accum}", combine = "{combine}"')
    ref = einsum_ref([(a, ["i", "j"]), (b, ["j"])], ["i"], (n,), accum, combine)
    return (f.text([r]), [a, b], [out_dtype(ref, dt)], dt,
            f"{spec!r} combine={combine} accum={accum} n={n} m={m}")


def conv_patches(x, oh, ow, kh, kw, s, d, left, neutral):
    """P[b, i, j, a, c, ch] = x[b, s*i + d*a - left, s*j + d*c - left, ch], or
    `neutral` outside x (padding)."""
    B, H, W, C = x.shape
    P = np.full((B, oh, ow, kh, kw, C), neutral, dtype=np.float64)
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for c in range(kw):
                    ih, iw = s * i + d * a - left, s * j + d * c - left
                    if 0 <= ih < H and 0 <= iw < W:
                        P[:, i, j, a, c, :] = x[:, ih, iw, :]
    return P


def conv_case(rng, case):
    """Random conv parameters: stride, dilation, padding, sizes."""
    s = [1, 2][case % 2]
    d = [1, 1, 2][case % 3]
    padded = (case // 2) % 2 == 0
    k = int(rng.integers(1, 4))
    oh, ow = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    size = (lambda o: s * o) if padded else (lambda o: s * (o - 1) + d * (k - 1) + 1)
    left = (d * (k - 1)) // 2 if padded else 0
    mark = "=" if padded else "<"
    st = f"{s}*" if s > 1 else ""
    dl = f"{d}*" if d > 1 else ""
    return s, d, padded, k, oh, ow, size(oh), size(ow), left, mark, st, dl


def gen_conv2d(rng, case, dt="f32"):
    """conv2d: b|H,W,ci (*) kh,kw,ci->co => b|oh,ow,co, padded or valid,
    strides 1 and 2, dilations 1 and 2."""
    s, d, padded, k, oh, ow, H, W, left, mark, st, dl = conv_case(rng, case)
    B, ci, co = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    x = values(rng, (B, H, W, ci), dt)
    w = values(rng, (co, k, k, ci), dt)
    spec = (f"b|{st}oh{mark}+{dl}kh,{st}ow{mark}+{dl}kw,ci; kh,kw,ci->co => b|oh,ow,co")
    f = Func(dt)
    xa, wa = f.arg(Sh((B,), (), (H, W, ci))), f.arg(Sh((), (k, k, ci), (co,)))
    r = f.op("einsum", [xa, wa], f'spec = "{spec}"')
    P = conv_patches(x.astype(np.float64), oh, ow, k, k, s, d, left, 0.0)
    ref = np.einsum("bhwijc,oijc->bhwo", P, w.astype(np.float64))
    return (f.text([r]), [x, w], [out_dtype(ref, dt)], dt,
            f"{spec!r} x={x.shape} w={w.shape} padded={padded}")


def gen_max_pool(rng, case, dt="f32"):
    """Max-pool (and max-plus with a random window): accum max, combine add;
    padding reads as -inf."""
    s, d, padded, k, oh, ow, H, W, left, mark, st, dl = conv_case(rng, case)
    if case % 4 == 3:  # the issue's window 3, stride 2
        s, d, padded, k = 2, 1, False, 3
        H, W, left, mark, st, dl = 2 * (oh - 1) + 3, 2 * (ow - 1) + 3, 0, "<", "2*", ""
    B, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    x = values(rng, (B, H, W, c), dt)
    win = values(rng, (k, k), dt) if case % 2 else np.zeros((k, k), dtype=x.dtype)
    spec = f"b|{st}oh{mark}+{dl}wh,{st}ow{mark}+{dl}ww,c; wh,ww => b|oh,ow,c"
    f = Func(dt)
    xa, wa = f.arg(Sh((B,), (), (H, W, c))), f.arg(Sh((), (), (k, k)))
    r = f.op("einsum", [xa, wa], f'spec = "{spec}", accum = "max", combine = "add"')
    P = conv_patches(x.astype(np.float64), oh, ow, k, k, s, d, left, -np.inf)
    ref = (P + win.astype(np.float64)[None, None, None, :, :, None]).max(axis=(3, 4))
    return (f.text([r]), [x, win], [out_dtype(ref, dt)], dt,
            f"{spec!r} x={x.shape} padded={padded}")


def gen_strided(rng, case, dt="f32"):
    """Strided iteration with an offset: 3*o+1 => o."""
    s = int(rng.integers(2, 4))
    off = int(rng.integers(0, s))
    o = int(rng.integers(1, 5))
    x = values(rng, (s * o,), dt)
    spec = f"{s}*o+{off} => o" if off else f"{s}*o => o"
    f = Func(dt)
    r = f.op("einsum", [f.arg(Sh((), (), (s * o,)))], f'spec = "{spec}"')
    ref = x.astype(np.float64)[off::s]
    return f.text([r]), [x], [out_dtype(ref, dt)], dt, f"{spec!r} n={s * o}"


def gen_batch_slice(rng, case, dt="f32"):
    while True:
        sh = rand_sh(rng, ranks=((1, 3), (0, 2), (0, 2)))
        if sh.batch[0] > 1 or case % 3 == 0:
            break
    idx = int(rng.integers(0, sh.batch[0]))
    x = values(rng, sh.np(), dt)
    f = Func(dt)
    a = f.arg(sh)
    r = f.op("batch_slice", [a], f"index = {idx} : i64")
    return f.text([r]), [x], [x[idx].copy()], dt, f"batch_slice[{idx}] {sh}"


def gen_constant(rng, case, dt="f32"):
    f = Func(dt)
    kind = case % 4
    v = float(values(rng, (), dt))
    if kind == 0:  # scalar fill, declared result type, no arguments
        sh = rand_sh(rng)
        r = f.op("constant", [], f"value = {fmt_float(v, dt)} : {dt}", sh)
        return (f.text([r]), [], [np.full(sh.np(), v, NP_DTYPE[dt])], dt,
                f"fill {v} {sh}")
    if kind == 1:  # scalar fill with its shape inferred from usage
        sh = rand_sh(rng)
        x = values(rng, sh.np(), dt)
        a = f.arg(sh)
        c = f.op("constant", [], f"value = {fmt_float(v, dt)} : {dt}")
        r = f.op("add", [a, c])
        return (f.text([r]), [x], [out_dtype(x.astype(np.float64) + np.float64(NP_DTYPE[dt](v)), dt)],
                dt, f"fill {v} inferred {sh}")
    # dense values, declared result type
    while True:
        sh = rand_sh(rng, max_size=24)
        if np.prod(sh.np()) >= 1:
            break
    n = int(np.prod(sh.np()))
    vals = values(rng, (n,), dt)
    dense = ", ".join(fmt_float(u, dt) for u in vals)
    attr = f"value = dense<[{dense}]> : tensor<{n}x{dt}>"
    if kind == 2:
        r = f.op("constant", [], attr, sh)
        return f.text([r]), [], [vals.reshape(sh.np())], dt, f"dense {sh}"
    x = values(rng, sh.np(), dt)
    a = f.arg(sh)
    c = f.op("constant", [], attr, sh)
    r = f.op("mul", [a, c])
    return (f.text([r]), [x], [out_dtype(x.astype(np.float64) * vals.reshape(sh.np()), dt)],
            dt, f"dense*x {sh}")


def gen_range(rng, case, dt="f32"):
    sh = rand_sh(rng, ranks=((0, 2), (0, 2), (0, 2)))
    f = Func(dt)
    if case % 2 == 0:
        r = f.op("range", [], f'spec = "{sh.spec()}"')
        return (f.text([r]), [], [np.arange(np.prod(sh.np(), dtype=np.int64)).reshape(sh.np()).astype(NP_DTYPE[dt])],
                dt, f"range {sh}")
    # range combined with an input
    x = values(rng, sh.np(), dt)
    a = f.arg(sh)
    c = f.op("range", [], f'spec = "{sh.spec()}"')
    r = f.op("sub", [a, c])
    rg = np.arange(np.prod(sh.np(), dtype=np.int64)).reshape(sh.np())
    return f.text([r]), [x], [out_dtype(x.astype(np.float64) - rg, dt)], dt, f"x-range {sh}"


def factor_shape(rng, n):
    """A random Sh with n cells."""
    dims = []
    m = n
    while m > 1:
        divs = [d for d in range(2, m + 1) if m % d == 0]
        d = int(rng.choice(divs))
        dims.append(d)
        m //= d
    if rng.random() < 0.3:
        dims.insert(int(rng.integers(0, len(dims) + 1)), 1)
    rng.shuffle(dims)
    cuts = sorted(rng.integers(0, len(dims) + 1, size=2))
    return Sh(dims[:cuts[0]], dims[cuts[1]:], dims[cuts[0]:cuts[1]])


def gen_reshape(rng, case, dt="f32"):
    sh = rand_sh(rng, ranks=((0, 2), (0, 2), (0, 2)))
    n = int(np.prod(sh.np(), dtype=np.int64))
    rs = factor_shape(rng, n)
    x = values(rng, sh.np(), dt)
    f = Func(dt)
    a = f.arg(sh)
    r = f.op("reshape", [a], "", rs)
    return f.text([r]), [x], [x.reshape(rs.np()).copy()], dt, f"reshape {sh} -> {rs}"


def gen_chain(rng, case, dt="f32"):
    """y = tanh(fma(w, x, b)); s = sum over batch of y * v; z = where(x>0.., ...)
    Two results: a reduction and a transposed pointwise result."""
    B, I, O = (int(rng.integers(1, 6)) for _ in range(3))
    sw, sx, sb, sv = Sh((), (I,), (O,)), Sh((B,), (), (I,)), Sh((), (), (O,)), Sh((), (), (O,))
    w, x, b, v = (values(rng, s.np(), dt) for s in (sw, sx, sb, sv))
    f = Func(dt)
    aw, ax, ab, av = f.arg(sw), f.arg(sx), f.arg(sb), f.arg(sv)
    h = f.op("fma", [aw, ax, ab])            # B|O
    t = f.op("tanh", [h])
    m = f.op("mul", [t, av])                 # B|O
    s = f.op("einsum", [m], 'spec = "b|o => o"')   # O
    e = f.op("exp", [f.op("neg", [s])])
    rg = f.op("range", [], f'spec = "{O}"')
    y1 = f.op("sub", [e, rg])
    wt = f.op("transpose", [aw])             # O->I
    rl = f.op("relu", [wt])
    y2 = f.op("matmul", [rl, t])             # B|I
    xd = [a.astype(np.float64) for a in (w, x, b, v)]
    H = x.astype(np.float64) @ xd[0].T + xd[2]
    T = np.tanh(H)
    S = (T * xd[3]).sum(axis=0)
    Y1 = np.exp(-S) - np.arange(O)
    Y2 = T @ np.maximum(xd[0], 0.0)          # (B,O) @ (O,I) -> (B,I)
    return (f.text([y1, y2]), [w, x, b, v], [out_dtype(Y1, dt), out_dtype(Y2, dt)], dt,
            f"chain B={B} I={I} O={O}")


def gen_pointwise_wide(rng, case, dt="f32"):
    """An elementwise chain over a multiple of 1024 cells (the GPU's
    pointwise grids then take four cells per thread, one grid apart:
    src/lower_to_affine/gpu/grid.rs): a broadcast bias, a relu fused after
    the add, a product with a third operand; transposed in odd cases (the
    grid's cells then read x off its contiguous axis)."""
    R, C = 8 * int(rng.integers(1, 40)), 128 * int(rng.integers(1, 5))
    x, b, s = values(rng, (R, C), dt), values(rng, (C,), dt), values(rng, (R, C), dt)
    f = Func(dt)
    ax, ab, a_s = f.arg(Sh((), (), (R, C))), f.arg(Sh((), (), (C,))), f.arg(Sh((), (), (R, C)))
    h = f.op("relu", [f.op("add", [ax, ab])])
    y = f.op("mul", [h, a_s])
    xd, bd, sd = (a.astype(np.float64) for a in (x, b, s))
    ref = np.maximum(xd + bd, 0.0) * sd
    outs = [y]
    if case % 2:
        outs = [f.op("einsum", [y], 'spec = "r,c => c,r"')]
        ref = ref.T
    return f.text(outs), [x, b, s], [out_dtype(ref, dt)], dt, f"pointwise R={R} C={C}"


def gen_int_div(rng, case, dt="i32"):
    """Integer division never traps: x / 0 is 0 (as in NumPy) and MIN / -1
    wraps to MIN; otherwise C's truncating division. Divisors include 0 and
    -1, dividends MIN (SIGFPE on x86 without the guard)."""
    sa, sb = broadcast_pair(rng)
    a = values(rng, sa.np(), dt, -20.0, 20.0)
    b = values(rng, sb.np(), dt, -4.0, 4.0)
    info = np.iinfo(NP_DTYPE[dt])
    a.flat[0] = info.min
    if b.size:
        b.flat[0] = -1
        b.flat[-1] = 0
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    r = f.op("div", [x, y])
    ranks = tuple(max(len(sh.rows()[k]) for sh in (sa, sb)) for k in range(3))
    xa, yb = np.broadcast_arrays(expand(a, sa, ranks), expand(b, sb, ranks))
    ref = np.zeros(xa.shape, dtype=NP_DTYPE[dt])
    for idx in np.ndindex(xa.shape):
        p, q = int(xa[idx]), int(yb[idx])
        if q == 0:
            v = 0
        elif p == info.min and q == -1:
            v = info.min
        else:
            v = abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1)
        ref[idx] = v
    return f.text([r]), [a, b], [ref], dt, f"int div {sa} {sb}"


def gen_int_pow(rng, case, dt="i32"):
    """Integer powers by squaring, wrapping like C; a negative exponent
    gives what 1 / x^-n truncates to (MLIR's math.ipowi): 1 for x = 1, +-1
    for x = -1, 0 otherwise."""
    sa, sb = broadcast_pair(rng)
    a = rng.integers(-4, 5, size=sa.np()).astype(NP_DTYPE[dt])
    b = rng.integers(-3, 40, size=sb.np()).astype(NP_DTYPE[dt])
    f = Func(dt)
    x, y = f.arg(sa), f.arg(sb)
    r = f.op("pow", [x, y])
    ranks = tuple(max(len(sh.rows()[k]) for sh in (sa, sb)) for k in range(3))
    xa, yb = np.broadcast_arrays(expand(a, sa, ranks), expand(b, sb, ranks))
    bits = np.iinfo(NP_DTYPE[dt]).bits
    ref = np.zeros(xa.shape, dtype=NP_DTYPE[dt])
    for idx in np.ndindex(xa.shape):
        p, q = int(xa[idx]), int(yb[idx])
        if q >= 0:
            v = pow(p, q, 1 << bits)
            v = v - (1 << bits) if v >= 1 << (bits - 1) else v
        elif p == 1:
            v = 1
        elif p == -1:
            v = -1 if q % 2 else 1
        else:
            v = 0
        ref[idx] = v
    return f.text([r]), [a, b], [ref], dt, f"int pow {sa} {sb}"


def gen_call(rng, case, dt="f32"):
    """func.call: @f calls @g twice (one shape: OCANNL's shapes are
    monomorphic) and @h once; only @f's argument shapes are written (a
    call's types equal its callee's signature, so they are all left open)."""
    sh = rand_sh(rng)
    x = values(rng, sh.np(), dt)
    t = ttype(dt, sh.spec())
    u = ttype(dt, "...|...->...")
    g = (f'func.func @g(%x: {u}) -> {u} {{\n'
         f'  %0 = "ocannl.tanh"(%x) : ({u}) -> {u}\n'
         f'  return %0 : {u}\n}}\n')
    h = (f'func.func @h(%x: {u}, %y: {u}) -> {u} {{\n'
         f'  %0 = "ocannl.mul"(%x, %y) : ({u}, {u}) -> {u}\n'
         f'  return %0 : {u}\n}}\n')
    fbody = (f'func.func @f(%a: {t}) -> {u} {{\n'
             f'  %n = "ocannl.neg"(%a) : ({t}) -> {u}\n'
             f'  %0 = func.call @g(%n) : ({u}) -> {u}\n'
             f'  %1 = "ocannl.neg"(%0) : ({u}) -> {u}\n'
             f'  %2 = func.call @g(%1) : ({u}) -> {u}\n'
             f'  %3 = func.call @h(%2, %0) : ({u}, {u}) -> {u}\n'
             f'  return %3 : {u}\n}}\n')
    g0 = np.tanh(-x.astype(np.float64))
    ref = np.tanh(-g0) * g0
    return g + h + fbody, [x], [out_dtype(ref, dt)], dt, f"call {sh}"


# --------------------------------------------------------------------------
# Concatenation (Block specs): concat, slice, stack, embed, block diagonal.


def slot_c(b, i, o):
    """A slot spec with comma-separated axes (needed around `^`)."""
    return f"{','.join(b)}|{','.join(i)}->{','.join(o)}"


def block_axes(rng, nlabels_max=3):
    """Random plain axes split into rows, their sizes, and a concatenation
    site: (row index 0=batch 1=input 2=output, position in that row)."""
    labels = list("defgh"[: int(rng.integers(0, nlabels_max + 1))])
    b, i, o = split_rows(rng, labels, True)
    size = rand_sizes(rng, labels, dmax=3)
    rows = [b, i, o]
    k = int(rng.integers(0, 3))
    pos = int(rng.integers(0, len(rows[k]) + 1))
    return rows, size, k, pos


def with_axis(rows, k, pos, axis):
    out = [list(r) for r in rows]
    out[k].insert(pos, axis)
    return out


def mem_axis(rows, k, pos):
    """The numpy axis (memory order batch, output, input) of row k's pos."""
    b, i, o = rows
    return {0: pos, 2: len(b) + pos, 1: len(b) + len(o) + pos}[k]


def sh_of(rows, size):
    b, i, o = rows
    return Sh([size[l] for l in b], [size[l] for l in i], [size[l] for l in o])


def gen_concat(rng, case, dt="f32"):
    """n operands (2 to 4) concatenated along one axis of any row."""
    n = 2 + case % 3
    rows, size, k, pos = block_axes(rng)
    parts = list("pqrs"[:n])
    for p_ in parts:
        size[p_] = int(rng.integers(1, 5))
    f = Func(dt)
    args, xs, slots = [], [], []
    for p_ in parts:
        r = with_axis(rows, k, pos, p_)
        sh = sh_of(r, size)
        x = values(rng, sh.np(), dt)
        xs.append(x)
        args.append(f.arg(sh))
        slots.append(slot_c(*r))
    res_rows = with_axis(rows, k, pos, "^".join(parts))
    spec = f"{'; '.join(slots)} => {slot_c(*res_rows)}"
    ax = mem_axis(rows, k, pos)
    ref = np.concatenate(xs, axis=ax)
    result = UNKNOWN if case % 2 else sh_of(with_axis(rows, k, pos, "z"), {**size, "z": ref.shape[ax]})
    r = f.op("concat", args, f'spec = "{spec}"', result)
    return f.text([r]), xs, [ref.copy()], dt, f"{spec!r} {[x.shape for x in xs]}"


def gen_slice(rng, case, dt="f32"):
    """`a^b => a` (a prefix) or `a^b => b` (a suffix) of a declared size; with
    an open result the discardable part is 0 and the slice is everything."""
    rows, size, k, pos = block_axes(rng)
    n = int(rng.integers(2, 7))
    m = int(rng.integers(1, n))
    size["n"] = n
    src = with_axis(rows, k, pos, "n")
    sh = sh_of(src, size)
    x = values(rng, sh.np(), dt)
    ax = mem_axis(rows, k, pos)
    suffix = case % 2 == 1
    keep = "b" if suffix else "a"
    spec = f"{slot_c(*with_axis(rows, k, pos, 'a^b'))} => {slot_c(*with_axis(rows, k, pos, keep))}"
    f = Func(dt)
    a = f.arg(sh)
    if case % 4 == 2:  # open result: all of it
        result, ref = UNKNOWN, x.copy()
    else:
        result = sh_of(with_axis(rows, k, pos, "m"), {**size, "m": m})
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(n - m, n) if suffix else slice(0, m)
        ref = x[tuple(idx)].copy()
    r = f.op("concat", [a], f'spec = "{spec}"', result)
    return f.text([r]), [x], [ref], dt, f"{spec!r} {sh} keep {m}"


def gen_stack(rng, case, dt="f32"):
    """n tensors of one shape stacked on a new leading axis of a row."""
    n = 2 + case % 3
    sh = rand_sh(rng, ranks=((0, 2), (0, 2), (0, 2)), dmax=3)
    xs = [values(rng, sh.np(), dt) for _ in range(n)]
    parts = "^".join("pqrs"[:n])
    kind = case % 3
    res = {0: f"{parts},...|...->...", 1: f"...|{parts},...->...",
           2: f"...|...->{parts},..."}[kind]
    spec = f"{'; '.join(['...|...->...'] * n)} => {res}"
    ax = {0: 0, 2: len(sh.batch), 1: len(sh.batch) + len(sh.out)}[kind]
    f = Func(dt)
    args = [f.arg(sh) for _ in range(n)]
    r = f.op("concat", args, f'spec = "{spec}"')
    return f.text([r]), xs, [np.stack(xs, axis=ax)], dt, f"{spec!r} {sh}"


def gen_embed(rng, case, dt="f32"):
    """`a => a^b` or `b => a^b`: into a larger axis, the rest 0."""
    rows, size, k, pos = block_axes(rng)
    n, extra = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    size["n"] = n
    src = with_axis(rows, k, pos, "n")
    sh = sh_of(src, size)
    x = values(rng, sh.np(), dt)
    ax = mem_axis(rows, k, pos)
    front = case % 2 == 1
    keep = "b" if front else "a"
    spec = f"{slot_c(*with_axis(rows, k, pos, keep))} => {slot_c(*with_axis(rows, k, pos, 'a^b'))}"
    widths = [(0, 0)] * x.ndim
    widths[ax] = (extra, 0) if front else (0, extra)
    ref = np.pad(x, widths)
    result = sh_of(with_axis(rows, k, pos, "m"), {**size, "m": n + extra})
    f = Func(dt)
    r = f.op("concat", [f.arg(sh)], f'spec = "{spec}"', result)
    return f.text([r]), [x], [ref], dt, f"{spec!r} {sh} + {extra}"


def gen_block_diagonal(rng, case, dt="f32"):
    """`a,b; c,d => a^c,b^d`: two blocks on the diagonal, zeros elsewhere."""
    a, b, c, d = (int(v) for v in rng.integers(1, 4, size=4))
    x, y = values(rng, (a, b), dt), values(rng, (c, d), dt)
    spec = "a,b; c,d => a^c,b^d"
    f = Func(dt)
    r = f.op("concat", [f.arg(Sh((), (), (a, b))), f.arg(Sh((), (), (c, d)))],
             f'spec = "{spec}"')
    ref = np.zeros((a + c, b + d), dtype=x.dtype)
    ref[:a, :b], ref[a:, b:] = x, y
    return f.text([r]), [x, y], [ref], dt, f"{spec!r} {x.shape} {y.shape}"


# --------------------------------------------------------------------------
# Scheduled code (passes/src/plan_schedule/choose.rs): sizes past the
# register blocks, the vector width and the cache tiles, none of them
# dividing; 1-sized axes; fused consumers.


def gen_sched_matmul_nt(rng, case, dt="f32"):
    """OCANNL's layout y = x . w^T: lanes along the reduction (K short or N
    narrow), else the weight transposed into packed panels. M past the
    tile of rows, K past whole vectors and past the reduction tiles (256,
    and 1024 f32 lanes), N past the 4-wide and the 16-wide blocks."""
    M = [int(rng.integers(1, 9)), int(rng.integers(150, 330)),
         int(rng.integers(512, 600))][(case // 3) % 3]
    K = [int(rng.integers(8, 40)), int(rng.integers(1030, 1400)),
         int(rng.integers(500, 900))][case % 3]
    # Narrow (the dot-product form), or past the 16-column block (the
    # transposed panel, its gathered vector and scalar columns).
    N = int(rng.integers(1, 14)) if (case // 2) % 2 else int(rng.integers(16, 60))
    w, x = values(rng, (N, K), dt), values(rng, (M, K), dt)
    f = Func(dt)
    r = f.op("matmul", [f.arg(Sh((), (K,), (N,))), f.arg(Sh((M,), (), (K,)))])
    ref = x.astype(np.float64) @ w.astype(np.float64).T
    return f.text([r]), [w, x], [out_dtype(ref, dt)], dt, f"matmul M={M} K={K} N={N}"


def gen_sched_matmul_wide(rng, case, dt="f32"):
    """A product wide enough for the GPU's large tiles (128 x 128 per block
    from 264 tiles on: src/schedule/tiled.rs), with an overhang in both
    directions and a reduction past and short of the 16-deep step."""
    M, N = int(rng.integers(2177, 2400)), int(rng.integers(2050, 2200))
    K = [int(rng.integers(1, 16)), int(rng.integers(17, 40))][case % 2]
    w, x = values(rng, (N, K), dt), values(rng, (M, K), dt)
    f = Func(dt)
    r = f.op("matmul", [f.arg(Sh((), (K,), (N,))), f.arg(Sh((M,), (), (K,)))])
    ref = x.astype(np.float64) @ w.astype(np.float64).T
    return f.text([r]), [w, x], [out_dtype(ref, dt)], dt, f"matmul M={M} K={K} N={N}"


def gen_sched_matmul_nn(rng, case, dt="f32"):
    """C[i,j] = A[i,k] B[k,j] (lanes along the result's rows): I past the
    6-row block and the row tile, K past the 256-deep tile, J past the
    column tile and whole vectors; then a relu fused after the reduction."""
    I = int(rng.integers(1, 5)) if case % 2 else int(rng.integers(60, 80))
    K = int(rng.integers(1, 20)) if case % 3 == 0 else int(rng.integers(257, 400))
    J = int(rng.integers(1, 30)) if case % 4 == 1 else int(rng.integers(250, 300))
    a, b = values(rng, (I, K), dt), values(rng, (K, J), dt)
    f = Func(dt)
    r = f.op("einsum", [f.arg(Sh((), (), (I, K))), f.arg(Sh((), (), (K, J)))],
             'spec = "i,k; k,j => i,j"')
    y = f.op("relu", [r])
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0.0)
    return f.text([y]), [a, b], [out_dtype(ref, dt)], dt, f"matmul+relu I={I} K={K} J={J}"


def gen_sched_conv(rng, case, dt="f32"):
    """conv2d with enough input channels for whole vectors (and a tail),
    padded or valid, strided, dilated, with a fused relu."""
    s, d, padded, k, oh, ow, H, W, left, mark, st, dl = conv_case(rng, case)
    B, ci, co = int(rng.integers(1, 3)), int(rng.integers(8, 26)), int(rng.integers(1, 10))
    x = values(rng, (B, H, W, ci), dt)
    w = values(rng, (co, k, k, ci), dt)
    spec = (f"b|{st}oh{mark}+{dl}kh,{st}ow{mark}+{dl}kw,ci; kh,kw,ci->co => b|oh,ow,co")
    f = Func(dt)
    xa, wa = f.arg(Sh((B,), (), (H, W, ci))), f.arg(Sh((), (k, k, ci), (co,)))
    r = f.op("relu", [f.op("einsum", [xa, wa], f'spec = "{spec}"')])
    P = conv_patches(x.astype(np.float64), oh, ow, k, k, s, d, left, 0.0)
    ref = np.maximum(np.einsum("bhwijc,oijc->bhwo", P, w.astype(np.float64)), 0.0)
    return (f.text([r]), [x, w], [out_dtype(ref, dt)], dt,
            f"{spec!r}+relu x={x.shape} w={w.shape} padded={padded}")


def gen_sched_rows(rng, case, dt="f32"):
    """Row reductions (max, sum) and a broadcast pointwise chain (sub, exp,
    neg fused): a softmax-like program on rows of 1 to 70 cells."""
    R, C = int(rng.integers(1, 6)), int(rng.integers(1, 71))
    x = values(rng, (R, C), dt)
    f = Func(dt)
    xa = f.arg(Sh((), (), (R, C)))
    m = f.op("einsum", [xa], 'spec = "r,c => r", accum = "max"')
    dd = f.op("einsum", [xa, m], 'spec = "r,c; r => r,c", combine = "sub"')
    e = f.op("neg", [f.op("exp", [dd])])
    sm = f.op("einsum", [e], 'spec = "r,c => r"')
    X = x.astype(np.float64)
    E = -np.exp(X - X.max(axis=1, keepdims=True))
    return (f.text([e, sm]), [x], [out_dtype(E, dt), out_dtype(E.sum(axis=1), dt)], dt,
            f"rows R={R} C={C}")


def gen_sched_fused(rng, case, dt="f32"):
    """A contraction (x . w^T, or A . B) or an exp, then binary consumers
    fused into its nest as an epilogue: a bias along the rows, a residual of
    the whole result, a per-row scale (a 1-sized axis broadcast), on either
    side of sub/div/add/mul/max, with a relu between."""
    M = int(rng.integers(1, 9)) if case % 2 else int(rng.integers(20, 70))
    # Past the reduction tile (256) too: the epilogue runs in the last tile.
    K = int(rng.integers(257, 600)) if case % 4 == 2 else int(rng.integers(1, 40))
    N = int(rng.integers(1, 30)) if case % 5 else int(rng.integers(30, 70))
    f = Func(dt)
    producer = case % 3
    if producer == 0:   # lanes along the reduction
        w, x = values(rng, (N, K), dt), values(rng, (M, K), dt)
        r = f.op("matmul", [f.arg(Sh((), (K,), (N,))), f.arg(Sh((M,), (), (K,)))])
        ref = x.astype(np.float64) @ w.astype(np.float64).T
        inputs = [w, x]
    elif producer == 1:  # lanes along the result
        a, b = values(rng, (M, K), dt), values(rng, (K, N), dt)
        r = f.op("einsum", [f.arg(Sh((), (), (M, K))), f.arg(Sh((), (), (K, N)))],
                 'spec = "i,k; k,j => i,j"')
        ref = a.astype(np.float64) @ b.astype(np.float64)
        inputs = [a, b]
    else:                # a pointwise producer
        x = values(rng, (M, N), dt, -1.0, 1.0)
        r = f.op("exp", [f.arg(Sh((M,), (), (N,)))])
        ref = np.exp(x.astype(np.float64))
        inputs = [x]
    names = []
    for step in range(int(rng.integers(1, 4))):
        kind = int(rng.integers(0, 3))
        rows = producer == 1   # the einsum's result is "|->M,N"
        sh = [Sh((), (), (N,)),
              Sh((), (), (M, N)) if rows else Sh((M,), (), (N,)),
              Sh((), (), (M, 1)) if rows else Sh((M,), (), (1,))][kind]
        shape = [(N,), (M, N), (M, 1)][kind]
        op = ["add", "sub", "mul", "div", "max"][int(rng.integers(0, 5))]
        first = op != "div" and bool(rng.integers(0, 2))
        v = (nonzero_values if op == "div" else values)(rng, shape, dt)
        o = f.arg(sh)
        r = f.op(op, [o, r] if first else [r, o])
        V = v.astype(np.float64)
        fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
              "div": np.divide, "max": np.maximum}[op]
        ref = fn(V, ref) if first else fn(ref, V)
        inputs.append(v)
        names.append(f"{op}({'o,x' if first else 'x,o'}) {shape}")
        if rng.integers(0, 2):
            r = f.op("relu", [r])
            ref = np.maximum(ref, 0.0)
            names.append("relu")
    return (f.text([r]), inputs, [out_dtype(ref, dt)], dt,
            f"fused producer={producer} M={M} K={K} N={N}: {', '.join(names)}")


def f64(gen):
    return lambda rng, case: gen(rng, case, "f64")


def i32(gen):
    return lambda rng, case: gen(rng, case, "i32")


def i64(gen):
    return lambda rng, case: gen(rng, case, "i64")


KINDS = [
    ("binary_broadcast", gen_binary),
    ("binary_all_ops", gen_binary_all),
    ("unary", gen_unary),
    ("where", gen_where),
    ("pow", gen_pow),
    ("matmul", gen_matmul),
    ("fma", gen_fma),
    ("transpose", gen_transpose),
    ("einsum_permute", gen_einsum_permute),
    ("einsum_reduce", gen_einsum_reduce),
    ("einsum_reduce_accum", gen_einsum_reduce_max),
    ("einsum_outer", gen_einsum_outer),
    ("einsum_diagonal", gen_einsum_diag),
    ("einsum_fixed_index", gen_einsum_fixed),
    ("einsum_diagonal_max", gen_einsum_diag_max),
    ("einsum_fixed_index_max", gen_einsum_fixed_max),
    ("einsum_diag_extract", gen_einsum_diag_extract),
    ("einsum_rows_2op", gen_einsum_rows2),
    ("einsum_combine", gen_einsum_combine),
    ("batch_slice", gen_batch_slice),
    ("conv2d", gen_conv2d),
    ("max_pool", gen_max_pool),
    ("strided", gen_strided),
    ("constant", gen_constant),
    ("range", gen_range),
    ("reshape", gen_reshape),
    ("chain", gen_chain),
    ("pointwise_wide", gen_pointwise_wide),
    ("sched_matmul_nt", gen_sched_matmul_nt),
    ("sched_matmul_nn", gen_sched_matmul_nn),
    ("sched_matmul_wide", gen_sched_matmul_wide),
    ("sched_conv", gen_sched_conv),
    ("sched_rows", gen_sched_rows),
    ("sched_fused", gen_sched_fused),
    ("f64_sched_fused", f64(gen_sched_fused)),
    ("f64_sched_matmul_nt", f64(gen_sched_matmul_nt)),
    ("f64_sched_conv", f64(gen_sched_conv)),
    ("f64_binary_broadcast", f64(gen_binary_all)),
    ("f64_unary", f64(gen_unary)),
    ("f64_pow", f64(gen_pow)),
    ("f64_matmul", f64(gen_matmul)),
    ("f64_fma", f64(gen_fma)),
    ("f64_einsum_reduce", f64(gen_einsum_reduce_max)),
    ("f64_constant", f64(gen_constant)),
    ("f64_chain", f64(gen_chain)),
    ("i32_binary_broadcast", i32(gen_int_binary)),
    ("i64_binary_broadcast", i64(gen_int_binary)),
    ("i32_unary", gen_int_unary),
    ("i64_unary", i64(gen_int_unary)),
    ("i32_matmul", i32(gen_matmul)),
    ("i64_einsum_reduce", i64(gen_einsum_reduce_max)),
    ("f64_conv2d", f64(gen_conv2d)),
    ("concat", gen_concat),
    ("slice", gen_slice),
    ("stack", gen_stack),
    ("embed", gen_embed),
    ("block_diagonal", gen_block_diagonal),
    ("i32_concat", i32(gen_concat)),
    ("f64_slice", f64(gen_slice)),
    ("i32_div_by_zero", i32(gen_int_div)),
    ("i64_div_by_zero", i64(gen_int_div)),
    ("i32_pow", i32(gen_int_pow)),
    ("i64_pow", i64(gen_int_pow)),
    ("call", gen_call),
    ("f64_call", f64(gen_call)),
    ("compare_where_cast", gen_compare_where),
    ("f64_compare_where_cast", f64(gen_compare_where)),
    ("i32_compare_where_cast", i32(gen_compare_where)),
    ("ui8_unsigned", gen_unsigned),
    ("ui64_unsigned", lambda rng, case: gen_unsigned(rng, case, "ui64")),
]


# --------------------------------------------------------------------------
# Running


def crashed(rc):
    return rc < 0 or rc >= 128 or rc == 101


def run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True,
                           timeout=RUN_TIMEOUT_S)
        # Bytes that are not UTF-8 are kept visible (and fail the output
        # checks) instead of aborting the whole run.
        return (p.returncode, p.stdout.decode(errors="backslashreplace"),
                p.stderr.decode(errors="backslashreplace"))
    except subprocess.TimeoutExpired:
        return 124, "", f"(timed out after {RUN_TIMEOUT_S} s)"


def write_case(d, mlir, inputs):
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "f.mlir")
    with open(path, "w") as fh:
        fh.write(mlir)
    ins = []
    for k, a in enumerate(inputs):
        p = os.path.join(d, f"in{k}.npy")
        np.save(p, a)
        ins.append(p)
    return path, ins


THREADS = None  # --threads for ocannl-run (None: its default, every core)
TARGET = None   # --target for ocannl-run (None: its default, the CPU)
# With --target cuda: ocannl-run's --chip and --cuda-toolkit (None: its defaults).
CUDA_FLAGS = []


def runner_cmd(tool, path, ins, outs, entry="f"):
    cmd = [tool, path, "--entry", entry]
    # ocannl-run refuses --threads with another target (it would have no
    # effect there).
    if THREADS is not None and TARGET in (None, "cpu"):
        cmd += ["--threads", str(THREADS)]
    if TARGET is not None:
        cmd += ["--target", TARGET]
    if TARGET == "cuda":
        cmd += CUDA_FLAGS
    if ins:
        cmd += ["--inputs"] + ins
    if outs:
        cmd += ["--outputs"] + outs
    return cmd


def report_failure(kind, case, desc, mlir, inputs, expected, msg, cmd=None, got=None):
    print(f"\nFAIL {kind} case {case}: {msg}")
    print(f"  case: {desc}")
    if cmd:
        print(f"  command: {' '.join(cmd)}")
    print(f"  input shapes: {[tuple(a.shape) for a in inputs]} dtypes {[str(a.dtype) for a in inputs]}")
    print(f"  expected output shapes: {[tuple(e.shape) for e in expected]}")
    if got is not None:
        print(f"  got output shapes:      {[tuple(g.shape) for g in got]}")
    print("  module:")
    for line in mlir.splitlines():
        print("    " + line)


def check_ptx(tool, d, kind, case, mlir, inputs, expected, desc, path, ins):
    """With --target grid-on-cpu: the same program's PTX (`--emit ptx`, one
    module) produced, and assembled by ptxas for sm_80 when there is one
    (PTXAS): a kernel that runs as grids on the CPU but does not lower to
    NVVM, or that ptxas rejects, fails here."""
    ptx = os.path.join(d, "f.ptx")
    # (A program without arguments gets no --inputs: it takes a value.)
    cmd = [tool, path, "--entry", "f"] + (["--inputs"] + ins if ins else [])
    cmd += ["--emit", "ptx", "-o", ptx]
    if PTXAS and PTXAS[1]:
        cmd += ["--cuda-toolkit", PTXAS[1]]
    rc, out, err = run(cmd)
    if rc != 0 and "has no kernels to write" in err:
        return True  # a program of constants and copies: no kernel, nothing to assemble
    if rc != 0:
        report_failure(kind, case, desc, mlir, inputs, expected,
                       f"--emit ptx exited with {rc}\n  stderr:\n{indent(err)}", cmd)
        return False
    if not os.path.isfile(ptx):
        report_failure(kind, case, desc, mlir, inputs, expected,
                       f"--emit ptx did not write one module at {ptx}", cmd)
        return False
    if PTXAS:
        acmd = [PTXAS[0], "-arch=sm_80", ptx, "-o", os.devnull]
        rc, out, err = run(acmd)
        if rc != 0:
            report_failure(kind, case, desc, mlir, inputs, expected,
                           f"ptxas rejected the PTX ({rc}):\n{indent(err)}", acmd)
            return False
    return True


def check_case_run(tool, d, kind, case, mlir, inputs, expected, dt, desc):
    path, ins = write_case(d, mlir, inputs)
    outs = [os.path.join(d, f"out{k}.npy") for k in range(len(expected))]
    cmd = runner_cmd(tool, path, ins, outs)
    rc, out, err = run(cmd)
    if rc != 0:
        report_failure(kind, case, desc, mlir, inputs, expected,
                       f"ocannl-run exited with {rc}\n  stderr:\n{indent(err)}\n  stdout:\n{indent(out)}",
                       cmd)
        return False
    if TARGET == "grid-on-cpu" and not check_ptx(tool, d, kind, case, mlir, inputs, expected,
                                                 desc, path, ins):
        return False
    got = []
    for p in outs:
        try:
            got.append(np.load(p, allow_pickle=False))
        except Exception as e:  # noqa: BLE001
            report_failure(kind, case, desc, mlir, inputs, expected,
                           f"cannot load output {p}: {e}", cmd)
            return False
    for k, (g, e) in enumerate(zip(got, expected)):
        if g.shape != e.shape:
            report_failure(kind, case, desc, mlir, inputs, expected,
                           f"result #{k}: shape {g.shape}, expected {e.shape}", cmd, got)
            return False
        if g.dtype != e.dtype:
            report_failure(kind, case, desc, mlir, inputs, expected,
                           f"result #{k}: dtype {g.dtype}, expected {e.dtype}", cmd, got)
            return False
        tol = dict(TOL[dt])
        if kind.removeprefix("f64_").startswith("sched_") and dt in ("f32", "f64"):
            # Long reductions (hundreds to a thousand products of values up
            # to 4, summed in another order than NumPy's): a result near 0
            # after cancellation carries an absolute error of about
            # K * 4 * eps.
            tol["atol"] = 2e-3 if dt == "f32" else 1e-11
        if not np.allclose(g, e, equal_nan=True, **tol):
            with np.errstate(invalid="ignore"):
                diff = np.abs(g.astype(np.float64) - e.astype(np.float64))
            diff = np.where(np.isnan(diff) & (g == e), 0.0, diff)
            at = np.unravel_index(int(np.nanargmax(diff)), diff.shape) if diff.size else ()
            report_failure(
                kind, case, desc, mlir, inputs, expected,
                f"result #{k}: values differ, max abs diff {np.nanmax(diff) if diff.size else 0:.6g} "
                f"at {tuple(int(i) for i in at)} (got {g[at] if diff.size else g}, "
                f"expected {e[at] if diff.size else e})", cmd, got)
            with np.printoptions(precision=5, suppress=True, threshold=200):
                print(f"  got:\n{indent(str(g))}\n  expected:\n{indent(str(e))}")
            return False
    return True


SIG_RE = re.compile(r'func\.func @f\((.*?)\) -> (.*?) \{')
TYPE_RE = re.compile(r'!ocannl\.tensor<(\w+), "([^"]*)">')


def check_case_infer(bin_dir, d, kind, case, mlir, inputs, expected, dt, desc):
    """Without ocannl-run: inferred argument/result shapes vs the reference,
    and that the function lowers to affine loops."""
    opt = os.path.join(bin_dir, "ocannl-opt")
    path, _ = write_case(d, mlir, inputs)
    rc, out, err = run([opt, path, "-p", "builtin.module(ocannl-infer-shapes)"])
    if rc != 0:
        report_failure(kind, case, desc, mlir, inputs, expected,
                       f"ocannl-infer-shapes failed ({rc}):\n{indent(err)}")
        return False
    m = SIG_RE.search(out)
    if not m:
        report_failure(kind, case, desc, mlir, inputs, expected, f"no signature in:\n{out}")
        return False
    args = [parse_spec(s).np() for _, s in TYPE_RE.findall(m.group(1))]
    res = [parse_spec(s).np() for _, s in TYPE_RE.findall(m.group(2))]
    want_args = [tuple(a.shape) for a in inputs]
    want_res = [tuple(e.shape) for e in expected]
    if args != want_args or res != want_res:
        report_failure(kind, case, desc, mlir, inputs, expected,
                       f"inferred args {args} results {res}, reference args {want_args} "
                       f"results {want_res}\n{indent(out)}")
        return False
    rc, out, err = run([opt, path, "-p", "builtin.module(ocannl-to-affine)"])
    if rc != 0:
        report_failure(kind, case, desc, mlir, inputs, expected,
                       f"ocannl-to-affine failed ({rc}):\n{indent(err)}")
        return False
    return True


def indent(s, pre="    "):
    return "\n".join(pre + l for l in s.rstrip().splitlines())


# --------------------------------------------------------------------------
# Bad inputs: user errors, exit status 1, never a crash.

BAD_MLIR = """func.func @f(%a: !ocannl.tensor<f32, "3">, %b: !ocannl.tensor<f32, "5,7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "5,7">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
"""


def bad_input_checks(tool, d):
    """Returns a list of (name, ok, detail)."""
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "bad.mlir")
    with open(path, "w") as fh:
        fh.write(BAD_MLIR)
    rng = np.random.default_rng(1)
    good_a = rng.standard_normal((3,)).astype(np.float32)
    good_b = rng.standard_normal((5, 7)).astype(np.float32)
    a7 = rng.standard_normal((7,)).astype(np.float32)

    def save(name, arr):
        p = os.path.join(d, name)
        np.save(p, arr)
        return p

    pa = save("a.npy", good_a)
    out = os.path.join(d, "out.npy")
    results = []

    def user_error(name, cmd, needles, extra=None):
        rc, so, se = run(cmd)
        text = se + so
        ok = rc == 1 and "error" in se and not crashed(rc) and "panicked" not in text
        missing = [n for n in needles if not re.search(n, text, re.I)]
        if extra:
            missing += [m for m in extra(text)]
        ok = ok and not missing
        detail = f"exit {rc}; stderr: {se.strip()[:400]!r}"
        if missing:
            detail += f"; missing in message: {missing}"
        results.append((name, ok, detail))

    # The function above does not infer ("3" vs "5,7" output rows do not
    # broadcast), so the shape checks use a module that does.
    okpath = os.path.join(d, "ok.mlir")
    with open(okpath, "w") as fh:
        fh.write(BAD_MLIR.replace('"3"', '"7"'))
    pa7 = save("a7.npy", a7)

    # 1. A .npy whose shape contradicts the inferred shape: argument #1 (the
    # second) is "5,7" = numpy (5, 7); give (6, 4). The message must name the
    # argument and both shapes.
    pbad = save("b_bad_shape.npy", rng.standard_normal((6, 4)).astype(np.float32))
    user_error("shape mismatch (6,4) for \"5,7\"",
               runner_cmd(tool, okpath, [pa7, pbad], [out]),
               [r"5\D{1,4}7", r"6\D{1,4}4",
                r"(arg(ument)?\s*(#|%|no\.?\s*)?\s*[12]\b|%arg1\b|%b\b|second|b_bad_shape)"])
    # Same with a rank mismatch.
    pbad2 = save("b_bad_rank.npy", rng.standard_normal((35,)).astype(np.float32))
    user_error("shape mismatch (35,) for \"5,7\"",
               runner_cmd(tool, okpath, [pa7, pbad2], [out]),
               [r"5\D{1,4}7", r"35",
                r"(arg(ument)?\s*(#|%|no\.?\s*)?\s*[12]\b|%arg1\b|%b\b|second|b_bad_rank)"])
    # 2. Missing entry function.
    pb = save("b.npy", good_b)
    user_error("missing entry --entry nope",
               runner_cmd(tool, okpath, [pa7, pb], [out], entry="nope"), [r"nope"])
    # 3. Non-numeric / unsupported dtypes.
    for tag, arr in (("<U3", np.array(["abc"] * 35).reshape(5, 7)),
                     ("bool", np.ones((5, 7), dtype=bool)),
                     ("complex64", np.ones((5, 7), dtype=np.complex64))):
        p = save(f"b_{tag.strip('<')}.npy", arr)
        descr = np.lib.format.dtype_to_descr(arr.dtype)
        user_error(f"dtype {tag} ({descr})", runner_cmd(tool, okpath, [pa7, p], [out]),
                   [r"(dtype|element type|type|" + re.escape(descr) + r"|unsupported)"])
    # 4. More user errors that must not crash.
    user_error("too few inputs", runner_cmd(tool, okpath, [pa7], [out]), [])
    user_error("nonexistent input file",
               runner_cmd(tool, okpath, [pa7, os.path.join(d, "no-such.npy")], [out]),
               [r"no-such\.npy"])
    garbage = os.path.join(d, "garbage.npy")
    with open(garbage, "wb") as fh:
        fh.write(b"\x93NUMPY\x01\x00garbage")
    user_error("truncated .npy", runner_cmd(tool, okpath, [pa7, garbage], [out]), [])
    user_error("nonexistent .mlir",
               runner_cmd(tool, os.path.join(d, "no-such.mlir"), [], [], entry="f"), [])
    badmod = os.path.join(d, "broken.mlir")
    with open(badmod, "w") as fh:
        fh.write(BAD_MLIR)  # does not infer: "3" and "5,7" do not broadcast
    user_error("module whose shapes do not infer",
               runner_cmd(tool, badmod, [pa, pb], [out]), [r"error"])

    # 5. Inputs the runner may either accept (and then compute correctly) or
    # reject as a user error -- never a crash or a silently wrong result.
    ref = good_b.astype(np.float64) + a7.astype(np.float64)
    for tag, arr in (("float64 for f32", good_b.astype(np.float64)),
                     ("big-endian >f4", good_b.astype(">f4")),
                     ("Fortran order", np.asfortranarray(good_b))):
        p = save(f"b_{re.sub(r'[^a-z0-9]+', '_', tag.lower())}.npy", arr)
        if os.path.exists(out):
            os.remove(out)
        rc, so, se = run(runner_cmd(tool, okpath, [pa7, p], [out]))
        if rc == 1 and "error" in se:
            results.append((f"{tag}: rejected", True, f"exit 1; stderr: {se.strip()[:300]!r}"))
        elif rc == 0:
            try:
                g = np.load(out)
                ok = g.shape == ref.shape and np.allclose(g, ref, rtol=1e-4, atol=1e-5)
                results.append((f"{tag}: accepted", ok,
                                "correct result" if ok else f"WRONG result: max abs diff "
                                f"{np.max(np.abs(g - ref)) if g.shape == ref.shape else g.shape}"))
            except Exception as e:  # noqa: BLE001
                results.append((f"{tag}: accepted", False, f"unreadable output: {e}"))
        else:
            results.append((f"{tag}", False, f"exit {rc}; stderr: {se.strip()[:300]!r}"))
    return results


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True, help="directory holding ocannl-run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=8, help="cases per kind")
    ap.add_argument("--keep", help="keep every case's files under this directory")
    ap.add_argument("--only", help="comma-separated kinds to run (default: all)")
    ap.add_argument("--keep-going", action="store_true",
                    help="after a failing case, go on with the remaining cases and kinds "
                         "(default: stop at the first mismatch)")
    ap.add_argument("--infer-only", action="store_true",
                    help="check shapes with ocannl-opt instead of running ocannl-run")
    ap.add_argument("--no-bad-inputs", action="store_true",
                    help="skip the bad-input checks")
    ap.add_argument("--list", action="store_true", help="list the kinds and exit")
    ap.add_argument("--threads", type=int,
                    help="ocannl-run --threads (default: its own, every core)")
    ap.add_argument("--target",
                    help="ocannl-run --target (grid-on-cpu: the GPU lowering's grids run on the "
                         "CPU, and each program's PTX is produced and assembled by ptxas; "
                         "cuda: run on the CUDA device)")
    ap.add_argument("--chip", help="with --target cuda: ocannl-run --chip (default: its own, sm_80)")
    ap.add_argument("--cuda-toolkit",
                    help="with --target cuda: ocannl-run --cuda-toolkit (libdevice, for sin, cos, "
                         "pow and f64 exp)")
    args = ap.parse_args()
    global THREADS, TARGET, PTXAS, CUDA_FLAGS
    THREADS = args.threads
    TARGET = args.target
    if (args.chip or args.cuda_toolkit) and TARGET != "cuda":
        print("differential.py: --chip and --cuda-toolkit are for --target cuda", file=sys.stderr)
        return 2
    CUDA_FLAGS = (["--chip", args.chip] if args.chip else []) + \
        (["--cuda-toolkit", args.cuda_toolkit] if args.cuda_toolkit else [])
    if TARGET == "grid-on-cpu":
        # Each program's PTX is produced too, and assembled when ptxas is
        # there (tools/tests/gpu/ptx_check.py finds it).
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "gpu"))
        from ptx_check import find_ptxas, toolkit_of
        found = find_ptxas(None)
        if found:
            PTXAS = (found, toolkit_of(found))
        elif os.environ.get("CI"):
            print("differential.py: error: no ptxas under CI (see tools/tests/gpu/ptx_check.py)")
            return 1
        else:
            print("differential.py: no ptxas: each program's PTX is produced but not assembled "
                  "(give OCANNL_PTXAS, or see tools/tests/gpu/ptx_check.py)")

    if args.list:
        for k, _ in KINDS:
            print(k)
        return 0
    tool_name = "ocannl-opt" if args.infer_only else "ocannl-run"
    tool = os.path.join(args.bin_dir, tool_name)
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print(f"differential.py: {tool_name} not found at {tool} (build it first, "
              f"e.g. cargo build -p ocannl-tools)", file=sys.stderr)
        return 2
    kinds = KINDS
    if args.only:
        want = args.only.split(",")
        unknown = [w for w in want if w not in dict(KINDS)]
        if unknown:
            print(f"differential.py: unknown kinds {unknown}; see --list", file=sys.stderr)
            return 2
        kinds = [(k, g) for k, g in KINDS if k in want]

    root = args.keep or tempfile.mkdtemp(prefix="ocannl-differential-")
    failed = []
    try:
        for kind, gen in kinds:
            passed = 0
            for case in range(args.cases):
                rng = np.random.default_rng([args.seed, zlib.crc32(kind.encode()), case])
                mlir, inputs, expected, dt, desc = gen(rng, case)
                d = os.path.join(root, kind, str(case))
                check = check_case_infer if args.infer_only else check_case_run
                target = args.bin_dir if args.infer_only else tool
                if check(target, d, kind, case, mlir, inputs, expected, dt, desc):
                    passed += 1
                else:
                    print(f"  reproduce: {sys.argv[0]} --bin-dir {args.bin_dir} --seed {args.seed} "
                          f"--only {kind} --keep DIR   (case {case})")
                    if kind not in failed:
                        failed.append(kind)
                    if not args.keep_going:
                        break
            print(f"{kind:24s} {passed}/{args.cases} passed", flush=True)
            if failed and not args.keep_going:
                return 1
        if not args.infer_only and not args.no_bad_inputs and not args.only:
            print("bad inputs (exit 1 with an error, never a crash):")
            for name, ok, detail in bad_input_checks(tool, os.path.join(root, "bad-inputs")):
                print(f"  {'ok  ' if ok else 'FAIL'} {name}: {detail}")
                if not ok:
                    failed.append(f"bad input: {name}")
        if failed:
            print(f"\nFAILED: {', '.join(failed)}")
            return 1
        print("all passed")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
