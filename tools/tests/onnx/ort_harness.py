"""What the `*_ort.py` checks share: a model imported with
`ocannl-import-onnx` and run with `ocannl-run` on arrays (each check
compares the results with its own oracle and tolerance)."""
import os
import subprocess

import numpy as np


def import_model(bin_dir, model, tmp, erase=True):
    """Writes `model` to `tmp/m.onnx` and imports it (`--erase-shapes`
    unless `erase` is false): the `.mlir` path and the finished process."""
    import onnx

    path, mlir = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "m.mlir")
    onnx.save(model, path)
    flags = ["--erase-shapes"] if erase else []
    r = subprocess.run([f"{bin_dir}/ocannl-import-onnx", path, *flags, "-o", mlir],
                       capture_output=True, text=True)
    return mlir, r


def import_rejects(bin_dir, model, expect, tmp, erase=True):
    """None when importing `model` fails as it must: exit 1, no panic, an
    error holding `expect`; else what happened."""
    _, r = import_model(bin_dir, model, tmp, erase)
    if r.returncode != 1 or "panicked" in r.stderr or expect not in r.stderr:
        return f"exit {r.returncode}: {r.stderr.strip()[-300:]}"
    return None


def run_ocannl(bin_dir, mlir, arrays, n_outs, tmp, threads=1):
    """`ocannl-run` (`threads` threads, one by default) of `mlir` on
    `arrays`: its `n_outs` results and None, or None and why it failed."""
    npys = []
    for k, a in enumerate(arrays):
        npys.append(os.path.join(tmp, f"in{k}.npy"))
        np.save(npys[-1], a)
    outs = [os.path.join(tmp, f"out{j}.npy") for j in range(n_outs)]
    cmd = [f"{bin_dir}/ocannl-run", mlir, "--threads", str(threads), "--outputs", *outs]
    if npys:
        cmd += ["--inputs", *npys]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        return None, f"run: {r.stderr.strip()[-400:]}"
    return [np.load(f) for f in outs], None


def compare(names, gots, want, rtol, atol, against=None):
    """None when every result matches the reference's shape and values
    (`np.allclose`), else why (naming the reference when `against`)."""
    by = f" against {against}" if against else ""
    ref = against or "onnxruntime"
    for name, got, w in zip(names, gots, want):
        if got.shape != w.shape:
            return f"{name}: shape {got.shape}, {ref} {w.shape}"
        if not np.allclose(got, w, rtol=rtol, atol=atol):
            return f"{name}: max abs diff {np.abs(got - w).max()}{by}"
    return None
