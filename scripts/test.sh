#!/usr/bin/env bash
# The one test command (README): installs what it needs, builds everything, runs every test in
# release mode (the physics tests need it), and assembles the PTX for sm_90.
# Needs only the Rust toolchain, Python (for the CUDA 12.0 compiler from PyPI, NVRTC behind an nvcc look-alike) and gcc.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

step() { printf '\n== %s\n' "$*"; }

step "CUDA toolchain (CUDA 12.0 from PyPI into .toolchain/, cached per user)"
bash scripts/install-cuda-toolchain.sh

step "no import circle between the source files of any crate (ARCHITECTURE.md)"
python3 scripts/import-cycles.py

step "build (release, all targets)"
cargo build --release --workspace --all-targets --locked

step "tests (release)"
# The toolchain's libnvrtc on the loader's path: crates/xpbd-cuda/tests/nvrtc.rs compiles every kernel with the
# NVRTC fallback (no GPU needed).
export LD_LIBRARY_PATH="$repo/.toolchain/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cargo test --release --workspace --locked

step "reproduction scripts at smoke sizes: every step of each paper's script, a few frames each (benches/reproduce/)"
bash benches/reproduce/block-neohookean.sh --smoke
bash benches/reproduce/cloth-report.sh --smoke
bash benches/reproduce/mgpbd.sh --smoke
bash benches/reproduce/multilayer.sh --smoke

step "AMG-PCG against SciPy and PyAMG on small dual systems (venv cached per user)"
bash benches/mgpbd_vs_pyamg/check.sh

step "PTX assembled with ptxas -arch=sm_90"
bash scripts/check-ptx.sh

step "fuzzing: the stable mutation loop ran with the tests above (xpbd-core tests/mutation_fuzz.rs, 4 s per target); cargo-fuzz, 10 s per target, where installed"
if cargo fuzz --version >/dev/null 2>&1; then
    bash scripts/fuzz.sh 10
else
    echo "cargo-fuzz pass skipped: cargo-fuzz is not installed (cargo install cargo-fuzz; see docs/robustness.md)"
fi
