#!/usr/bin/env bash
# The whole GPU check, in two steps (issue 42; figures in docs/performance.md):
#
#   scripts/device-check.sh pack        # here: build release, pack the binaries
#   scripts/device-check.sh run [DIR]   # on the CUDA machine: every check, logs in DIR
#
# `pack` builds ocannl-run and ocannl-import-onnx (release), strips them and
# writes .device/bin.tar.xz (ignored by git, about 40 MB): the GPU machine
# has CUDA, PyTorch, numpy and onnx but no LLVM 22 and no registry, so the
# binaries are built here and carried there.
#
# `run` unpacks them and, on CUDA device 0:
#   1. the NumPy differential suite with --target cuda (every op kind, the
#      tiled matmul and convolution forms; kinds in parallel) and its bad
#      inputs;
#   2. the MLP and CNN examples (mlp_check.py, cnn_check.py);
#   3. tools/bench/gpu.py: matmul 4096^2 against cuBLAS (TF32 off), the
#      elementwise chain against the memory bandwidth, the 3x3 ResNet
#      convolution against cuDNN, the MLP at batch 4096, and ResNet-50 end
#      to end against onnxruntime's CUDA provider or, without one, the same
#      graph in PyTorch.
# Each step's log goes to DIR (default: $OUT where set, else a temporary
# folder); the summary is printed last. Exit status 1 when a check failed.
set -uo pipefail
cd "$(dirname "$0")/.."

pack() {
  set -e
  cargo build --release -p ocannl-tools
  rm -rf .device/bin && mkdir -p .device/bin/real .device/bin/lib
  for b in ocannl-run ocannl-import-onnx; do
    strip -o ".device/bin/real/$b" "target/release/$b"
    # The shared libraries beside glibc (libomp, libstdc++, ...) travel
    # too, found through a wrapper: only these binaries see them, not the
    # device's Python and PyTorch.
    ldd "target/release/$b" | awk '$3 ~ /^\// {print $3}' \
      | grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^/]*)\.so' \
      | xargs -r cp -Lu -t .device/bin/lib
    printf '#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")\nLD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/real/%s" "$@"\n' \
      "$b" > ".device/bin/$b"
    chmod +x ".device/bin/$b"
  done
  tar -C .device -cf - bin | xz -T0 -6 > .device/bin.tar.xz
  rm -rf .device/bin
  grep -qxF '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
  ls -l .device/bin.tar.xz
  echo "device-check: carry .device; run: scripts/device-check.sh run"
}

run_all() {
  local out="${1:-${OUT:-$(mktemp -d)}}"
  mkdir -p "$out"
  local bin=/tmp/ocannl-device-bin
  local py="${PYTHON:-python3}"
  local target="${DEVICE_CHECK_TARGET:-cuda}"
  if [ ! -f .device/bin.tar.xz ]; then
    echo "device-check: no .device/bin.tar.xz: run 'scripts/device-check.sh pack' here and carry .device" >&2
    return 1
  fi
  rm -rf "$bin" && mkdir -p "$bin"
  xz -dc .device/bin.tar.xz | tar -C "$bin" --strip-components=1 -xf - || return 1
  # The toolkit whose libdevice ocannl-run links (sin, cos, pow, f64 exp).
  local tk=""
  for d in "${CUDA_HOME:-}" /usr/local/cuda $(ls -d /usr/local/cuda-* 2>/dev/null); do
    if [ -n "$d" ] && [ -f "$d/nvvm/libdevice/libdevice.10.bc" ]; then tk="$d"; break; fi
  done
  if [ -z "$tk" ]; then
    tk=$($py -c 'import nvidia.cuda_nvcc, os; print(os.path.dirname(nvidia.cuda_nvcc.__file__))' 2>/dev/null || true)
    [ -f "$tk/nvvm/libdevice/libdevice.10.bc" ] || tk=""
  fi
  local tkflag=()
  [ -n "$tk" ] && tkflag=(--cuda-toolkit "$tk")
  {
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true
    echo "toolkit: ${tk:-none (kinds that need libdevice will fail)}"
    nproc
    "$bin/ocannl-run" --version
  } > "$out/facts.txt" 2>&1
  cat "$out/facts.txt"
  local failed=()
  local t0=$SECONDS

  # 1. The differential suite on the device, kinds in parallel (each kind
  # is a sequence of ocannl-run processes; the device is shared).
  local kinds
  kinds=$($py tools/tests/run/differential.py --bin-dir "$bin" --list)
  rm -rf /tmp/ocannl-diff && mkdir -p /tmp/ocannl-diff
  # Each phase has a time limit, so that a hung kernel costs one phase.
  export PYTHONUNBUFFERED=1
  printf '%s\n' $kinds | timeout "${DEVICE_CHECK_PHASE_S:-240}" xargs -P "${DEVICE_CHECK_JOBS:-8}" -I{} sh -c \
    "$py tools/tests/run/differential.py --bin-dir $bin --target $target ${tkflag[*]} \
       --seed ${DEVICE_CHECK_SEED:-0} --cases ${DEVICE_CHECK_CASES:-4} --keep-going --only {} \
       > /tmp/ocannl-diff/{}.log 2>&1; echo \"rc \$?\" >> /tmp/ocannl-diff/{}.log"
  # The bad inputs (every kind with 0 cases, then the bad-input checks).
  timeout 120 $py tools/tests/run/differential.py --bin-dir "$bin" --target "$target" "${tkflag[@]}" --cases 0 \
    > /tmp/ocannl-diff/zz-bad-inputs.log 2>&1
  echo "rc $?" >> /tmp/ocannl-diff/zz-bad-inputs.log
  for k in $kinds zz-bad-inputs; do
    cat "/tmp/ocannl-diff/$k.log" 2>/dev/null
    grep -q '^rc ' "/tmp/ocannl-diff/$k.log" 2>/dev/null || echo "$k: did not finish (rc 124)"
  done > "$out/differential.log"
  grep -E '^[a-z0-9_]+ +[0-9]+/[0-9]+ passed|^  (ok  |FAIL)' "$out/differential.log" \
    | grep -vE ' ([0-9]+)/\1 passed' | grep -v '^  ok' > /tmp/ocannl-diff/bad || true
  if grep -q 'rc [1-9]' "$out/differential.log"; then
    failed+=(differential)
    echo "differential: FAILED ($((SECONDS - t0)) s):"; cat /tmp/ocannl-diff/bad
  else
    echo "differential: every kind passed on the device ($((SECONDS - t0)) s)"
  fi

  # 2. The examples.
  t0=$SECONDS
  { timeout 120 $py tools/tests/run/mlp_check.py --bin-dir "$bin" --target "$target" &&
    timeout 120 $py tools/tests/run/cnn_check.py --bin-dir "$bin" --target "$target"; } > "$out/examples.log" 2>&1 \
    || failed+=(examples)
  cat "$out/examples.log"; echo "examples: $((SECONDS - t0)) s"

  # 3. The benchmarks, alone on the device.
  t0=$SECONDS
  timeout "${DEVICE_CHECK_PHASE_S:-240}" $py tools/bench/gpu.py --bin-dir "$bin" --runs "${DEVICE_CHECK_RUNS:-20}" \
    ${DEVICE_CHECK_ONLY:+--only "$DEVICE_CHECK_ONLY"} 2>&1 | tee "$out/gpu-bench.log" || failed+=(gpu.py)
  echo "gpu.py: $((SECONDS - t0)) s"

  if ((${#failed[@]})); then
    echo "device-check: FAILED: ${failed[*]} (logs in $out)"
    return 1
  fi
  echo "device-check: all passed (logs in $out)"
}

case "${1:-}" in
  pack) pack ;;
  run) shift; run_all "$@" ;;
  *) echo "usage: scripts/device-check.sh pack | run [LOGDIR]" >&2; exit 2 ;;
esac
