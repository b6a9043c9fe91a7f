#!/usr/bin/env bash
# Reproduces the experiments of the block neo-Hookean paper ("Parallel Block Neo-Hookean XPBD using Graph
# Clustering") on this machine's CPU; docs/reproductions/block-neohookean.md discusses the results.
#   Fig. 4   partitions with and without clustering: VTU frames with the cell data of `xpbd run --partition`
#            (open in ParaView, color by partition_color or partition_cluster_color) and the color counts;
#   Fig. 5   convergence of one substep from the beam's most deformed frame (`xpbd converge`);
#   Fig. 6   the beam, decoupled (`neohookean`) against block (`neohookean_block`) at 30 substeps, and decoupled
#            at the 200 substeps the paper says it needs;
#   Fig. 7   the armadillo drop, decoupled against block at 20 substeps (and block at the scene's 80);
#   Fig. 8   the scrambled beam recovering its rest shape (xpbd-cpu's test scrambled_beam_recovers_its_rest_shape);
#   Table 2  colors and ms per time step of baseline, C, B, B+C (benches/table2.rs);
#   Table 3  GPU memory per mesh from the CUDA backend's buffer sizes (`xpbd info --json`, gpu_bytes; no GPU needed).
# Figs. 6 and 7 are judged by inverted elements, elastic energy and a picture per run (`xpbd render`).
#
# Usage: benches/reproduce/block-neohookean.sh [--smoke | --full] [--out DIR]
#   default  the paper's scenes at our mesh sizes (beam 3.7k, armadillo 3.7k tets), Table 2 on four meshes,
#            Table 3 up to 160k tets; 2.5–3.5 minutes after the build (2 cores); results in docs/reproductions/block-neohookean/
#   --full   also 300 frames per Fig. 6/7 run (the paper's Table 2 averages 300) and Table 3 on the larger meshes
#            of XPBD_MESH_DIR (bunny_93k, bunny_688k)
#   --smoke  every step at a few frames and iterations, Table 2 on the beam only (the CI check,
#            scripts/test.sh); results in a temporary folder unless --out is given
# Meshes are read from XPBD_MESH_DIR (default scenes/meshes); the steps that need a missing mesh are skipped
# with a message. Run folders and VTU frames go to out/reproduce/block-neohookean/ (--smoke: the temporary folder).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
paper=block-neohookean
# shellcheck source=benches/reproduce/common.sh
source "$root/benches/reproduce/common.sh"
meshes=${XPBD_MESH_DIR:-$root/scenes/meshes}
case $mode in
  smoke) beam_frames=3 arm_frames=3 conv_frame=2 conv_iters=5 ;;
  default) beam_frames=100 arm_frames=150 conv_frame=48 conv_iters=100 ;;
  full) beam_frames=300 arm_frames=300 conv_frame=48 conv_iters=100 ;;
esac

cd "$root"
x=$(xpbd_exe)
armadillo=$meshes/armadillo_4k.node
have_armadillo=1
[ -f "$armadillo" ] || { have_armadillo=0; echo "skipped: the armadillo mesh ($armadillo) is not there: Fig. 7 and the armadillo rows of Fig. 4 and Table 3 are left out (set XPBD_MESH_DIR)"; }
tables=$out/tables.md
echo "# Block neo-Hookean paper: results of benches/reproduce/block-neohookean.sh ($mode, $(date -u +%Y-%m-%d), $(nproc) cores)" > "$tables"

# A clamped or dropped body as a scene file: NAME MESH_TABLE MODEL SUBSTEPS FRAMES YOUNGS POISSON PIN EXTRA
# (PIN: a pin table or "" for none; EXTRA: more TOML appended, e.g. a collider).
scene() {
  local name=$1 mesh=$2 model=$3 substeps=$4 frames=$5 youngs=$6 poisson=$7 pin=$8 extra=${9:-}
  {
    printf 'name = "%s"\n\n[simulation]\ndt = 0.01\nframes = %s\nsubsteps = %s\niterations = 1\n' "$name" "$frames" "$substeps"
    printf 'gravity = [0.0, -9.81, 0.0]\nvelocity_damping = 0.0\non_failure = "continue"\n\n'
    printf '[solver]\nkind = "xpbd"\nordering = "clustered"\ncluster_size = 5\n\n[[body]]\nname = "body"\nmesh = %s\n' "$mesh"
    printf 'material = { model = "%s", youngs = %s, poisson = %s, density = 1000.0 }\n' "$model" "$youngs" "$poisson"
    [ -z "$pin" ] || printf 'pin = [%s]\n' "$pin"
    printf '%s\n\n[output]\nevery = 10\n' "$extra"
  } > "$work/$name.toml"
  echo "$work/$name.toml"
}
beam_mesh='{ generator = "box", size = [4.0, 1.0, 1.0], cells = [30, 5, 5], split = 5 }'
beam_pin='{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }'
arm_mesh="{ file = \"$armadillo\" }"
# The armadillo drop of scenes/armadillo_drop.toml: 1.5 m up, onto a plane with friction.
arm_drop=$'translate = [0.0, 1.5, 0.0]\n\n[[collider]]\nkind = "plane"\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\nfriction = 0.5\nrestitution = 0.2'

# --- Fig. 4: partitions as VTU cell data, and their color counts ---------------------------------------------
mkdir -p "$work/fig4"
{
  echo; echo "## Fig. 4: partitions (K_s = 5), smallest-last greedy coloring of the element graph against clustered"; echo
  echo "| mesh | tets | colors baseline | colors clustered | ratio | clusters of 5 | VTU (cell data) |"; echo "|---|---|---|---|---|---|---|"
} >> "$tables"
fig4() {
  local name=$1 mesh=$2 s
  s=$(scene "fig4_$name" "$mesh" neohookean_block 30 1 1e7 0.45 '{ indices = [0, 1, 2] }')
  "$x" run "$s" --frames 1 --partition --quiet --device cpu --out "$work/fig4/$name" 2> "$work/fig4/$name.log" || { cat "$work/fig4/$name.log"; exit 1; }
  cp "$work/fig4/$name/frames/frame_00000.vtu" "$work/fig4/$name.vtu"
  "$x" info "$s" --json | python3 -c '
import json, sys
b = json.load(sys.stdin)["bodies"][0]
row = [sys.argv[1], b["elements"], b["colors_smallest_last"], b["colors_clustered"], "%.2f" % b["reduction_ratio"], b["cluster_sizes"].get("5", 0), "`%s`" % sys.argv[2]]
print("| " + " | ".join(map(str, row)) + " |")' "$name" "out/reproduce/block-neohookean/fig4/$name.vtu" >> "$tables"
}
fig4 beam "$beam_mesh"
[ $have_armadillo = 0 ] || fig4 armadillo "$arm_mesh"
echo "Fig. 4: done"

# --- Fig. 5: one substep from the beam's most deformed frame, 100 iterations --------------------------------
"$x" converge scenes/beam_fig5.toml --frame "$conv_frame" --iterations "$conv_iters" \
  --solvers neohookean/colored,neohookean/clustered,neohookean_block/colored,neohookean_block/clustered \
  --out "$work/fig5" > "$work/fig5.log"
mkdir -p "$out/fig5"
cp "$work/fig5/converge.csv" "$work/fig5/converge.svg" "$out/fig5/"
python3 - "$out/fig5/converge.csv" "$conv_frame" >> "$tables" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"\n## Fig. 5: one substep from frame {sys.argv[2]} of the beam\n")
print("| solver | E_0 (J) | E_1 | E_last | rel. residual at 1 | at 10 | last |\n|---|---|---|---|---|---|---|")
for s in dict.fromkeys(r["solver"] for r in rows):
    r = [x for x in rows if x["solver"] == s]
    at = lambda k, c: next((float(x[c]) for x in r if int(x["iteration"]) == k), float("nan"))
    last = max(int(x["iteration"]) for x in r)
    print(f"| `{s}` | {at(0, 'energy'):.6g} | {at(1, 'energy'):.6g} | {at(last, 'energy'):.6g} "
          f"| {at(1, 'relative_residual'):.3e} | {at(10, 'relative_residual'):.3e} | {at(last, 'relative_residual'):.3e} |")
PY
echo "Fig. 5: done"

# --- Figs. 6 and 7: decoupled against block at an equal budget ----------------------------------------------
{
  echo; echo "## Figs. 6 and 7: decoupled (\`neohookean\`) against block (\`neohookean_block\`), 1 iteration per substep, clustered"; echo
  echo "| run | substeps | frames | frames with inverted tets | most inverted | min det F | elastic energy at frame 1 (J) | largest elastic energy (J) | last kinetic energy (J) | picture |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >> "$tables"
mkdir -p "$out/fig6_7"
# NAME SCENE PICTURE_FRAME: runs the scene, appends its row and draws its frame PICTURE_FRAME (or the last).
budget_run() {
  local name=$1 s=$2 at=$3 substeps
  substeps=$(sed -n 's/^substeps = //p' "$s")
  "$x" run "$s" --quiet --device cpu --out "$work/$name" 2> "$work/$name.log" || true
  grep -v '^warning: body' "$work/$name.log" | head -n 2 || true
  local frames=$((at < $(tail -n 1 "$work/$name/metrics.csv" | cut -d, -f1) ? at : $(tail -n 1 "$work/$name/metrics.csv" | cut -d, -f1)))
  frames=$((frames / 10 * 10))
  [ "$frames" -gt 0 ] || frames=last
  "$x" render "$work/$name" --frames "$frames" --size 480x320 --out "$work/$name/render" 2> /dev/null > /dev/null
  cp "$(ls "$work/$name"/render/*.png | tail -n 1)" "$out/fig6_7/$name.png"
  awk -F, -v name="$name" -v ns="$substeps" -v png="fig6_7/$name.png" 'NR > 1 {
      n++; if ($9 > 0) inv++; if ($9 > most) most = $9; if (minj == "" || $8 < minj) minj = $8
      if ($6 > emax) emax = $6; if ($1 == 1) e1 = $6; k = $7
    } END { printf "| %s | %s | %d | %d | %d | %.3f | %.4g | %.4g | %.4g | [png](%s) |\n", name, ns, n, inv, most, minj, e1, emax, k, png }' \
    "$work/$name/metrics.csv" >> "$tables"
}
budget_run beam_decoupled_30 "$(scene beam_decoupled_30 "$beam_mesh" neohookean 30 "$beam_frames" 1e7 0.45 "$beam_pin")" 50
budget_run beam_block_30 "$(scene beam_block_30 "$beam_mesh" neohookean_block 30 "$beam_frames" 1e7 0.45 "$beam_pin")" 50
budget_run beam_decoupled_200 "$(scene beam_decoupled_200 "$beam_mesh" neohookean 200 "$beam_frames" 1e7 0.45 "$beam_pin")" 50
if [ $have_armadillo = 1 ]; then
  budget_run armadillo_decoupled_20 "$(scene armadillo_decoupled_20 "$arm_mesh" neohookean 20 "$arm_frames" 5e6 0.4 "" "$arm_drop")" 40
  budget_run armadillo_block_20 "$(scene armadillo_block_20 "$arm_mesh" neohookean_block 20 "$arm_frames" 5e6 0.4 "" "$arm_drop")" 40
  budget_run armadillo_block_80 "$(scene armadillo_block_80 "$arm_mesh" neohookean_block 80 "$arm_frames" 5e6 0.4 "" "$arm_drop")" 40
fi
# The substep limit `xpbd run` warns of: the reason measured for a block run that is not clean.
echo >> "$tables"
for log in "$work"/{beam,armadillo}_*.log; do
  [ -f "$log" ] || continue
  w=$(grep -m 1 'stability estimate' "$log" || true)
  [ -z "$w" ] || echo "- $(basename "$log" .log): ${w#warning: }" >> "$tables"
done
echo "Figs. 6 and 7: done"

# --- Fig. 8: the scrambled beam -------------------------------------------------------------------------------
{ echo; echo "## Fig. 8: the scrambled beam (2 x 0.5 x 0.5 m, 1280 tets, 30 substeps per 1/60 s)"; echo; } >> "$tables"
# --workspace rather than -p xpbd-cpu: the features of scripts/test.sh's build, so nothing is compiled again.
cargo test --release --locked -q --workspace --test scrambled scrambled_beam_recovers_its_rest_shape -- --nocapture 2> /dev/null |
  grep -E 'recovered at frame' | sed 's/^/- /' >> "$tables"
echo "Fig. 8: done"

# --- Table 2: colors and ms per time step --------------------------------------------------------------------
{ echo; echo "## Table 2 (ms per 10 ms time step, CPU, $(nproc) cores)"; echo; } >> "$tables"
# benches/table2.rs reads its armadillo and bunny from scenes/meshes (the bunny only when it is there).
keep=beam,box_51k,bunny_31k
[ ! -f scenes/meshes/armadillo_4k.node ] || keep=$keep,armadillo
[ "$mode" != smoke ] || keep=beam
table2=$(bench_exe table2)
TABLE2_MESHES=$keep "$table2" >> "$tables"
echo "Table 2: done"

# --- Table 3: GPU memory from the CUDA backend's buffer sizes, f32 -------------------------------------------
{
  echo; echo "## Table 3: device arrays of the XPBD path, block neo-Hookean, clustered, f32 (xpbd info --json: gpu_bytes)"; echo
  echo "| mesh | vertices | tets | ours (MB, 1e6 B) | bytes per tet | the paper's listed arrays (MB) |"; echo "|---|---|---|---|---|---|"
} >> "$tables"
# NAME MESH_TABLE: one row, without self-contact (the paper's GPU model has none). The last column counts the arrays §6.1 lists, f32 and 4-byte indices: per vertex x, v, f (3
# each) and w; per tet 2 multipliers, w_g, X_g (3), λ and μ, 4 gradients ∇φ (12), the 12 values of ∂F/∂x, α_H and α_D,
# the 12 indices of C_j, and a cluster and a partition index.
table3() {
  local name=$1 mesh=$2 s
  s=$(scene "table3_$name" "$mesh" neohookean_block 50 1 1e7 0.45 '{ indices = [0, 1, 2] }' $'\n[contact]\nself = false')
  "$x" info "$s" --json | python3 -c '
import json, sys
d = json.load(sys.stdin); b = d["bodies"][0]; v, t = b["vertices"], b["elements"]
ours = d["scene"]["gpu_bytes"][0]
listed = 4 * (10 * v) + t * (4 * (2 + 1 + 3 + 2 + 12 + 12 + 2) + 4 * 12 + 4 * 2)
print(f"| {sys.argv[1]} | {v} | {t} | {ours / 1e6:.2f} | {ours / t:.0f} | {listed / 1e6:.2f} |")' "$name" >> "$tables"
}
table3 beam "$beam_mesh"
if [ "$mode" != smoke ]; then
  [ $have_armadillo = 0 ] || table3 armadillo_4k "$arm_mesh"
  for cells in "40, 10, 10" "56, 10, 20" "80, 20, 20"; do
    IFS=', ' read -r cx cy cz <<< "$cells"
    table3 "box_${cx}x${cy}x${cz}" "{ generator = \"box\", size = [4.0, $(python3 -c "print(4*$cy/$cx)"), $(python3 -c "print(4*$cz/$cx)")], cells = [$cells], split = 5 }"
  done
  for m in bunny_31k $([ "$mode" = full ] && echo bunny_93k bunny_688k); do
    if [ -f "$meshes/$m.node" ]; then table3 "$m" "{ file = \"$meshes/$m.node\" }"; else echo "skipped: Table 3 row $m ($meshes/$m.node is not there)"; fi
  done
fi
if [ "$mode" != smoke ]; then
  { echo; echo "Our families on the GPU Table 2 boxes (xpbd-cuda's test footprint, MiB):"; echo; } >> "$tables"
  cargo test --release --locked -q --workspace --test footprint -- --nocapture 2> /dev/null | grep ' vertices, ' | sed 's/^/- /' >> "$tables"
fi
python3 >> "$tables" <<'PY'
# The paper's Table 3 and the arrays its §6.1 lists, counted as in table3() above.
paper = [("Armadillo", 987, 2922, 0.63), ("Beam", 936, 3727, 0.78), ("Spot", 5135, 19835, 4.19), ("Octopus", 6731, 22213, 4.79),
         ("Armadillo", 9751, 45593, 9.50), ("Bunny", 13808, 56371, 11.97), ("Squirrel", 15408, 64768, 13.73), ("Armadillo", 39062, 162385, 34.44)]
print("\nThe paper's Table 3 against the arrays its §6.1 lists (same count as the last column above):\n")
print("| model | vertices | tets | paper (MB) | bytes per tet | listed arrays (MB) | paper / listed |\n|---|---|---|---|---|---|---|")
for name, v, t, mb in paper:
    listed = 4 * (10 * v) + t * (4 * (2 + 1 + 3 + 2 + 12 + 12 + 2) + 4 * 12 + 4 * 2)
    print(f"| {name} | {v} | {t} | {mb} | {mb * 1e6 / t:.0f} | {listed / 1e6:.2f} | {mb * 1e6 / listed:.2f} |")
PY
echo "Table 3: done"
echo "results: $tables"
