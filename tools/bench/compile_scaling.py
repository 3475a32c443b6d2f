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
- concat-args: one `ocannl.concat` of N function arguments of shape [1,4]
           along axis 0, as `ocannl-import-onnx` writes an ONNX Concat of N
           graph inputs (`p0,..r..; p1,..r..; ... => p0^p1^...,..r..`; not in
           the default --only)

For N in --sizes it times `ocannl-opt FILE -p 'builtin.module(ocannl-to-llvm)'`
(output to /dev/null; parse, every pass and printing included), best of
--repeat runs, and prints the seconds, the peak memory, the time per op and
the growth from the smallest size: linear scaling keeps "time / N" flat.
With --run it also times `ocannl-run FILE --seed 1` end to end (the same
lowering, then LLVM's O3 and code generation in the JIT, random inputs and
the run) and adds its seconds, peak memory and growth.

    /usr/bin/python3 tools/bench/compile_scaling.py --bin-dir target/release
        [--sizes 1000,2000,4000,10000] [--repeat 3] [--only chain,concat]
        [--run]
    /usr/bin/python3 tools/bench/compile_scaling.py --only concat-args --run \
        --sizes 1000,2000,4000,8000
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


def concat_args(n):
    part, whole = '!ocannl.tensor<f32, "1,4">', f'!ocannl.tensor<f32, "{n},4">'
    args = ", ".join(f"%arg{i}: {part}" for i in range(n))
    operands = ", ".join(f"%arg{i}" for i in range(n))
    types = ", ".join(part for _ in range(n))
    spec = "; ".join(f"p{i},..r.." for i in range(n)) + " => " + \
        "^".join(f"p{i}" for i in range(n)) + ",..r.."
    return (f"func.func @main({args}) -> {whole} {{\n"
            f'  %v0 = "ocannl.concat"({operands}) {{spec = "{spec}"}} : ({types}) -> {whole}\n'
            f"  return %v0 : {whole}\n}}\n")


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


def measure(cmd, repeat):
    """Best wall time of `repeat` runs of `cmd`, and the peak resident memory
    (MiB)."""
    best, peak = None, 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - start
        if status != 0:
            err = p.stderr.read().decode(errors="replace")
            sys.exit(f"compile_scaling.py: {os.path.basename(cmd[0])} failed on {cmd[1]}:\n"
                     f"{err[:2000]}")
        p.stderr.close()
        best = elapsed if best is None else min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best, peak


# The programs, and the function ocannl-run runs in each.
PROGRAMS = {"chain": (chain, "f"), "fan-out": (fan_out, "f"), "shared": (shared, "f"),
            "calls": (calls, "f"), "concat": (concat, "f"), "concat-args": (concat_args, "main")}


def positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def sizes_list(text):
    sizes = [positive(s.strip()) for s in text.split(",")]
    return sizes


def programs_list(text):
    kinds = [k.strip() for k in text.split(",")]
    for kind in kinds:
        if kind not in PROGRAMS:
            raise argparse.ArgumentTypeError(
                f"unknown program '{kind}' (known: {', '.join(PROGRAMS)})")
    return kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default="target/release")
    ap.add_argument("--sizes", type=sizes_list, default="1000,2000,4000,10000",
                    help="comma-separated op counts (positive integers)")
    ap.add_argument("--repeat", type=positive, default=3)
    ap.add_argument("--only", type=programs_list, default="chain,fan-out,shared,calls,concat",
                    help=f"comma-separated programs among {', '.join(PROGRAMS)}")
    ap.add_argument("--run", action="store_true",
                    help="also time `ocannl-run FILE --seed 1` end to end (JIT included)")
    args = ap.parse_args()
    opt = os.path.join(args.bin_dir, "ocannl-opt")
    run = os.path.join(args.bin_dir, "ocannl-run")
    for tool in [opt] + ([run] if args.run else []):
        if not os.path.exists(tool):
            sys.exit(f"compile_scaling.py: {tool} is missing (cargo build --release -p ocannl-tools)")
    sizes = args.sizes
    print(f"ocannl-to-llvm compile time ({opt}, best of {args.repeat})"
          + (f"; ocannl-run --seed 1 end to end ({run})" if args.run else ""))
    header = (f"{'program':<11} {'ops':>7} {'seconds':>8} {'peak MiB':>9} {'ms/op':>7} "
              f"{'growth':>7} {'size growth':>12}")
    if args.run:
        header += f" {'run s':>8} {'run MiB':>8} {'run growth':>10}"
    print(header)
    with tempfile.TemporaryDirectory() as d:
        for kind in args.only:
            gen, entry = PROGRAMS[kind]
            base = None
            for n in sizes:
                path = os.path.join(d, f"{kind}-{n}.mlir")
                with open(path, "w") as fh:
                    fh.write(gen(n))
                secs, mib = measure(
                    [opt, path, "-p", "builtin.module(ocannl-to-llvm)", "-o", os.devnull],
                    args.repeat)
                row = (f"{kind:<11} {n:>7} {secs:>8.2f} {mib:>9.0f} {1000 * secs / n:>7.3f} "
                       f"{secs / (base or (secs,))[0]:>6.1f}x "
                       f"{n / (base[2] if base else n):>11.1f}x")
                run_secs = None
                if args.run:
                    run_secs, run_mib = measure(
                        [run, path, "--entry", entry, "--seed", "1"], args.repeat)
                    run_base = base[1] if base else run_secs
                    row += f" {run_secs:>8.2f} {run_mib:>8.0f} {run_secs / run_base:>9.1f}x"
                base = base or (secs, run_secs, n)
                print(row, flush=True)


if __name__ == "__main__":
    main()
