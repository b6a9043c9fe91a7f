# Sourced by the scripts of benches/reproduce/ after they set `root` and `paper` (the docs/reproductions/ name):
# reads [--smoke | --full] [--out DIR] and sets `mode` (smoke, default or full), `out` (the results folder, absolute)
# and `work` (the run folders: out/reproduce/$paper, or a temporary folder removed on exit for --smoke).
mode=default
out=
while [ $# -gt 0 ]; do
  case $1 in
    --smoke | --full) mode=${1#--} ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    *) echo "$paper.sh: unknown argument '$1' (usage: [--smoke | --full] [--out DIR])" >&2; exit 2 ;;
  esac
  shift
done
if [ "$mode" = smoke ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  out=${out:-$tmp/results}
  work=$tmp/work
else
  out=${out:-$root/docs/reproductions/$paper}
  work=$root/out/reproduce/$paper
fi
mkdir -p "$out" "$work"
out=$(cd "$out" && pwd)

# xpbd_exe: builds the command-line tool in the release profile and prints its executable.
xpbd_exe() {
  (cd "$root" && cargo build --release --locked -q -p xpbd-cli) && echo "${CARGO_TARGET_DIR:-$root/target}/release/xpbd"
}

# bench_exe NAME: builds the bench NAME of xpbd-benches in the release profile (what scripts/test.sh builds, not
# `cargo bench`'s own) and prints its executable.
bench_exe() {
  (cd "$root" && cargo build --release --locked -q -p xpbd-benches --bench "$1" --message-format=json) |
    python3 -c 'import json, sys; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("executable")][-1])'
}
