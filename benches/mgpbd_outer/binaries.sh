# Sourced by the scripts here that compare xpbd binaries: sets `root` (the repository) and `bins`, the
# absolute paths of the binaries given as arguments, or target/release/xpbd (under CARGO_TARGET_DIR when
# set) when none is.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bins=()
for x in "$@"; do bins+=("$(realpath "$x")"); done
[ ${#bins[@]} -gt 0 ] || bins=("${CARGO_TARGET_DIR:-$root/target}/release/xpbd")
