#!/usr/bin/env bash
# Generates kgen GEMM packages for the benchmark suite and prepares
# build-device/ for bench/device-check.sh (see bench/README.md).
#
# usage: bench/prepare-gemm-device-check.sh [TARGET] [M_LIST] [MODELS]
#   TARGET   strategy target for kgen-select-strategy (default sm_90a:
#            wgmma + TMA for 16-bit GEMMs; sm_80: mma.sync, which also runs on
#            Hopper). Split-K choices (decode shapes) are two-kernel packages.
#   M_LIST   comma-separated M values (default 4096,16)
#   MODELS   comma-separated suite model names (default llama3-8b,llama3-70b)
# Also writes the candidates of the measured searches, packed (the packages
# of one op share most of their source, so xz makes ~100 MB into ~2 MB and
# they fit the device tool's carry) as build-device/candidates.tar.xz:
#   tune/gemm<i>/c<j>/         per op of TUNE_MODELS (default llama3-8b) at
#                              TUNE_M (default 4096): the candidates a search
#                              measures (the default strategy, then the cost
#                              model's best: 15% of the space), which the
#                              device check tunes with kgen-bench tune
#   sweep/budget/gemm<i>/c<j>/ the same for SWEEP_GEMMS (default o) of
#   sweep/all/gemm<i>/c<j>/    SWEEP_MODEL (default llama3-8b) at SWEEP_M
#                              (default 4096), and every valid config: the
#                              device check's sweep step tunes both and
#                              compares (bench/tuning_bar.py)
#   tune.mlir, sweep.mlir, *.log   the modules and kgen-tune's rankings
# and the attention suite's packages (bench/suites/attention.json for
# TARGET, one per entry, split-KV decode steps with their combine kernel)
# in build-device/attention-packages/, which the device check's packages
# step verifies and times and its torch step compares with SDPA. Entries
# whose K and V exceed ATTENTION_MAX_KV_GIB (default 4: batch 16 at 128k
# keys, batch 128 at 32k and the paged batch 64 at 32k; a paged entry's K
# and V are its page pool, num_pages * kv_heads * page_size * head_dim
# elements each) are left out, for the device time; "" keeps every entry.
# Environment: BUILD_DIR (default build), JOBS (parallel compiles, default
# all cores), KGEN_CACHE_DIR (NVRTC cache, default BUILD_DIR/nvrtc-cache).
# Needs a build (scripts/dev.sh build): kgen-opt and kgen-tune from build/bin.
set -eu -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET=${1:-sm_90a}
MS=${2:-4096,16}
MODELS=${3:-llama3-8b,llama3-70b}
BUILD=${BUILD_DIR:-$ROOT/build}
BIN=$BUILD/bin
CACHE=${KGEN_CACHE_DIR:-$BUILD/nvrtc-cache}
JOBS=${JOBS:-$(nproc)}
SUITE=$ROOT/bench/suites/gemm.json
OUT=$ROOT/build-device/gemm-packages

rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/suite-to-mlir.py" "$SUITE" --m "$MS" --models "$MODELS" > "$OUT.mlir"
"$BIN/kgen-opt" "$OUT.mlir" --kgen-pipeline="target=$TARGET output-dir=$OUT" -o /dev/null

ATT=$ROOT/build-device/attention-packages
rm -rf "$ATT"
mkdir -p "$ATT"
MAX_KV=()
[ -n "${ATTENTION_MAX_KV_GIB-4}" ] && MAX_KV=(--max-kv-gib "${ATTENTION_MAX_KV_GIB-4}")
python3 "$ROOT/bench/suite-to-mlir.py" "$ROOT/bench/suites/attention.json" "${MAX_KV[@]}" \
  > "$ATT.mlir"
echo "kgen-opt: attention packages ..."
"$BIN/kgen-opt" "$ATT.mlir" --kgen-pipeline="target=$TARGET output-dir=$ATT" -o /dev/null
echo "attention: $(find "$ATT" -name manifest.json | wc -l) packages ($(du -sh "$ATT" | cut -f1))"

CAND=$ROOT/build-device/candidates
rm -rf "$CAND" "$CAND.tar.xz" "$ROOT/build-device/tune"
mkdir -p "$CAND"
# Writes the ranked candidate packages of module $1 under $2 (kgen-tune
# --packages; further arguments go to kgen-tune), the ranking into $2.log.
candidates() {
  local module=$1 dir=$2
  shift 2
  echo "kgen-tune: $(basename "$dir") ..."
  "$BIN/kgen-tune" "$module" --target "$TARGET" --packages "$dir" --jobs "$JOBS" \
    --cache "$CACHE" "$@" > "$dir.log"
}
python3 "$ROOT/bench/suite-to-mlir.py" "$SUITE" --m "${TUNE_M:-4096}" \
  --models "${TUNE_MODELS:-llama3-8b}" > "$CAND/tune.mlir"
candidates "$CAND/tune.mlir" "$CAND/tune"
python3 "$ROOT/bench/suite-to-mlir.py" "$SUITE" --m "${SWEEP_M:-4096}" \
  --models "${SWEEP_MODEL:-llama3-8b}" --gemms "${SWEEP_GEMMS:-o}" > "$CAND/sweep.mlir"
mkdir -p "$CAND/sweep"
candidates "$CAND/sweep.mlir" "$CAND/sweep/budget"
candidates "$CAND/sweep.mlir" "$CAND/sweep/all" --all
for d in tune sweep/budget sweep/all; do
  echo "$d: $(find "$CAND/$d" -name manifest.json | wc -l) packages"
done
tar -C "$ROOT/build-device" -cJf "$CAND.tar.xz" candidates
rm -rf "$CAND"
echo "candidates packed: $CAND.tar.xz ($(du -h "$CAND.tar.xz" | cut -f1))"

TEST_PACKAGES=$ROOT/runtime/test/data/packages
exec "$ROOT/bench/prepare-device-check.sh" "$OUT" "$TEST_PACKAGES/naive_gemm_f32" \
  --expect-fault "$TEST_PACKAGES/faulting_kernel"
