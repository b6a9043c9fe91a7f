#!/usr/bin/env bash
# Runs scenes/cloth_over_sphere.toml and checks every written frame for intersections with ipctk, an outside
# library (installed into a virtual environment under target/; needs network the first time).
# Usage: bash benches/contact_crossings/run.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/contact_crossings}
venv=target/ipctk-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet ipctk numpy
fi
cargo build --release -p xpbd-cli
"${CARGO_TARGET_DIR:-./target}/release/xpbd" run scenes/cloth_over_sphere.toml --out "$out"
"$venv/bin/python" benches/contact_crossings/check.py "$out"/frames/*.obj
