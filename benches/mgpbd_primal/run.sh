#!/usr/bin/env bash
# Issue 4: MGPBD's dual solve through the primal matrix K = M + Jᵀα̃⁻¹J (`primal-amg`) against plain
# CG and the direct solve of A, on exported systems (residual reached against setup + solve time)
# and in the outer loop (relative dual residual after K outer iterations, wall time).
# Usage: benches/mgpbd_primal/run.sh OUT  (after `cargo build --release -p xpbd-cli`); docs/mgpbd.md quotes it.
set -euo pipefail
OUT=${1:?output folder}
X=${CARGO_TARGET_DIR:-target}/release/xpbd
mkdir -p "$OUT"
cells() { sed -E "s/cells = \[[0-9, ]+\]/cells = [$2]/" "$1"; }
components() { sed 's/^\[solver\]/[solver]\narap_rows = "components"/' "$1"; }
primal() { sed "s/^\[solver\]/[solver]\nlinear_solver = \"$2\"/" "$1"; }
# The paper's cone ARAP rows (the scenes' default, `auto`, picks the component rows for primal-amg).
cone() { sed 's/^\[solver\]/[solver]\narap_rows = "cone"/' "$1"; }

# Exported systems: NAME SCENE_TEXT_FILE FRAME [--no-matrix]. Without A.mtx (component rows above
# 40k rows: A has ~540 nonzeros per row, > 100 M at 200k rows) cg and primal-amg run --matrix-free
# (A v = J W Jᵀ v + α̃ v from J.mtx) and direct is skipped; METHODS may name cg-mf to run CG
# matrix-free next to CG on a stored A.
export_one() { [ -f "$OUT/$1/system.json" ] || nice $X export-system "$2" --frame "$3" --out "$OUT/$1" ${4:-} >/dev/null; }
cone scenes/mgpbd_beam_stiff.toml > "$OUT/_beam_cone.toml"
primal "$OUT/_beam_cone.toml" cg > "$OUT/_beam_cone_cg.toml"   # the export's run-up as measured: cone rows, cg
cells "$OUT/_beam_cone_cg.toml" "40, 10, 5" > "$OUT/_arap10k.toml"
cells scenes/mgpbd_beam_nh.toml "40, 10, 5" > "$OUT/_nh10k.toml"
# μ = 1e9 / 2.9 ≈ 3.4e8 (ν = 0.45); frame 0 (the first substep's system, no run-up)
sed 's/youngs = 1.0e7/youngs = 1.0e9/' "$OUT/_nh10k.toml" > "$OUT/_nh10k_stiff.toml"
cells "$OUT/_nh10k_stiff.toml" "70, 18, 9" > "$OUT/_nh50k_stiff.toml"
cells "$OUT/_nh10k_stiff.toml" "86, 22, 11" > "$OUT/_nh200k_stiff.toml"
components scenes/mgpbd_beam_stiff.toml > "$OUT/_comp11k.toml"
cells "$OUT/_comp11k.toml" "24, 6, 6" > "$OUT/_comp39k.toml"
cells "$OUT/_comp11k.toml" "32, 8, 8" > "$OUT/_comp92k.toml"
cells "$OUT/_comp11k.toml" "44, 11, 11" > "$OUT/_comp240k.toml"
# The same beam starting squashed to 80 % of its height (pins hold the squashed end): b ≠ 0 in every
# row, where at rest from frame 0 only the rows next to the pins see the h²g step.
sed 's/^material = /initial_deform = { scale = [1.0, 0.8, 1.0] }\nmaterial = /' "$OUT/_comp240k.toml" > "$OUT/_comp240k_squash.toml"
for sys in ${SYSTEMS-arap10k-f5 nh10k-f5 comp11k-f0 comp39k-f0}; do
  case $sys in
    arap10k-f5) export_one $sys "$OUT/_arap10k.toml" 5 ;;
    nh10k-f5) export_one $sys "$OUT/_nh10k.toml" 5 ;;
    nh10k-stiff-f0) export_one $sys "$OUT/_nh10k_stiff.toml" 0 ;;
    nh50k-stiff-f0) export_one $sys "$OUT/_nh50k_stiff.toml" 0 ;;
    nh200k-stiff-f0) export_one $sys "$OUT/_nh200k_stiff.toml" 0 ;;
    comp11k-f0) export_one $sys "$OUT/_comp11k.toml" 0 ;;
    comp39k-f0) export_one $sys "$OUT/_comp39k.toml" 0 ;;
    comp92k-f0) export_one $sys "$OUT/_comp92k.toml" 0 --no-matrix ;;
    comp240k-f0) export_one $sys "$OUT/_comp240k.toml" 0 --no-matrix ;;
    comp240k-squash-f0) export_one $sys "$OUT/_comp240k_squash.toml" 0 --no-matrix ;;
  esac
  D="$OUT/$sys"
  echo "== $sys: $(grep -E '"rows"' "$D/system.json" | tr -d ' ,')"
  for rep in $(seq ${REPEAT:-1}); do  # REPEAT > 1: the methods alternate, for minimum times on a loaded machine
  for m in ${METHODS:-cg primal-amg direct}; do
    free=
    case $m in
      cg-mf) m=cg; free=--matrix-free ;;
      cg | primal-amg) [ -f "$D/A.mtx" ] || free=--matrix-free ;;
      *) [ -f "$D/A.mtx" ] || { echo "-- $m: skipped (exported without A)"; continue; } ;;
    esac
    echo "-- $m $free (run $rep)"
    timeout 300 nice $X solve-system "$D/A.mtx" "$D/b.mtx" --method "$m" $free --tol 1e-12 --caps ${CAPS:-5,10,20,40,80,160,320,640} | grep -E "levels|cap " || echo "(timed out)"
  done
  done
done

# Outer loop, stiff beam (youngs 2e9), one substep from rest: cone rows with cg and direct,
# component rows with primal-amg (component rows with cg/direct: see docs/mgpbd.md, "Smooth ARAP rows").
components scenes/mgpbd_beam_stiff.toml > "$OUT/_beam_comp.toml"
# XPBD (clustered Gauss-Seidel) on the same substep, 100× the iterations: the twin's solver at MGPBD's h.
ALL_RUNS="xpbd:clustered:scenes/mgpbd_beam_stiff.toml cone:cg:$OUT/_beam_cone.toml cone-direct:direct:$OUT/_beam_cone.toml cone-primal:primal-amg:$OUT/_beam_cone.toml components-primal:primal-amg:$OUT/_beam_comp.toml components-cg:cg:$OUT/_beam_comp.toml"
for run in ${RUNS-$ALL_RUNS}; do
  IFS=: read -r -a f <<< "$run"
  set -- "${f[@]}"
  echo "== outer loop: $1 ($2)"
  if [ "$1" = xpbd ]; then
    nice $X converge "$3" --frame 0 --iterations $((100 * ${OUTER:-30})) --solvers "$2" --out "$OUT/outer_$1" > /dev/null
  else
    primal "$3" "$2" > "$OUT/_outer_$1.toml"
    nice $X converge "$OUT/_outer_$1.toml" --frame 0 --iterations ${OUTER:-30} --solvers mgpbd --out "$OUT/outer_$1" > /dev/null
  fi
  python3 - "$OUT/outer_$1/converge.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pick = [r for r in rows if int(r["iteration"]) in (1, 5, 10, 20, 30, 100, 500, 1000, 3000)]
print("  iteration: relative dual residual (wall ms) " + ", ".join(f"{r['iteration']}: {float(r['relative_residual']):.2e} ({float(r['wall_ms']):.0f})" for r in pick))
PY
done
