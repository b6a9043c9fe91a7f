#!/usr/bin/env bash
# Install a CUDA 13.0 nvcc (PTX compiler + ptxas) into <repo>/.toolchain/cuda, with no GPU and no root.
#
# The compiler comes from NVIDIA's wheels on the Python package index. They are installed once per user into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/xpbd/cuda-13.0.88
# (override with XPBD_CUDA_CACHE) and .toolchain/cuda is made a symlink to the `nvidia/cu13` folder there, which
# has the layout nvcc expects (bin/ with nvcc and ptxas, include/ with the crt headers, nvvm/bin/cicc, lib/).
# A fresh clone on the same machine therefore reuses the cache and installs in well under a second.
#
# Usage: scripts/install-cuda-toolchain.sh [--force]
#   --force   reinstall into the cache even when it looks complete
# Environment: PYTHON (default python3), XPBD_CUDA_CACHE (cache folder), PIP_INDEX_URL etc. as pip reads them.
set -euo pipefail

log() { printf '[install-cuda-toolchain] %s\n' "$*" >&2; }
die() { printf '[install-cuda-toolchain] error: %s\n' "$*" >&2; exit 1; }

force=0
for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (try --help)" ;;
    esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="13.0.88"
packages=(
    "nvidia-cuda-nvcc==13.0.88"
    "nvidia-cuda-runtime==13.0.96"
    "nvidia-cuda-crt==13.0.88"
    "nvidia-nvvm==13.0.88"
)
cache_root="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/xpbd"
cache="${XPBD_CUDA_CACHE:-$cache_root/cuda-$version}"
cuda_in_cache="$cache/nvidia/cu13"
stamp="$cache/.xpbd-complete"
link="$repo/.toolchain/cuda"
python="${PYTHON:-python3}"

# A throw-away kernel to prove that nvcc compiles to PTX and that ptxas assembles it for sm_90.
probe_kernel='extern "C" __global__ void xpbd_probe(double* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0; }'

# Checks that the toolchain under $1 works: nvcc --version is 13.0, a .cu compiles to PTX, ptxas assembles it.
# Prints the extra nvcc flag the host compiler needs (empty or -allow-unsupported-compiler) on success.
verify() {
    local cuda="$1" tmp out extra=""
    [[ -x "$cuda/bin/nvcc" && -x "$cuda/bin/ptxas" && -x "$cuda/nvvm/bin/cicc" ]] || return 1
    out="$("$cuda/bin/nvcc" --version 2>&1)" || return 1
    grep -q "release 13.0" <<<"$out" || { log "unexpected nvcc version: $out"; return 1; }
    tmp="$(mktemp -d)"
    printf '%s\n' "$probe_kernel" >"$tmp/probe.cu"
    if ! "$cuda/bin/nvcc" -ptx -arch=compute_75 -O3 -std=c++17 "$tmp/probe.cu" -o "$tmp/probe.ptx" >"$tmp/log" 2>&1; then
        if grep -qi -e "unsupported GNU version" -e "allow-unsupported-compiler" "$tmp/log"; then
            extra="-allow-unsupported-compiler"
            "$cuda/bin/nvcc" -ptx -arch=compute_75 -O3 -std=c++17 $extra "$tmp/probe.cu" -o "$tmp/probe.ptx" \
                >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; rm -rf "$tmp"; return 1; }
        else
            cat "$tmp/log" >&2; rm -rf "$tmp"; return 1
        fi
    fi
    "$cuda/bin/ptxas" -arch=sm_90 "$tmp/probe.ptx" -o "$tmp/probe.cubin" >"$tmp/log" 2>&1 \
        || { cat "$tmp/log" >&2; rm -rf "$tmp"; return 1; }
    rm -rf "$tmp"
    printf '%s' "$extra"
}

command -v gcc >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || command -v clang >/dev/null 2>&1 \
    || die "nvcc needs a host C++ compiler (gcc/g++) even for -ptx; install one (e.g. apt-get install g++)"

changed=0

# 1. The per-user cache.
if [[ $force -eq 0 && -f "$stamp" && -x "$cuda_in_cache/bin/nvcc" ]]; then
    log "cached: $cache"
else
    command -v "$python" >/dev/null 2>&1 || die "$python not found (set PYTHON=...)"
    "$python" -m pip --version >/dev/null 2>&1 || die "'$python -m pip' does not work; install pip (e.g. apt-get install python3-pip)"
    mkdir -p "$(dirname "$cache")"
    partial="$(mktemp -d "$cache.partial.XXXXXX")"
    trap 'rm -rf "$partial"' EXIT
    log "downloading ${packages[*]} from the Python package index into $cache"
    start=$SECONDS
    PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
        --no-deps --only-binary=:all: --no-compile --target "$partial" "${packages[@]}" \
        || die "pip install failed (is the package index reachable? PIP_INDEX_URL can point at a mirror)"
    [[ -x "$partial/nvidia/cu13/bin/nvcc" ]] || die "the wheels did not contain nvidia/cu13/bin/nvcc; layout changed?"
    # Some pip versions drop group/other execute bits; make the tools usable by everyone who can read the cache.
    chmod -R a+rX "$partial"
    touch "$partial/.xpbd-complete"
    rm -rf "$cache"
    mv "$partial" "$cache"
    trap - EXIT
    log "installed into the cache in $((SECONDS - start)) s"
    changed=1
fi

# 2. The repository's link.
mkdir -p "$repo/.toolchain"
if [[ -L "$link" && "$(readlink "$link")" == "$cuda_in_cache" ]]; then
    log "link ok: .toolchain/cuda -> $cuda_in_cache"
else
    if [[ -e "$link" && ! -L "$link" ]]; then
        log "replacing the existing folder .toolchain/cuda (moved to .toolchain/cuda.old.$$)"
        mv "$link" "$repo/.toolchain/cuda.old.$$"
    fi
    ln -sfn "$cuda_in_cache" "$link"
    log "linked .toolchain/cuda -> $cuda_in_cache"
    changed=1
fi

# 3. Proof that it works.
if ! extra="$(verify "$link")"; then
    die "the toolchain in $link does not work (rerun with --force to reinstall the cache)"
fi
log "$("$link/bin/nvcc" --version | tail -n 2 | head -n 1)"
log "verified: nvcc -ptx -arch=compute_75 and ptxas -arch=sm_90 work${extra:+ (host compiler needs $extra)}"
log "nvcc: $link/bin/nvcc"

# A crate built before the toolchain existed recorded "no nvcc"; crates/xpbd-cuda/build.rs reruns when kernels/
# changes, so touching the folder (its timestamp only, git does not see it) makes the next cargo build embed PTX.
if [[ $changed -eq 1 && -d "$repo/kernels" ]]; then
    touch "$repo/kernels"
    log "touched kernels/ so that the next cargo build compiles the kernels"
fi
