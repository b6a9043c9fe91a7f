#!/usr/bin/env bash
# Adaptive rigidification against the elastic run on the shipped shell scenes (docs/shells.md, "Speed"): each
# scene is run under solver.kind = "implicit" and "adaptive" (default thresholds unless ADAPTIVE_EXTRA adds keys
# to [solver]), side by side on this machine, with OBJ frames every EVERY frames. Prints per scene the wall
# time of each run (summary.json), the speed-up, the speed-up without contact (the solve times, metrics.csv's
# `ms`, less its `contact_ms`: the thesis's "excluding contact", Table 4.1), the largest vertex distance between
# the two runs over the common frames divided by the scene's rest diagonal, and the rigid share at the end.
# Usage: benches/shells_adaptive/run.sh OUT [SCENE...]   (default: every scenes/shell_*.toml; needs
#        cargo build --release -p xpbd-cli). EVERY=5 by default.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: run.sh OUT [SCENE...]}
shift
scenes=("$@")
[[ ${#scenes[@]} -gt 0 ]] || scenes=("$root"/scenes/shell_*.toml)
xpbd=${XPBD:-${CARGO_TARGET_DIR:-$root/target}/release/xpbd}
[[ -x $xpbd ]] || { echo "no xpbd binary at $xpbd (cargo build --release -p xpbd-cli, or XPBD=path)" >&2; exit 1; }
every=${EVERY:-5}
mkdir -p "$out"
printf '%-22s %10s %10s %8s %11s %12s %s\n' scene implicit_s adaptive_s speedup nc_speedup max_err/diag "rigid at end (bodies, elements)"
for scene in "${scenes[@]}"; do
    name=$(basename "$scene" .toml)
    for kind in implicit adaptive; do
        dir="$out/$name/$kind"
        mkdir -p "$dir"
        python3 - "$scene" "$kind" "$every" "${ADAPTIVE_EXTRA:-}" > "$dir/scene.toml" <<'PY'
import re, sys
text, kind, every, extra = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3], sys.argv[4]
text = re.sub(r'(?m)^kind = "implicit"', f'kind = "{kind}"' + (("\n" + extra) if kind == "adaptive" and extra else ""), text, count=1)
text = re.sub(r'(?ms)^\[output\].*?(?=^\[|\Z)', '', text)
print(text.rstrip() + f'\n\n[output]\nevery = {every}\nformats = ["obj"]\n')
PY
        (cd "$(dirname "$scene")" && "$xpbd" run "$(realpath "$dir/scene.toml")" --out "$(realpath "$dir/run")" --quiet)
    done
    python3 - "$out/$name" <<'PY'
import json, os, sys
base = sys.argv[1]
def frames(kind):
    d = os.path.join(base, kind, "run", "frames")
    return {f: [tuple(map(float, l.split()[1:4])) for l in open(os.path.join(d, f)) if l.startswith("v ")] for f in sorted(os.listdir(d))}
a, b = frames("implicit"), frames("adaptive")
first = a[sorted(a)[0]]
lo = [min(p[i] for p in first) for i in range(3)]
hi = [max(p[i] for p in first) for i in range(3)]
diag = sum((h - l) ** 2 for h, l in zip(hi, lo)) ** 0.5
err = max(max(sum((p[i] - q[i]) ** 2 for i in range(3)) ** 0.5 for p, q in zip(a[f], b[f])) for f in a if f in b)
t = [json.load(open(os.path.join(base, k, "run", "summary.json"))) for k in ("implicit", "adaptive")]
secs = [s["wall_time_s"] for s in t]
def metrics(kind):
    rows = [r.split(",") for r in open(os.path.join(base, kind, "run", "metrics.csv")).read().split("\n") if r]
    return rows[0], rows[1:]
def without_contact(kind):
    head, rows = metrics(kind)
    return sum(float(r[head.index("ms")]) - float(r[head.index("contact_ms")]) for r in rows)
head, rows = metrics("adaptive")
rigid = ", ".join(rows[-1][head.index(c)] for c in ("rigid_bodies", "rigid_elements") if c in head)
nc = without_contact("implicit") / without_contact("adaptive")
print(f"{os.path.basename(base):<22} {secs[0]:10.2f} {secs[1]:10.2f} {secs[0] / secs[1]:8.2f} {nc:11.2f} {err / diag:12.2e} ({rigid})")
PY
done
