#!/usr/bin/env bash
# The CPU cost of one MGPBD outer iteration and its phases (issue 23 item 7; docs/mgpbd.md, "Cost of an outer
# iteration on the CPU"): a stiff neo-Hookean beam of 5880 tets (4 x 1 x 1 m, cells 24 x 7 x 7, E = 1e7 Pa,
# ν = 0.45, clamped at x = 0; 10 substeps a frame, primal-amg, outer tolerance 1e-6), the size of the 6k-tet
# bracket the issue timed, run on one thread. Per binary and `refresh` setting, in turn REPEAT times:
# ms per frame, outer and PCG iterations, refreshes, and ms per outer iteration split into assembly (rows,
# K refill), setup (full setups and refreshes), PCG solve and line search, from metrics.csv; the fastest
# repeat is kept per row.
#
# Usage: benches/mgpbd_outer/iteration_cost.sh OUT [XPBD...]   (default target/release/xpbd)
#   REFRESH  settings to run (default "always adaptive"; a binary from before the setting exists takes
#            only its own behaviour: give it as XPBD@default, which runs that binary with the scene that has
#            no `refresh` line, beside the others with REFRESH)
#   SOLVER   extra lines for the scene's [solver] table, e.g. SOLVER='smoother = "chebyshev"' (default none)
#   FRAMES (default 3), REPEAT (default 3), THREADS (default 1)
set -euo pipefail
out=${1:?usage: iteration_cost.sh OUT [XPBD...]}
shift
# XPBD@SETTING: that binary runs only with SETTING.
args=() own=()
for a in "$@"; do
    case $a in
        *@*) args+=("${a%@*}") own+=("${a##*@}") ;;
        *) args+=("$a") own+=("") ;;
    esac
done
set -- "${args[@]}"
source "$(dirname "$0")/binaries.sh"
refresh=${REFRESH:-always adaptive}
settings=$(printf '%s\n' $refresh "${own[@]}" | awk 'NF && !seen[$0]++' | tr '\n' ' ')
frames=${FRAMES:-3}
repeat=${REPEAT:-3}
threads=${THREADS:-1}
mkdir -p "$out"
cd "$out"
for r in $settings; do
    line=""
    [ "$r" = default ] || line="refresh = \"$r\""
    cat > "beam_$r.toml" <<EOF
name = "mgpbd_iteration_cost"
[simulation]
dt = 0.01
frames = $frames
substeps = 10
iterations = 20
gravity = [0.0, -9.81, 0.0]
[solver]
kind = "mgpbd"
linear_solver = "primal-amg"
tolerance = 1e-6
$line
${SOLVER:-}
[[body]]
name = "beam"
mesh = { generator = "box", size = [4.0, 1.0, 1.0], cells = [24, 7, 7], split = 5 }
translate = [0.0, 2.0, 0.0]
material = { model = "neohookean_block", youngs = 1.0e7, poisson = 0.45, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
[output]
formats = ["none"]
EOF
done
: > rows.txt
for rep in $(seq "$repeat"); do
    for b in "${!bins[@]}"; do
        for r in ${own[$b]:-$refresh}; do
            run="run_${b}_${r}_$rep"
            "${bins[$b]}" run "beam_$r.toml" --out "$run" --quiet --threads "$threads" > /dev/null
            # metrics.csv by column name (docs/output-format.md); `refreshes` is absent before the setting.
            awk -F, -v bin="$b" -v r="$r" '
                NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                { f++; ms += $c["ms"]; o += $c["outer_iterations"]; it += $c["linear_iterations"]
                  rf += ("refreshes" in c) ? $c["refreshes"] : $c["outer_iterations"] - $c["full_setups"]
                  a += $c["assembly_ms"]; s += $c["setup_ms"]; l += $c["linear_solve_ms"]; ls += $c["line_search_ms"]
                  res = $c["relative_residual"] }
                END { printf "%s %s %.1f %d %d %d %.2f %.2f %.2f %.2f %.2f %.1e\n", bin, r, ms / f, o, it, rf, ms / o, a / o, s / o, l / o, ls / o, res }
            ' "$run/metrics.csv" >> rows.txt
        done
    done
done
{
    echo "| binary | refresh | ms/frame | outer its | PCG its | refreshes | ms/outer it. | assembly | setup | PCG solve | line search | final relative residual |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    sort -k1,1n -k2,2 -k3,3g rows.txt | awk '!seen[$1 " " $2]++ { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }'
    echo
    echo "Fastest of $repeat repeats, $frames frames, $threads thread(s)${SOLVER:+, SOLVER: $SOLVER}; binaries: ${bins[*]}"
} | tee table.md
