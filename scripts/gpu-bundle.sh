#!/usr/bin/env bash
# Builds here what a GPU session runs on the device machine, which has nvcc but no Rust toolchain: the release
# `xpbd` binary, the GPU test binaries of xpbd-cuda (ptx, ptx_version, parity, backend_parity, amg_parity) and the table2_gpu
# example, all with the kernels (the CUDA toolchain is installed first if needed), stripped, into
# target/gpu-bundle/ (about 35 MB; git ignores target/), with run.sh beside them.
#
# Usage, on this machine:   bash scripts/gpu-bundle.sh
# then with the device tool: run(command="bash target/gpu-bundle/run.sh", carry=["target/gpu-bundle"])
#
# run.sh [doctor|tests|nvrtc|table2|squash|all] runs `xpbd doctor`, the parity tests (with the embedded PTX,
# then with the NVRTC fallback), Table 2 (5 steps) and MGPBD's squash benchmark on the GPU (all by default, as
# benches/gpu/run.sh does on a GPU machine that has cargo; one stage per call keeps each under the device tool's
# 10 minutes) and copies their output to $OUT (when set) as doctor.txt, doctor.json, gpu-tests.txt,
# nvrtc-tests.txt, table2.md and mgpbd_squash.md. The test binaries read the
# scenes through the source path they were built in (env!("CARGO_MANIFEST_DIR")); run.sh links that path to
# the device's copy of the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .toolchain/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null && [ -z "${NVCC:-}${CUDA_HOME:-}${CUDA_PATH:-}" ]; then
    bash scripts/install-cuda-toolchain.sh
fi
cargo build --release --locked -p xpbd-cli
cargo build --release --locked -p xpbd-cuda --examples
tests=(ptx ptx_version parity backend_parity amg_parity)
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
# The test executables, from cargo's JSON messages.
mapfile -t exes < <(cargo test --release --locked -p xpbd-cuda "${args[@]}" --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"] + " " + m["executable"])')
bundle=target/gpu-bundle
rm -rf "$bundle"
mkdir -p "$bundle"
for e in "${exes[@]}"; do
    name=${e%% *}
    cp "${e#* }" "$bundle/$name"
done
cp target/release/xpbd "$bundle/xpbd"
cp target/release/examples/table2_gpu "$bundle/table2_gpu"
strip "$bundle"/*
for t in "${tests[@]}" xpbd table2_gpu; do
    [ -x "$bundle/$t" ] || { echo "gpu-bundle: $t was not built" >&2; exit 1; }
done
pwd > "$bundle/BUILD_ROOT"
git rev-parse --short HEAD > "$bundle/COMMIT"
cat > "$bundle/run.sh" <<'EOF'
#!/usr/bin/env bash
# On the device machine, from the repository root:
#   bash target/gpu-bundle/run.sh [doctor|tests|nvrtc|table2|squash|profile|all]
# (see scripts/gpu-bundle.sh). doctor: `xpbd doctor` with its self-test, text and JSON; nvrtc: the XPBD and
# MGPBD parity tests with every module compiled by the NVRTC fallback (XPBD_NVRTC=1, the device's libnvrtc);
# profile (not in all): Nsight Compute on Table 2's launches (benches/gpu/ncu_table2.sh, MESH=160k).
# TABLE2_ARGS go to table2_gpu (default --steps 5); SIZES and FRAMES go to benches/gpu/mgpbd_squash.sh.
set -uo pipefail
stage=${1:-all}
bundle=target/gpu-bundle
root=$(cat "$bundle/BUILD_ROOT")
if [ "$root" != "$PWD" ] && [ ! -e "$root" ]; then
    mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
fi
out=${OUT:-$bundle/results}
mkdir -p "$out"
status=0
if [ "$stage" = doctor ] || [ "$stage" = all ]; then
    "$bundle/xpbd" doctor 2>&1 | tee "$out/doctor.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
    "$bundle/xpbd" doctor --json --no-self-test > "$out/doctor.json" 2>&1 || status=1
fi
if [ "$stage" = tests ] || [ "$stage" = all ]; then
    { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "no nvidia-smi"; echo "bundle built at $(cat "$bundle/COMMIT")"; } | tee "$out/gpu-tests.txt"
    for t in ptx ptx_version parity backend_parity amg_parity; do
        echo "== $t" | tee -a "$out/gpu-tests.txt"
        "$bundle/$t" --nocapture --test-threads=1 2>&1 | tee -a "$out/gpu-tests.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    done
fi
if [ "$stage" = nvrtc ] || [ "$stage" = all ]; then
    cache=$(mktemp -d)
    for t in backend_parity amg_parity; do
        echo "== $t with XPBD_NVRTC=1" | tee -a "$out/nvrtc-tests.txt"
        XPBD_NVRTC=1 XPBD_CACHE_DIR="$cache" "$bundle/$t" --nocapture --test-threads=1 2>&1 | tee -a "$out/nvrtc-tests.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    done
    echo "NVRTC cache: $(ls "$cache/nvrtc" | wc -l) modules" | tee -a "$out/nvrtc-tests.txt"
fi
if [ "$stage" = table2 ] || [ "$stage" = all ]; then
    # shellcheck disable=SC2086 # TABLE2_ARGS is a list of arguments
    "$bundle/table2_gpu" ${TABLE2_ARGS:---steps 5} 2>&1 | tee "$out/table2.md"
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [ "$stage" = profile ]; then
    bash benches/gpu/ncu_table2.sh "$bundle/table2_gpu" "$out" || status=1
fi
if [ "$stage" = squash ] || [ "$stage" = all ]; then
    mkdir -p target/release
    cp "$bundle/xpbd" target/release/xpbd
    DEVICES=cuda bash benches/gpu/mgpbd_squash.sh "$bundle/squash" || status=1
    cp "$bundle/squash/table.md" "$out/mgpbd_squash.md" 2>/dev/null
fi
exit $status
EOF
chmod +x "$bundle/run.sh"
du -sh "$bundle"
echo "carry target/gpu-bundle and run: bash target/gpu-bundle/run.sh"
