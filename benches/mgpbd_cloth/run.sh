#!/usr/bin/env bash
# MGPBD paper Fig. 14: the hanging cloth (scenes/mgpbd_cloth_16.toml, stretch compliance 1e-9 m/N) at
# N×N cells, MGPBD with its default (`auto`: the direct solve for cloth) against XPBD (serial Gauss-Seidel)
# on the same substeps with several iteration counts, so that pairs at about equal wall time can be read
# off. Prints per run: ms per frame and the maximum edge strain (summary.json) after FRAMES frames.
# Usage: benches/mgpbd_cloth/run.sh OUT   (after cargo build --release -p xpbd-cli); NS="16 32 64",
#        FRAMES=30, XPBD_ITERATIONS="20 100 400" to change the sweep. docs/mgpbd.md, "Hanging cloth".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run.sh OUT}
x=${CARGO_TARGET_DIR:-$root/target}/release/xpbd
frames=${FRAMES:-30}
mkdir -p "$out"
printf "%-6s %-22s %12s %16s %18s\n" cells solver ms/frame max_edge_strain relative_residual
for n in ${NS:-16 32 64}; do
  base="$out/cloth_$n.toml"
  sed -e "s/cells = \[16, 16\]/cells = [$n, $n]/" -e "0,/^name = .*/s//name = \"cloth_$n\"/" "$root/scenes/mgpbd_cloth_16.toml" > "$base"
  runs=("mgpbd:$base")
  for it in ${XPBD_ITERATIONS:-20 100 400}; do
    sed -e 's/^kind = "mgpbd"/kind = "xpbd"/' -e '/^tolerance = /d' -e "s/^iterations = .*/iterations = $it/" "$base" > "$out/cloth_${n}_xpbd$it.toml"
    runs+=("xpbd-$it:$out/cloth_${n}_xpbd$it.toml")
  done
  for r in "${runs[@]}"; do
    label=${r%%:*}; scene=${r#*:}
    dir="$out/$(basename "$scene" .toml)"
    "$x" run "$scene" --frames "$frames" --out "$dir" > /dev/null
    python3 - "$dir/summary.json" "$n" "$label" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
f = s["final"]
print(f"{sys.argv[2]:<6} {sys.argv[3]:<22} {s['ms_per_frame']:12.1f} {f['max_edge_strain']:16.3e} {f['relative_residual']:18.3e}")
PY
  done
done
