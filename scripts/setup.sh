#!/usr/bin/env bash
# Installs what ocannl-mlir needs and is missing: the Debian LLVM/MLIR 22
# packages (see ../shared/TOOLCHAIN.md). Idempotent; runs apt only when a
# package is missing. Needs root (or sudo) for apt.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libclang-22-dev clang-22
  libpolly-22-dev libzstd-dev libz3-dev libxml2-dev zlib1g-dev
  python3 python3-numpy python3-venv libomp-22-dev cmake g++
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: error: a Rust toolchain (cargo) is required" >&2
  exit 1
fi
for tool in mlir-opt FileCheck lit not; do
  if [ ! -x "/usr/lib/llvm-22/bin/$tool" ]; then
    echo "setup: error: /usr/lib/llvm-22/bin/$tool is missing after installing the LLVM 22 packages" >&2
    exit 1
  fi
done
