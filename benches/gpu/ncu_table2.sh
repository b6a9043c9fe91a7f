#!/usr/bin/env bash
# Nsight Compute on Table 2's launches: for each variant, 120 launches of the measured step (after the warm-up
# step) of one mesh, plain launches in f32, with their duration, grid, block, registers and how busy the
# multiprocessors were; a summary per kernel goes to stdout and to $OUT_DIR/ncu-table2.md.
#
# Usage: bash benches/gpu/ncu_table2.sh TABLE2_GPU [OUT_DIR]   (MESH=160k by default; needs ncu, run as root or
# with access to the performance counters). On the device machine: `bash target/gpu-bundle/run.sh profile`.
#
# Durations are of each kernel alone, with ncu's cache flush before it (its default), so they are longer than
# the same kernel back to back in a frame: compare them with each other, and take a frame's time from
# table2_gpu's own timing.
set -euo pipefail
exe=$1
out=${2:-.}
mesh=${MESH:-160k}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
[ -x "$ncu" ] || { echo "ncu_table2: no ncu (Nsight Compute) found" >&2; exit 1; }
raw=$(mktemp -d)
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
# Launches to skip: more than one step's launches (substeps × (colours + 2)), fewer than two, so that the 120
# profiled ones are from the measured step.
for v in "baseline 12000" "C 5000" "B 2500" "B+C 1000"; do
    set -- $v
    "$ncu" --csv --page raw --metrics "$metrics" --launch-skip "$2" --launch-count 120 \
        "$exe" --meshes "$mesh" --variants "$1" --no-cpu --no-graph --steps 1 > "$raw/$1.csv"
done
python3 - "$raw" "$mesh" "$("$ncu" --version | tail -1)" <<'PY' | tee "$out/ncu-table2.md"
import collections, csv, io, sys
raw, mesh, version = sys.argv[1:]
print(f"# Nsight Compute on Table 2, {mesh} mesh, f32, plain launches ({version})\n")
print("| variant | kernel | launches | mean µs | min µs | max µs | grid (blocks) | block | registers | SM busy % | warps active % of peak |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for variant in ["baseline", "C", "B", "B+C"]:
    lines = [l for l in open(f"{raw}/{variant}.csv") if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("".join(lines))))
    ix = {h: i for i, h in enumerate(rows[0])}
    assert rows[1][ix["gpu__time_duration.sum"]] == "ns", rows[1][ix["gpu__time_duration.sum"]]
    kernels = collections.defaultdict(list)
    for r in rows[2:]:
        kernels[r[ix["Kernel Name"]]].append(r)
    for name, rs in kernels.items():
        col = lambda key: [float(r[ix[key]].replace(",", "")) for r in rs]
        us = [d / 1000 for d in col("gpu__time_duration.sum")]
        grid = col("launch__grid_size")
        mean = lambda xs: sum(xs) / len(xs)
        print(f"| {variant} | {name} | {len(rs)} | {mean(us):.1f} | {min(us):.1f} | {max(us):.1f} | {min(grid):.0f}–{max(grid):.0f} "
              f"| {rs[0][ix['launch__block_size']]} | {rs[0][ix['launch__registers_per_thread']]} "
              f"| {mean(col('sm__throughput.avg.pct_of_peak_sustained_elapsed')):.1f} "
              f"| {mean(col('sm__warps_active.avg.pct_of_peak_sustained_active')):.1f} |")
PY
rm -rf "$raw"
