#!/usr/bin/env bash
# Creates (once, cached per user like the CUDA toolchain) the virtual environment of the
# PyAMG/SciPy comparison and prints its python. The cache key is the hash of requirements.txt.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
key="$(sha256sum "$here/requirements.txt" | cut -c1-12)"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/xpbd/pyamg-venv-$key"
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.complete" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$here/requirements.txt" >&2
    touch "$venv/.complete"
fi
echo "$venv/bin/python"
