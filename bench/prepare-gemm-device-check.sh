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
# Also writes build-device/tune/gemm<i>/c<j>/: the default strategy and the
# cost model's best (TUNE_TOP, default 8, per op) for the ops of
# TUNE_MODELS (default llama3-8b) at TUNE_M (default 4096), which the
# device check tunes with kgen-bench tune.
# Needs a build (scripts/dev.sh build): kgen-opt from build/bin.
set -eu -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET=${1:-sm_90a}
MS=${2:-4096,16}
MODELS=${3:-llama3-8b,llama3-70b}
BIN=${BUILD_DIR:-$ROOT/build}/bin
OUT=$ROOT/build-device/gemm-packages

rm -rf "$OUT"
mkdir -p "$OUT"
python3 "$ROOT/bench/suite-to-mlir.py" "$ROOT/bench/suites/gemm.json" --m "$MS" \
  --models "$MODELS" > "$OUT.mlir"
"$BIN/kgen-opt" "$OUT.mlir" --kgen-pipeline="target=$TARGET output-dir=$OUT" -o /dev/null
TUNE=$ROOT/build-device/tune
rm -rf "$TUNE"
python3 "$ROOT/bench/suite-to-mlir.py" "$ROOT/bench/suites/gemm.json" --m "${TUNE_M:-4096}" \
  --models "${TUNE_MODELS:-llama3-8b}" > "$TUNE.mlir"
"$BIN/kgen-tune" "$TUNE.mlir" --target "$TARGET" --top "${TUNE_TOP:-8}" --packages "$TUNE" \
  > "$TUNE.log"
echo "tuning candidates: $(find "$TUNE" -name manifest.json | wc -l) packages under $TUNE"
TEST_PACKAGES=$ROOT/runtime/test/data/packages
exec "$ROOT/bench/prepare-device-check.sh" "$OUT" "$TEST_PACKAGES/naive_gemm_f32" \
  --expect-fault "$TEST_PACKAGES/faulting_kernel"
