#!/usr/bin/env bash
# GPU benchmark and checks for the CUDA backend (docs/gpu.md), meant for a machine with an NVIDIA GPU:
#   1. builds with the kernels (installs the CUDA 13.0 nvcc from PyPI if needed) and assembles them for sm_90,
#   2. runs the GPU parity tests against the CPU backend (they print "skipped: <reason>" without a GPU): XPBD
#      (backend_parity, parity) and MGPBD's solve phase and whole frames (amg_parity),
#   3. runs Table 2 of the block neo-Hookean paper, CPU vs GPU (f32, plain launches vs CUDA graph) side by side,
#   4. runs MGPBD's squash benchmark on the GPU (benches/gpu/mgpbd_squash.sh, DEVICES=cuda; its CPU numbers are
#      the 2-core machine's, in docs/gpu.md), unless MGPBD_SQUASH=0.
# Results go to stdout and to benches/gpu/results/table2-<UTC time>.md and mgpbd_squash-<UTC time>.md.
#
# Usage: bash benches/gpu/run.sh [--steps N] [--meshes 3.7k,20k,56k,160k] [--no-cpu]
#   (arguments go to the table2_gpu example; defaults: 5 steps, all four meshes, with the CPU).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -x .toolchain/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null && [ -z "${NVCC:-}${CUDA_HOME:-}${CUDA_PATH:-}" ]; then
    bash scripts/install-cuda-toolchain.sh
fi
cargo build --release -p xpbd-cuda --examples
bash scripts/check-ptx.sh
cargo test --release -p xpbd-cuda --test backend_parity --test parity -- --nocapture 2>&1 | grep -E "running on|skipped|: \||test result|panicked|FAILED" || true
cargo test --release -p xpbd-cuda --test amg_parity -- --nocapture 2>&1 | grep -E "running on|skipped|frame|iteration|test result|panicked|FAILED" || true

mkdir -p benches/gpu/results
out="benches/gpu/results/table2-$(date -u +%Y%m%dT%H%M%SZ).md"
{
    echo "# Table 2 on the GPU ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD))"
    echo
    echo "Command: bash benches/gpu/run.sh $*"
    echo
    cargo run --release -q -p xpbd-cuda --example table2_gpu -- "$@"
} | tee "$out"
echo "written: $out"
if [ "${MGPBD_SQUASH:-1}" != "0" ]; then
    squash="benches/gpu/results/mgpbd_squash-$(date -u +%Y%m%dT%H%M%SZ).md"
    DEVICES=cuda bash benches/gpu/mgpbd_squash.sh out/mgpbd_squash_gpu
    cp out/mgpbd_squash_gpu/table.md "$squash"
    echo "written: $squash"
fi
