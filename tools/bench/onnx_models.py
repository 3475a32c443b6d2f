#!/usr/bin/env python3
"""ONNX models: `ocannl-run --bench` against onnxruntime, same inputs, same
thread counts, with import and compile time (issue 41's benchmark).

Models: the onnx wheel's light ResNet-50, SqueezeNet, VGG-19, ShuffleNet
and DenseNet-121 (their ConstantOfShape fills become seeded random
weights, as tools/tests/onnx/light_weights.py makes them, stored in the
model as initializers) and the exporter-produced models of the real-model
suite (tools/tests/onnx/real_models/: MobileNetV3-small, a ViT, GPT-2,
BERT; their inputs as real_models.py makes them). Only the data inputs are
fed; the weights are in the model for both sides, as users ship them.

For each model: `ocannl-import-onnx` once (timed), then per thread count
`ocannl-run FILE.mlir --inputs ... --bench N --threads T --outputs ...`
(its median and compile time) and onnxruntime (CPUExecutionProvider,
default graph optimisations, intra-op threads T, inter-op 1; session
creation timed; one warm-up run, then N timed runs, median). With
`--rounds R` the two sides alternate R times (a shared machine's slow
spells then fall on both) and each side's time is the median of its R
medians. The outputs
must match onnxruntime's (rtol 1e-3, atol 1e-4 by default).

Usage:
  .onnx-venv/bin/python tools/bench/onnx_models.py BIN_DIR
      [--models resnet50,squeezenet,...] [--threads 1,2] [--runs 10] [--rounds 1]
      [--timeout S] [--markdown] [--json FILE] [--profile] [--strict]

ratio = onnxruntime ms / ours ms: above 1 we are faster. The goal (issue
41): >= 1.0 at 1 thread, >= 0.9 at 2 threads; a ratio below it is marked
'*'. A model that fails to import or run shows its error's first line in
its row; the exit status is 0 unless --strict (then 1 on any error,
mismatch or ratio below the goal).
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "onnx")
sys.path.insert(0, TESTS)
from light_weights import DATA, dummy, randomized  # noqa: E402
from real_models import inputs as real_inputs  # noqa: E402

LIGHT = ["resnet50", "squeezenet", "vgg19", "shufflenet", "densenet121"]
REAL = ["mobilenet_v3_small", "vit", "gpt2", "bert"]
REAL_DIR = os.path.join(TESTS, "real_models")
GOAL = {1: 1.0, 2: 0.9}  # onnxruntime ms / ours ms, per thread count
COLUMNS = ["model", "threads", "ours ms", "onnxruntime ms", "ratio", "import s",
           "compile s", "ort session s", "match"]


class Failure(Exception):
    """A step that failed: its message is the error's first line."""


def first_line(text):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    return lines[0][:160] if lines else "(no message)"


def run(cmd, timeout):
    """stdout of `cmd`; Failure with the error's first line otherwise."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"{os.path.basename(cmd[0])}: timed out after {timeout} s")
    if r.returncode != 0:
        msg = r.stderr if r.stderr.strip() else r.stdout
        raise Failure(f"{os.path.basename(cmd[0])}: exit {r.returncode}: {first_line(msg)}")
    return r.stdout + r.stderr


# ---------------------------------------------------------------- machine


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def busy_processes(n=5):
    """The few processes using the most CPU now (ps), this one excepted."""
    try:
        out = subprocess.run(["ps", "-eo", "pid,pcpu,comm", "--sort=-pcpu"],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = []
    for line in out.splitlines()[1:]:
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] != str(os.getpid()) and float(parts[1]) >= 10:
            rows.append(f"{parts[2]} ({parts[1]}% CPU)")
    return rows[:n]


def machine_facts():
    import onnxruntime as ort

    facts = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "onnxruntime": ort.__version__,
        "onnx": onnx.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "load average": os.getloadavg(),
    }
    print(f"CPU: {facts['cpu']}; {facts['cores']} cores ({facts['usable cores']} usable); "
          f"onnxruntime {facts['onnxruntime']}, onnx {facts['onnx']}, numpy {facts['numpy']}")
    load = facts["load average"]
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if load[0] > 0.5:
        busy = busy_processes()
        print(f"WARNING: the machine is busy (load average {load[0]:.2f} > 0.5): timings are noisy"
              + (f"; busiest: {', '.join(busy)}" if busy else ""))
    return facts


# ---------------------------------------------------------------- models


def data_inputs(model):
    """The graph inputs that are not initializers, in order."""
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def prepare(name, work):
    """(path of the .onnx to run, [(input name, array)]) for a model (the
    light models' weights seeded by 0 each, whatever the subset)."""
    if name in LIGHT:
        rng = np.random.default_rng(0)
        model, _ = randomized(onnx.load(os.path.join(DATA, f"light_{name}.onnx")), rng,
                              as_initializers=True, logits=False)
        path = os.path.join(work, f"{name}.onnx")
        onnx.save(model, path)
        return path, [(vi.name, dummy(vi)) for vi in data_inputs(model)]
    path = os.path.join(REAL_DIR, f"{name}.onnx")
    with open(os.path.join(REAL_DIR, f"{name}.json")) as f:
        meta = json.load(f)
    model = onnx.load(path, load_external_data=False)
    names = [vi.name for vi in data_inputs(model)]
    return path, list(zip(names, real_inputs(meta, 0)))


# ---------------------------------------------------------------- runners


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


BENCH = re.compile(r"median ([0-9.eE+-]+) ms")
COMPILED = re.compile(r"compiled in ([0-9.eE+-]+) ms")


def ours(args, mlir, npys, outs, threads):
    """(median ms, compile ms) of `ocannl-run --bench`; writes `outs`."""
    out = run([os.path.join(args.bin_dir, "ocannl-run"), mlir, "--inputs", *npys,
               "--bench", str(args.runs), "--threads", str(threads), "--outputs", *outs],
              args.timeout)
    m, c = BENCH.search(out), COMPILED.search(out)
    if not m:
        raise Failure(f"ocannl-run: no 'median ... ms' in its output: {first_line(out)}")
    return float(m.group(1)), float(c.group(1)) if c else None


def ort_session(path, threads):
    """(session, seconds to create it)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    t = time.perf_counter()
    try:
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime's own errors have no common base class
        raise Failure(f"onnxruntime: {first_line(str(e))}")
    return sess, time.perf_counter() - t


def onnxruntime(sess, feeds, runs):
    """(median ms, outputs, [ms per run]) of one warm-up and `runs` runs."""
    try:
        outputs = sess.run(None, feeds)  # warm-up
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            sess.run(None, feeds)
            times.append((time.perf_counter() - t) * 1e3)
    except Exception as e:  # onnxruntime's own errors have no common base class
        raise Failure(f"onnxruntime: {first_line(str(e))}")
    return median(times), outputs, times


def compare(outs, refs, rtol, atol):
    """(all close?, max abs error or a message)."""
    if len(outs) != len(refs):
        return False, f"{len(outs)} outputs, onnxruntime {len(refs)}"
    worst = 0.0
    ok = True
    for k, (o, want) in enumerate(zip(outs, refs)):
        got = np.load(o)
        if got.shape != np.shape(want):
            return False, f"output {k}: shape {list(got.shape)}, onnxruntime {list(np.shape(want))}"
        g, w = got.astype(np.float64), np.asarray(want).astype(np.float64)
        if g.size:
            worst = max(worst, float(np.abs(g - w).max()))
        ok &= bool(np.allclose(g, w, rtol=rtol, atol=atol))
    return ok, worst


# ---------------------------------------------------------------- one model


def import_model(args, name, work):
    """(mlir path, onnx path, feeds, npys, import seconds)."""
    path, feeds = prepare(name, work)
    mlir = os.path.join(work, f"{name}.mlir")
    t = time.perf_counter()
    run([os.path.join(args.bin_dir, "ocannl-import-onnx"), path, "-o", mlir], args.timeout)
    import_s = time.perf_counter() - t
    npys = []
    for k, (_, a) in enumerate(feeds):
        npys.append(os.path.join(work, f"{name}_in{k}.npy"))
        np.save(npys[-1], a)
    return mlir, path, dict(feeds), npys, import_s


def bench_threads(args, name, prep, threads, work):
    """One row: the model at `threads` threads on both sides."""
    mlir, path, feeds, npys, import_s = prep
    row = {"model": name, "threads": threads, "import_s": import_s}
    try:
        sess, session_s = ort_session(path, threads)
        # Rounds alternate the two sides, so that a slow spell of a shared
        # machine falls on both; each side's figure is the median of its
        # rounds' medians.
        rounds = {"ort": [], "ours": [], "compile": [], "ort_runs": []}
        for _ in range(args.rounds):
            theirs, refs, ort_times = onnxruntime(sess, feeds, args.runs)
            outs = [os.path.join(work, f"{name}_t{threads}_out{k}.npy") for k in range(len(refs))]
            ms, compile_ms = ours(args, mlir, npys, outs, threads)
            rounds["ort"].append(theirs)
            rounds["ort_runs"] += ort_times
            rounds["ours"].append(ms)
            if compile_ms is not None:
                rounds["compile"].append(compile_ms / 1e3)
        theirs, ms = median(rounds["ort"]), median(rounds["ours"])
        row.update(ort_ms=theirs, ort_session_s=session_s, ort_runs_ms=rounds["ort_runs"],
                   ours_rounds_ms=rounds["ours"], ort_rounds_ms=rounds["ort"])
        row.update(ours_ms=ms, compile_s=median(rounds["compile"]) if rounds["compile"] else None)
        ok, err = compare(outs, refs, args.rtol, args.atol)
        row.update(match=ok, max_abs_error=err if isinstance(err, float) else None,
                   mismatch=None if isinstance(err, float) else err)
        row["ratio"] = theirs / ms if ms > 0 else None
        for o in outs:
            if os.path.exists(o):
                os.remove(o)
    except Failure as e:
        row["error"] = str(e)
    return row


def bench_model(args, name, work):
    """The model's rows, one per thread count (one row with the error
    when the model cannot be prepared or imported)."""
    try:
        prep = import_model(args, name, work)
    except Failure as e:
        return [{"model": name, "threads": t, "error": str(e)} for t in args.threads]
    except Exception as e:  # a model file that onnx cannot load or save
        return [{"model": name, "threads": t, "error": f"prepare: {first_line(str(e))}"}
                for t in args.threads]
    rows = []
    for t in args.threads:
        rows.append(bench_threads(args, name, prep, t, work))
        print(f"  {name} at {t} thread{'s' * (t != 1)}: {describe(rows[-1])}", flush=True)
    if args.profile_ok:
        profile(args, name, prep, rows)
    for p in prep[3] + [prep[0]] + ([prep[1]] if prep[1].startswith(work) else []):
        if os.path.exists(p):
            os.remove(p)
    return rows


# ---------------------------------------------------------------- profile


def profile_supported(bin_dir):
    try:
        r = subprocess.run([os.path.join(bin_dir, "ocannl-run"), "--help"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "--profile" in r.stdout


TIME = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(ms|us|µs|s)\b")
UNIT = {"s": 1e3, "ms": 1.0, "us": 1e-3, "µs": 1e-3}


def top_lines(text, n=5):
    """The `n` lines with the largest times (or the first `n` lines when
    none shows a time), bench and compile summaries and the profile's
    `sum` line left out."""
    lines = [l for l in text.splitlines()
             if l.strip() and not l.startswith("bench:") and l.split()[0] != "sum"]
    timed = [(float(m.group(1)) * UNIT[m.group(2)], l) for l in lines for m in [TIME.search(l)] if m]
    if timed:
        return [l for _, l in sorted(timed, key=lambda x: -x[0])[:n]]
    return lines[:n]


def below_goal(row):
    r = row.get("ratio")
    return r is not None and r < GOAL.get(row["threads"], GOAL[2])


def profile(args, name, prep, rows):
    """`ocannl-run --profile` once per model below the goal, at the first
    thread count below it."""
    mlir, _, _, npys, _ = prep
    for row in rows:
        if not below_goal(row):
            continue
        t = row["threads"]
        try:
            out = run([os.path.join(args.bin_dir, "ocannl-run"), mlir, "--inputs", *npys,
                       "--threads", str(t), "--profile"], args.timeout)
        except Failure as e:
            print(f"  profile of {name} at {t} threads: {e}")
            return
        print(f"  profile of {name} at {t} thread{'s' * (t != 1)} (top five):")
        row["profile"] = top_lines(out)
        for line in row["profile"]:
            print(f"    {line}")
        return


# ---------------------------------------------------------------- table


def fmt(x, digits):
    return "-" if x is None else f"{x:.{digits}f}"


def fmt_ms(x):
    """Milliseconds: three decimals below 1 ms (the small models)."""
    return fmt(x, 3 if x is not None and x < 1 else 2)


def cells(row):
    """The row's table cells: what was measured before an error, if any."""
    if "error" in row:
        ratio, match = "-", "ERROR: " + row["error"]
    elif not row["match"]:
        ratio = "MISMATCH"
        match = "MISMATCH " + (row["mismatch"] or f"(max abs error {row['max_abs_error']:.2e})")
    else:
        ratio = fmt(row["ratio"], 2) + ("*" if below_goal(row) else "")
        match = f"yes ({row['max_abs_error']:.1e})"
    g = row.get
    return [row["model"], str(row["threads"]), fmt_ms(g("ours_ms")), fmt_ms(g("ort_ms")), ratio,
            fmt(g("import_s"), 2), fmt(g("compile_s"), 2), fmt(g("ort_session_s"), 2), match]


def describe(row):
    c = cells(row)
    return ", ".join(f"{k} {v}" for k, v in zip(COLUMNS[2:], c[2:]))


def table(rows, markdown):
    body = [cells(r) for r in rows]
    if markdown:
        lines = ["| " + " | ".join(COLUMNS) + " |",
                 "|" + "|".join("---" if k in (0, 8) else "--:" for k in range(len(COLUMNS))) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in b) + " |" for b in body]
        return "\n".join(lines)
    widths = [max(len(c) for c in col) for col in zip(COLUMNS, *body)]
    def line(cs):
        return "  ".join(c.ljust(w) if k in (0, 8) else c.rjust(w)
                         for k, (c, w) in enumerate(zip(cs, widths))).rstrip()
    return "\n".join([line(COLUMNS), line(["-" * w for w in widths])] + [line(b) for b in body])


# ---------------------------------------------------------------- main


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin_dir", help="where ocannl-import-onnx and ocannl-run are (target/release)")
    ap.add_argument("--models", default=",".join(LIGHT + REAL),
                    help=f"comma-separated subset of {','.join(LIGHT + REAL)} (default: all)")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--runs", type=int, default=10, help="timed runs per side (default 10)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds per thread count, alternating the sides (ours compiled again "
                         "each round); each side's time is the median of its rounds' medians "
                         "(default 1)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds per ocannl command (default 1800)")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--atol", type=float, default=1e-4)
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json", metavar="FILE", help="save the raw numbers")
    ap.add_argument("--profile", action="store_true",
                    help="`ocannl-run --profile` of each model below the goal (top five lines)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 on an error, a mismatch or a ratio below the goal")
    args = ap.parse_args(argv)
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in args.models if m not in LIGHT + REAL]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(LIGHT + REAL)}")
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t.strip()]
    except ValueError:
        ap.error("--threads: comma-separated integers")
    if not args.threads or min(args.threads) < 1 or args.runs < 1 or args.rounds < 1:
        ap.error("--threads, --runs and --rounds must be positive")
    for tool in ("ocannl-import-onnx", "ocannl-run"):
        if not os.access(os.path.join(args.bin_dir, tool), os.X_OK):
            ap.error(f"no executable {tool} in {args.bin_dir}")
    return args


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    facts = machine_facts()
    args.profile_ok = args.profile and profile_supported(args.bin_dir)
    if args.profile and not args.profile_ok:
        print("--profile: this ocannl-run has no --profile option; profiles skipped")
    print(f"{args.runs} timed runs per side (median); threads {','.join(map(str, args.threads))}; "
          f"outputs compared at rtol {args.rtol:g}, atol {args.atol:g}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="onnx_models_") as work:
        for name in args.models:
            print(f"{name} ...", flush=True)
            rows += bench_model(args, name, work)
    print()
    print(table(rows, args.markdown))
    print(f"\nratio = onnxruntime ms / ours ms (above 1: ocannl is faster); * below the goal "
          f"(>= {GOAL[1]:g} at 1 thread, >= {GOAL[2]:g} at 2 or more); "
          f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": facts, "runs": args.runs, "rtol": args.rtol, "atol": args.atol,
                       "rows": rows}, f, indent=1)
        print(f"raw numbers: {args.json}")
    bad = [r for r in rows if "error" in r or not r.get("match") or below_goal(r)]
    return 1 if args.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
