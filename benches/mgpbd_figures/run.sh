#!/usr/bin/env bash
# The plots of docs/mgpbd.md: relative outer dual residual against wall time (and against iteration) of
# the first substep from a given frame, MGPBD with its defaults against XPBD (clustered Gauss-Seidel) run
# long enough to cover MGPBD's time, for the paper's stiff beam (Fig. 16), ball squash (Fig. 12), twisted
# bar (Fig. 8) and the armadillo on the rods in contact (Fig. 16). `xpbd converge` writes converge.csv and
# converge.svg; this copies them to docs/figures/mgpbd/NAME.{csv,svg}.
# Usage: benches/mgpbd_figures/run.sh [OUT] (after cargo build --release -p xpbd-cli; about 3 minutes,
#        most of it the armadillo's run-up to frame 50). Run it on a quiet machine: the curves are timed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/docs/figures/mgpbd}
x=${CARGO_TARGET_DIR:-$root/target}/release/xpbd
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# name scene frame solvers
while read -r name scene frame solvers; do
  "$x" converge "$root/scenes/$scene.toml" --frame "$frame" --iterations 1 --solvers "$solvers" --out "$work/$name" | head -n 3
  cp "$work/$name/converge.csv" "$out/$name.csv"
  cp "$work/$name/converge.svg" "$out/$name.svg"
done <<'LIST'
beam_stiff mgpbd_beam_stiff 0 mgpbd:10,clustered:3000
ball_squash mgpbd_ball_squash 0 mgpbd:10,clustered:1000
bar_twist mgpbd_bar_twist 0 mgpbd:10,clustered:1500
armadillo mgpbd_armadillo 50 mgpbd:10,clustered:2000
LIST
