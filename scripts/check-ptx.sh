#!/usr/bin/env bash
# Compiles every kernels/*.cu to PTX (the same nvcc flags as crates/xpbd-cuda/build.rs) into a temporary folder
# and assembles each with `ptxas -arch=sm_90 -v`, printing per kernel its registers, stack frame and spill
# stores/loads. Exits non-zero on any nvcc or ptxas error; spills are reported, not failed.
# Without any nvcc (or with XPBD_NO_NVCC=1) it prints "skipped: no nvcc" and exits 0.
#
# nvcc is looked for like build.rs does: $NVCC, $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin,
# .toolchain/cuda/bin (by default NVRTC 12.0 behind scripts/nvrtc-nvcc.py, with ptxas 12.0 next to it).
# ptxas is taken from nvcc's folder, else PATH. Environment: PTXAS_ARCH (default sm_90; several separated by
# spaces or commas), XPBD_NVCC_FLAGS (extra nvcc flags, as for build.rs).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
archs="${PTXAS_ARCH:-sm_90}"
archs="${archs//,/ }"

if [[ -n "${XPBD_NO_NVCC:-}" && "${XPBD_NO_NVCC}" != "0" ]]; then
    echo "skipped: no nvcc (XPBD_NO_NVCC is set)"
    exit 0
fi

find_nvcc() {
    local candidate
    if [[ -n "${NVCC:-}" ]]; then
        candidate="$(command -v "$NVCC" 2>/dev/null || true)"
        if [[ -n "$candidate" && -x "$candidate" ]]; then echo "$candidate"; return 0; fi
        echo "warning: NVCC=$NVCC is not an executable file; looking for nvcc elsewhere" >&2
    fi
    for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}"; do
        if [[ -n "$root" && -x "$root/bin/nvcc" ]]; then echo "$root/bin/nvcc"; return 0; fi
    done
    if candidate="$(command -v nvcc 2>/dev/null)" && [[ -x "$candidate" ]]; then echo "$candidate"; return 0; fi
    if [[ -x /usr/local/cuda/bin/nvcc ]]; then echo /usr/local/cuda/bin/nvcc; return 0; fi
    if [[ -x "$repo/.toolchain/cuda/bin/nvcc" ]]; then echo "$repo/.toolchain/cuda/bin/nvcc"; return 0; fi
    return 1
}

if ! nvcc="$(find_nvcc)"; then
    echo "skipped: no nvcc"
    exit 0
fi
ptxas="$(dirname "$nvcc")/ptxas"
if [[ ! -x "$ptxas" ]]; then
    ptxas="$(command -v ptxas 2>/dev/null || true)"
    [[ -n "$ptxas" ]] || { echo "error: found $nvcc but no ptxas next to it or on PATH" >&2; exit 1; }
fi

shopt -s nullglob
sources=("$repo"/kernels/*.cu)
if [[ ${#sources[@]} -eq 0 ]]; then
    echo "no kernels/*.cu to check"
    exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "nvcc:  $nvcc ($("$nvcc" --version | grep -o 'release [0-9.]*'))"
echo "ptxas: $ptxas ($("$ptxas" --version | grep -o 'release [0-9.]*'))"

# shellcheck disable=SC2206 # word splitting of the extra flags is intended
extra=(${XPBD_NVCC_FLAGS:-})
status=0
spills=0
printf '\n%-12s %-28s %-6s %9s %7s %12s %11s\n' module kernel arch registers stack spill_stores spill_loads
for source in "${sources[@]}"; do
    name="$(basename "$source" .cu)"
    ptx="$tmp/$name.ptx"
    flags=(-ptx -arch=compute_75 -O3 -std=c++17 -I "$repo/kernels" "${extra[@]}")
    if ! "$nvcc" "${flags[@]}" "$source" -o "$ptx" >"$tmp/nvcc.log" 2>&1; then
        if grep -q -- "allow-unsupported-compiler" "$tmp/nvcc.log" \
            && "$nvcc" "${flags[@]}" -allow-unsupported-compiler "$source" -o "$ptx" >"$tmp/nvcc.log" 2>&1; then
            echo "note: kernels/$name.cu needed -allow-unsupported-compiler for this host compiler" >&2
        else
            echo "error: nvcc failed on kernels/$name.cu:" >&2
            cat "$tmp/nvcc.log" >&2
            status=1
            continue
        fi
    fi
    for arch in $archs; do
        if ! "$ptxas" -arch="$arch" -v "$ptx" -o "$tmp/$name.$arch.cubin" >"$tmp/ptxas.log" 2>&1; then
            echo "error: ptxas -arch=$arch failed on kernels/$name.cu:" >&2
            cat "$tmp/ptxas.log" >&2
            status=1
            continue
        fi
        # ptxas -v: "Compiling entry function 'K' for 'sm_90'", then "N bytes stack frame, N bytes spill stores,
        # N bytes spill loads", then "Used N registers, ...".
        while IFS=$'\t' read -r kernel regs stack stores loads; do
            printf '%-12s %-28s %-6s %9s %7s %12s %11s\n' "$name" "$kernel" "$arch" "$regs" "$stack" "$stores" "$loads"
            if [[ "$stores" != 0 || "$loads" != 0 ]]; then spills=$((spills + 1)); fi
        done < <(awk '
            /Compiling entry function/ { if (k != "") print k "\t" r "\t" s "\t" st "\t" ld;
                                         k = $0; sub(/.*function \047/, "", k); sub(/\047.*/, "", k); r = s = st = ld = "?" }
            /bytes stack frame/ { s = $1; st = $5; ld = $9 }
            /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); r = substr($0, RSTART + 5, RLENGTH - 15) }
            END { if (k != "") print k "\t" r "\t" s "\t" st "\t" ld }' "$tmp/ptxas.log")
        if grep -qi "warning" "$tmp/ptxas.log"; then
            grep -i "warning" "$tmp/ptxas.log" | sed "s|^|kernels/$name.cu ($arch): |" >&2
        fi
    done
done

echo
if [[ $spills -gt 0 ]]; then
    echo "note: $spills kernel(s) spill registers (spill_stores/spill_loads above, bytes)"
fi
if [[ $status -ne 0 ]]; then
    echo "FAILED: ptxas/nvcc errors above"
else
    echo "ok: ${#sources[@]} module(s) assembled for $archs"
fi
exit $status
