#!/usr/bin/env bash
# The contact solve of the implicit solvers (docs/adaptive-results.md, "Contact solve"), two builds side by side:
# scenes/adaptive_pills.toml (eight pills on pegs, 640 tets) and scenes/adaptive_bunny_drop.toml (the 31k-tet
# bunny dropped onto the ground), each under solver.kind = "implicit" and "adaptive", run by both `xpbd`
# binaries in turn, REPEAT times. From metrics.csv's per-phase columns (docs/output-format.md) it prints, per
# scene, kind and build, the total wall milliseconds and the contact phase's (fastest repeat of each), the
# old/new ratios, and the largest difference of the last frame's kinetic energy between the builds (the two
# compute the same contact impulses up to round-off).
#
# Usage: benches/implicit_contact.sh OUT OLD_XPBD NEW_XPBD
#   FRAMES_PILLS (default 300), FRAMES_BUNNY (default 40), REPEAT (default 2), THREADS (default: all cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: implicit_contact.sh OUT OLD_XPBD NEW_XPBD}
old=${2:?usage: implicit_contact.sh OUT OLD_XPBD NEW_XPBD}
new=${3:?usage: implicit_contact.sh OUT OLD_XPBD NEW_XPBD}
for x in "$old" "$new"; do [ -x "$x" ] || { echo "implicit_contact.sh: no xpbd binary at $x" >&2; exit 1; }; done
repeat=${REPEAT:-2}
threads=()
[ -z "${THREADS:-}" ] || threads=(--threads "$THREADS")
mkdir -p "$out"
declare -A frames=([pills]=${FRAMES_PILLS:-300} [bunny_drop]=${FRAMES_BUNNY:-40})
for scene in pills bunny_drop; do
    for kind in implicit adaptive; do
        sed -e "s|^kind = \"adaptive\"|kind = \"$kind\"|" -e "s|^frames = .*|frames = ${frames[$scene]}|" \
            -e "s|meshes/|$root/scenes/meshes/|" -e 's|^every = .*|formats = ["none"]|' \
            "$root/scenes/adaptive_$scene.toml" > "$out/${scene}_$kind.toml"
    done
done
for rep in $(seq "$repeat"); do
    for scene in pills bunny_drop; do
        for kind in implicit adaptive; do
            for build in old new; do
                x=$old; [ $build = new ] && x=$new
                run="$out/$scene/$kind/$build/$rep"
                mkdir -p "$run"
                "$x" run "$out/${scene}_$kind.toml" --out "$run" --quiet "${threads[@]}" 2> "$run.log"
            done
        done
    done
done
python3 - "$out" "$repeat" <<'PY'
import csv, sys
out, repeat = sys.argv[1], int(sys.argv[2])
def runs(scene, kind, build):
    return [list(csv.DictReader(open(f"{out}/{scene}/{kind}/{build}/{r}/metrics.csv"))) for r in range(1, repeat + 1)]
print(f"fastest of {repeat} run(s) per build; ms = the sum over frames")
print("| scene | kind | old: total ms | old: contact ms | new: total ms | new: contact ms | total old/new | contact old/new | last-frame kinetic energy, relative difference |")
print("|---|---|---|---|---|---|---|---|---|")
for scene in ("pills", "bunny_drop"):
    for kind in ("implicit", "adaptive"):
        cells, energy = {}, {}
        for build in ("old", "new"):
            rs = runs(scene, kind, build)
            cells[build] = (min(sum(float(f["ms"]) for f in r) for r in rs), min(sum(float(f["contact_ms"]) for f in r) for r in rs))
            energy[build] = float(rs[0][-1]["kinetic_energy"])
        (ot, oc), (nt, nc) = cells["old"], cells["new"]
        de = abs(energy["old"] - energy["new"]) / max(abs(energy["old"]), 1e-300)
        print(f"| {scene} | {kind} | {ot:.0f} | {oc:.0f} | {nt:.0f} | {nc:.0f} | {ot / nt:.2f} | {oc / max(nc, 1e-9):.2f} | {de:.1e} |")
PY
