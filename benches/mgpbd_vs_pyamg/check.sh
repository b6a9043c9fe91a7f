#!/usr/bin/env bash
# The small instance of the PyAMG/SciPy comparison that scripts/test.sh runs (a few seconds):
# a cloth and a tet-edge dual system, with the targets asserted (compare.py --check), and one exported
# MGPBD system solved by primal-amg, PyAMG and SciPy (squash_primal.py --check).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
py="$(bash "$here/setup.sh")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" "$here/gen_systems.py" "$tmp/cloth30" cloth 30 1e5
"$py" "$here/gen_systems.py" "$tmp/tet8" tet 8 1e9
"$py" "$here/compare.py" --check --xpbd "${CARGO_TARGET_DIR:-$repo/target}/release/xpbd" "$tmp/cloth30" "$tmp/tet8" > "$tmp/report.txt" || { cat "$tmp/report.txt"; exit 1; }
# MGPBD's primal solve (squash_primal.py): ours and PyAMG on the same exported K, with pinned vertices.
"${CARGO_TARGET_DIR:-$repo/target}/release/xpbd" export-system "$repo/scenes/mgpbd_beam_stiff_primal.toml" --frame 1 --no-matrix --out "$tmp/beam" > /dev/null
"$py" "$here/squash_primal.py" --xpbd "${CARGO_TARGET_DIR:-$repo/target}/release/xpbd" --compare-tol 1e-8 --check "$tmp/beam" > "$tmp/primal.txt" || { cat "$tmp/primal.txt"; exit 1; }
echo "PCG agrees with SciPy's direct solve; residual after 100 iterations within 1.5x of PyAMG's; primal-amg's Δλ agrees with PyAMG's and SciPy's"
