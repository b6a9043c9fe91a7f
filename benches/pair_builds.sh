#!/usr/bin/env bash
# Before/after timing of two revisions of `xpbd`: builds `xpbd` (crate xpbd-cli,
# `cargo build --release --locked -p xpbd-cli`) at revision A and at revision B, each from its own
# `git worktree` in a temporary folder and into its own target folder, then runs each scene with each binary
# interleaved A, B, A, B, ... REPEATS times (`xpbd run SCENE --threads THREADS --frames FRAMES --quiet`), and
# prints per scene and build the minimum and median of
#   - the solve ms/frame: summary.json's `ms_per_frame` (the solver's wall time per frame, without the
#     reporting-only residual; docs/output-format.md), and
#   - the process CPU time per frame: user + sys of the whole `xpbd run` process (bash's `time`) over the
#     frames run. It includes start-up (mesh build, partitions, output), so use enough frames,
# then the ratios B/A, and whether the two builds' results (probes.csv and summary.json's `final`, first
# repeat) are identical: a refactoring that must not change behaviour should say "identical".
#
# The default scene is issue 23's 56k-tet beam (box 5 × 1.5 × 1.5 m, 50 × 15 × 15 cells, neohookean_block,
# clustered ordering; the TOML of benches/results/block-kernel-56k-2026-11-27.md), 40 frames, 1 thread, as
# in that report's procedure. Building the two binaries takes minutes; the runs themselves are short.
#
# Usage: benches/pair_builds.sh [A [B [SCENE...]]]
#   A, B    git revisions (anything `git rev-parse` takes: a commit, a branch, HEAD~1) [HEAD~1, HEAD]; the
#           committed trees are built, not the working tree's uncommitted changes
#   SCENE   scene files, compared one after the other with the same two binaries [the 56k beam, written
#           to the temporary folder]
# Environment (defaults in brackets):
#   REPEATS [3]        runs per build, interleaved
#   FRAMES [40]        --frames of every run
#   THREADS [1]        --threads of every run
#   PAIR_TARGET_A, PAIR_TARGET_B [target/pair-a, target/pair-b of this checkout]  cargo target folders of the
#                      two builds; kept, so a second comparison reuses the dependencies (the workspace's own
#                      crates are rebuilt: the worktrees are new); point one at an existing release target
#                      folder to reuse it. Each binary is copied out right after its build, so both may name
#                      the same folder. The checkout's .toolchain/ (CUDA, scripts/install-cuda-toolchain.sh),
#                      when it has one, is linked into both worktrees, so they build as the checkout does.
#   XPBD_CPU_ISA       passed through to both binaries as it is
# Example (a quick check of a refactoring on a small scene):
#   REPEATS=1 FRAMES=20 benches/pair_builds.sh main HEAD scenes/cantilever.toml
set -euo pipefail

usage() { sed -n 's/^# \{0,1\}//; /^Usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' >&2; }
die() { printf 'pair_builds.sh: %s\n' "$*" >&2; exit 1; }

case "${1:-}" in -h | --help) usage; exit 0 ;; esac
root="$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)"
REV_A=${1:-HEAD~1}
REV_B=${2:-HEAD}
shift $(($# < 2 ? $# : 2))
SCENES=("$@")
REPEATS=${REPEATS:-3}
FRAMES=${FRAMES:-40}
THREADS=${THREADS:-1}
TARGET_A=${PAIR_TARGET_A:-$root/target/pair-a}
TARGET_B=${PAIR_TARGET_B:-$root/target/pair-b}
for n in REPEATS FRAMES THREADS; do
    [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "$n must be a positive integer, not '${!n}'"
done
sha_a=$(git -C "$root" rev-parse --verify --quiet "$REV_A^{commit}") || die "revision A '$REV_A' does not exist in $root"
sha_b=$(git -C "$root" rev-parse --verify --quiet "$REV_B^{commit}") || die "revision B '$REV_B' does not exist in $root"
for i in "${!SCENES[@]}"; do
    [ -f "${SCENES[$i]}" ] || die "no scene file '${SCENES[$i]}'"
    SCENES[$i]="$(cd "$(dirname "${SCENES[$i]}")" && pwd)/$(basename "${SCENES[$i]}")"
done
command -v python3 > /dev/null || die "python3 is needed to read summary.json"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pair_builds.XXXXXX")
worktrees=()
cleanup() {
    for wt in "${worktrees[@]}"; do
        git -C "$root" worktree remove --force "$wt" > /dev/null 2>&1 || true
    done
    git -C "$root" worktree prune > /dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build LABEL SHA TARGET: xpbd at SHA, copied to $tmp/xpbd-LABEL.
build() {
    local wt="$tmp/src-$1"
    git -C "$root" worktree add --detach --quiet "$wt" "$2"
    worktrees+=("$wt")
    [ ! -e "$root/.toolchain" ] || ln -s "$root/.toolchain" "$wt/.toolchain"
    printf 'building %s (%s) into %s\n' "$1" "$(git -C "$root" log -1 --format='%h %s' "$2" | cut -c1-80)" "$3" >&2
    (cd "$wt" && CARGO_TARGET_DIR="$3" cargo build --release --locked -p xpbd-cli >&2) || die "the build of $1 ($2) failed"
    cp "$3/release/xpbd" "$tmp/xpbd-$1"
}
build A "$sha_a" "$TARGET_A"
build B "$sha_b" "$TARGET_B"

if [ ${#SCENES[@]} -eq 0 ]; then
    SCENES=("$tmp/beam56k_clustered.toml")
    # shellcheck source=benches/beam56k.sh
    source "$root/benches/beam56k.sh"
    beam56k_scene beam56k_clustered clustered 10 30 1 > "${SCENES[0]}"
fi

# run SCENE_INDEX LABEL R: one run of build LABEL; appends "LABEL ms_per_frame cpu_ms_per_frame" to
# $tmp/times-SCENE_INDEX.
run() {
    local out="$tmp/run-$1-$2-$3" t
    t=$( { TIMEFORMAT='%3U %3S'; time "$tmp/xpbd-$2" run "${SCENES[$1]}" --threads "$THREADS" --frames "$FRAMES" --out "$out" --quiet > "$out.log" 2>&1; } 2>&1) ||
        die "run $3 of build $2 on ${SCENES[$1]} failed: $(tail -n 3 "$out.log")"
    python3 - "$2" "$out/summary.json" $t >> "$tmp/times-$1" <<'EOF'
import json, sys
label, path, user, sys_ = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
s = json.load(open(path))
print(label, s["ms_per_frame"], 1000.0 * (user + sys_) / s["frames"])
EOF
}

printf 'A = %s (%s), B = %s (%s); %s frames, %s thread(s), %s interleaved run(s) per build\n' \
    "$REV_A" "${sha_a:0:10}" "$REV_B" "${sha_b:0:10}" "$FRAMES" "$THREADS" "$REPEATS"
for i in "${!SCENES[@]}"; do
    : > "$tmp/times-$i"
    for r in $(seq "$REPEATS"); do
        for side in A B; do
            printf '%s: run %s/%s, build %s\n' "$(basename "${SCENES[$i]}")" "$r" "$REPEATS" "$side" >&2
            run "$i" "$side" "$r"
        done
    done
    python3 - "$tmp" "$i" "${SCENES[$i]}" <<'EOF'
import json, os, statistics, sys
tmp, i, scene = sys.argv[1:]
rows = [l.split() for l in open(os.path.join(tmp, f"times-{i}"))]
val = {s: {"solve": [float(r[1]) for r in rows if r[0] == s], "cpu": [float(r[2]) for r in rows if r[0] == s]} for s in "AB"}
print(f"\n{os.path.basename(scene)}")
print(f"{'ms/frame':<26}{'A min':>10}{'A median':>10}{'B min':>10}{'B median':>10}{'B/A min':>9}{'B/A med':>9}")
for key, name in (("solve", "solve (summary.json)"), ("cpu", "process CPU (user+sys)")):
    a, b = val["A"][key], val["B"][key]
    ma, mb, da, db = min(a), min(b), statistics.median(a), statistics.median(b)
    print(f"{name:<26}{ma:>10.3f}{da:>10.3f}{mb:>10.3f}{db:>10.3f}{mb / ma:>9.3f}{db / da:>9.3f}")
def results(side):
    d = os.path.join(tmp, f"run-{i}-{side}-1")
    probes = os.path.join(d, "probes.csv")
    return open(probes).read() if os.path.exists(probes) else None, json.load(open(os.path.join(d, "summary.json"))).get("final")
print("results (probes.csv, summary.json final), run 1:", "identical" if results("A") == results("B") else "DIFFER")
EOF
done
