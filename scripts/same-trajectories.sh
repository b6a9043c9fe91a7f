#!/usr/bin/env bash
# Checks that a change keeps the CPU trajectories bit for bit: runs every scene in scenes/ for a few frames
# with the `xpbd` binary of a base revision and with this checkout's, on one thread, and compares every
# written frame (VTU), probes.csv, and every metrics.csv column but the wall times. A refactoring must pass it with
# nothing printed but "same"; a change of the physics is expected to fail it and say where.
#
#   bash scripts/same-trajectories.sh BASE_REV [FRAMES]      (default 3 frames; builds BASE_REV in a worktree)
#   OLD_BIN=path/to/xpbd bash scripts/same-trajectories.sh - [FRAMES]
#
# Scenes that need a mesh from outside the repository are skipped when it is missing (their run fails in both).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${1:?usage: same-trajectories.sh BASE_REV|- [FRAMES]}"
frames="${2:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"; git -C "$repo" worktree remove --force "$work/base" 2>/dev/null || true' EXIT

if [[ "$base" == "-" ]]; then
    old="${OLD_BIN:?OLD_BIN must name the base binary when BASE_REV is -}"
else
    git -C "$repo" worktree add --detach "$work/base" "$base" >/dev/null
    (cd "$work/base" && CARGO_TARGET_DIR="$repo/target/same-trajectories" cargo build --release --locked -q -p xpbd-cli)
    old="$repo/target/same-trajectories/release/xpbd"
fi
(cd "$repo" && cargo build --release --locked -q -p xpbd-cli)
new="$repo/target/release/xpbd"

# A CSV without its wall-time columns (`ms` and every `*_ms`).
strip_ms() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = ($i != "ms" && $i !~ /_ms$/) }
             { line = ""; for (i = 1; i <= NF; i++) if (keep[i]) line = line $i ","; print line }' "$1"
}

failed=0
for scene in "$repo"/scenes/*.toml; do
    name="$(basename "$scene" .toml)"
    ok_old=0; ok_new=0
    "$old" run "$scene" --device cpu --threads 1 --frames "$frames" --quiet --out "$work/old/$name" >/dev/null 2>&1 || ok_old=$?
    "$new" run "$scene" --device cpu --threads 1 --frames "$frames" --quiet --out "$work/new/$name" >/dev/null 2>&1 || ok_new=$?
    if [[ $ok_old -ne 0 && $ok_new -ne 0 && ! -d "$work/old/$name/frames" ]]; then
        echo "$name: skipped (fails in both, e.g. a missing outside mesh)"; continue
    fi
    if [[ $ok_old -ne $ok_new ]]; then
        echo "$name: DIFFERENT exit status ($ok_old before, $ok_new after)"; failed=1; continue
    fi
    diff -q <(strip_ms "$work/old/$name/metrics.csv") <(strip_ms "$work/new/$name/metrics.csv") >/dev/null \
        || { echo "$name: DIFFERENT metrics.csv"; failed=1; continue; }
    if [[ -f "$work/old/$name/probes.csv" || -f "$work/new/$name/probes.csv" ]] \
        && ! diff -q "$work/old/$name/probes.csv" "$work/new/$name/probes.csv" >/dev/null 2>&1; then
        echo "$name: DIFFERENT probes.csv"; failed=1; continue
    fi
    if [[ -d "$work/old/$name/frames" || -d "$work/new/$name/frames" ]] \
        && ! diff -rq "$work/old/$name/frames" "$work/new/$name/frames" >/dev/null 2>&1; then
        echo "$name: DIFFERENT frames"; failed=1; continue
    fi
    echo "$name: same"
done
exit $failed
