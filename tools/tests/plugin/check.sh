#!/usr/bin/env bash
# The ocannl dialect and passes inside other MLIR tools, end to end:
#  1. cmake/ builds and installs the OcannlMLIR package into a prefix;
#  2. stock mlir-opt with the plugin gives ocannl-opt's output, byte for
#     byte, on examples/mlp-run.mlir through every named pipeline;
#  3. the same located diagnostics and exit code on bad programs; the
#     plugin loaded twice, or only one of its halves, never crashes;
#  4. the C++ consumer (examples/cpp-consumer) and a C program on the C API
#     build against the installed package and give ocannl-opt's output;
#  5. the consumer written from docs/using-from-mlir.md alone builds and runs;
#  6. ocannl-fuzz's programs through mlir-opt + the plugin: no crash, hang
#     or unlocated error;
#  7. the lit suite passes a second time through mlir-opt + the plugin.
# Run by scripts/test.sh; by hand: tools/tests/plugin/check.sh
# Environment: OCANNL_BIN_DIR (ocannl-opt, ocannl-run; default target/release),
# OCANNL_PLUGIN_FUZZ (programs, 100),
# OCANNL_CMAKE_BUILD (build/cmake), OCANNL_CMAKE_PREFIX (build/prefix).
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
bin=$(realpath "${OCANNL_BIN_DIR:-target/release}")
build=${OCANNL_CMAKE_BUILD:-build/cmake}
prefix=$(realpath -m "${OCANNL_CMAKE_PREFIX:-build/prefix}")
llvm=/usr/lib/llvm-22/bin
jobs=$(nproc)
fail() { echo "plugin check: FAILED: $*" >&2; exit 1; }
[ -x "$bin/ocannl-opt" ] || fail "no ocannl-opt in $bin (cargo build --release -p ocannl-tools)"

echo "== 1. cmake build and install into $prefix"
cmake -S cmake -B "$build" > /dev/null
cmake --build "$build" -j"$jobs"
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
plugin=$prefix/lib/OcannlMLIRPlugin.so
[ -f "$plugin" ] || fail "the install has no $plugin"
readelf -d "$prefix/lib/libOcannlMLIR.so" | grep -q 'NEEDED.*libMLIR\.so' ||
  fail "libOcannlMLIR.so does not link libMLIR.so dynamically"
# No second copy of MLIR inside (the context's constructor lives in libMLIR.so).
if nm -C --defined-only "$prefix/lib/libOcannlMLIR.so" "$plugin" | grep -q 'mlir::MLIRContext::MLIRContext('; then
  fail "libOcannlMLIR.so or the plugin carries its own copy of MLIR"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stock() { "$llvm/mlir-opt" --load-dialect-plugin="$plugin" --load-pass-plugin="$plugin" "$@"; }
# Runs a command that must fail cleanly (exit code 1, never a signal or an
# abort), its stderr into the file $1; $2 says what it is.
must_fail() {
  local err=$1 what=$2 rc=0
  shift 2
  "$@" > /dev/null 2> "$err" || rc=$?
  [ "$rc" -eq 1 ] || fail "$what: exit code $rc, expected 1"
}

echo "== 2. mlir-opt + plugin == ocannl-opt on examples/mlp-run.mlir"
untimed='s/[A-Za-z]*TimeInMs = [0-9]* : i64/TIME/g'
for pipeline in ocannl-to-affine ocannl-to-llvm ocannl-to-nvvm \
  'ocannl-verify,ocannl-infer-shapes{close=false}' 'ocannl-to-affine,canonicalize'; do
  # gpu-module-to-binary records how long the translation took: not compared.
  stock examples/mlp-run.mlir -p "builtin.module($pipeline)" | sed "$untimed" > "$tmp/plugin.out"
  "$bin/ocannl-opt" examples/mlp-run.mlir -p "builtin.module($pipeline)" | sed "$untimed" > "$tmp/opt.out"
  cmp -s "$tmp/plugin.out" "$tmp/opt.out" || fail "outputs differ for $pipeline"
  echo "   same output: $pipeline ($(wc -l < "$tmp/opt.out") lines)"
done

echo "== 3. bad programs: same diagnostics and exit code; loading edge cases"
cat > "$tmp/malformed.mlir" <<'EOF'
func.func @f(%a: !ocannl.tensor<f32, "2|3->4">) {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "2|3->4"
  return
}
EOF
cat > "$tmp/unsatisfiable.mlir" <<'EOF'
func.func @f(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "5|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "5|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
EOF
cat > "$tmp/bad-spec.mlir" <<'EOF'
func.func @f(%a: !ocannl.tensor<f32, "2|3->4->5">) {
  return
}
EOF
cat > "$tmp/custom-syntax.mlir" <<'EOF'
func.func @f(%a: !ocannl.tensor<f32, "2">) {
  %0 = ocannl.neg %a : !ocannl.tensor<f32, "2">
  return
}
EOF
cat > "$tmp/unknown-op.mlir" <<'EOF'
func.func @f(%a: !ocannl.tensor<f32, "2">) {
  %0 = "ocannl.no_such_op"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}
EOF
for case in malformed unsatisfiable bad-spec custom-syntax unknown-op; do
  for pipeline in ocannl-to-llvm 'ocannl-plan-schedule{target=tpu},ocannl-lower-to-affine'; do
    must_fail "$tmp/plugin.err" "mlir-opt + plugin on $case ($pipeline)" \
      stock "$tmp/$case.mlir" -p "builtin.module($pipeline)"
    must_fail "$tmp/opt.err" "ocannl-opt on $case ($pipeline)" \
      "$bin/ocannl-opt" "$tmp/$case.mlir" -p "builtin.module($pipeline)"
    cmp -s "$tmp/plugin.err" "$tmp/opt.err" || {
      diff "$tmp/opt.err" "$tmp/plugin.err" || true
      fail "diagnostics differ on $case ($pipeline)"
    }
    grep -q "error:" "$tmp/plugin.err" || fail "no error on $case ($pipeline)"
  done
  echo "   same diagnostics, exit 1: $case: $(grep -m1 -o 'error: .*' "$tmp/plugin.err" | cut -c1-70)"
done
# Loaded twice (the same file, and a copy elsewhere): registration is
# idempotent.
mkdir -p "$tmp/copy" && cp "$prefix"/lib/*.so* "$tmp/copy/"
"$llvm/mlir-opt" --load-dialect-plugin="$plugin" --load-pass-plugin="$plugin" \
  --load-dialect-plugin="$plugin" --load-pass-plugin="$plugin" \
  --load-dialect-plugin="$tmp/copy/OcannlMLIRPlugin.so" --load-pass-plugin="$tmp/copy/OcannlMLIRPlugin.so" \
  examples/mlp-run.mlir -p 'builtin.module(ocannl-to-llvm)' > "$tmp/plugin.out"
"$bin/ocannl-opt" examples/mlp-run.mlir -p 'builtin.module(ocannl-to-llvm)' > "$tmp/opt.out"
cmp -s "$tmp/plugin.out" "$tmp/opt.out" || fail "loaded twice: the output differs"
echo "   loaded twice (and a copy): same output"
# Only the pass plugin: the input's ocannl types are a located parse error.
must_fail "$tmp/err" "only --load-pass-plugin" \
  "$llvm/mlir-opt" --load-pass-plugin="$plugin" examples/mlp-run.mlir -p 'builtin.module(ocannl-to-llvm)'
grep -q "mlp-run.mlir:[0-9]*:[0-9]*: error: .*unregistered dialect" "$tmp/err" ||
  fail "only --load-pass-plugin: no located error"
# Only the dialect plugin: the input parses; naming an ocannl pass is an error.
"$llvm/mlir-opt" --load-dialect-plugin="$plugin" examples/mlp-run.mlir > /dev/null
must_fail "$tmp/err" "only --load-dialect-plugin" \
  "$llvm/mlir-opt" --load-dialect-plugin="$plugin" examples/mlp-run.mlir -p 'builtin.module(ocannl-to-llvm)'
grep -q "'ocannl-to-llvm' does not refer to a registered pass" "$tmp/err" ||
  fail "only --load-dialect-plugin: unexpected error"
echo "   only one half of the plugin: clean errors, exit 1"

echo "== 4. consumers of the installed package"
cmake -S examples/cpp-consumer -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$tmp/consumer" -j"$jobs" > /dev/null
"$bin/ocannl-opt" examples/mlp-run.mlir -p 'builtin.module(ocannl-to-affine)' > "$tmp/opt.out"
"$tmp/consumer/ocannl-compile" examples/mlp-run.mlir > "$tmp/consumer.out"
cmp -s "$tmp/consumer.out" "$tmp/opt.out" || fail "examples/cpp-consumer: the output differs from ocannl-opt's"
must_fail "$tmp/consumer.err" "examples/cpp-consumer on an unsatisfiable program" \
  "$tmp/consumer/ocannl-compile" "$tmp/unsatisfiable.mlir"
grep -q "unsatisfiable.mlir:2:8: error: 'ocannl.add' op" "$tmp/consumer.err" ||
  fail "examples/cpp-consumer: no located error"
echo "   examples/cpp-consumer: ocannl-opt's output; a located error and exit 1"
cc -std=c11 -Wall -Wextra -Werror -I"$prefix/include" -I/usr/lib/llvm-22/include \
  tools/tests/plugin/capi_smoke.c -o "$tmp/capi_smoke" \
  -L"$prefix/lib" -lOcannlMLIR -lMLIR-C -Wl,-rpath,"$prefix/lib"
"$tmp/capi_smoke" examples/mlp-run.mlir > "$tmp/capi.out" 2> /dev/null
cmp -s "$tmp/capi.out" "$tmp/opt.out" || fail "the C API program: the output differs from ocannl-opt's"
echo "   C API (tools/tests/plugin/capi_smoke.c): ocannl-opt's output"

echo "== 5. the consumer from docs/using-from-mlir.md"
python3 tools/tests/plugin/readme_consumer.py docs/using-from-mlir.md "$tmp/readme"
cmake -S "$tmp/readme" -B "$tmp/readme/build" -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build "$tmp/readme/build" -j"$jobs" > /dev/null
"$tmp/readme/build/my-compiler" examples/mlp-run.mlir > "$tmp/readme.out"
cmp -s "$tmp/readme.out" "$tmp/opt.out" || fail "the consumer of docs/using-from-mlir.md: the output differs from ocannl-opt's"
echo "   docs/using-from-mlir.md consumer: builds, ocannl-opt's output"

echo "== 6. random and mutated programs through mlir-opt + plugin (ocannl-fuzz's oracles)"
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec %s --load-dialect-plugin=%s --load-pass-plugin=%s "$@"\n' \
  "$llvm/mlir-opt" "$plugin" "$plugin" > "$tmp/bin/ocannl-opt"
chmod +x "$tmp/bin/ocannl-opt"
ln -s "$bin/ocannl-run" "$tmp/bin/ocannl-run"
cargo run --release -q -p ocannl-fuzz -- --bin-dir "$tmp/bin" --programs "${OCANNL_PLUGIN_FUZZ:-100}" \
  --run-programs 0 --seed 13 --out "$tmp/fuzz" | tail -n 4

echo "== 7. the lit suite through mlir-opt + plugin"
OCANNL_BIN_DIR="$bin" "$llvm/lit" -s --param ocannl_plugin="$plugin" lit-tests
echo "plugin check: all passed"
