#!/usr/bin/env bash
# Quick start 2: install what is missing and run every test: unit, property
# and snapshot tests, the lit/FileCheck suite (through `cargo test`), and the
# fmt, clippy and doc checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
echo "scripts/test.sh: all checks passed"
