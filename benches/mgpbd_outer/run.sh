#!/usr/bin/env bash
# MGPBD outer-loop measurements of docs/mgpbd.md ("Outer-loop measurements"): lazy AMG setup,
# time to a 1e-3 relative outer residual against size, MGPBD against XPBD at equal wall time.
# Usage: benches/mgpbd_outer/run.sh OUT   (after cargo build --release -p xpbd-cli)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
x="${CARGO_TARGET_DIR:-$root/target}/release/xpbd"
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
cd "$out"
# solver_lines SCENE LINES… : the scene with LINES added after kind = "mgpbd".
with() { local s=$1; shift; local extra; extra=$(printf '%s\\n' "$@"); sed -e "s/^kind = \"mgpbd\"/kind = \"mgpbd\"\\n${extra%\\n}/" "$s"; }

echo "## lazy setup (amg-pcg), stiff beam, 40 frames"
for k in 20 1; do
  with "$root/scenes/mgpbd_beam_stiff.toml" 'linear_solver = "amg-pcg"' "setup_interval = $k" > lazy_$k.toml
  "$x" run lazy_$k.toml --frames 40 --out lazy_$k > /dev/null
  awk -F, -v k=$k 'NR>1 {a+=$13; s+=$14; l+=$15; ls+=$16; it+=$11; o+=$10; f+=$12} END {
    printf "setup_interval %s: outer %d, PCG iterations %d (%.1f per outer), full setups %d, setup %.0f ms = %.1f%% of solver (setup+solve) time, %.1f%% of the outer loop\n",
      k, o, it, it/o, f, s, 100*s/(s+l), 100*s/(a+s+l+ls) }' lazy_$k/metrics.csv
done

echo "## time to 1e-3 against size: ARAP beam youngs 2e5 (converging regime), frame 3, 30 outer iterations"
for solver in direct cg; do
  for k in 2 3 4 5; do
    sed -e "s/youngs = 2.0e9/youngs = 2.0e5/" -e "s/cells = \[16, 4, 4\]/cells = [$((4*k)), $k, $k]/" "$root/scenes/mgpbd_beam_stiff.toml" > size_$k.toml
    with size_$k.toml "linear_solver = \"$solver\"" > size_${solver}_$k.toml
    "$x" converge size_${solver}_$k.toml --frame 3 --iterations 30 --solvers mgpbd --out size_${solver}_$k > /dev/null
    awk -F, -v k=$k -v s=$solver 'NR>1 && !done && $5 <= 1e-3 {printf "%s cells %dx%dx%d (%d tets): %.1f ms to 1e-3 (%d outer)\n", s, 4*k, k, k, 20*k*k*k, $3, $2; done=1} END {if (!done) printf "%s k=%d: not reached\n", s, k}' size_${solver}_$k/converge.csv
  done
done

echo "## the same with the default (auto: component rows, primal-amg), up to 26,620 tets"
for k in 2 3 4 6 8 11; do
  sed -e "s/youngs = 2.0e9/youngs = 2.0e5/" -e "s/cells = \[16, 4, 4\]/cells = [$((4*k)), $k, $k]/" "$root/scenes/mgpbd_beam_stiff.toml" > size_auto_$k.toml
  "$x" converge size_auto_$k.toml --frame 3 --iterations 30 --solvers mgpbd --out size_auto_$k > /dev/null
  awk -F, -v k=$k 'NR>1 && !done && $5 <= 1e-3 {printf "auto cells %dx%dx%d (%d tets): %.1f ms to 1e-3 (%d outer)\n", 4*k, k, k, 20*k*k*k, $3, $2; done=1} END {if (!done) printf "auto k=%d: not reached\n", k}' size_auto_$k/converge.csv
done

echo "## equal wall time: stiff beam, 30 frames (tip y at 0.1/0.2/0.3 s)"
for s in direct cg; do
  with "$root/scenes/mgpbd_beam_stiff.toml" "linear_solver = \"$s\"" > stiff_$s.toml
done
for s in stiff_direct.toml stiff_cg.toml "$root/scenes/mgpbd_beam_stiff_xpbd.toml"; do
  name=$(basename "$s" .toml)
  "$x" run "$s" --frames 30 --out run_$name | tail -1 | sed 's/; output in.*//'
  awk -F, '$1==10 || $1==20 || $1==30 {printf "  t=%.1f tip y=%.4f\n", $2, $5}' run_$name/probes.csv
done

echo "## equal wall time: neo-Hookean beam, one substep from frame 10"
for s in direct cg amg-pcg; do
  with "$root/scenes/mgpbd_beam_nh.toml" "linear_solver = \"$s\"" > nh_$s.toml
  "$x" converge nh_$s.toml --frame 10 --iterations 10 --solvers mgpbd --out nh_$s | grep "relative residual" | sed "s/^ */$s: /"
done
"$x" converge "$root/scenes/mgpbd_beam_nh.toml" --frame 10 --iterations 1000 --solvers clustered --out nh_xpbd | grep "relative residual" | sed 's/^ */xpbd: /'
