#!/usr/bin/env bash
# Peer benchmark (issue 23, item 9): Newton/Warp's CPU XPBD and ours on the same 56k-tet beam, in one run,
# one thread each, and the ratio ours / Newton of milliseconds per frame, with the tip of both against a
# converged reference.
#
# The beam: box 5 × 1.5 × 1.5 m, 50 × 15 × 15 cells, 5 tets per cell (56,250 tets), μ = λ = 1e5 Pa
# (E = 2.5e5 Pa, ν = 0.25), density 1000 kg/m³, 60 frames/s, 10 substeps × 1 iteration, gravity −9.81 y,
# pinned at x = 0, no contact.
#
# Usage: benches/peers/run.sh        (from anywhere; builds `xpbd` in release and the Python venv itself)
# Environment (defaults in brackets):
#   FRAMES [30]              timed frames; ours is run for WARMUP+FRAMES and WARMUP+2·FRAMES frames, the
#                            wall-clock (and CPU-time) difference over FRAMES is its whole per-frame cost;
#                            Newton runs WARMUP + 2·FRAMES frames and times the last 2·FRAMES
#   WARMUP [5]               frames before timing
#   REPEATS [3]              timed repeats (ours and Newton interleaved); the report keeps the fastest repeat
#   ORDERINGS ["serial colored clustered jacobi"]   our orderings, each ORDERING or ORDERING:PRECISION (f64 or
#                            f32, default f64), e.g. "clustered clustered:f32"
#   QUALITY_FRAME [60]       the frame at which the tips are compared
#   REF_ORDERING [clustered], REF_SUBSTEPS [100]     our reference run (× 1 iteration, all cores, untimed)
#   REF_CHECK_SUBSTEPS [200] a finer reference to bound the reference's own error (0: skip)
#   NEWTON_REF_SUBSTEPS [40] Newton at this many substeps, its own material's finer run (0: skip); more does
#                            not help: Newton's float32 positions freeze the motion from about 200 substeps on
#   NEWTON_REF_CHECK_SUBSTEPS [20]  a coarser Newton run to show how far the finer one is converged (0: skip)
#   SKIP_NEWTON [0]          1: ours only
#   OUT [out/peers]          run folders; RESULT [benches/results/peers-<UTC date>.md] the report
#   PEERS_VENV [target/peers-venv]  the venv (newton==1.8.0, warp-lang==1.19.0), created here if missing
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."
root=$PWD

FRAMES=${FRAMES:-30}
REPEATS=${REPEATS:-3}
WARMUP=${WARMUP:-5}
ORDERINGS=${ORDERINGS:-"serial colored clustered jacobi"}
QUALITY_FRAME=${QUALITY_FRAME:-60}
REF_ORDERING=${REF_ORDERING:-clustered}
REF_SUBSTEPS=${REF_SUBSTEPS:-100}
REF_CHECK_SUBSTEPS=${REF_CHECK_SUBSTEPS:-200}
NEWTON_REF_SUBSTEPS=${NEWTON_REF_SUBSTEPS:-40}
NEWTON_REF_CHECK_SUBSTEPS=${NEWTON_REF_CHECK_SUBSTEPS:-20}
SKIP_NEWTON=${SKIP_NEWTON:-0}
OUT=${OUT:-out/peers}
RESULT=${RESULT:-benches/results/peers-$(date -u +%F).md}
VENV=${PEERS_VENV:-target/peers-venv}
NEWTON_VERSION=1.8.0
WARP_VERSION=1.19.0
SUBSTEPS=10
ITERATIONS=1

mkdir -p "$OUT"
raw="$OUT/raw.txt" # key=value lines for summarize.py
: > "$raw"
note() { printf '%s\n' "$*" >&2; }
rec() { printf '%s=%s\n' "$1" "$2" >> "$raw"; }

# ---- our CLI -------------------------------------------------------------------------------------------
note "building xpbd (cargo build --release -p xpbd-cli)"
cargo build --release -p xpbd-cli >&2
x="${CARGO_TARGET_DIR:-target}/release/xpbd"
[ -x "$x" ] || { note "no $x after the build"; exit 1; }

# shellcheck source=benches/beam56k.sh
source "$root/benches/beam56k.sh"

# timed CMD...: runs CMD, prints "WALL_S CPU_S" (wall seconds, user + system seconds of the process).
timed() {
    python3 -c '
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True)
w = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{w:.4f} {r.ru_utime + r.ru_stime:.4f}")' "$@"
}
# ours NAME ORDERING[:PRECISION] SUBSTEPS FRAMES THREADS: runs the scene into $OUT/NAME, prints "WALL_S CPU_S".
ours() {
    local dir="$OUT/$1" ordering=${2%%:*} precision=f64
    [ "$ordering" = "$2" ] || precision=${2#*:}
    rm -rf "$dir"
    mkdir -p "$dir"
    beam56k_scene "$1" "$ordering" "$3" "$4" "$ITERATIONS" "$precision" > "$OUT/$1.toml"
    RAYON_NUM_THREADS=$5 timed "$x" run "$OUT/$1.toml" --out "$dir/run" --threads "$5" --quiet
}

# ---- Newton's venv ---------------------------------------------------------------------------------------
newton_setup() {
    if [ ! -x "$VENV/bin/python" ] || [ ! -f "$VENV/.complete-$NEWTON_VERSION-$WARP_VERSION" ]; then
        rm -rf "$VENV"
        python3 -m venv "$VENV" >&2 || return 1
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
            "newton==$NEWTON_VERSION" "warp-lang==$WARP_VERSION" >&2 || return 1
        touch "$VENV/.complete-$NEWTON_VERSION-$WARP_VERSION"
    fi
}
# Warp compiles its CPU kernels on first use (about half a minute here) into this cache; the warm-up frames
# keep the first launches out of the timings.
newton_run() { # SUBSTEPS WARMUP FRAMES OUTFILE
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
        "$VENV/bin/python" "$here/newton_beam.py" --substeps "$1" --iterations "$ITERATIONS" --warmup "$2" \
        --frames "$3" --kernel-cache "$VENV/warp-kernel-cache" --out "$4" > "$4.log" 2>&1
}
newton_ok=0
if [ "$SKIP_NEWTON" = 1 ]; then
    rec newton.error "skipped (SKIP_NEWTON=1)"
elif ! newton_setup; then
    note "NEWTON DID NOT RUN: the venv with newton==$NEWTON_VERSION warp-lang==$WARP_VERSION could not be created"
    rec newton.error "the venv with newton==$NEWTON_VERSION and warp-lang==$WARP_VERSION could not be created (pip install failed)"
else
    newton_ok=1
fi

# ---- timed runs: each repeat runs every ordering of ours, then Newton ---------------------------------------
long=$((WARMUP + 2 * FRAMES))
[ "$long" -ge "$QUALITY_FRAME" ] || long=$QUALITY_FRAME
nframes=$((2 * FRAMES))
[ $((WARMUP + nframes)) -ge "$QUALITY_FRAME" ] || nframes=$((QUALITY_FRAME - WARMUP))
rec frames "$FRAMES"
rec warmup "$WARMUP"
rec repeats "$REPEATS"
rec quality_frame "$QUALITY_FRAME"
rec orderings "$ORDERINGS"
rec load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$REPEATS"); do
    for o in $ORDERINGS; do
        note "[$r/$REPEATS] ours: $o, $SUBSTEPS substeps × $ITERATIONS iteration, 1 thread: $((WARMUP + FRAMES)) and $long frames"
        t=$(ours "${o/:/-}-short-$r" "$o" "$SUBSTEPS" "$((WARMUP + FRAMES))" 1)
        rec "ours.$o.$r.short" "$t"
        t=$(ours "${o/:/-}-$r" "$o" "$SUBSTEPS" "$long" 1)
        rec "ours.$o.$r.long" "$t"
        rec "ours.$o.$r.dir" "$OUT/${o/:/-}-$r/run"
        rec "ours.$o.frames_short" "$((WARMUP + FRAMES))"
        rec "ours.$o.frames_long" "$long"
    done
    if [ "$newton_ok" = 1 ]; then
        note "[$r/$REPEATS] newton: $SUBSTEPS substeps × $ITERATIONS iteration on the CPU device: $WARMUP warm-up + $nframes timed frames"
        if newton_run "$SUBSTEPS" "$WARMUP" "$nframes" "$OUT/newton-$r.json"; then
            rec "newton.$r.json" "$OUT/newton-$r.json"
        else
            note "NEWTON DID NOT RUN: newton_beam.py failed; the last lines of $OUT/newton-$r.json.log:"
            tail -n 20 "$OUT/newton-$r.json.log" >&2
            rec newton.error "newton_beam.py failed: $(tail -n 3 "$OUT/newton-$r.json.log" | tr '\n' ' ')"
            newton_ok=0
        fi
    fi
done

# ---- references (untimed) ---------------------------------------------------------------------------------
note "reference: ours, $REF_ORDERING, $REF_SUBSTEPS substeps × $ITERATIONS iteration, $QUALITY_FRAME frames (all cores)"
ref_threads=$(nproc)
rec ref.label "$REF_ORDERING, $REF_SUBSTEPS substeps × $ITERATIONS iteration"
t=$(ours "ref-$REF_SUBSTEPS" "$REF_ORDERING" "$REF_SUBSTEPS" "$QUALITY_FRAME" "$ref_threads")
rec ref.time "$t"
rec ref.dir "$OUT/ref-$REF_SUBSTEPS/run"
if [ "$REF_CHECK_SUBSTEPS" -gt 0 ]; then
    note "reference check: ours, $REF_ORDERING, $REF_CHECK_SUBSTEPS substeps"
    rec refcheck.label "$REF_ORDERING, $REF_CHECK_SUBSTEPS substeps × $ITERATIONS iteration"
    t=$(ours "ref-$REF_CHECK_SUBSTEPS" "$REF_ORDERING" "$REF_CHECK_SUBSTEPS" "$QUALITY_FRAME" "$ref_threads")
    rec refcheck.time "$t"
    rec refcheck.dir "$OUT/ref-$REF_CHECK_SUBSTEPS/run"
fi
if [ "$newton_ok" = 1 ] && [ "$NEWTON_REF_SUBSTEPS" -gt 0 ]; then
    note "newton reference: $NEWTON_REF_SUBSTEPS substeps × $ITERATIONS iteration, $QUALITY_FRAME frames"
    if newton_run "$NEWTON_REF_SUBSTEPS" 0 "$QUALITY_FRAME" "$OUT/newton-ref.json"; then
        rec newton_ref.json "$OUT/newton-ref.json"
    else
        rec newton_ref.error "newton_beam.py failed at $NEWTON_REF_SUBSTEPS substeps: $(tail -n 3 "$OUT/newton-ref.json.log" | tr '\n' ' ')"
    fi
    if [ "$NEWTON_REF_CHECK_SUBSTEPS" -gt 0 ]; then
        note "newton reference check: $NEWTON_REF_CHECK_SUBSTEPS substeps × $ITERATIONS iteration, $QUALITY_FRAME frames"
        if newton_run "$NEWTON_REF_CHECK_SUBSTEPS" 0 "$QUALITY_FRAME" "$OUT/newton-refcheck.json"; then
            rec newton_refcheck.json "$OUT/newton-refcheck.json"
        fi
    fi
fi
rec load_end "$(cut -d' ' -f1-3 /proc/loadavg)"

# ---- report --------------------------------------------------------------------------------------------
rec cpu "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)"
rec cores "$(nproc)"
rec rustc "$(rustc --version)"
rec python "$(python3 --version 2>&1)"
rec commit "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (crates modified)')"
rec date "$(date -u +'%Y-%m-%d %H:%M UTC')"
rec command "$(env | grep -E '^(FRAMES|WARMUP|REPEATS|ORDERINGS|QUALITY_FRAME|REF_ORDERING|REF_SUBSTEPS|REF_CHECK_SUBSTEPS|NEWTON_REF_SUBSTEPS|NEWTON_REF_CHECK_SUBSTEPS|SKIP_NEWTON)=' | sort | sed "s/=\(.*\)/='\1'/" | tr '\n' ' ')benches/peers/run.sh"
rec xpbd "$x"
mkdir -p "$(dirname "$RESULT")"
python3 "$here/summarize.py" "$raw" "$RESULT"
note "wrote $RESULT"
