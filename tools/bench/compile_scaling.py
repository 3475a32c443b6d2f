#!/usr/bin/python3
"""How ocannl-opt's `ocannl-to-llvm` scales with the program's size.

Two shapes of program, each of N ocannl ops on 64-element f32 tensors:

- chain:   y = neg(neg(...neg(x)...))                      (N ops in a row)
- fan-out: N/2 unary ops all reading x, then a chain of adds folding them
           (every result read once; all N/2 live at the same time)
- shared:  y = (((x + b) + b) + ... + b) with b broadcast along x (N adds
           fused into one loop body that reads b's cell N times)
- calls:   N functions, each calling the previous on its argument (N call
           sites resolved, a row-variable binding chain N long)
- concat:  N/2 unary ops on x, then one `ocannl.concat` of their N/2
           results (N/2 blocks: one loop nest each; the blocks' attribute
           and the nests in one block of the function were quadratic)

For N in --sizes it times `ocannl-opt FILE -p 'builtin.module(ocannl-to-llvm)'`
(output to /dev/null; parse, every pass and printing included), best of
--repeat runs, and prints the seconds, the peak memory, the time per op and
the growth from the smallest size: linear scaling keeps "time / N" flat.

    /usr/bin/python3 tools/bench/compile_scaling.py --bin-dir target/release
        [--sizes 1000,2000,4000,10000] [--repeat 3] [--only chain,concat]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

T = '!ocannl.tensor<f32, "64">'
UNARY = ["neg", "exp", "tanh", "relu", "abs", "sin", "cos"]


def chain(n):
    lines = [f"func.func @f(%x: {T}) -> {T} {{"]
    prev = "%x"
    for i in range(n):
        lines.append(f'  %v{i} = "ocannl.neg"({prev}) : ({T}) -> {T}')
        prev = f"%v{i}"
    lines.append(f"  return {prev} : {T}\n}}\n")
    return "\n".join(lines)


def fan_out(n):
    half = max(n // 2, 1)
    lines = [f"func.func @f(%x: {T}) -> {T} {{"]
    for i in range(half):
        op = UNARY[i % len(UNARY)]
        lines.append(f'  %u{i} = "ocannl.{op}"(%x) : ({T}) -> {T}')
    acc = "%u0"
    for i in range(1, n - half + 1):
        src = f"%u{i % half}"
        lines.append(f'  %s{i} = "ocannl.add"({acc}, {src}) : ({T}, {T}) -> {T}')
        acc = f"%s{i}"
    lines.append(f"  return {acc} : {T}\n}}\n")
    return "\n".join(lines)


def shared(n):
    t, b = '!ocannl.tensor<f32, "8->64">', '!ocannl.tensor<f32, "64">'
    lines = [f"func.func @f(%x: {t}, %b: {b}) -> {t} {{"]
    prev = "%x"
    for i in range(n):
        lines.append(f'  %v{i} = "ocannl.add"({prev}, %b) : ({t}, {b}) -> {t}')
        prev = f"%v{i}"
    lines.append(f"  return {prev} : {t}\n}}\n")
    return "\n".join(lines)


def concat(n):
    part, open_t = '!ocannl.tensor<f32, "2">', '!ocannl.tensor<f32, "...|...->...">'
    m = max(n // 2, 1)
    lines = [f"func.func @f(%x: {part}) -> {open_t} {{"]
    for i in range(m):
        lines.append(f'  %q{i} = "ocannl.{UNARY[i % len(UNARY)]}"(%x) : ({part}) -> {part}')
    operands = ", ".join(f"%q{i}" for i in range(m))
    types = ", ".join(part for _ in range(m))
    spec = ";".join(f"a{i}" for i in range(m)) + " => " + "^".join(f"a{i}" for i in range(m))
    lines.append(f'  %r = "ocannl.concat"({operands}) {{spec = "{spec}"}} : ({types}) -> {open_t}')
    lines.append(f"  return %r : {open_t}\n}}\n")
    return "\n".join(lines)


def calls(n):
    open_t = '!ocannl.tensor<f32, "...|...->...">'
    fns = [f'func.func @g0(%x: {open_t}) -> {open_t} {{\n'
           f'  %0 = "ocannl.neg"(%x) : ({open_t}) -> {open_t}\n  return %0 : {open_t}\n}}']
    for i in range(1, n):
        fns.append(f"func.func @g{i}(%x: {open_t}) -> {open_t} {{\n"
                   f"  %0 = func.call @g{i - 1}(%x) : ({open_t}) -> {open_t}\n"
                   f"  return %0 : {open_t}\n}}")
    fns.append(f"func.func @f(%x: {T}) -> {open_t} {{\n"
               f'  %0 = "ocannl.neg"(%x) : ({T}) -> {open_t}\n'
               f"  %1 = func.call @g{n - 1}(%0) : ({open_t}) -> {open_t}\n"
               f"  return %1 : {open_t}\n}}\n")
    return "\n".join(fns)


def measure(opt, path, repeat):
    """Best wall time of `repeat` runs, and the peak resident memory (MiB)."""
    best, peak = None, 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        p = subprocess.Popen([opt, path, "-p", "builtin.module(ocannl-to-llvm)", "-o", os.devnull],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - start
        if status != 0:
            err = p.stderr.read().decode(errors="replace")
            sys.exit(f"compile_scaling.py: ocannl-opt failed on {path}:\n{err[:2000]}")
        p.stderr.close()
        best = elapsed if best is None else min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best, peak


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default="target/release")
    ap.add_argument("--sizes", default="1000,2000,4000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="chain,fan-out,shared,calls,concat")
    args = ap.parse_args()
    opt = os.path.join(args.bin_dir, "ocannl-opt")
    if not os.path.exists(opt):
        sys.exit(f"compile_scaling.py: {opt} is missing (cargo build --release -p ocannl-tools)")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"ocannl-to-llvm compile time ({opt}, best of {args.repeat})")
    print(f"{'program':<8} {'ops':>7} {'seconds':>8} {'peak MiB':>9} {'ms/op':>7} {'growth':>7} {'size growth':>12}")
    with tempfile.TemporaryDirectory() as d:
        programs = {"chain": chain, "fan-out": fan_out, "shared": shared, "calls": calls,
                    "concat": concat}
        for kind in args.only.split(","):
            if kind not in programs:
                sys.exit(f"compile_scaling.py: unknown program '{kind}' "
                         f"(known: {', '.join(programs)})")
            gen = programs[kind]
            base = None
            for n in sizes:
                path = os.path.join(d, f"{kind}-{n}.mlir")
                with open(path, "w") as fh:
                    fh.write(gen(n))
                secs, mib = measure(opt, path, args.repeat)
                base = base or (secs, n)
                print(f"{kind:<8} {n:>7} {secs:>8.2f} {mib:>9.0f} {1000 * secs / n:>7.3f} "
                      f"{secs / base[0]:>6.1f}x {n / base[1]:>11.1f}x")


if __name__ == "__main__":
    main()
