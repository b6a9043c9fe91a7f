#!/usr/bin/env bash
# Runs every cargo-fuzz target (one per mesh reader, one for the scene parser) for a bounded time and
# prints the executions of each. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (default 60 s, all)
# FUZZ_RUNS=N runs N executions per target instead of a time bound.
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). There is no nightly toolchain here: the stable one
# runs it with RUSTC_BOOTSTRAP=1. No sanitizer (-s none): the targets install an allocator that aborts
# on any single allocation above 256 MiB, and libFuzzer's -rss_limit_mb bounds the total.
# Corpora grow in fuzz/corpus/ (not committed), seeds are fuzz/seeds/, crashes land in fuzz/artifacts/.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(tetgen gmsh medit vtk_legacy vtu obj scene)
export RUSTC_BOOTSTRAP=1
cargo fuzz build -s none -O
status=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    if [ -n "${FUZZ_RUNS:-}" ]; then bound="-runs=$FUZZ_RUNS"; else bound="-max_total_time=$seconds"; fi
    log="fuzz/artifacts/$t.log"
    mkdir -p fuzz/artifacts
    if cargo fuzz run -s none -O "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        "$bound" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        result=ok
    else
        result="FAILED (see $log and fuzz/artifacts/$t/)"
        status=1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    printf '%-11s %12s executions  %s\n' "$t" "$runs" "$result"
done
exit $status
