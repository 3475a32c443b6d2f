#!/usr/bin/python3
"""How `ocannl-infer-shapes` scales with the program's size, on program
shapes that once made it quadratic (each is linear now):

- calls:    N functions, each calling the previous on its argument (call
            resolution; a row binding chain N long read back at every shape)
- named:    N arguments with named dims "n_i, m_i", each through a relu whose
            result stays open (`close=false`): N shapes named from 2N names
- reshape:  a chain of N reshapes of unknown results (element-count closing
            decides one per round)
- concat:   one concatenation of N parts (discardable parts, name checks)
- shared:   N adds of one unknown weight and one known tensor (a variable
            watched by N constraints)
- einsum:   a chain of N einsums over row variables

For N in --sizes it times `ocannl-opt FILE -p 'builtin.module(PIPELINE)'`
(the whole process, output to /dev/null), best of --repeat, and prints the
seconds, the time per op and the growth against the size growth: linear
scaling keeps "ms/op" flat.

    /usr/bin/python3 tools/bench/infer_scaling.py --bin-dir target/release
        [--sizes 2000,8000,32000] [--repeat 3] [--only calls,concat]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

OPEN = '!ocannl.tensor<f32, "...|...->...">'
KNOWN = '!ocannl.tensor<f32, "8|16->32">'


def calls(n):
    fns = [f'func.func @g0(%x: {OPEN}) -> {OPEN} {{\n'
           f'  %0 = "ocannl.relu"(%x) : ({OPEN}) -> {OPEN}\n  return %0 : {OPEN}\n}}']
    for i in range(1, n):
        fns.append(f"func.func @g{i}(%x: {OPEN}) -> {OPEN} {{\n"
                   f"  %0 = func.call @g{i - 1}(%x) : ({OPEN}) -> {OPEN}\n"
                   f"  return %0 : {OPEN}\n}}")
    fns.append(f"func.func @f(%x: {KNOWN}) -> {OPEN} {{\n"
               f'  %0 = "ocannl.relu"(%x) : ({KNOWN}) -> {OPEN}\n'
               f"  %1 = func.call @g{n - 1}(%0) : ({OPEN}) -> {OPEN}\n"
               f"  return %1 : {OPEN}\n}}\n")
    return "\n".join(fns)


def named(n):
    def ty(i):
        return f'!ocannl.tensor<f32, "n{i}, m{i}">'
    args = ", ".join(f"%a{i}: {ty(i)}" for i in range(n))
    body = "\n".join(f'  %r{i} = "ocannl.relu"(%a{i}) : ({ty(i)}) -> {OPEN}' for i in range(n))
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


def reshape(n):
    lines, prev, ty = [], "%x", KNOWN
    for i in range(n):
        lines.append(f'  %r{i} = "ocannl.reshape"({prev}) : ({ty}) -> {OPEN}')
        prev, ty = f"%r{i}", OPEN
    body = "\n".join(lines)
    return f"func.func @f(%x: {KNOWN}) -> {OPEN} {{\n{body}\n  return {prev} : {OPEN}\n}}\n"


def concat(n):
    part = '!ocannl.tensor<f32, "2">'
    args = ", ".join(f"%p{i}: {part}" for i in range(n))
    operands = ", ".join(f"%p{i}" for i in range(n))
    types = ", ".join(part for _ in range(n))
    spec = ";".join(f"a{i}" for i in range(n)) + " => " + "^".join(f"a{i}" for i in range(n))
    return (f"func.func @f({args}) -> {OPEN} {{\n"
            f'  %r = "ocannl.concat"({operands}) {{spec = "{spec}"}} : ({types}) -> {OPEN}\n'
            f"  return %r : {OPEN}\n}}\n")


def shared(n):
    body = "\n".join(f'  %r{i} = "ocannl.add"(%w, %c) : ({OPEN}, {KNOWN}) -> {OPEN}' for i in range(n))
    return f"func.func @f(%w: {OPEN}, %c: {KNOWN}) {{\n{body}\n  return\n}}\n"


def einsum(n):
    lines, prev, ty = [], "%x", KNOWN
    spec = "..b..|..i..->..o.. => ..b..|..o..->..i.."
    for i in range(n):
        lines.append(f'  %r{i} = "ocannl.einsum"({prev}) {{spec = "{spec}"}} : ({ty}) -> {OPEN}')
        prev, ty = f"%r{i}", OPEN
    body = "\n".join(lines)
    return f"func.func @f(%x: {KNOWN}) -> {OPEN} {{\n{body}\n  return {prev} : {OPEN}\n}}\n"


FAMILIES = {
    "calls": (calls, "ocannl-infer-shapes"),
    "named": (named, "ocannl-infer-shapes{close=false}"),
    "reshape": (reshape, "ocannl-infer-shapes"),
    "concat": (concat, "ocannl-infer-shapes"),
    "shared": (shared, "ocannl-infer-shapes"),
    "einsum": (einsum, "ocannl-infer-shapes"),
}


def measure(opt, path, pipeline, repeat):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        p = subprocess.run([opt, path, "-p", f"builtin.module({pipeline})", "-o", os.devnull],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit(f"infer_scaling.py: ocannl-opt failed on {path}:\n"
                     f"{p.stderr.decode(errors='replace')[:2000]}")
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default="target/release")
    ap.add_argument("--sizes", default="2000,8000,32000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=",".join(FAMILIES))
    args = ap.parse_args()
    opt = os.path.join(args.bin_dir, "ocannl-opt")
    if not os.path.exists(opt):
        sys.exit(f"infer_scaling.py: {opt} is missing (cargo build --release -p ocannl-tools)")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"ocannl-infer-shapes, whole process ({opt}, best of {args.repeat})")
    print(f"{'program':<8} {'ops':>7} {'seconds':>8} {'ms/op':>7} {'growth':>7} {'size growth':>12}")
    with tempfile.TemporaryDirectory() as d:
        for kind in args.only.split(","):
            if kind not in FAMILIES:
                sys.exit(f"infer_scaling.py: unknown program '{kind}' (known: {', '.join(FAMILIES)})")
            gen, pipeline = FAMILIES[kind]
            base = None
            for n in sizes:
                path = os.path.join(d, f"{kind}-{n}.mlir")
                with open(path, "w") as fh:
                    fh.write(gen(n))
                secs = measure(opt, path, pipeline, args.repeat)
                base = base or (secs, n)
                print(f"{kind:<8} {n:>7} {secs:>8.2f} {1000 * secs / n:>7.3f} "
                      f"{secs / base[0]:>6.1f}x {n / base[1]:>11.1f}x", flush=True)


if __name__ == "__main__":
    main()
