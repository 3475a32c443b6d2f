#!/usr/bin/env bash
# Quick start 2: install what is missing and run every test: unit, property
# and snapshot tests, the lit/FileCheck suite, the CLI and NumPy
# differential tests (all through `cargo test`) against the debug binaries
# AND the release binaries users run (release builds turn undefined
# behaviour that debug builds survive into crashes), a short fuzz run of
# both, the FFI-confinement check, the demo (quick start 1), and the fmt,
# clippy and doc checks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace
# The same lit, CLI and differential suite against the release binaries.
cargo test --release -p ocannl-tools
# Random and mutated programs through every named pipeline and ocannl-run,
# debug and release: no crash, hang, panic or unlocated rejection.
cargo run -q -p ocannl-fuzz -- --bin-dir target/debug --programs 300 --run-programs 50 --seed 1
cargo run -q --release -p ocannl-fuzz -- --bin-dir target/release --programs 300 --run-programs 50 --seed 2
scripts/unsafe-report.sh
# Quick start 1 stays true: the main job end to end (output discarded).
scripts/demo.sh > /dev/null
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
echo "scripts/test.sh: all checks passed"
