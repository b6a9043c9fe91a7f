#!/usr/bin/env bash
# MGPBD against XPBD on the mgpbd_* scenes: from the same state (frame F), one substep solved by MGPBD's
# outer loop (K_MG outer iterations) and by serial and clustered Gauss-Seidel (K_X iterations); the
# relative dual residual against wall time is the decisive metric (docs/mgpbd.md).
# Usage: benches/mgpbd_vs_xpbd/run.sh [OUT]   (after cargo build --release -p xpbd-cli)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-out/mgpbd_vs_xpbd}
x=${CARGO_TARGET_DIR:-target}/release/xpbd
run() { # scene frame k_mgpbd k_xpbd
  local name; name=$(basename "$1" .toml)
  "$x" converge "$1" --frame "$2" --iterations "$3" --solvers mgpbd --out "$out/$name.mg" > /dev/null 2>&1
  "$x" converge "$1" --frame "$2" --iterations "$4" --solvers serial,clustered --out "$out/$name.x" > /dev/null 2>&1
  python3 - "$out/$name.mg/converge.csv" "$out/$name.x/converge.csv" "$out/$name" <<'PY'
import sys, os
os.makedirs(sys.argv[3], exist_ok=True)
lines = open(sys.argv[1]).read().splitlines() + open(sys.argv[2]).read().splitlines()[1:]
open(os.path.join(sys.argv[3], "converge.csv"), "w").write("\n".join(lines) + "\n")
PY
  echo "$out/$name"
}
dirs=(
  "$(run scenes/mgpbd_beam_stiff.toml 1 30 3000)"
  "$(run scenes/mgpbd_beam_nh.toml 10 10 1000)"
  "$(run scenes/mgpbd_cloth_16.toml 10 30 3000)"
  "$(run scenes/mgpbd_cloth_32.toml 10 30 3000)"
  "$(run scenes/mgpbd_ball_drop.toml 3 20 2000)"
  "$(run scenes/mgpbd_armadillo.toml 20 20 2000)"
  "$(run scenes/mgpbd_ball_squash.toml 0 30 3000)"
  "$(run scenes/mgpbd_bar_twist.toml 0 30 3000)"
  "$(run scenes/mgpbd_bunny_squash.toml 0 10 600)"
)
python3 benches/mgpbd_vs_xpbd/summarize.py "${dirs[@]}"
