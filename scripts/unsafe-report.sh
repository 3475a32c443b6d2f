#!/usr/bin/env bash
# Counts `unsafe` (blocks, functions, impls, extern blocks, `#[unsafe(...)]`)
# in each crate's sources and fails when one appears outside the crate's FFI
# layer (`src/ffi.rs`, `src/ffi/`): raw MLIR C API calls and every `unsafe`
# live there, behind safe functions (ARCHITECTURE.md, "FFI").
#   scripts/unsafe-report.sh [REV]   # REV: count a git revision instead
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:-}"
files() {
  if [ -n "$rev" ]; then git ls-tree -r --name-only "$rev" -- "$1/src" | grep '\.rs$' || true
  else git ls-files -- "$1/src" | grep '\.rs$' || true; fi
}
content() { if [ -n "$rev" ]; then git show "$rev:$1"; else cat "$1"; fi; }
# Code lines only: comments (`//`, `///`, `//!`) do not count.
count() { content "$1" | { grep -v '^\s*//' || true; } | { grep -o '\bunsafe\b' || true; } | wc -l; }
status=0
for crate in shape onnx dialect passes capi runtime tools fuzz; do
  [ -d "$crate" ] || continue
  total=0; ffi=0; stray=""
  for f in $(files "$crate"); do
    n=$(count "$f")
    [ "$n" -eq 0 ] && continue
    total=$((total + n))
    case "$f" in
      */src/ffi.rs|*/src/ffi/*) ffi=$((ffi + n)) ;;
      *) stray="$stray $f($n)" ;;
    esac
  done
  printf '%-8s unsafe: %3d (FFI layer: %3d)%s\n' "$crate" "$total" "$ffi" "${stray:+  outside it:$stray}"
  [ -n "$stray" ] && [ -z "$rev" ] && status=1
done
exit $status
