#!/usr/bin/env bash
# Time to a 1e-3 relative outer residual against size with the default MGPBD solver (auto: component
# rows, primal-amg) and its log-log slope, the target of issue 4 (slope <= 1.15 over a 16x range);
# docs/mgpbd.md, "Time to a 1e-3 relative outer residual against size".
# ARAP beam (mgpbd_beam_stiff.toml with youngs 2e5, where the outer loop converges), cells [4k, k, k]
# (20 k^3 tets). Per size and binary:
#   - `xpbd converge --frame 3`: ms to 1e-3 (a fresh solver: one full AMG setup, refreshes after), outer
#     iterations, ms per outer iteration;
#   - `xpbd run --frames 2`: the second frame (refreshes only) split per outer iteration into assembly
#     (rows, J, K), AMG refresh (Galerkin products, diagonals, coarsest factor), PCG and line search.
# Then least-squares log-log slopes against the tet count over SLOPE_KS (default 4 6 8 11: 1280 ->
# 26,620 tets, 20.8x). Several binaries are run size by size in turn, so their ratios share the load.
# Usage: benches/mgpbd_outer/slope.sh OUT [XPBD...]   (default: target/release/xpbd after
#        cargo build --release -p xpbd-cli); KS="2 3 4 6 8 11" ITERATIONS=8 to change the sweep.
set -euo pipefail
out=${1:?usage: slope.sh OUT [XPBD...]}
shift
source "$(dirname "$0")/binaries.sh"
ks=${KS:-2 3 4 6 8 11}
slope_ks=${SLOPE_KS:-4 6 8 11}
iterations=${ITERATIONS:-8}
mkdir -p "$out"
cd "$out"
: > rows.txt
for k in $ks; do
  sed -e "s/youngs = 2.0e9/youngs = 2.0e5/" -e "s/cells = \[16, 4, 4\]/cells = [$((4*k)), $k, $k]/" \
    "$root/scenes/mgpbd_beam_stiff.toml" > size_$k.toml
  for b in "${!bins[@]}"; do
    x=${bins[$b]}
    "$x" converge size_$k.toml --frame 3 --iterations "$iterations" --solvers mgpbd --out conv_${b}_$k > /dev/null
    "$x" run size_$k.toml --frames 2 --out run_${b}_$k > /dev/null
    # columns of metrics.csv: 10 outer, 11 PCG iterations, 13 assembly, 14 setup, 15 solve, 16 line search (ms)
    frame=$(awk -F, 'NR==3 {printf "%d %d %.2f %.2f %.2f %.2f", $10, $11, $13/$10, $14/$10, $15/$10, $16/$10}' run_${b}_$k/metrics.csv)
    awk -F, -v k=$k -v b=$b -v frame="$frame" 'NR>1 && !done && $5 <= 1e-3 {printf "%d %d %d %.2f %s\n", b, k, 20*k*k*k, $3, $2 " " frame; done=1}
      END {if (!done) printf "%d %d %d nan 0 %s\n", b, k, 20*k*k*k, frame}' conv_${b}_$k/converge.csv >> rows.txt
  done
done
for b in "${!bins[@]}"; do
  echo "## ${bins[$b]}"
  echo "tets | ms to 1e-3 | outer | ms/outer | refresh frame: outer, PCG it, per outer ms: assembly, AMG refresh, PCG, line search"
  awk -v b=$b '$1==b {printf "%6d | %9.1f | %d | %7.1f | %d, %d, %.1f, %.1f, %.1f, %.1f\n", $3, $4, $5, $4/$5, $6, $7, $8, $9, $10, $11}' rows.txt
  # least-squares slope of log(y) against log(tets) over SLOPE_KS
  awk -v b=$b -v ks="$slope_ks" 'BEGIN {n = split(ks, s); for (i = 1; i <= n; i++) use[s[i]] = 1}
    $1==b && use[$2] && $4 != "nan" {
      x = log($3); m++; sx += x; sxx += x*x
      y[1] = log($4); y[2] = log($4/$5); y[3] = log($8+$9+$10+$11); y[4] = log($9)
      for (c = 1; c <= 4; c++) {sy[c] += y[c]; sxy[c] += x*y[c]}
      if (m == 1) lo = $3; hi = $3}
    END {if (m < 2) {print "slope: fewer than two sizes reached 1e-3"; exit}
      split("time to 1e-3,per outer iteration (converge),per outer iteration (refresh frame),AMG refresh per outer iteration", name, ",")
      for (c = 1; c <= 4; c++) printf "log-log slope over %d -> %d tets (%.1fx), %s: %.2f\n", lo, hi, hi/lo, name[c], (m*sxy[c] - sx*sy[c]) / (m*sxx - sx*sx)}' rows.txt
done
