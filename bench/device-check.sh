#!/usr/bin/env bash
# Device check for kgen's runtime, run on a fresh GPU machine from a copy of
# the repository (bench/README.md). Steps, each timed:
#   0. stop at once (exit 3) when the machine has no GPU
#   1. build kgen-bench alone (KGEN_RUNTIME_ONLY, no tests; nlohmann/json.hpp
#      from a carried folder)
#   2. measure the ceilings                      -> ceilings.json
#   3. run the kernel packages + their cuBLASLt  -> kgen.json
#      and the packages that must fault          -> kgen-faults.json
#   3b. the measured search over each op's candidate packages, when there
#      are some (kgen-bench tune)                -> tuning-db.json, tune-*.json
#   4. time cuBLASLt over the GEMM suite         -> baseline-cublaslt.json
#   5. torch.matmul / Triton / SDPA baselines    -> baseline-torch.json
#   6. print the summary table last              -> summary.txt
# Every file lands in the output folder, with device-check.log.
#
# usage: bench/device-check.sh [--packages DIR] [--json-include DIR]
#                              [--out DIR] [--build DIR] [--quick]
#   --packages DIR      package folders (each with manifest.json); DIR/expect-fault/
#                       holds packages that must be reported "faulted"
#                       (default $KGEN_PACKAGES or build-device/packages)
#   --json-include DIR  folder holding nlohmann/json.hpp
#                       (default $KGEN_NLOHMANN_INCLUDE_DIR or build-device/include)
#   --out DIR           output folder (default $OUT, else ./bench-out)
#   --build DIR         build folder (default $KGEN_BUILD_DIR or /tmp/kgen-device-build)
#   --tune DIR          candidate packages, DIR/<op>/c<i>/ ranked best first
#                       (kgen-tune --packages; default build-device/tune when
#                       it exists)
#   --tune-seconds S    search budget per op (default 30)
#   --quick             fewer samples (10..30, 30 ms each) for a smoke test
# Exit: 0 all good, 1 a real failure (build, a wrong or failing kernel or
# baseline, a fault not contained), 2 bad arguments, 3 no CUDA device.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACKAGES=${KGEN_PACKAGES:-$ROOT/build-device/packages}
JSON_INCLUDE=${KGEN_NLOHMANN_INCLUDE_DIR:-$ROOT/build-device/include}
OUT_DIR=${OUT:-./bench-out}
BUILD_DIR=${KGEN_BUILD_DIR:-/tmp/kgen-device-build}
TUNE_DIR=$ROOT/build-device/tune
TUNE_SECONDS=30
# Sized for the whole check to finish within 5 minutes on an H200: about 100
# suite shapes at ~0.1 s of GPU time each, plus builds and start-ups.
TIMING=(--min-samples 20 --max-samples 100 --target-ms 100)

while [ $# -gt 0 ]; do
  case "$1" in
    --packages) PACKAGES=${2:?}; shift 2 ;;
    --json-include) JSON_INCLUDE=${2:?}; shift 2 ;;
    --out) OUT_DIR=${2:?}; shift 2 ;;
    --build) BUILD_DIR=${2:?}; shift 2 ;;
    --tune) TUNE_DIR=${2:?}; shift 2 ;;
    --tune-seconds) TUNE_SECONDS=${2:?}; shift 2 ;;
    --quick) TIMING=(--min-samples 10 --max-samples 30 --target-ms 30); shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "device-check: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done

# No GPU: say so in one line before building anything.
if [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "device-check: no CUDA device (no /dev/nvidia0, nvidia-smi finds none); nothing to measure"
  exit 3
fi

mkdir -p "$OUT_DIR" || exit 2
OUT_DIR=$(cd "$OUT_DIR" && pwd)

FAILED=()
START=$SECONDS
step() { echo; echo "== [$((SECONDS - START)) s] $*"; }
fail() { FAILED+=("$1"); echo "device-check: FAILED: $1"; }

check() {

step "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>/dev/null || echo "(nvidia-smi not available)"

step "build kgen-bench in $BUILD_DIR"
if [ ! -f "$JSON_INCLUDE/nlohmann/json.hpp" ]; then
  echo "device-check: no nlohmann/json.hpp under $JSON_INCLUDE (run bench/prepare-device-check.sh, or --json-include)"
  exit 2
fi
GENERATOR=()
command -v ninja >/dev/null 2>&1 && GENERATOR=(-G Ninja)
CMAKE_EXTRA=()
# Some CUDA images carry cuBLASLt only inside Python's nvidia-cublas wheel.
if [ ! -f /usr/local/cuda/include/cublasLt.h ]; then
  LT_HEADER=$(find /usr /opt -name cublasLt.h -path '*nvidia*' 2>/dev/null | head -n 1)
  LT_LIB=$(find /usr /opt -name 'libcublasLt.so*' -path '*nvidia*' 2>/dev/null | head -n 1)
  if [ -n "$LT_HEADER" ] && [ -n "$LT_LIB" ]; then
    echo "using cuBLASLt from $(dirname "$LT_LIB")"
    CMAKE_EXTRA=(-DCUDA_cublasLt_LIBRARY="$LT_LIB"
                 -DCMAKE_CXX_FLAGS="-I$(dirname "$LT_HEADER")")
  fi
fi
if ! cmake -S "$ROOT" -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
     -DKGEN_RUNTIME_ONLY=ON -DKGEN_BUILD_TESTS=OFF \
     -DKGEN_NLOHMANN_INCLUDE_DIR="$JSON_INCLUDE" "${CMAKE_EXTRA[@]}" >"$BUILD_DIR.cmake.log" 2>&1; then
  cat "$BUILD_DIR.cmake.log"
  fail "cmake configure"
  exit 1
fi
if ! cmake --build "$BUILD_DIR" --target kgen-bench -j "$(nproc)"; then
  fail "build"
  exit 1
fi
BENCH=$BUILD_DIR/bin/kgen-bench
export KGEN_CACHE_DIR=${KGEN_CACHE_DIR:-$BUILD_DIR/nvrtc-cache}

# Runs kgen-bench; 3 (no device) ends the check, other non-zero codes fail.
bench() {
  local what=$1
  shift
  "$BENCH" "$@"
  local rc=$?
  if [ $rc -eq 3 ]; then
    echo "device-check: kgen-bench finds no CUDA device; stopping"
    exit 3
  fi
  [ $rc -eq 0 ] || fail "$what (kgen-bench exit $rc)"
  return $rc
}

step "ceilings"
bench "ceilings" ceilings --out "$OUT_DIR/ceilings.json" --timeout 60 "${TIMING[@]}"
CEILINGS=()
[ -f "$OUT_DIR/ceilings.json" ] && CEILINGS=(--ceilings "$OUT_DIR/ceilings.json")

step "kernel packages from $PACKAGES"
mapfile -t PKGS < <(find "$PACKAGES" -mindepth 2 -maxdepth 2 -name manifest.json \
                      -not -path "*/expect-fault/*" -printf '%h\n' 2>/dev/null | sort)
if [ ${#PKGS[@]} -gt 0 ]; then
  bench "packages" run "${PKGS[@]}" --out "$OUT_DIR/kgen.json" --timeout 60 \
    "${CEILINGS[@]}" "${TIMING[@]}"
else
  echo "no packages under $PACKAGES"
fi
mapfile -t FAULTY < <(find "$PACKAGES/expect-fault" -mindepth 2 -maxdepth 2 \
                        -name manifest.json -printf '%h\n' 2>/dev/null | sort)
if [ ${#FAULTY[@]} -gt 0 ]; then
  step "packages that must fault (containment)"
  "$BENCH" run "${FAULTY[@]}" --out "$OUT_DIR/kgen-faults.json" --timeout 60 "${TIMING[@]}"
  rc=$?
  [ $rc -eq 3 ] && exit 3
  # Expected: exit 1, every kgen result "faulted", every baseline "ok".
  if ! python3 - "$OUT_DIR/kgen-faults.json" <<'EOF'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
kgen = [r for r in results if r["implementation"] == "kgen"]
base = [r for r in results if r["implementation"] == "cublaslt"]
ok = kgen and all(r["status"] == "faulted" for r in kgen) and \
     all(r["status"] == "ok" for r in base)
for r in results:
    print(f'  {r["implementation"]} {r["name"]}: {r["status"]} {r["reason"][:160]}')
sys.exit(0 if ok else 1)
EOF
  then
    fail "fault containment (expected every kgen result faulted, baselines ok; exit $rc)"
  fi
fi

if [ -d "$TUNE_DIR" ]; then
  for op in "$TUNE_DIR"/*/; do
    op=${op%/}
    mapfile -t CANDIDATES < <(find "$op" -mindepth 2 -maxdepth 2 -name manifest.json \
                                -printf '%h\n' | sort -V)
    [ ${#CANDIDATES[@]} -gt 0 ] || continue
    step "tuning $(basename "$op"): ${#CANDIDATES[@]} candidates, ${TUNE_SECONDS} s"
    bench "tune $(basename "$op")" tune "${CANDIDATES[@]}" --db "$OUT_DIR/tuning-db.json" \
      --out "$OUT_DIR/tune-$(basename "$op").json" --max-seconds "$TUNE_SECONDS" \
      --timeout 60 "${CEILINGS[@]}" --min-samples 10 --max-samples 50 --target-ms 50
  done
fi

step "cuBLASLt over bench/suites/gemm.json"
# 10 s per shape (a model's ~20 shapes share one child and its limit).
bench "cuBLASLt suite" baseline --suite "$ROOT/bench/suites/gemm.json" --timeout 10 \
  --out "$OUT_DIR/baseline-cublaslt.json" "${CEILINGS[@]}" "${TIMING[@]}"

step "torch baselines"
if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  PYTHONUNBUFFERED=1 timeout 240 python3 "$ROOT/bench/torch_baselines.py" \
    --suite "$ROOT/bench/suites/gemm.json" --out "$OUT_DIR/baseline-torch.json" \
    "${CEILINGS[@]}" "${TIMING[@]}" || fail "torch baselines (exit $?)"
else
  echo "torch with CUDA does not import here: torch baselines skipped"
fi

step "summary (also in summary.txt)"
for f in "$OUT_DIR"/*.json; do [ -f "$f" ] && "$BENCH" report "$f"; done >"$OUT_DIR/summary.txt"
if command -v python3 >/dev/null 2>&1; then
  python3 "$ROOT/bench/summarize.py" "$OUT_DIR"
else
  cat "$OUT_DIR/summary.txt"
fi
echo
echo "device-check: $((SECONDS - START)) s; results in $OUT_DIR"
if [ ${#FAILED[@]} -gt 0 ]; then
  printf 'device-check: FAILED: %s\n' "${FAILED[@]}"
  exit 1
fi
echo "device-check: all good"
}

# The pipeline (not exec > >(tee)) so that tee has written everything
# before the script ends.
check 2>&1 | tee "$OUT_DIR/device-check.log"
exit "${PIPESTATUS[0]}"
