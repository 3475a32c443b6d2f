#!/usr/bin/env python3
"""Assemble the PTX of every lit and differential program with ptxas.

Each program is lowered by `ocannl-opt -p 'builtin.module(ocannl-to-nvvm)'`
(PTX in every `gpu.binary`), and each kernel's PTX is assembled by `ptxas`
for sm_80 and sm_90. The programs: every `.mlir` under lit-tests/ that
lowers (files testing errors do not, and are skipped; a function in a nested
module, which the pipeline rejects at the top level, is lowered by running it
on that module; a file whose RUN lines expect the GPU pipeline to fail tests
GPU-only errors and is skipped too; so is a file whose ops carry
hand-written `ocannl.schedule` attributes, which fix their device), and
the modules the differential generators write
(tools/tests/run/differential.py --keep).

    tools/tests/gpu/ptx_check.py --bin-dir target/debug [--ptxas PATH]

ptxas comes from --ptxas, $OCANNL_PTXAS, the PATH, or .ptx-venv (PyPI's
nvidia-cuda-nvcc-cu12, which scripts/test.sh installs there). Without one
the check prints why it skips and exits 0 (exit 1 under CI, with `CI` set:
a missing prerequisite fails there). Exit 1 when a kernel does not
assemble or a program that lowers for the CPU does not lower for the GPU.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
ARCHES = ("sm_80", "sm_90")


def find_ptxas(given):
    candidates = [given, os.environ.get("OCANNL_PTXAS"), shutil.which("ptxas")]
    candidates += glob.glob(os.path.join(ROOT, ".ptx-venv", "lib", "python3*", "site-packages",
                                         "nvidia", "cuda_nvcc", "bin", "ptxas"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def kernels(text):
    """(name, PTX) of every gpu.binary in `text`."""
    out = []
    for m in re.finditer(r'gpu\.binary @(\w+)\s*\[.*?assembly = "((?:[^"\\]|\\.)*)"', text):
        ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(2))
        ptx = ptx.replace('\\"', '"').replace("\\\\", "\\")
        out.append((m.group(1), ptx))
    return out


def toolkit_of(ptxas):
    """The toolkit directory holding ptxas (bin/ptxas) when it has
    libdevice (nvvm/libdevice/libdevice.10.bc)."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(ptxas)))
    lib = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
    return root if os.path.isfile(lib) else None


def lower(opt, path, pipeline):
    return subprocess.run([opt, path, "-p", f"builtin.module({pipeline})"],
                          capture_output=True, text=True)


def expects_gpu_error(path):
    """Whether a lit file's RUN lines expect the GPU pipeline to fail: it
    tests a GPU-only error (e.g. Lowering/gpu-symbol-names.mlir)."""
    if not path.startswith(os.path.join(ROOT, "lit-tests")):
        return False
    with open(path) as f:
        runs = [l for l in f if l.lstrip().startswith("// RUN:")]
    return any(re.search(r"not ocannl-opt %s -p 'builtin\.module\(ocannl-to-nvvm\)'", l)
               for l in runs)


def has_hand_written_schedules(path):
    """Whether the program's ops carry `ocannl.schedule` attributes: a
    hand-written schedule names its device (`cpu`, `loops`: the CPU), and
    the GPU pipeline rightly rejects a function whose ops it would then
    have to split between devices (lit-tests/Schedule/)."""
    with open(path) as f:
        return "ocannl.schedule = {" in f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--ptxas")
    ap.add_argument("--cases", type=int, default=2, help="differential cases per kind")
    args = ap.parse_args()
    ptxas = find_ptxas(args.ptxas)
    if ptxas is None:
        why = ("no ptxas (give --ptxas, set OCANNL_PTXAS, or let "
               "scripts/test.sh install PyPI's nvidia-cuda-nvcc-cu12 into .ptx-venv)")
        if os.environ.get("CI"):
            print(f"ptx_check: error: a prerequisite is missing under CI: {why}")
            return 1
        print(f"ptx_check: skipped: {why}")
        return 0
    opt = os.path.join(args.bin_dir, "ocannl-opt")
    toolkit = toolkit_of(ptxas)
    nvvm = f"ocannl-to-nvvm{{toolkit={toolkit}}}" if toolkit else "ocannl-to-nvvm"
    with tempfile.TemporaryDirectory(prefix="ocannl-ptx-") as tmp:
        keep = os.path.join(tmp, "differential")
        gen = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tests", "run",
                                                           "differential.py"),
                              "--bin-dir", args.bin_dir, "--infer-only", "--no-bad-inputs",
                              "--cases", str(args.cases), "--keep", keep],
                             capture_output=True, text=True)
        if gen.returncode != 0:
            print(gen.stdout[-3000:], gen.stderr[-3000:])
            print("ptx_check: the differential generators failed")
            return 1
        programs = sorted(glob.glob(os.path.join(ROOT, "lit-tests", "**", "*.mlir"),
                                    recursive=True))
        programs += sorted(glob.glob(os.path.join(keep, "**", "*.mlir"), recursive=True))
        lowered = skipped = gpu_errors = pinned = assembled = 0
        failures = []
        for path in programs:
            p = lower(opt, path, nvvm)
            if p.returncode != 0 and "function in a nested module" in p.stderr:
                # The GPU pipeline lowers the functions of the module it
                # runs on, and says to run it on a nested module: done so
                # (lit-tests/Lowering/gpu-nested-modules.mlir).
                p = lower(opt, path, f"builtin.module({nvvm})")
            if p.returncode != 0 and expects_gpu_error(path):
                gpu_errors += 1
                continue
            if p.returncode != 0 and has_hand_written_schedules(path):
                pinned += 1
                continue
            if p.returncode != 0:
                # Programs the CPU pipeline does not lower either test
                # errors (or need their data's shapes): skipped.
                if lower(opt, path, "ocannl-to-llvm").returncode == 0:
                    failures.append(f"{path}: lowers for the CPU but not for the GPU:\n"
                                    f"{p.stderr[-2000:]}")
                skipped += 1
                continue
            lowered += 1
            for name, ptx in kernels(p.stdout):
                ptx_path = os.path.join(tmp, "k.ptx")
                with open(ptx_path, "w") as f:
                    f.write(ptx)
                for arch in ARCHES:
                    a = subprocess.run([ptxas, f"-arch={arch}", ptx_path, "-o", os.devnull],
                                       capture_output=True, text=True)
                    if a.returncode != 0:
                        failures.append(f"{path}: kernel @{name} for {arch}:\n{a.stderr[-2000:]}")
                    else:
                        assembled += 1
        for f in failures:
            print(f"FAIL {f}")
        print(f"ptx_check: {lowered} programs lowered ({skipped} skipped: they do not lower "
              f"for the CPU either; {gpu_errors} testing GPU-only errors; {pinned} with hand-written CPU "
              f"schedules), {assembled} kernel assemblies for {', '.join(ARCHES)} "
              f"passed, {len(failures)} failed ({ptxas}; libdevice: {toolkit or 'none'})")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
