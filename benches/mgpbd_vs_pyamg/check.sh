#!/usr/bin/env bash
# The small instance of the PyAMG/SciPy comparison that scripts/test.sh runs (a few seconds):
# a cloth and a tet-edge dual system, with the targets asserted (compare.py --check).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
py="$(bash "$here/setup.sh")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" "$here/gen_systems.py" "$tmp/cloth30" cloth 30 1e5
"$py" "$here/gen_systems.py" "$tmp/tet8" tet 8 1e9
"$py" "$here/compare.py" --check --xpbd "$repo/target/release/xpbd" "$tmp/cloth30" "$tmp/tet8" > "$tmp/report.txt" || { cat "$tmp/report.txt"; exit 1; }
echo "PCG agrees with SciPy's direct solve; residual after 100 iterations within 1.5x of PyAMG's"
