#!/usr/bin/env bash
# Compares two ocannl-opt binaries' ocannl-infer-shapes output (stdout and
# stderr, with and without closing) on every lit input and any extra files:
# the check that a speed change to the solver or the pass changes nothing a
# user sees, solutions and diagnostics alike.
#
#   scripts/compare-infer.sh BASE_OPT NEW_OPT [EXTRA.mlir ...]
#
# E.g. build the base commit, copy its target/release/ocannl-opt to
# /tmp/base-opt, build the change, then
#   scripts/compare-infer.sh /tmp/base-opt target/release/ocannl-opt
# Exit 1 when any output differs (the differing runs are listed).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BASE_OPT NEW_OPT [EXTRA.mlir ...]" >&2
  exit 1
fi
base=$1 new=$2
shift 2
for bin in "$base" "$new"; do
  if [ ! -x "$bin" ] || [ -d "$bin" ]; then
    echo "compare-infer: not an executable: $bin" >&2
    exit 1
  fi
done
for f in "$@"; do
  if [ ! -r "$f" ] || [ -d "$f" ]; then
    echo "compare-infer: cannot read $f" >&2
    exit 1
  fi
done
root=$(cd "$(dirname "$0")/.." && pwd)
runs=0 diffs=0
while IFS= read -r f; do
  for p in 'builtin.module(ocannl-infer-shapes)' 'builtin.module(ocannl-infer-shapes{close=false})'; do
    runs=$((runs + 1))
    a=$("$base" "$f" --split-input-file -p "$p" 2>&1 | sed "s#$base#OPT#g" || true)
    b=$("$new" "$f" --split-input-file -p "$p" 2>&1 | sed "s#$new#OPT#g" || true)
    if [ "$a" != "$b" ]; then
      diffs=$((diffs + 1))
      echo "differs: $f with $p"
    fi
  done
done < <(find "$root/lit-tests" -name '*.mlir' | sort; for f in "$@"; do echo "$f"; done)
echo "compare-infer: $runs runs, $diffs differ"
[ "$diffs" -eq 0 ]
