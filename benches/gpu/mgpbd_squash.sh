#!/usr/bin/env bash
# Issue 7's benchmark (docs/gpu.md, "MGPBD benchmarks"): the bunny-squash system at growing size, as a box of
# equal size squashed to 30 % of its height and released (ARAP, μ = 1e9 Pa, R held fixed in the component rows
# like scenes/mgpbd_bunny_squash.toml; one 10 ms substep per frame, outer iterations to 1e-3 relative dual
# residual, at most 30). Each frame is one MGPBD solve from the same kind of state, so its wall time is the
# time to 1e-3. Per size and device: ms per frame (to 1e-3), outer and PCG iterations per frame, ms per PCG
# iteration and per outer iteration, setup ms (a frame with the full setup, and per refresh in the other
# frames: `refresh = "adaptive"` refreshes only when the iterations grow), and the
# breakdown of metrics.csv (assembly, setup, linear solve, line search) like the MGPBD paper's Fig. 10.
#
# Usage: bash benches/gpu/mgpbd_squash.sh [OUT]
#   SIZES   box cells per side (default "27 39 55": 98k, 297k and 832k tets, 5 per cell)
#   DEVICES default "cuda cpu" (`xpbd run --device`; the CPU's numbers for the issue's ratio are those of
#           the 2-core machine, recorded in docs/gpu.md, not of the GPU machine's CPU); "pyamg" is a
#           stage, not a device: one linear solve of frame 1's first outer iteration, ours
#           (`xpbd solve-system --method primal-amg`, all cores and one thread) against PyAMG on the CPU on
#           the same exported system (`xpbd export-system --no-matrix`; the venv of
#           benches/mgpbd_vs_pyamg/setup.sh), to 1e-3 relative dual residual, e.g. DEVICES="cpu pyamg"
#   FRAMES  default 3
#   SOLVER  extra lines for the scene's [solver] table, e.g. SOLVER='refresh = "always"' (default none)
#   REPEAT  "pyamg" stage: each setup and solve timed this many times, the fastest kept (default 3)
# Results: OUT/table.md (default out/mgpbd_squash) and each run's folder; with "pyamg", OUT/pyamg.md (the
# exported system, OUT/squash_N_system, is removed after its row: 0.2 GB of text at 98k tets, 0.7 GB at 297k).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-out/mgpbd_squash}
sizes=${SIZES:-"27 39 55"}
devices=${DEVICES:-"cuda cpu"}
frames=${FRAMES:-3}
repeat=${REPEAT:-3}
x=${CARGO_TARGET_DIR:-target}/release/xpbd
[ -x "$x" ] || cargo build --release -p xpbd-cli
mkdir -p "$out"
table="$out/table.md"
{
    echo "# MGPBD squash benchmark ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD))"
    echo
    echo "Command: SIZES=\"$sizes\" DEVICES=\"$devices\" FRAMES=$frames${SOLVER:+ SOLVER='$SOLVER'} bash benches/gpu/mgpbd_squash.sh $out"
    echo
    echo "| tets | device | ms/frame (to 1e-3) | outer/frame | PCG/frame | ms/PCG it. | ms/outer it. | setup ms: full frame, refresh | assembly / setup / solve / line search % | final relative residual |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$table"
pyamg_table="$out/pyamg.md"
pyamg=false
[[ " $devices " != *" pyamg "* ]] || pyamg=true
if $pyamg; then
    py="$(bash benches/mgpbd_vs_pyamg/setup.sh)"
    {
        echo "# MGPBD squash, one primal solve: ours vs PyAMG ($(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD))"
        echo
        echo "Command: SIZES=\"$sizes\" DEVICES=\"$devices\" REPEAT=$repeat bash benches/gpu/mgpbd_squash.sh $out"
        echo
        echo "| tets | dual rows | rows of K | solver | levels | operator complexity | K assembly s | setup s | PCG iterations to 1e-3 | solve s | ms/PCG it. | K + setup + solve s | vs ours | dual relative residual |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    } > "$pyamg_table"
fi
for n in $sizes; do
    scene="$out/squash_$n.toml"
    cat > "$scene" <<EOF
name = "mgpbd_squash_$n"
[simulation]
dt = 0.01
frames = $frames
substeps = 1
iterations = 30
gravity = [0.0, 0.0, 0.0]
[solver]
kind = "mgpbd"
tolerance = 1e-3
arap_rotation = "fixed"
${SOLVER:-}
# No contact: the MGPBD paper's squash is one body in free space, and the scenes' default self contact would
# add a host BVH detection and pair rows to every timed substep.
[contact]
self = false
[[body]]
name = "box"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [$n, $n, $n], split = 5 }
material = { model = "arap", youngs = 2.0e9, poisson = 0.0, density = 1000.0 }
initial_deform = { scale = [1.3, 0.3, 1.3] }
[output]
formats = ["none"]
EOF
    for device in $devices; do
        if [ "$device" = pyamg ]; then
            system="$out/squash_${n}_system"
            "$x" export-system "$scene" --frame 0 --no-matrix --out "$system"
            "$py" benches/mgpbd_vs_pyamg/squash_primal.py --xpbd "$x" --tol 1e-3 --single-thread --repeat "$repeat" --row "$((5 * n * n * n))" "$system" >> "$pyamg_table"
            rm -rf "$system"
            continue
        fi
        run="$out/squash_${n}_$device"
        if ! "$x" run "$scene" --device "$device" --out "$run" --quiet; then
            echo "| $((5 * n * n * n)) | $device | failed: see above | | | | | | | |" >> "$table"
            continue
        fi
        # metrics.csv's columns by name (docs/output-format.md): ms, relative_residual, outer_iterations,
        # linear_iterations, full_setups, refreshes, and the phases' assembly_ms, setup_ms, linear_solve_ms,
        # line_search_ms. The refresh column is ms per refresh (frames without a full setup); a binary from
        # before the `refreshes` column refreshed at every outer iteration.
        awk -F, -v tets=$((5 * n * n * n)) -v dev="$device" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { f++; ms += $c["ms"]; o += $c["outer_iterations"]; it += $c["linear_iterations"]; a += $c["assembly_ms"]
              s += $c["setup_ms"]; l += $c["linear_solve_ms"]; ls += $c["line_search_ms"]; r = $c["relative_residual"]
              if ($c["full_setups"] > 0) { full += $c["setup_ms"]; nf++ } else { refresh += $c["setup_ms"]; nr += ("refreshes" in c) ? $c["refreshes"] : $c["outer_iterations"] } }
            END {
                t = a + s + l + ls
                printf "| %d | %s | %.0f | %.1f | %.1f | %.2f | %.0f | %.0f, %s | %.0f / %.0f / %.0f / %.0f | %.1e |\n",
                    tets, dev, ms / f, o / f, it / f, l / it, ms / o, nf ? full / nf : 0, nr ? sprintf("%.0f", refresh / nr) : "–",
                    100 * a / t, 100 * s / t, 100 * l / t, 100 * ls / t, r
            }' "$run/metrics.csv" >> "$table"
        grep -o '"device_reason": *"[^"]*"' "$run/summary.json" | sed 's/^/  /' || true
    done
done
cat "$table"
! $pyamg || cat "$pyamg_table"
