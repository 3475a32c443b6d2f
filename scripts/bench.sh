#!/usr/bin/env bash
# The kernel benchmark (tools/bench/kernels.py): installs what is missing
# (the LLVM/MLIR packages and libomp through scripts/setup.sh; pip numpy,
# onnxruntime and onnx in .bench-venv, since Debian's python3-numpy uses the
# reference BLAS and is no fair peer), builds the release tools, and prints
# ours vs the peer at 1 thread and at every core. Arguments go to
# kernels.py (e.g. --only matmul1024,conv3x3 --runs 20 --threads 1).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ ! -x .bench-venv/bin/python ] || ! .bench-venv/bin/python -c 'import numpy, onnx, onnxruntime' 2>/dev/null; then
  echo "bench: installing numpy, onnx, onnxruntime into .bench-venv"
  /usr/bin/python3 -m venv .bench-venv
  .bench-venv/bin/pip install -q --upgrade pip
  .bench-venv/bin/pip install -q numpy onnx onnxruntime
fi
cargo build -q --release -p ocannl-tools --bins
exec .bench-venv/bin/python tools/bench/kernels.py --bin-dir target/release "$@"
