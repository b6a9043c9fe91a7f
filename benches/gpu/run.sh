#!/usr/bin/env bash
# GPU benchmark and checks for the CUDA backend (docs/gpu.md), for a machine with an NVIDIA GPU and cargo: assembles
# the kernels for sm_90 (scripts/check-ptx.sh), builds the GPU bundle (scripts/gpu-bundle.sh: the release xpbd, the
# parity test binaries and the table2_gpu example) and runs all of its stages here (target/gpu-bundle/run.sh):
#   1. the GPU parity tests against the CPU backend (they print "skipped: <reason>" without a GPU): XPBD
#      (backend_parity, parity) and MGPBD's solve phase and whole frames (amg_parity),
#   2. Table 2 of the block neo-Hookean paper, CPU vs GPU (f32, plain launches vs CUDA graph) side by side,
#   3. MGPBD's squash benchmark on the GPU (benches/gpu/mgpbd_squash.sh, DEVICES=cuda; its CPU numbers are the
#      2-core machine's, in docs/gpu.md).
# The device machine of the workplace, which has no cargo, runs the same bundle stage by stage (docs/gpu.md).
# Results: benches/gpu/results/<UTC time>/ (gpu-tests.txt, table2.md, mgpbd_squash.md).
#
# Usage: bash benches/gpu/run.sh [--steps N] [--meshes 3.7k,20k,56k,160k] [--no-cpu]
#   (arguments go to the table2_gpu example; default: --steps 5, all four meshes, with the CPU).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/gpu-bundle.sh
bash scripts/check-ptx.sh
out="benches/gpu/results/$(date -u +%Y%m%dT%H%M%SZ)"
TABLE2_ARGS="$*" OUT="$out" bash target/gpu-bundle/run.sh all
echo "written: $out"
