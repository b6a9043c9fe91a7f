#!/usr/bin/env bash
# The primal solve's AMG strength threshold θ in the MGPBD outer loop (docs/mgpbd.md, "Strength threshold of the
# primal solve"): each scene run with `theta = 0.1` (the default until then) and `theta = 0.0` (the default since)
# in [solver], alternating, ROUNDS times, FRAMES frames each, on the CPU. Prints per scene and θ the fastest
# wall time, the outer and PCG iterations summed over the frames and the last frame's relative residual.
# Usage: bash benches/mgpbd_primal/theta.sh OUT [SCENE.toml ...]
#   default scenes: the MGPBD scenes whose `auto` linear solver is primal-amg; ROUNDS (2), FRAMES (5).
#   The squash boxes of benches/gpu/mgpbd_squash.sh (OUT/squash_27.toml ...) can be passed as well.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?output folder}
shift
scenes=("$@")
[ ${#scenes[@]} -gt 0 ] || scenes=(scenes/mgpbd_beam_stiff_primal.toml scenes/mgpbd_beam_nh.toml scenes/mgpbd_ball_drop.toml
    scenes/mgpbd_bar_twist.toml scenes/mgpbd_bunny_squash.toml scenes/mgpbd_armadillo.toml)
rounds=${ROUNDS:-2}
frames=${FRAMES:-5}
x=${CARGO_TARGET_DIR:-target}/release/xpbd
[ -x "$x" ] || cargo build --release -p xpbd-cli
mkdir -p "$out"
echo "| scene | θ | ms ($frames frames, fastest of $rounds) | outer iterations | PCG iterations | last relative residual |"
echo "|---|---|---|---|---|---|"
for scene in "${scenes[@]}"; do
    name=$(basename "$scene" .toml)
    for theta in 0.1 0.0; do
        # Next to the original, so that its mesh paths resolve.
        sed "s/^\[solver\]/[solver]\ntheta = $theta/" "$scene" > "$(dirname "$scene")/_theta_${theta}_$name.toml"
    done
    for round in $(seq "$rounds"); do
        for theta in 0.1 0.0; do
            "$x" run "$(dirname "$scene")/_theta_${theta}_$name.toml" --frames "$frames" --device cpu --out "$out/${name}_${theta}_$round" --quiet 2>/dev/null
        done
    done
    rm -f "$(dirname "$scene")"/_theta_*_"$name".toml
    for theta in 0.1 0.0; do
        for round in $(seq "$rounds"); do
            awk -F, 'NR > 1 { ms += $3; o += $10; it += $11; r = $5 } END { printf "%.1f %d %d %.2e\n", ms, o, it, r }' "$out/${name}_${theta}_$round/metrics.csv"
        done | sort -g | head -1 | awk -v n="$name" -v t="$theta" '{ printf "| %s | %s | %.0f | %d | %d | %s |\n", n, t, $1, $2, $3, $4 }'
    done
done
