#!/usr/bin/env bash
# Runs every solver kind and ordering this build of `xpbd` supports on the standard scenes (scenes/*.toml)
# and writes a dated Markdown report with machine information to benches/results/compare-DATE.md.
# Supported kinds are found by trying them: every kind × ordering is run through `xpbd batch`, and the
# ones the binary rejects are listed as not supported, so new solver families appear once they exist.
#
# Usage: benches/compare.sh [FRAMES]   (default 10 frames per run; runs one at a time, for fair timing)
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMES=${1:-10}
KINDS='"xpbd", "mgpbd", "multilayer", "adaptive"'
ORDERINGS='"serial", "jacobi", "colored", "clustered"'
cargo build --release --locked -p xpbd-cli
X=${CARGO_TARGET_DIR:-target}/release/xpbd
STAMP=$(date -u +%Y-%m-%dT%H%M%SZ)
WORK=out/compare/$STAMP
mkdir -p "$WORK" benches/results
MANIFEST=$WORK/manifest.toml
: > "$MANIFEST"
for scene in scenes/*.toml; do
  cat >> "$MANIFEST" <<EOT
[[sweep]]
scene = "$PWD/$scene"
name = "$(basename "$scene" .toml)"
[sweep.set]
"simulation.frames" = $FRAMES
"output.formats" = ["none"]
[sweep.vary]
"solver.kind" = [$KINDS]
"solver.ordering" = [$ORDERINGS]

EOT
done
# Exit status 1 means some kind or ordering was rejected: that is how unsupported ones are found.
"$X" batch "$MANIFEST" --out "$WORK" --jobs 1 --quiet || true
REPORT=benches/results/compare-$STAMP.md
python3 benches/compare_report.py "$WORK" "$FRAMES" > "$REPORT"
echo "report: $REPORT"
