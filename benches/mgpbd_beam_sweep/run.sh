#!/usr/bin/env bash
# MGPBD paper Fig. 16 (stiff cantilever): scenes/mgpbd_beam_stiff.toml with μ = 1e9 … 1e12 Pa (youngs = 2μ,
# poisson 0) and Δt = 10 / 20 / 30 ms (one substep per frame), 0.3 s simulated. MGPBD with its defaults
# against XPBD (clustered Gauss-Seidel, 1 iteration per substep: the "small steps" use of XPBD) with as many
# substeps as fit MGPBD's measured ms per frame (calibrated from a 2-frame XPBD run), so both get about the
# same wall-clock budget. Prints ms/frame, the tip's lowest and final y (probe `tip`, rest y = 2.5) and the
# Euler–Bernoulli static tip y (ARAP with poisson 0 bends like E = μ: δ = ρ g A L⁴ / (8 μ I)); the tip swings
# about it between 2.5 and 2.5 − 2δ.
# Usage: benches/mgpbd_beam_sweep/run.sh OUT (after cargo build --release -p xpbd-cli); MUS="1e9 1e10 1e11
#        1e12", DTS="0.01 0.02 0.03" to change the sweep. Results: docs/mgpbd.md, "Stiff beam sweep".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run.sh OUT}
x=${CARGO_TARGET_DIR:-$root/target}/release/xpbd
mkdir -p "$out"
scene() { # mu dt kind-lines substeps iterations name
  # The scene's `tolerance` (MGPBD's stopping rule, 1e-3) is not an XPBD field.
  local drop=
  [ "$3" = 'kind = "mgpbd"' ] || drop='/^tolerance = /d'
  sed -e "s/youngs = 2.0e9/youngs = $(python3 -c "print(2*$1)")/" -e "s/^dt = 0.01/dt = $2/" \
      -e "s/^substeps = 1/substeps = $4/" -e "s/^iterations = 30/iterations = $5/" \
      -e "s/^kind = \"mgpbd\"/$3/" ${drop:+-e "$drop"} "$root/scenes/mgpbd_beam_stiff.toml" > "$out/$6.toml"
  echo "$out/$6.toml"
}
report() { # dir label mu
  python3 - "$1" "$2" "$3" <<'PY'
import csv, json, sys
d, label, mu = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = json.load(open(f"{d}/summary.json"))
ys = [float(r["y"]) for r in csv.DictReader(open(f"{d}/probes.csv")) if r["probe"] == "tip"]
static = 2.5 - 1000 * 9.81 * 4.0**4 / (8 * mu / 12)
print(f"{label:<34} {s['ms_per_frame']:10.1f} {min(ys):12.6f} {ys[-1]:12.6f} {static:12.6f} {s['final']['relative_residual']:10.2e}")
PY
}
printf "%-34s %10s %12s %12s %12s %10s\n" run ms/frame tip_y_min tip_y_end static_y rel_res
for mu in ${MUS:-1e9 1e10 1e11 1e12}; do
  for dt in ${DTS:-0.01 0.02 0.03}; do
    frames=$(python3 -c "print(round(0.3/$dt))")
    tag="mu${mu}_dt${dt}"
    m=$(scene "$mu" "$dt" 'kind = "mgpbd"' 1 30 "mgpbd_$tag")
    "$x" run "$m" --frames "$frames" --out "$out/mgpbd_$tag" > /dev/null
    report "$out/mgpbd_$tag" "mgpbd μ=$mu dt=$dt" "$mu"
    c=$(scene "$mu" "$dt" 'kind = "xpbd"\nordering = "clustered"' 10 1 "cal_$tag")
    "$x" run "$c" --frames 2 --out "$out/cal_$tag" > /dev/null
    n=$(python3 -c "import json; m=json.load(open('$out/mgpbd_$tag/summary.json'))['ms_per_frame']; c=json.load(open('$out/cal_$tag/summary.json'))['ms_per_substep']; print(max(1, round(m / c)))")
    p=$(scene "$mu" "$dt" 'kind = "xpbd"\nordering = "clustered"' "$n" 1 "xpbd_$tag")
    "$x" run "$p" --frames "$frames" --out "$out/xpbd_$tag" > /dev/null
    report "$out/xpbd_$tag" "xpbd $n substeps μ=$mu dt=$dt" "$mu"
  done
done
