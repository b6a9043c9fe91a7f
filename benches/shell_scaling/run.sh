#!/usr/bin/env bash
# Direct (sparse Cholesky) against the Curtis–Reid-scaled, incomplete-Cholesky-preconditioned CG at 1e-4 on the
# implicit solver's A_A of shell sheets of 16² to 128² cells (docs/shells.md, "Scaling and the iterative solve"):
# runs the ignored timing test of crates/xpbd-cpu/tests/shell_scaling.rs and prints ms per solve, PCG
# iterations, the speed-up and the crossover.
# Usage: benches/shell_scaling/run.sh   (CARGO_TARGET_DIR as for any cargo build; about 3 minutes on 2 cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cargo test --release -p xpbd-cpu --test shell_scaling direct_against_pcg_timing -- --ignored --nocapture --test-threads 1 2>&1 \
    | grep -oE 'cells .*|^ *[0-9]+² .*|^crossover.*'
