#!/usr/bin/env bash
# Reproduces the experiments of "A Multi-layer Solver for XPBD" on this machine's CPU;
# docs/reproductions/multilayer.md discusses the results.
#   Fig. 5-8  element order (strain rate, stretch, random, stripes), linear or logarithmic group sizes, the number
#             of layers, iterations per layer: residual against iteration and solver time on the pinned cantilever
#             and on a free stretched box (benches/multilayer_studies.rs: ordering, spacing, layers, iterations);
#   Table 1   the stretched box at three resolutions and three stiffnesses: time to 90 % residual reduction
#             (stretched), and the share of the sort and union-find (benches/multilayer_share.rs);
#   Fig. 9    histograms of the time to 90 % per sampled substep, XPBD against multi-layer, on the spinning box,
#             the wheel, the pills in a funnel, the octopus (the armadillo pinned at its head), the stretched box
#             and the I-shape (examples); 9a's drift of the spinning box at equal cost (spinning);
#   Fig. 10   the octopus: time to 90, 99 and 99.9 % (precision);
#   §3.1      the layers in parallel: one thread against two on a 20,000-tet cantilever, same residuals.
#
# Usage: benches/reproduce/multilayer.sh [--smoke | --full] [--out DIR]
#   default  every experiment above at the sizes of benches/multilayer_studies.rs; results in
#            docs/reproductions/multilayer/ (tables.md, the studies' CSV and SVG)
#   --full   the same with the 20k-tet scaling run over 10 frames instead of 3
#   --smoke  every step at two samples and a few iterations (the CI check, scripts/test.sh)
# The octopus needs scenes/meshes/armadillo_4k.node/.ele (in the repository). Run folders go to
# out/reproduce/multilayer/ (--smoke: the temporary folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
paper=multilayer
# shellcheck source=benches/reproduce/common.sh
source "$root/benches/reproduce/common.sh"
case $mode in
  smoke) scaling_scene=scenes/layers_cantilever_multilayer.toml scaling_frames=1 scaling_repeats=1 ;;
  default) scaling_scene=scenes/layers_cantilever_multilayer_20k.toml scaling_frames=3 scaling_repeats=3 ;;
  full) scaling_scene=scenes/layers_cantilever_multilayer_20k.toml scaling_frames=10 scaling_repeats=3 ;;
esac

cd "$root"
x=$(xpbd_exe)
tables=$out/tables.md
echo "# Multi-layer XPBD: results of benches/reproduce/multilayer.sh ($mode, $(date -u +%Y-%m-%d), $(nproc) cores)" > "$tables"

# --- Fig. 5-10 and Table 1: the studies, each one process (the studies print their Markdown tables) -----------
studies=$(bench_exe multilayer_studies)
# One thread: the paper's comparisons are of solvers, not of thread counts (the multi-layer sweep is parallel and
# XPBD's serial ordering is not); the scaling is measured on its own below.
export RAYON_NUM_THREADS=1
smoke=()
[ "$mode" != smoke ] || smoke=(--smoke)
for study in ordering spacing layers iterations stretched spinning examples precision; do
  start=$SECONDS
  { echo; echo "## Study \`$study\`"; echo; } >> "$tables"
  "$studies" "$study" --out "$out" "${smoke[@]}" >> "$tables"
  echo "$study: $((SECONDS - start)) s"
done

# --- Table 1: the share of the sort and union-find in a substep --------------------------------------------
{ echo; echo "## Sort and union-find share (benches/multilayer_share.rs)"; echo; } >> "$tables"
share=$(bench_exe multilayer_share)
"$share" "$([ "$mode" = smoke ] && echo 1 || echo 20)" >> "$tables"
echo "share: done"

unset RAYON_NUM_THREADS

# --- §3.1: one thread against two, interleaved runs; every metrics column but the times must agree -------------
for k in $(seq "$scaling_repeats"); do
  for t in 1 2; do
    "$x" run "$scaling_scene" --frames "$scaling_frames" --threads $t --quiet --device cpu --out "$work/scaling_t${t}_$k"
  done
done
python3 - "$work" "$scaling_repeats" "$scaling_scene" "$scaling_frames" >> "$tables" <<'PY'
import csv, json, sys
work, repeats, scene, frames = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = {t: [f"{work}/scaling_t{t}_{k}" for k in range(1, repeats + 1)] for t in (1, 2)}
ms = {t: [json.load(open(f"{r}/summary.json"))["ms_per_frame"] for r in rs] for t, rs in runs.items()}
def physics(run):
    rows = list(csv.DictReader(open(f"{run}/metrics.csv")))
    return [{k: v for k, v in row.items() if k not in ("ms",)} for row in rows]
same = all(physics(r) == physics(runs[1][0]) for rs in runs.values() for r in rs)
final = json.load(open(f"{runs[1][0]}/summary.json"))["final"]
print(f"\n## Layers in parallel (§3.1): `xpbd run {scene} --frames {frames} --threads N`\n")
print("| threads | ms per frame (interleaved runs) | best |\n|---|---|---|")
for t in (1, 2):
    print(f"| {t} | {', '.join(f'{m:.0f}' for m in ms[t])} | {min(ms[t]):.0f} |")
print(f"\nTwo threads over one: {min(ms[1]) / min(ms[2]):.2f}x (best against best). Every metrics.csv column but `ms` "
      f"{'identical' if same else 'DIFFERS'} across the runs; final relative residual {final['relative_residual']:.3e}.")
if not same:
    sys.exit("multilayer.sh: the runs with 1 and 2 threads differ in their metrics")
PY
echo "scaling: done"
echo "results: $tables"
