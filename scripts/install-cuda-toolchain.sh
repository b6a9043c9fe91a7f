#!/usr/bin/env bash
# Install the CUDA device compiler that builds the kernels' PTX into <repo>/.toolchain/cuda, with no GPU and no root.
#
# Default: CUDA 12.0 (PTX ISA 8.0, loads on drivers >= 525.60.13, docs/gpu.md "Drivers and GPUs"). NVIDIA
# publishes no CUDA 12 nvcc on the Python package index, so the compiler is NVRTC 12.0 (nvidia-cuda-nvrtc-cu12,
# the same device compiler as a library) behind scripts/nvrtc-nvcc.py, an `nvcc -ptx` look-alike installed as
# bin/nvcc, with ptxas 12.0 from nvidia-cuda-nvcc-cu12. `--cuda 13` (or XPBD_CUDA=13) installs the real nvcc
# 13.0.88 instead (PTX ISA 9.0, needs an R580 driver). Both put libnvrtc.so* in .toolchain/cuda/lib.
#
# The wheels are installed once per user into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/xpbd/cuda-<version>[-nvrtc]
# (override with XPBD_CUDA_CACHE) and .toolchain/cuda is made a symlink to the folder there that has the layout
# build.rs and scripts/check-ptx.sh expect (bin/nvcc, bin/ptxas, lib/libnvrtc.so*; 13.x also nvvm/bin/cicc and
# include/). A fresh clone on the same machine therefore reuses the cache and installs in well under a second.
#
# Usage: scripts/install-cuda-toolchain.sh [--cuda 12|13] [--force]
#   --cuda 12|13   which toolkit (default: $XPBD_CUDA, else 12)
#   --force        reinstall into the cache even when it looks complete
# Environment: PYTHON (default python3), XPBD_CUDA, XPBD_CUDA_CACHE (cache folder), PIP_INDEX_URL etc. as pip reads them.
set -euo pipefail

log() { printf '[install-cuda-toolchain] %s\n' "$*" >&2; }
die() { printf '[install-cuda-toolchain] error: %s\n' "$*" >&2; exit 1; }

force=0
cuda_major="${XPBD_CUDA:-12}"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --force) force=1 ;;
        --cuda) [[ $# -ge 2 ]] || die "--cuda needs 12 or 13"; cuda_major="$2"; shift ;;
        --cuda=*) cuda_major="${1#--cuda=}" ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (try --help)" ;;
    esac
    shift
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-python3}"
shim_source="$repo/scripts/nvrtc-nvcc.py"
case "$cuda_major" in
    12)
        # The oldest CUDA 12 (12.0.0 GA): the lowest PTX ISA and driver requirement that compiles every kernel.
        version="12.0.76"
        release="12.0"
        packages=(
            "nvidia-cuda-nvrtc-cu12==12.0.76"
            "nvidia-cuda-nvcc-cu12==12.0.76"
        )
        cache_name="cuda-$version"
        layout="cuda"
        ;;
    13)
        version="13.0.88"
        release="13.0"
        packages=(
            "nvidia-cuda-nvcc==13.0.88"
            "nvidia-cuda-runtime==13.0.96"
            "nvidia-cuda-crt==13.0.88"
            "nvidia-nvvm==13.0.88"
            "nvidia-cuda-nvrtc==13.0.88"
        )
        cache_name="cuda-$version-nvrtc"
        layout="nvidia/cu13"
        ;;
    *) die "--cuda/XPBD_CUDA must be 12 or 13 (got '$cuda_major')" ;;
esac
cache_root="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/xpbd"
cache="${XPBD_CUDA_CACHE:-$cache_root/$cache_name}"
cuda_in_cache="$cache/$layout"
stamp="$cache/.xpbd-complete"
link="$repo/.toolchain/cuda"

# A throw-away kernel to prove that nvcc compiles to PTX and that ptxas assembles it for sm_90.
probe_kernel='extern "C" __global__ void xpbd_probe(double* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0; }'

# Checks that the toolchain under $1 works: nvcc --version is $release, a .cu compiles to PTX, ptxas assembles it,
# libnvrtc is in lib/. Prints the extra nvcc flag the host compiler needs (empty or -allow-unsupported-compiler).
verify() {
    local cuda="$1" tmp out extra=""
    [[ -x "$cuda/bin/nvcc" && -x "$cuda/bin/ptxas" && -e "$cuda/lib/libnvrtc.so" ]] || return 1
    if [[ "$cuda_major" == 13 ]]; then [[ -x "$cuda/nvvm/bin/cicc" ]] || return 1; fi
    out="$("$cuda/bin/nvcc" --version 2>&1)" || { log "$cuda/bin/nvcc --version failed: $out"; return 1; }
    grep -q "release $release," <<<"$out" || { log "unexpected nvcc version (want release $release): $out"; return 1; }
    log "$(grep "release $release," <<<"$out")"
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

# The NVRTC shim as installed: scripts/nvrtc-nvcc.py with the interpreter of $python (not a pyenv or venv shim) in its
# first line.
shim_text() {
    local interpreter
    interpreter="$("$python" -c 'import sys; print(sys.executable)')" || die "$python cannot run Python code"
    printf '#!%s\n' "$interpreter"
    tail -n +2 "$shim_source"
}

# Lays out $1/cuda for CUDA 12: bin/nvcc (the shim), bin/ptxas, lib/libnvrtc*, nvvm/ (libdevice), include/.
assemble_cuda12() {
    local root="$1" dir="$1/cuda"
    [[ -x "$root/nvidia/cuda_nvcc/bin/ptxas" && -f "$root/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" ]] \
        || die "the wheels did not contain nvidia/cuda_nvcc/bin/ptxas and nvidia/cuda_nvrtc/lib/libnvrtc.so.12; layout changed?"
    mkdir -p "$dir/bin" "$dir/lib"
    ln -sfn ../../nvidia/cuda_nvcc/bin/ptxas "$dir/bin/ptxas"
    local lib
    for lib in "$root"/nvidia/cuda_nvrtc/lib/libnvrtc*.so*; do
        ln -sfn "../../nvidia/cuda_nvrtc/lib/$(basename "$lib")" "$dir/lib/$(basename "$lib")"
    done
    ln -sfn libnvrtc.so.12 "$dir/lib/libnvrtc.so"
    ln -sfn ../nvidia/cuda_nvcc/nvvm "$dir/nvvm"
    ln -sfn ../nvidia/cuda_nvrtc/include "$dir/include"
    shim_text >"$dir/bin/nvcc"
    chmod a+rx "$dir/bin/nvcc"
}

if [[ "$cuda_major" == 13 ]]; then
    command -v gcc >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || command -v clang >/dev/null 2>&1 \
        || die "nvcc needs a host C++ compiler (gcc/g++) even for -ptx; install one (e.g. apt-get install g++)"
fi
command -v "$python" >/dev/null 2>&1 || die "$python not found (set PYTHON=...)"

changed=0

# 1. The per-user cache; its stamp lists the wheels it holds.
if [[ $force -eq 0 && -f "$stamp" && "$(cat "$stamp")" == "${packages[*]}" && -x "$cuda_in_cache/bin/nvcc" ]]; then
    log "cached: $cache"
else
    "$python" -m pip --version >/dev/null 2>&1 || die "'$python -m pip' does not work; install pip (e.g. apt-get install python3-pip)"
    mkdir -p "$(dirname "$cache")"
    partial="$(mktemp -d "$cache.partial.XXXXXX")"
    trap 'rm -rf "$partial"' EXIT
    log "downloading ${packages[*]} from the Python package index into $cache"
    start=$SECONDS
    PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
        --no-deps --only-binary=:all: --no-compile --target "$partial" "${packages[@]}" \
        || die "pip install failed (is the package index reachable? PIP_INDEX_URL can point at a mirror)"
    if [[ "$cuda_major" == 12 ]]; then
        assemble_cuda12 "$partial"
    else
        [[ -x "$partial/nvidia/cu13/bin/nvcc" ]] || die "the wheels did not contain nvidia/cu13/bin/nvcc; layout changed?"
        [[ -f "$partial/nvidia/cu13/lib/libnvrtc.so.13" ]] || die "the wheels did not contain nvidia/cu13/lib/libnvrtc.so.13"
        ln -sfn libnvrtc.so.13 "$partial/nvidia/cu13/lib/libnvrtc.so"
    fi
    # Some pip versions drop group/other execute bits; make the tools usable by everyone who can read the cache.
    chmod -R a+rX "$partial"
    printf '%s' "${packages[*]}" >"$partial/.xpbd-complete"
    rm -rf "$cache"
    mv "$partial" "$cache"
    trap - EXIT
    log "installed into the cache in $((SECONDS - start)) s"
    changed=1
fi

# The cached shim follows scripts/nvrtc-nvcc.py of this clone.
if [[ "$cuda_major" == 12 ]] && ! cmp -s <(shim_text) "$cuda_in_cache/bin/nvcc"; then
    shim_text >"$cuda_in_cache/bin/nvcc.tmp.$$"
    chmod a+rx "$cuda_in_cache/bin/nvcc.tmp.$$"
    mv "$cuda_in_cache/bin/nvcc.tmp.$$" "$cuda_in_cache/bin/nvcc"
    log "updated the NVRTC shim $cuda_in_cache/bin/nvcc from scripts/nvrtc-nvcc.py"
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
log "verified: nvcc -ptx -arch=compute_75 and ptxas -arch=sm_90 work${extra:+ (host compiler needs $extra)}; libnvrtc in $link/lib"
log "nvcc: $link/bin/nvcc"

# A crate built before the toolchain existed recorded "no nvcc"; crates/xpbd-cuda/build.rs reruns when kernels/
# changes, so touching the folder (its timestamp only, git does not see it) makes the next cargo build embed PTX.
if [[ $changed -eq 1 && -d "$repo/kernels" ]]; then
    touch "$repo/kernels"
    log "touched kernels/ so that the next cargo build compiles the kernels"
fi
