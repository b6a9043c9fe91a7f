#!/usr/bin/env bash
# Two-thread scaling of the CPU sweeps on the 56k-tet beam (benches/beam56k.sh; docs/benchmarks.md, "Two
# threads"): for each ordering, one-thread and two-thread runs of the same binary in turn, REPEATS times
# (`xpbd run SCENE --threads N --quiet`, summary.json's `ms_per_frame`: the solve's wall time per frame), then
# per ordering the fastest and the median frame time on each thread count, their ratios (the speed-up), and
# whether both thread counts gave identical probes (the sweeps promise the same bits on any thread count).
# The load average before and after is printed: on a shared machine a co-tenant takes the second core in turn,
# so read the fastest runs, and rerun when the load was high.
#
# Usage: benches/threads.sh [XPBD]   (default: target/release/xpbd of this checkout, built if missing)
# Environment (defaults in brackets):
#   ORDERINGS ["clustered colored"]  ORDERING or ORDERING:PRECISION entries (serial, colored, clustered, jacobi;
#                                     f64, f32)
#   REPEATS [6]   runs per ordering and thread count, alternating
#   FRAMES [40]   frames per run (10 substeps, 1 iteration each)
#   THREADS [2]   the thread count compared with one
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
x=${1:-${CARGO_TARGET_DIR:-$root/target}/release/xpbd}
[ -x "$x" ] || (cd "$root" && cargo build --release --locked -q -p xpbd-cli)
[ -x "$x" ] || { echo "threads.sh: no xpbd binary at $x" >&2; exit 1; }
orderings=${ORDERINGS:-clustered colored}
repeats=${REPEATS:-6}
frames=${FRAMES:-40}
threads=${THREADS:-2}
for n in repeats frames threads; do
    [[ ${!n} =~ ^[1-9][0-9]*$ ]] || { echo "threads.sh: ${n^^} must be a positive integer, not '${!n}'" >&2; exit 2; }
done
# shellcheck source=benches/beam56k.sh
source "$root/benches/beam56k.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# Two-thread scaling, 56k-tet beam, $frames frames × 10 substeps × 1 iteration, $repeats runs each"
echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), $("$x" --version 2>/dev/null | head -n 1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| ordering | 1 thread: fastest / median (ms) | $threads threads: fastest / median (ms) | speed-up: fastest / median | same probes |"
echo "|---|---|---|---|---|"
for entry in $orderings; do
    ordering=${entry%%:*}
    precision=f64
    [ "$entry" = "$ordering" ] || precision=${entry#*:}
    beam56k_scene "beam_$ordering" "$ordering" 10 "$frames" 1 "$precision" > "$work/beam.toml"
    : > "$work/times"
    for rep in $(seq "$repeats"); do
        for t in 1 "$threads"; do
            "$x" run "$work/beam.toml" --out "$work/run_$t" --threads "$t" --quiet
            python3 -c 'import json, sys; print(sys.argv[2], json.load(open(sys.argv[1]))["ms_per_frame"])' "$work/run_$t/summary.json" "$t" >> "$work/times"
        done
    done
    same=no
    cmp -s "$work/run_1/probes.csv" "$work/run_$threads/probes.csv" && same=yes
    python3 - "$work/times" "$entry" "$threads" "$same" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    t, ms = line.split()
    times.setdefault(t, []).append(float(ms))
one, many = times["1"], times[sys.argv[3]]
fast = (min(one), min(many))
med = (statistics.median(one), statistics.median(many))
print(f"| {sys.argv[2]} | {fast[0]:.2f} / {med[0]:.2f} | {fast[1]:.2f} / {med[1]:.2f} | "
      f"{fast[0] / fast[1]:.2f}× / {med[0] / med[1]:.2f}× | {sys.argv[4]} |")
PY
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
