#!/usr/bin/env bash
# Quick start 1: install what is missing, build ocannl-opt, and run it on an
# example (verify the specs, then canonicalize) with stock mlir-opt reading
# the same file through the dialect's IRDL definition.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build -q -p ocannl-tools --bin ocannl-opt
echo "== ocannl-opt --help (ocannl passes)"
target/debug/ocannl-opt --help | grep -- '--ocannl-'
echo "== ocannl-opt examples/mlp.mlir -p 'builtin.module(ocannl-verify,canonicalize)'"
target/debug/ocannl-opt examples/mlp.mlir -p 'builtin.module(ocannl-verify,canonicalize)'
echo "== stock mlir-opt --irdl-file=dialect/ocannl.irdl.mlir examples/mlp.mlir"
/usr/lib/llvm-22/bin/mlir-opt --irdl-file=dialect/ocannl.irdl.mlir examples/mlp.mlir > /dev/null && echo "parsed"
