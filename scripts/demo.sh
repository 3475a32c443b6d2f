#!/usr/bin/env bash
# Quick start 1: install what is missing, build the tools, and run the main
# job end to end on the two-layer MLP of examples/mlp-run.mlir: infer the
# parameter shapes, lower to affine loops and LLVM, run it on .npy data and
# compare with NumPy. Stock mlir-opt reads the dialect through its IRDL.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build -q -p ocannl-tools --bins
opt=target/debug/ocannl-opt
run=target/debug/ocannl-run
echo "== ocannl passes and pipelines"
$opt --help | grep -- '--ocannl-'
echo "== shapes inferred: ocannl-opt examples/mlp-run.mlir -p 'builtin.module(ocannl-infer-shapes)'"
$opt examples/mlp-run.mlir -p 'builtin.module(ocannl-infer-shapes)' | grep -v '^ *//'
echo "== lowered: ocannl-opt examples/mlp-run.mlir -p 'builtin.module(ocannl-to-affine)' (first 24 lines)"
$opt examples/mlp-run.mlir -p 'builtin.module(ocannl-to-affine)' | sed -n 1,24p
echo "== run on .npy inputs, checked against NumPy (tools/tests/run/mlp_check.py)"
/usr/bin/python3 tools/tests/run/mlp_check.py --bin-dir target/debug
echo "== ocannl-run examples/mlp-run.mlir --seed 1 --bench 50"
$run examples/mlp-run.mlir --seed 1 --bench 50
echo "== stock mlir-opt --irdl-file=dialect/ocannl.irdl.mlir examples/mlp.mlir"
/usr/lib/llvm-22/bin/mlir-opt --irdl-file=dialect/ocannl.irdl.mlir examples/mlp.mlir > /dev/null && echo "parsed"
