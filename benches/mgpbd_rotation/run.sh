#!/usr/bin/env bash
# The component rows' gradient, exact ∂R/∂F against R held fixed (`solver.arap_rotation`), side by side
# in one run: `xpbd converge SCENE --frame 0 --iterations K --solvers mgpbd` on a copy of each scene with
# the setting written in, relative dual residual and wall ms per outer iteration (docs/mgpbd.md,
# "Exact rotation derivative in the component rows").
# Usage: benches/mgpbd_rotation/run.sh [OUT]   (after cargo build --release -p xpbd-cli)
# SCENES (default: the stiff beam, the twisted bar, the ball squash; add mgpbd_bunny_squash for the bunny,
# minutes per run), ITERATIONS (default 30).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-out/mgpbd_rotation}
x=${CARGO_TARGET_DIR:-target}/release/xpbd
scenes=${SCENES:-"mgpbd_beam_stiff mgpbd_bar_twist mgpbd_ball_squash"}
k=${ITERATIONS:-30}
copies=()
trap 'rm -f "${copies[@]}"' EXIT
for name in $scenes; do
  for rotation in fixed exact; do
    # The copy sits next to the scene so that its relative mesh paths still resolve.
    copy="scenes/.${name}.${rotation}.toml"
    copies+=("$copy")
    grep -v '^arap_rotation' "scenes/$name.toml" | sed "s/^kind = \"mgpbd\"/kind = \"mgpbd\"\narap_rotation = \"$rotation\"/" > "$copy"
    "$x" converge "$copy" --frame 0 --iterations "$k" --solvers mgpbd --out "$out/$name.$rotation" > /dev/null 2>&1
    printf '%-20s %-6s' "$name" "$rotation"
    awk -F, 'NR > 1 && ($2 == 1 || $2 == 2 || $2 == 3 || $2 == 5 || $2 == 10 || $2 == 20 || $2 == 30) { printf "  %d: %.2g (%.0f ms)", $2, $5, $3 }' "$out/$name.$rotation/converge.csv"
    echo
  done
done
