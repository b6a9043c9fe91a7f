#!/usr/bin/env bash
# Where the adaptive run's frames cost more than the elastic run's (issue: "per-frame cost must never exceed the
# elastic run's by more than the oracle's overhead"; docs/adaptive-results.md, §2): the armadillo scene of
# benches/adaptive_scenes.rs (3717 tets, ears pinned, left claw pulled, 300 frames of h = 10 ms) run with
# `xpbd run` under solver.kind = "implicit" and "adaptive", one after the other. From metrics.csv's per-phase
# columns (docs/output-format.md) it prints both runs' totals per phase, the frames whose adaptive time exceeds
# the implicit frame plus that frame's oracle time, and in those frames the mean difference per phase and the
# mean rigid element count. Each kind runs REPEAT times, in turn; every frame and column takes its fastest
# repeat (the runs compute the same states), so that a frame counts as over because of the method and not
# because of one run's timing jitter (single runs put 20–60 of 300 frames over).
#
# Usage: benches/adaptive_phases.sh OUT [XPBD]   (default: target/release/xpbd, under CARGO_TARGET_DIR when set)
#   FRAMES (default 300), THREADS (default: all cores), REPEAT (default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: adaptive_phases.sh OUT [XPBD]}
x=${2:-${CARGO_TARGET_DIR:-$root/target}/release/xpbd}
[ -x "$x" ] || { echo "adaptive_phases.sh: no xpbd binary at $x (cargo build --release -p xpbd-cli)" >&2; exit 1; }
frames=${FRAMES:-300}
repeat=${REPEAT:-3}
threads=()
[ -z "${THREADS:-}" ] || threads=(--threads "$THREADS")
mkdir -p "$out"
for kind in implicit adaptive; do
    cat > "$out/$kind.toml" <<TOML
name = "armadillo_$kind"
[simulation]
dt = 0.01
frames = $frames
substeps = 1
gravity = [0.0, -9.81, 0.0]
[output]
formats = ["none"]
[solver]
kind = "$kind"
[[body]]
name = "armadillo"
mesh = { file = "$root/scenes/meshes/armadillo_4k.node", scale = 0.2 }
material = { model = "neohookean_block", youngs = 1e6, poisson = 0.3, density = 1000.0 }
rayleigh = [2.0, 0.005]
pin = [{ box = { min = [-1.0, 0.36, -1.0], max = [1.0, 1.0, 1.0] } }, { box = { min = [-1.0, -1.0, -1.0], max = [-0.22, 1.0, 1.0] }, velocity = [-0.05, -0.02, 0.0] }]
TOML
done
for rep in $(seq "$repeat"); do
    for kind in implicit adaptive; do
        mkdir -p "$out/$kind"
        "$x" run "$out/$kind.toml" --out "$out/$kind/$rep" --quiet "${threads[@]}" 2> "$out/$kind/$rep.log"
    done
done
python3 - "$out" "$repeat" <<'PY'
import csv, statistics, sys
out, repeat = sys.argv[1], int(sys.argv[2])
phases = ["assembly_ms", "factorisation_ms", "solve_ms", "contact_ms", "oracle_ms", "bodies_ms"]
def fastest(kind):
    runs = [list(csv.DictReader(open(f"{out}/{kind}/{r}/metrics.csv"))) for r in range(1, repeat + 1)]
    return [dict(frames[0], **{c: min(float(f[c]) for f in frames) for c in ["ms"] + phases}) for frames in zip(*runs)]
rows = {k: fastest(k) for k in ("implicit", "adaptive")}
print(f"each frame's fastest of {repeat} run(s) per kind")
print("| run | ms | " + " | ".join(phases) + " |")
print("|---|---|" + "---|" * len(phases))
for k, r in rows.items():
    print(f"| {k} | " + " | ".join(f"{sum(float(f[c]) for f in r):.0f}" for c in ["ms"] + phases) + " |")
pairs = list(zip(rows["implicit"], rows["adaptive"]))
over = [(i, a) for i, a in pairs if float(a["ms"]) > float(i["ms"]) + float(a["oracle_ms"])]
total = sum(float(i["ms"]) for i, _ in pairs) / sum(float(a["ms"]) for _, a in pairs)
print(f"\nspeed-up {total:.2f}; frames over implicit + oracle: {len(over)} of {len(pairs)}")
if over:
    print("mean adaptive − implicit in those frames (ms): " + ", ".join(f"{c} {statistics.mean(float(a[c]) - float(i[c]) for i, a in over):+.2f}" for c in ["ms"] + phases))
    print(f"mean rigid elements: {statistics.mean(float(a['rigid_elements']) for _, a in over):.0f} in those frames, "
          f"{statistics.mean(float(a['rigid_elements']) for _, a in pairs):.0f} over all frames")
PY
