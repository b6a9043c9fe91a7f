#!/usr/bin/env bash
# Reproduces the experiments of the MGPBD paper ("MGPBD: A Multigrid Accelerated Global XPBD Solver") that run on
# this machine's CPU; docs/reproductions/mgpbd.md discusses the results. MGPBD is `solver.kind = "mgpbd"` with
# its defaults; XPBD is clustered Gauss-Seidel (`kind = "xpbd"`, `ordering = "clustered"`). Steps:
#   Fig. 8       bar twist (120°, released) at μ = 2.33e7, 2.33e8, 2.33e9 Pa (youngs 4.66e7/e8/e9, poisson 0):
#                energy and relative dual residual against iteration of the first step, MGPBD against XPBD
#                (`xpbd converge --frame 0`); the paper: XPBD stalls as the stiffness grows, MGPBD keeps going;
#   Fig. 12      ball squash (70 %, released, μ = 1e9 Pa) at about 1k and 22k tets (--full: and 99k), MGPBD
#                against XPBD at equal wall time per frame and at the smallest size's iteration count: the first
#                step's residual and energy, the top's height after the release (rest 0.5 m);
#                the paper: XPBD softer the finer the mesh, MGPBD stays stiff;
#   Figs. 9, 10  from the Fig. 12 MGPBD runs: ms per outer iteration against size (the paper: about linear)
#                and the phase shares of metrics.csv (assembly, setup, linear solve, line search);
#   Figs. 13, 17 bunny squash (μ = 1e9 Pa): relative dual residual against iteration and wall time of the first
#                step, MGPBD against XPBD (`xpbd converge`), at the 31k-tet bunny (--full: also 93k and 688k
#                from XPBD_MESH_DIR; a missing mesh is skipped with a message);
#   Fig. 14      hanging cloth (stretch compliance 1e-9) at 16², 32², 64² cells (--full: and 128²), MGPBD
#                against XPBD at 20/100/400 iterations: the largest edge strain;
#   Fig. 16      stiff beam (μ = 1e9 … 1e12 Pa, Δt = 10/20/30 ms), MGPBD against XPBD with the substeps that fit
#                MGPBD's ms per frame: the tip's sag against the Euler–Bernoulli deflection;
#   Fig. 16      three armadillos (3 × 3.7k tets) thrown onto a bed of 12 round-topped pillars, colliding with each
#                other, MGPBD (and XPBD): inverted elements, contacts, residual, and a picture (`xpbd render`);
#   Fig. 2       the residual's spectrum on the linearised dual system of the twisted bar's first step (cone
#                rows, 450 rows: a dense eigen-decomposition in pure Python, mgpbd_fig2.py): Gauss–Seidel sweeps
#                (XPBD) against UA-AMG-PCG iterations (`xpbd export-system`, `xpbd solve-system`).
# Not run here (see the page): Fig. 1 and 11 (muscle meshes we do not have), Figs. 3-7 (the AMG's internals and
# the PyAMG comparison: benches/mgpbd_vs_pyamg, docs/amg.md), GPU timings and the AMGX/AMGCL/PARDISO timings of
# Figs. 9-10.
#
# Usage: benches/reproduce/mgpbd.sh [--smoke | --full] [--out DIR]
#   default  the sizes above; about 7 minutes after the build (2 cores, shared); results in docs/reproductions/mgpbd/
#   --full   the paper's sizes where we have them: the bar at 34.6k tets (paper 32k), the ball also at 103k
#            (paper 99k), the bunny also at 93k and 688k, the cloth also at 128², longer runs
#   --smoke  every step at its smallest size and a few frames and iterations (the CI check, scripts/test.sh; 16 s);
#            results in a temporary folder unless --out is given
# Meshes (armadillo_4k, bunny_*) are read from XPBD_MESH_DIR, then scenes/meshes. Run folders go to
# out/reproduce/mgpbd/ (--smoke: the temporary folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
paper=mgpbd
# shellcheck source=benches/reproduce/common.sh
source "$root/benches/reproduce/common.sh"
meshes=${XPBD_MESH_DIR:-$root/scenes/meshes}
mesh() { # NAME: the mesh's .node path, from XPBD_MESH_DIR or scenes/meshes, or nothing
  local m
  for m in "$meshes/$1.node" "$root/scenes/meshes/$1.node"; do [ -f "$m" ] && { echo "$m"; return; }; done
  true
}
case $mode in
  smoke)
    bar_cells="10, 3, 3" bar_iters="mgpbd:2,clustered:10"
    ball_cells="6 7" ball_frames=2 ball_cap=200
    bunnies="bunny_31k bunny_93k" bunny_iters="mgpbd:1,clustered:3"
    cloth_ns="16" cloth_frames=2 cloth_its="20"
    mus="1e9" dts="0.01" beam_time=0.02
    pile_frames=2
    f2_cells="6, 2, 2" f2_youngs="4.66e8" f2_sweeps="1,3" f2_pcg="1 2" ;;
  default)
    bar_cells="20, 5, 5" bar_iters="mgpbd:10,clustered:1000"
    ball_cells="7 20" ball_frames=10 ball_cap=5000
    bunnies="bunny_31k" bunny_iters="mgpbd:5,clustered:600"
    cloth_ns="16 32 64" cloth_frames=30 cloth_its="20 100 400"
    mus="1e9 1e10 1e11 1e12" dts="0.01 0.02 0.03" beam_time=0.3
    pile_frames=40
    f2_cells="10, 3, 3" f2_youngs="4.66e8 4.66e9" f2_sweeps="1,10,100,300" f2_pcg="1 2 10" ;;
  full)
    bar_cells="48, 12, 12" bar_iters="mgpbd:10,clustered:2000"
    ball_cells="7 20 34" ball_frames=20 ball_cap=20000
    bunnies="bunny_31k bunny_93k bunny_688k" bunny_iters="mgpbd:5,clustered:600"
    cloth_ns="16 32 64 128" cloth_frames=30 cloth_its="20 100 400"
    mus="1e9 1e10 1e11 1e12" dts="0.01 0.02 0.03" beam_time=0.5
    pile_frames=150
    f2_cells="12, 3, 3" f2_youngs="4.66e7 4.66e8 4.66e9" f2_sweeps="1,10,100,300" f2_pcg="1 2 10" ;;
esac

cd "$root"
x=$(xpbd_exe)
measure="python3 $root/benches/reproduce/mgpbd_measure.py"
tables=$out/tables.md
echo "# MGPBD paper: results of benches/reproduce/mgpbd.sh ($mode, $(date -u +%Y-%m-%d), $(nproc) cores)" > "$tables"
step_start=$SECONDS
done_step() { echo "$1: done ($((SECONDS - step_start)) s)"; echo "$1 took $((SECONDS - step_start)) s." >> "$tables"; step_start=$SECONDS; }
# An XPBD copy of an MGPBD scene: SRC DST ITERATIONS [SUBSTEPS] (the MGPBD-only fields dropped).
to_xpbd() {
  sed -e 's/^kind = "mgpbd"/kind = "xpbd"\nordering = "clustered"/' -e '/^tolerance = /d' -e '/^arap_rotation = /d' \
      -e "s/^iterations = .*/iterations = $3/" ${4:+-e "s/^substeps = .*/substeps = $4/"} "$1" > "$2"
}
run() { # SCENE DIR [ARGS]: xpbd run, quiet; its log beside DIR
  local s=$1 d=$2; shift 2
  "$x" run "$s" --quiet --device cpu --out "$d" "$@" 2> "$d.log" || { echo "xpbd run $s failed:"; tail -n 5 "$d.log"; exit 1; }
}
mkdir -p "$out/plots"
converge_head='| case | solver | iterations | wall ms | E_0 (J) | E_1 | E_last | (E_last − E*)/(E_0 − E*) | drop in the 2nd half / (E_0 − E*) | rel. residual at 1 | at last | XPBD at MGPBD'"'"'s wall time |
|---|---|---|---|---|---|---|---|---|---|---|---|'

# --- Fig. 8: the twisted bar at three stiffnesses ----------------------------------------------------------------
{
  echo; echo "## Fig. 8: bar twist (4 × 1 × 1 m, cells [$bar_cells] × 5 tets, 120°, released, one 10 ms step), first step from frame 0"
  echo; echo "\`xpbd converge BAR --frame 0 --iterations 1 --solvers $bar_iters\`; E* is the lowest energy either solver reached."; echo
  echo "$converge_head"
} >> "$tables"
for youngs in 4.66e7 4.66e8 4.66e9; do
  s=$work/bar_$youngs.toml
  sed -e "s/cells = \[20, 5, 5\]/cells = [$bar_cells]/" -e "s/youngs = 4.66e8/youngs = $youngs/" scenes/mgpbd_bar_twist.toml > "$s"
  "$x" converge "$s" --frame 0 --iterations 1 --solvers "$bar_iters" --out "$work/fig8_$youngs" > "$work/fig8_$youngs.log"
  cp "$work/fig8_$youngs/converge.csv" "$out/plots/fig8_bar_youngs$youngs.csv"
  cp "$work/fig8_$youngs/converge.svg" "$out/plots/fig8_bar_youngs$youngs.svg"
  mu=$(python3 -c "print('%.3g' % ($youngs / 2))")
  $measure converge "μ = $mu" "$work/fig8_$youngs/converge.csv" >> "$tables"
done
done_step "Fig. 8"

# --- Fig. 12 (and 9, 10): the ball squash at several resolutions, equal wall time --------------------------------
{
  echo; echo "## Fig. 12: ball squash (r = 0.5 m, μ = 1e9 Pa, squashed to 30 %, released without gravity), $ball_frames frames of 10 ms"
  echo; echo "XPBD: one 10 ms step per frame with the iterations that fit MGPBD's ms per frame (calibrated by a 2-frame run, at most $ball_cap). Top: the probe at the ball's top (rest y = 0.5 m, squashed start 0.15 m)."; echo
  echo "| tets | solver | iterations per step | ms/frame | frame 1: rel. residual | frame 1: elastic energy (J) | top y at frame 1 | lowest top y | highest | at the end | min det F at the end | final rel. residual |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} >> "$tables"
phase_rows=()
for c in $ball_cells; do
  s=$work/ball_$c.toml
  sed -e "s/cells = \[10\]/cells = [$c]/" -e "s/^frames = .*/frames = $ball_frames/" scenes/mgpbd_ball_squash.toml > "$s"
  tets=$("$x" info "$s" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["bodies"][0]["elements"])')
  run "$s" "$work/ball_${c}_mgpbd"
  to_xpbd "$s" "$work/ball_${c}_cal.toml" 20
  run "$work/ball_${c}_cal.toml" "$work/ball_${c}_cal" --frames 2
  n=$($measure equal-iterations "$work/ball_${c}_mgpbd" "$work/ball_${c}_cal" "$ball_cap")
  to_xpbd "$s" "$work/ball_${c}_xpbd.toml" "$n"
  run "$work/ball_${c}_xpbd.toml" "$work/ball_${c}_xpbd"
  $measure ball MGPBD "$tets" "$work/ball_${c}_mgpbd" >> "$tables"
  $measure ball "XPBD (equal time)" "$tets" "$work/ball_${c}_xpbd" >> "$tables"
  # The same stiffness at a fixed iteration count: the first (smallest) size's equal-time count.
  if [ -z "${n_first:-}" ]; then
    n_first=$n
  else
    to_xpbd "$s" "$work/ball_${c}_xpbd_fixed.toml" "$n_first"
    run "$work/ball_${c}_xpbd_fixed.toml" "$work/ball_${c}_xpbd_fixed"
    $measure ball "XPBD ($n_first it., as at the first size)" "$tets" "$work/ball_${c}_xpbd_fixed" >> "$tables"
  fi
  phase_rows+=("$($measure phases "ball" "$tets" "$work/ball_${c}_mgpbd")")
  last_ball=$c last_tets=$tets
done
for solver in mgpbd xpbd; do
  "$x" report "$work/ball_${last_ball}_$solver" > /dev/null 2>&1 && cp "$work/ball_${last_ball}_$solver/report.svg" "$out/plots/fig12_ball_${last_tets}_$solver.svg" || true
done
{
  echo; echo "## Figs. 9 and 10: MGPBD's time per outer iteration and its phases (sums of metrics.csv of the Fig. 12 runs)"; echo
  echo "| scene | tets | frames | outer it. per frame | ms/frame | ms per outer iteration | assembly | setup | linear solve | line search |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${phase_rows[@]}"
} >> "$tables"
if [ "${#phase_rows[@]}" -ge 2 ]; then
  first=${phase_rows[0]} last=${phase_rows[-1]}
  f=(${first//|/ }) l=(${last//|/ })
  echo "- log-log slope of ms per outer iteration, ${f[1]} → ${l[1]} tets: $($measure slope "${f[1]}" "${f[5]}" "${l[1]}" "${l[5]}")" >> "$tables"
fi
done_step "Figs. 12, 9, 10"

# --- Figs. 13 and 17: the bunny squash, residual against iteration and time --------------------------------------
{
  echo; echo "## Figs. 13 and 17: bunny squash (μ = 1e9 Pa, squashed to 30 %, released), first step from frame 0"
  echo; echo "\`xpbd converge BUNNY --frame 0 --iterations 1 --solvers $bunny_iters\` (the scene's \`arap_rotation = \"fixed\"\`)."; echo
  echo "$converge_head"
} >> "$tables"
for b in $bunnies; do
  m=$(mesh "$b")
  if [ -z "$m" ]; then
    echo "skipped: Figs. 13/17 at $b ($b.node is in neither XPBD_MESH_DIR nor scenes/meshes)"
    echo "| $b | skipped: mesh not found | | | | | | | | | | |" >> "$tables"
    continue
  fi
  s=$work/$b.toml
  sed -e "s|mesh = { file = .*|mesh = { file = \"$m\" }|" scenes/mgpbd_bunny_squash.toml > "$s"
  tets=$("$x" info "$s" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["bodies"][0]["elements"])')
  iters=$bunny_iters
  [ "$b" != bunny_688k ] || iters="mgpbd:2,clustered:100"
  "$x" converge "$s" --frame 0 --iterations 1 --solvers "$iters" --out "$work/fig13_$b" > "$work/fig13_$b.log"
  cp "$work/fig13_$b/converge.csv" "$out/plots/fig13_$b.csv"
  cp "$work/fig13_$b/converge.svg" "$out/plots/fig13_$b.svg"
  $measure converge "$b ($tets tets)" "$work/fig13_$b/converge.csv" >> "$tables"
done
done_step "Figs. 13, 17"

# --- Fig. 14: the hanging cloth ------------------------------------------------------------------------------------
{
  echo; echo "## Fig. 14: hanging cloth (1 m, stretch compliance 1e-9 m/N, 2 substeps of 5 ms), $cloth_frames frames"; echo
  echo "| cells | solver | ms/frame | max edge strain | final rel. residual |"; echo "|---|---|---|---|---|"
} >> "$tables"
for n in $cloth_ns; do
  s=$work/cloth_$n.toml
  sed -e "s/cells = \[16, 16\]/cells = [$n, $n]/" -e "0,/^name = .*/s//name = \"cloth_$n\"/" scenes/mgpbd_cloth_16.toml > "$s"
  run "$s" "$work/cloth_${n}_mgpbd" --frames "$cloth_frames"
  $measure cloth "$n" MGPBD "$work/cloth_${n}_mgpbd" >> "$tables"
  for it in $cloth_its; do
    sed -e 's/^kind = "mgpbd"/kind = "xpbd"/' -e '/^tolerance = /d' -e "s/^iterations = .*/iterations = $it/" "$s" > "$work/cloth_${n}_xpbd$it.toml"
    run "$work/cloth_${n}_xpbd$it.toml" "$work/cloth_${n}_xpbd$it" --frames "$cloth_frames"
    $measure cloth "$n" "XPBD serial, $it it." "$work/cloth_${n}_xpbd$it" >> "$tables"
  done
done
done_step "Fig. 14"

# --- Fig. 16: the stiff beam at several stiffnesses and steps, equal wall time ---------------------------------------
{
  echo; echo "## Fig. 16: stiff beam (4 × 1 × 1 m ARAP cantilever, 1280 tets, poisson 0), $beam_time s simulated"
  echo; echo "XPBD: clustered, 1 iteration per substep, as many substeps as fit MGPBD's ms per frame (calibrated by a 2-frame run). Sag: (2.5 − lowest tip y) / δ, δ the Euler–Bernoulli static deflection; a stiff beam swings between 0 and 2."; echo
  echo "| run | substeps | ms/frame | lowest tip y | tip y at the end | static y | sag / δ | final rel. residual |"; echo "|---|---|---|---|---|---|---|---|"
} >> "$tables"
for mu in $mus; do
  for dt in $dts; do
    frames=$(python3 -c "print(max(1, round($beam_time / $dt)))")
    tag="mu${mu}_dt$dt"
    s=$work/beam_$tag.toml
    sed -e "s/youngs = 2.0e9/youngs = $(python3 -c "print(2 * $mu)")/" -e "s/^dt = 0.01/dt = $dt/" \
        -e "s/^frames = .*/frames = $frames/" scenes/mgpbd_beam_stiff.toml > "$s"
    run "$s" "$work/beam_${tag}_mgpbd"
    to_xpbd "$s" "$work/beam_${tag}_cal.toml" 1 10
    run "$work/beam_${tag}_cal.toml" "$work/beam_${tag}_cal" --frames 2
    n=$($measure equal-iterations "$work/beam_${tag}_mgpbd" "$work/beam_${tag}_cal" 2000)
    to_xpbd "$s" "$work/beam_${tag}_xpbd.toml" 1 "$n"
    run "$work/beam_${tag}_xpbd.toml" "$work/beam_${tag}_xpbd"
    $measure beam "MGPBD μ = $mu, Δt = $dt" "$mu" "$work/beam_${tag}_mgpbd" >> "$tables"
    $measure beam "XPBD μ = $mu, Δt = $dt" "$mu" "$work/beam_${tag}_xpbd" >> "$tables"
  done
done
done_step "Fig. 16 (beam)"

# --- Fig. 16: three armadillos thrown onto a bed of pillars ---------------------------------------------------------
arm=$(mesh armadillo_4k)
if [ -z "$arm" ]; then
  echo "skipped: Fig. 16 (armadillos): armadillo_4k.node is in neither XPBD_MESH_DIR nor scenes/meshes"
else
  s=$work/pile.toml
  {
    printf 'name = "mgpbd_armadillo_pile"\n\n[simulation]\ndt = 0.01\nframes = %s\nsubsteps = 2\niterations = 5\n' "$pile_frames"
    printf 'gravity = [0.0, -9.81, 0.0]\non_failure = "continue"\n\n[solver]\nkind = "mgpbd"\ntolerance = 1e-3\n'
    # Two side by side, thrown at each other; the third above them, turned 90° (armadillo_4k: 2.5 × 3.0 × 2.3 m).
    i=0
    for body in "-1.4, 2.3, 0.0|0.0, 0.0, 0.0|2.0, -3.0, 0.0" "1.4, 2.3, 0.0|0.0, 180.0, 0.0|-2.0, -3.0, 0.0" "0.0, 5.6, 0.0|0.0, 90.0, 0.0|0.0, -4.0, 0.0"; do
      IFS='|' read -r at turn v <<< "$body"
      i=$((i + 1))
      printf '\n[[body]]\nname = "armadillo%d"\nmesh = { file = "%s" }\nrotate = [%s]\ntranslate = [%s]\nvelocity = [%s]\n' "$i" "$arm" "$turn" "$at" "$v"
      printf 'material = { model = "arap", youngs = 5.0e6, poisson = 0.4, density = 1000.0 }\n'
      IFS=', ' read -r ax ay az <<< "$at"
      printf '\n[[probe]]\nname = "top%d"\nbody = "armadillo%d"\npoint = [%s, %s, %s]\n' "$i" "$i" "$ax" "$(python3 -c "print($ay + 1.9)")" "$az"
    done
    # 4 × 3 pillars, 0.4 m thick, 1 m tall with rounded tops (capsules), on the ground. Square box pillars
    # crushed the armadillos on their edges (inverted tets; docs/reproductions/mgpbd.md).
    for px in -2.25 -0.75 0.75 2.25; do
      for pz in -1.5 0.0 1.5; do
        printf '\n[[collider]]\nkind = "capsule"\na = [%s, 0.0, %s]\nb = [%s, 0.8, %s]\nradius = 0.2\nfriction = 0.3\n' "$px" "$pz" "$px" "$pz"
      done
    done
    printf '\n[[collider]]\nkind = "plane"\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\nfriction = 0.5\n'
    printf '\n[output]\nevery = %s\n' "$([ "$mode" = smoke ] && echo 1 || echo 10)"
  } > "$s"
  run "$s" "$work/pile"
  # XPBD on the same scene (20 iterations per substep): whether the contacts, shared by both solvers, invert tets.
  sed -e 's/^kind = "mgpbd"/kind = "xpbd"\nordering = "clustered"/' -e '/^tolerance = /d' -e 's/^iterations = .*/iterations = 20/' "$s" > "$work/pile_xpbd.toml"
  run "$work/pile_xpbd.toml" "$work/pile_xpbd"
  {
    echo; echo "## Fig. 16: three armadillos (ARAP, E = 5e6 Pa) thrown onto 12 round-topped pillars and at each other, MGPBD, 2 substeps of 5 ms, at most 5 outer iterations each, $pile_frames frames"; echo
    echo "| run | tets | frames | status | ms/frame | most contact rows | frames with inverted tets | min det F | largest / last rel. residual | probe y at the end (m) |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    $measure pile "MGPBD" "$work/pile"
    $measure pile "XPBD, 20 it. per substep" "$work/pile_xpbd"
  } >> "$tables"
  "$x" render "$work/pile" --frames last --size 640x400 --out "$work/pile/render" > /dev/null 2>&1 &&
    cp "$(ls "$work/pile"/render/*.png | tail -n 1)" "$out/plots/fig16_armadillos.png" ||
    echo "- picture: xpbd render failed (see $work/pile)" >> "$tables"
fi
done_step "Fig. 16 (armadillos)"
# --- Fig. 2: the residual's spectrum after XPBD and MGPBD iterations, on the linearised dual system --------------
{
  echo; echo "## Fig. 2: residual spectrum on the dual system A Δλ = b of the twisted bar's first step (cells [$f2_cells] × 5 tets, cone ARAP rows)"
  echo; echo "XPBD: Gauss–Seidel sweeps on A λ = b; MGPBD: UA-AMG-preconditioned CG (\`xpbd solve-system --method amg-pcg --max-iter K\`). Shares of ‖b‖² in bands of A's eigenmodes, ascending eigenvalue (benches/reproduce/mgpbd_fig2.py)."
} >> "$tables"
for youngs in $f2_youngs; do
  s=$work/fig2_bar_$youngs.toml
  sed -e "s/cells = \[20, 5, 5\]/cells = [$f2_cells]/" -e "s/youngs = 4.66e8/youngs = $youngs/" \
      -e 's/^tolerance = 1e-3/tolerance = 1e-3\narap_rows = "cone"\nlinear_solver = "amg-pcg"/' scenes/mgpbd_bar_twist.toml > "$s"
  d=$work/fig2_$youngs
  "$x" export-system "$s" --frame 0 --out "$d" > "$d.log"
  args=()
  for k in $f2_pcg; do
    "$x" solve-system "$d/A.mtx" "$d/b.mtx" --method amg-pcg --max-iter "$k" --tol 1e-30 --out "$d/mg$k.mtx" --json > "$d/mg$k.json"
    args+=("$d/mg$k.mtx" "MGPBD (AMG-PCG) $k it.")
  done
  { echo; echo "### μ = $(python3 -c "print('%.3g' % ($youngs / 2))") Pa ($(python3 -c "import json; d=json.load(open('$d/mg1.json')); print(d['rows'], 'rows, AMG levels', d['level_rows'])"))"; echo; } >> "$tables"
  python3 "$root/benches/reproduce/mgpbd_fig2.py" "$d" "$f2_sweeps" "${args[@]}" >> "$tables"
  cp "$d/fig2.svg" "$out/plots/fig2_bar_youngs$youngs.svg"
done
done_step "Fig. 2"
echo "results: $tables"
