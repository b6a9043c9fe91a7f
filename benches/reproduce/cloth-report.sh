#!/usr/bin/env bash
# Reproduces the experiments of the XPBD cloth report ("XPBD: Position-Based Simulation of Compliant Constrained
# Dynamics", Pilipyuk 2024) on this machine's CPU; docs/reproductions/cloth-report.md discusses the results.
#   Fig. 1   PBD at 5, 20 and 40 iterations against XPBD at 20 and 40 (and 5), a sheet hanging from its two top
#            corners: how far its bottom edge drops, and the largest edge strain; plus one substep against four;
#   Fig. 2   stretch compliance 1e-3, 1e-5, 1e-9 on the same sheet, split into triangles two ways
#            (grid2d pattern = "alternating" and "uniform"): drop and left-right asymmetry;
#   Fig. 3   bending compliance 0, 0.5, 5 on a sheet clamped along one short edge, both triangulations: droop of
#            the free edge and its twist;
#   §3.5     constraint damping on and off on a sheet swinging from two corners: kinetic energy over 10 s;
#   §4       the cost of a 30 x 15-point cloth at 60 iterations per frame.
# Every run is `xpbd run` on a scene this script writes; the measures come from its probes.csv, metrics.csv and
# summary.json, the pictures from `xpbd render` (same camera for the runs of one figure).
#
# Usage: benches/reproduce/cloth-report.sh [--smoke | --full] [--out DIR]
#   default  every experiment above, 5.5 minutes after the build (2 cores); results in docs/reproductions/cloth-report/
#   --full   the slow settling runs twice as long (the static measures move by less than 0.1 % between the two)
#   --smoke  every step at a few frames (the CI check, scripts/test.sh); results in a temporary folder unless --out
# No mesh files are needed (the sheets are grid2d). Run folders go to out/reproduce/cloth-report/ (--smoke: the
# temporary folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
paper=cloth-report
# shellcheck source=benches/reproduce/common.sh
source "$root/benches/reproduce/common.sh"
# settle: frames of the static runs (at 60 frames/s); swing: frames of the damping runs; cost: frames timed.
case $mode in
  smoke) settle=4 swing_frames=6 cost_frames=4 cost_repeats=1 ref_substeps=2 drape_substeps=2 ;;
  default) settle=240 swing_frames=600 cost_frames=120 cost_repeats=3 ref_substeps=20 drape_substeps=40 ;;
  full) settle=480 swing_frames=600 cost_frames=600 cost_repeats=5 ref_substeps=20 drape_substeps=40 ;;
esac

cd "$root"
x=$(xpbd_exe)
tables=$out/tables.md
echo "# XPBD cloth report: results of benches/reproduce/cloth-report.sh ($mode, $(date -u +%Y-%m-%d), $(nproc) cores)" > "$tables"

# The sheet of every figure: 1.5 m x 0.7 m in the x-y plane, 30 x 14 cells (31 x 15 points; an even count of
# cells, so that the alternating pattern is mirror-symmetric and any asymmetry comes from the triangulation).
# scene NAME KIND MATERIAL PATTERN ITERATIONS SUBSTEPS FRAMES VELOCITY_DAMPING [BODY_EXTRA] [FORMATS]
#   KIND hang: pinned at its two top corners, gravity along -y (in its plane), probes on the bottom edge;
#        drape: laid horizontal (the x-z plane, the sheet's y going to -z), clamped along its short edge x = 0 (two
#               columns of points), probes on the free edge x = 1.5;
#        swing: laid horizontal, pinned at its two far corners (z = -0.7); it falls and swings.
#   Gravity is along -y throughout (the renderer's up).
scene() {
  local name=$1 kind=$2 material=$3 pattern=$4 iterations=$5 substeps=$6 frames=$7 damping=$8 extra=${9:-} formats=${10:-none}
  local pin probes=() cells=${CELLS:-30, 14} place=''
  case $kind in
    hang)
      pin='{ box = { min = [-0.001, 0.699, -0.001], max = [0.001, 0.701, 0.001] } }, { box = { min = [1.499, 0.699, -0.001], max = [1.501, 0.701, 0.001] } }'
      probes=("bottom_left 0.0 0.0 0.0" "bottom_middle 0.75 0.0 0.0" "bottom_right 1.5 0.0 0.0") ;;
    drape)
      place='rotate = [-90.0, 0.0, 0.0]'
      pin='{ box = { min = [-0.001, -0.001, -0.701], max = [0.051, 0.001, 0.001] } }'
      probes=("free_left 1.5 0.0 0.0" "free_middle 1.5 0.0 -0.35" "free_right 1.5 0.0 -0.7") ;;
    swing)
      place='rotate = [-90.0, 0.0, 0.0]'
      pin='{ box = { min = [-0.001, -0.001, -0.701], max = [0.001, 0.001, -0.699] } }, { box = { min = [1.499, -0.001, -0.701], max = [1.501, 0.001, -0.699] } }' ;;
  esac
  {
    printf 'name = "%s"\n\n[simulation]\ndt = 0.016666666666666666\nframes = %s\nsubsteps = %s\niterations = %s\n' "$name" "$frames" "$substeps" "$iterations"
    printf 'gravity = [0.0, -9.81, 0.0]\nvelocity_damping = %s\n\n[solver]\nkind = "xpbd"\nordering = "serial"\n\n' "$damping"
    printf '[[body]]\nname = "cloth"\nmesh = { generator = "grid2d", size = [1.5, 0.7], cells = [%s], pattern = "%s" }\n' "$cells" "$pattern"
    printf '%s\nmaterial = %s\npin = [%s]\n%s\n' "$place" "$material" "$pin" "$extra"
    for p in "${probes[@]}"; do
      read -r pn px py pz <<< "$p"
      printf '\n[[probe]]\nname = "%s"\nbody = "cloth"\npoint = [%s, %s, %s]\n' "$pn" "$px" "$py" "$pz"
    done
    # The report's cloth has no collisions: contact off, so that the runs time and measure the constraints alone.
    printf '\n[contact]\nbodies = false\nself = false\n\n[output]\nformats = ["%s"]\nevery = %s\n' "$formats" "$frames"
  } > "$work/$name.toml"
}
# run NAME [xpbd run options]: runs the scene NAME (a failed run keeps its rows up to the failure, which the tables
# report).
run() {
  local name=$1
  shift
  "$x" run "$work/$name.toml" --quiet --device cpu --out "$work/$name" "$@" 2> "$work/$name.log" || grep -m 1 '^error' "$work/$name.log" || true
}
# picture NAME EYE TARGET: the run's last frame as $out/pictures/NAME.png.
picture() {
  mkdir -p "$out/pictures"
  "$x" render "$work/$1" --frames last --size 360x240 --eye "$2" --target "$3" --out "$work/$1/render" > /dev/null 2>&1
  cp "$(ls "$work/$1"/render/*.png | tail -n 1)" "$out/pictures/$1.png"
}
# measure FIGURE WORK RUN...: the figure's table rows from the runs' probes, metrics and summaries, pictures linked
# when $out/pictures has them (python3, standard library only).
measure() {
  CLOTH_REPORT_OUT=$out python3 "$root/benches/reproduce/cloth_report_measure.py" "$@"
}

# --- Fig. 1: PBD against XPBD at several iteration counts ---------------------------------------------------
# PBD is mass-free; XPBD's response depends on compliance x mass: 5 kg/m2 with 1e-3 m/N is stiff for its mass (the
# solve needs many iterations to converge), 2e-2 m/N soft (converged within a few).
hang_pbd() { echo "{ model = \"cloth\", areal_density = 5.0, pbd_stretch = $1, pbd_bending = 1.0 }"; }
hang_xpbd() { echo "{ model = \"cloth\", areal_density = 5.0, stretch_compliance = $1, bending_compliance = 1.0 }"; }
fig1=()
for n in 5 20 40; do
  scene "fig1_pbd_k1_n$n" hang "$(hang_pbd 1.0)" alternating "$n" 1 "$settle" 4.0 "" vtu
  scene "fig1_pbd_k0.99_n$n" hang "$(hang_pbd 0.99)" alternating "$n" 1 "$settle" 4.0
  scene "fig1_xpbd_1e-3_n$n" hang "$(hang_xpbd 1e-3)" alternating "$n" 1 "$settle" 4.0 "" vtu
  scene "fig1_xpbd_2e-2_n$n" hang "$(hang_xpbd 2e-2)" alternating "$n" 1 "$settle" 4.0
  fig1+=("fig1_pbd_k1_n$n" "fig1_pbd_k0.99_n$n" "fig1_xpbd_1e-3_n$n" "fig1_xpbd_2e-2_n$n")
done
scene fig1_pbd_k1_n20_4substeps hang "$(hang_pbd 1.0)" alternating 20 4 "$settle" 4.0
scene fig1_xpbd_1e-3_n20_4substeps hang "$(hang_xpbd 1e-3)" alternating 20 4 "$settle" 4.0
scene fig1_xpbd_1e-3_reference hang "$(hang_xpbd 1e-3)" alternating 50 "$ref_substeps" "$settle" 4.0
scene fig1_xpbd_2e-2_reference hang "$(hang_xpbd 2e-2)" alternating 50 "$ref_substeps" "$settle" 4.0
fig1+=(fig1_pbd_k1_n20_4substeps fig1_xpbd_1e-3_n20_4substeps fig1_xpbd_1e-3_reference fig1_xpbd_2e-2_reference)
for r in "${fig1[@]}"; do run "$r"; done
for n in 5 20 40; do picture "fig1_pbd_k1_n$n" 0.75,0.0,3.2 0.75,0.1,0.0; done
for n in 20 40; do picture "fig1_xpbd_1e-3_n$n" 0.75,0.0,3.2 0.75,0.1,0.0; done
{
  echo; echo "## Fig. 1: PBD against XPBD, a 1.5 x 0.7 m sheet (5 kg/m2) hanging from its top corners, ${settle} frames of 1/60 s"; echo
  echo "Drop: how far the middle of the bottom edge has moved down (m); strain: the largest edge strain; rel. residual: XPBD's ‖C + α̃λ‖ over its first value in the last substep (PBD has no multipliers)."; echo
  echo "| run | stretch | iterations x substeps | drop (m) | max edge strain | rel. residual | picture |"; echo "|---|---|---|---|---|---|---|"
} >> "$tables"
measure fig1 "$work" "${fig1[@]}" >> "$tables"
echo "Fig. 1: done"

# --- Fig. 2: stretch compliance and the triangulation ---------------------------------------------------------
fig2=()
for pattern in alternating uniform; do
  for a in 1e-3 1e-5 1e-9; do
    scene "fig2_${pattern}_$a" hang "$(hang_xpbd "$a")" "$pattern" 10 "$ref_substeps" "$settle" 4.0 "" vtu
    fig2+=("fig2_${pattern}_$a")
  done
done
for r in "${fig2[@]}"; do run "$r"; picture "$r" 0.75,0.0,3.2 0.75,0.1,0.0; done
{
  echo; echo "## Fig. 2: stretch compliance on two triangulations, the hanging sheet, 10 iterations x ${ref_substeps} substeps"; echo
  echo "Asymmetry: bottom-left corner's drop minus the bottom-right corner's (m; 0 for a mirror-symmetric response); shift: the bottom middle's sideways motion (m)."; echo
  echo "| run | pattern | compliance (m/N) | drop (m) | asymmetry (m) | shift (m) | max edge strain | rel. residual | picture |"; echo "|---|---|---|---|---|---|---|---|---|"
} >> "$tables"
measure fig2 "$work" "${fig2[@]}" >> "$tables"
echo "Fig. 2: done"

# --- Fig. 3: bending compliance and the triangulation ---------------------------------------------------------
fig3=()
for pattern in alternating uniform; do
  for a in 0.0 0.5 5.0; do
    scene "fig3_${pattern}_$a" drape "{ model = \"cloth\", areal_density = 0.1, stretch_compliance = 0.0, bending_compliance = $a }" "$pattern" 20 "$drape_substeps" "$settle" 4.0 "" vtu
    fig3+=("fig3_${pattern}_$a")
  done
done
for r in "${fig3[@]}"; do run "$r"; picture "$r" 3.2,0.6,1.9 0.75,-0.45,-0.35; done
{
  echo; echo "## Fig. 3: bending compliance on two triangulations, a sheet (0.1 kg/m2, inextensible) clamped along its short edge, 20 iterations x ${drape_substeps} substeps"; echo
  echo "Droop: how far the middle of the free edge has moved down (m); twist: its left corner's droop minus its right corner's (m)."; echo
  echo "| run | pattern | bending compliance (1/(N m)) | droop (m) | twist (m) | rel. residual | picture |"; echo "|---|---|---|---|---|---|---|"
} >> "$tables"
measure fig3 "$work" "${fig3[@]}" >> "$tables"
echo "Fig. 3: done"

# --- §3.5: constraint damping on and off ----------------------------------------------------------------------
damp=()
for beta in 0.0 0.01 0.1; do
  scene "damping_$beta" swing '{ model = "cloth", areal_density = 0.1, stretch_compliance = 1.0e-4, bending_compliance = 1.0 }' alternating 5 10 "$swing_frames" 0.0 "damping = $beta"
  damp+=("damping_$beta")
done
for r in "${damp[@]}"; do run "$r"; done
{
  echo; echo "## §3.5: XPBD constraint damping (body damping = β), a sheet (0.1 kg/m2) swinging from two corners, no other damping, 5 iterations x 10 substeps"; echo
  echo "Largest kinetic energy (J) in each 2-second window; plot: [damping.svg](damping.svg)."; echo
  echo "| run | β (s) | 0-2 s | 2-4 s | 4-6 s | 6-8 s | 8-10 s | last / first window |"; echo "|---|---|---|---|---|---|---|---|"
} >> "$tables"
measure damping "$work" "${damp[@]}" --svg "$out/damping.svg" >> "$tables"
echo "Damping: done"

# --- §4: the cost of a 30 x 15-point cloth at 60 iterations ---------------------------------------------------
cost=()
for n in 20 60; do
  CELLS="29, 14" scene "cost_n$n" hang "$(hang_xpbd 1e-3)" alternating "$n" 1 "$cost_frames" 0.0
  cost+=("cost_n$n")
done
CELLS="29, 14" scene cost_n60_colored hang "$(hang_xpbd 1e-3)" alternating 60 1 "$cost_frames" 0.0
sed -i 's/^ordering = "serial"/ordering = "colored"/' "$work/cost_n60_colored.toml"
for r in "${cost[@]}" cost_n60_colored; do
  threads=1
  [ "$r" != cost_n60_colored ] || threads=2
  for k in $(seq 1 "$cost_repeats"); do
    run "$r" --threads "$threads"
    cp "$work/$r/summary.json" "$work/$r.summary.$k.json"
  done
done
{
  echo; echo "## §4: cost of a 30 x 15-point cloth (29 x 14 cells), 1 substep per 1/60 s frame, ${cost_frames} frames, smallest of ${cost_repeats} runs"; echo
  echo "| run | ordering | threads | iterations | edges + hinges | ms per frame (solver) | frames per second |"; echo "|---|---|---|---|---|---|---|"
} >> "$tables"
measure cost "$work" "${cost[@]}" cost_n60_colored >> "$tables"
echo "Cost: done"
echo "results: $tables"
