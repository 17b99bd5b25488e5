#!/usr/bin/env bash
# Device check for kgen's runtime, run on a fresh GPU machine from a copy of
# the repository (bench/README.md). Steps, each timed:
#   0. stop at once (exit 3) when the machine has no GPU
#   1. build kgen-bench alone (KGEN_RUNTIME_ONLY, no tests; nlohmann/json.hpp
#      from a carried folder)
#   2. measure the ceilings                      -> ceilings.json
#   3. run the kernel packages + their cuBLASLt  -> kgen.json
#      the attention packages (host reference)   -> kgen-attention.json
#      and the packages that must fault          -> kgen-faults.json
#   3b. tune: the measured search over each op's candidate packages
#      (kgen-bench tune, 60 s each)              -> tuning-db.json, tune-*.json
#   3c. sweep (not by default: a call of its own): per sweep op, the search
#      over its 15% candidates, timed, and over the whole space; how close
#      the first came to the second (bench/tuning_bar.py)
#                                                -> sweep-db.json, sweep-*.json,
#                                                   budget-db.json, tuning-bar.txt
#   4. time cuBLASLt over the GEMM suite         -> baseline-cublaslt.json
#   5. torch.matmul / Triton / SDPA baselines, and SDPA's cuDNN and flash
#      backends at the attention packages' ops   -> baseline-torch.json
#   5b. moe (not by default: the second call's): the MoE packages (kgen's
#      host reference), then the cuBLAS loop and torch's grouped mm at their
#      ops, or at the suite's device_check entries without packages
#                                                -> kgen-moe.json,
#                                                   baseline-torch-moe.json
#   6. print the summary table last              -> summary.txt
#      and write the report                      -> report.html, report.csv
# Every file lands in the output folder, with device-check.log.
#
# usage: bench/device-check.sh [--packages DIR] [--json-include DIR]
#                              [--out DIR] [--build DIR] [--quick]
#                              [--steps LIST] [--candidates FILE]
#   --packages DIR      package folders (each with manifest.json); DIR/expect-fault/
#                       holds packages that must be reported "faulted"
#                       (default $KGEN_PACKAGES or build-device/packages)
#   --attention DIR     attention packages (folders with manifest.json),
#                       run with --seed --attention-seed, and whose ops the
#                       torch step measures with SDPA (default
#                       build-device/attention-packages, from
#                       prepare-gemm-device-check.sh; none: skipped)
#   --attention-seed S  kgen-bench run's seed for them, and the torch
#                       step's kv_lens seed (default 1)
#   --moe DIR           MoE packages (folders with manifest.json) for the
#                       moe step (default build-device/moe-packages, from
#                       prepare-device-check.sh; none: the torch baselines
#                       alone, at the suite's device_check entries)
#   --json-include DIR  folder holding nlohmann/json.hpp
#                       (default $KGEN_NLOHMANN_INCLUDE_DIR or build-device/include)
#   --out DIR           output folder (default $OUT, else ./bench-out)
#   --build DIR         build folder (default $KGEN_BUILD_DIR or /tmp/kgen-device-build)
#   --candidates FILE   the packed candidates of the searches (default
#                       build-device/candidates.tar.xz, from
#                       prepare-gemm-device-check.sh), unpacked in the build
#                       folder: tune/<op>/c<i>/, sweep/{budget,all}/<op>/c<i>/
#   --tune DIR          candidate packages, DIR/<op>/c<i>/ ranked best first
#                       (kgen-tune --packages; default: tune/ of --candidates)
#   --tune-seconds S    search budget per op (default 60: the bar)
#   --sweep-seconds S   budget of the sweep of the whole space per op
#                       (default 240)
#   --steps LIST        comma-separated steps to run, of ceilings, packages,
#                       faults, tune, sweep, suite, torch, moe (default all
#                       but sweep and moe; "all": every one); the build and
#                       the summary always run
#   --quick             fewer samples (10..30, 30 ms each) for a smoke test
#   --dry-run           no GPU, no build: unpack the candidates and print
#                       the commands each step would run (a check of the
#                       script and its inputs on the development machine)
# Exit: 0 all good, 1 a real failure (build, a wrong or failing kernel or
# baseline, a fault not contained), 2 bad arguments, 3 no CUDA device.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACKAGES=${KGEN_PACKAGES:-$ROOT/build-device/packages}
JSON_INCLUDE=${KGEN_NLOHMANN_INCLUDE_DIR:-$ROOT/build-device/include}
OUT_DIR=${OUT:-./bench-out}
BUILD_DIR=${KGEN_BUILD_DIR:-/tmp/kgen-device-build}
PACKED=$ROOT/build-device/candidates.tar.xz
ATTENTION=$ROOT/build-device/attention-packages
ATTENTION_SEED=1
MOE=$ROOT/build-device/moe-packages
TUNE_DIR=
TUNE_SECONDS=60
# The sweep's budget per op: ends the sweep (and writes its database) well
# before the device call's limit; a sweep cut short says so.
SWEEP_SECONDS=240
STEPS=ceilings,packages,faults,tune,suite,torch
DRY_RUN=0
# Sized for the whole check to finish within 5 minutes on an H200: about 100
# suite shapes at ~0.1 s of GPU time each, plus builds and start-ups.
TIMING=(--min-samples 20 --max-samples 100 --target-ms 100)

while [ $# -gt 0 ]; do
  case "$1" in
    --packages) PACKAGES=${2:?}; shift 2 ;;
    --attention) ATTENTION=${2:?}; shift 2 ;;
    --attention-seed) ATTENTION_SEED=${2:?}; shift 2 ;;
    --moe) MOE=${2:?}; shift 2 ;;
    --json-include) JSON_INCLUDE=${2:?}; shift 2 ;;
    --out) OUT_DIR=${2:?}; shift 2 ;;
    --build) BUILD_DIR=${2:?}; shift 2 ;;
    --tune) TUNE_DIR=${2:?}; shift 2 ;;
    --tune-seconds) TUNE_SECONDS=${2:?}; shift 2 ;;
    --sweep-seconds) SWEEP_SECONDS=${2:?}; shift 2 ;;
    --candidates) PACKED=${2:?}; shift 2 ;;
    --steps) STEPS=${2:?}; shift 2 ;;
    --quick) TIMING=(--min-samples 10 --max-samples 30 --target-ms 30); shift ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "device-check: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done

[ "$STEPS" = all ] && STEPS=ceilings,packages,faults,tune,sweep,suite,torch,moe
IFS=, read -r -a STEP_LIST <<<"$STEPS"
for s in "${STEP_LIST[@]}"; do
  case "$s" in
    ceilings|packages|faults|tune|sweep|suite|torch|moe) ;;
    *) echo "device-check: unknown step '$s' in --steps (ceilings, packages, faults, tune, sweep, suite, torch, moe, all)" >&2; exit 2 ;;
  esac
done
# Whether step $1 is to run.
want() { [[ ",$STEPS," == *",$1,"* ]]; }
# Whether this is a dry run (commands printed, not run).
dry() { [ "$DRY_RUN" = 1 ]; }

# No GPU: say so in one line before building anything.
if ! dry && [ ! -e /dev/nvidia0 ] && ! nvidia-smi -L >/dev/null 2>&1; then
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

if dry; then
  step "dry run: no device, no build; the commands each step would run"
  BENCH=kgen-bench
else
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
fi
export KGEN_CACHE_DIR=${KGEN_CACHE_DIR:-$BUILD_DIR/nvrtc-cache}

# Runs kgen-bench; 3 (no device) ends the check, other non-zero codes fail.
bench() {
  local what=$1
  shift
  if dry; then
    echo "would run: $BENCH $*"
    return 0
  fi
  "$BENCH" "$@"
  local rc=$?
  if [ $rc -eq 3 ]; then
    echo "device-check: kgen-bench finds no CUDA device; stopping"
    exit 3
  fi
  [ $rc -eq 0 ] || fail "$what (kgen-bench exit $rc)"
  return $rc
}

CEILINGS=()
if want ceilings; then
  step "ceilings"
  bench "ceilings" ceilings --out "$OUT_DIR/ceilings.json" --timeout 60 "${TIMING[@]}"
fi
[ -f "$OUT_DIR/ceilings.json" ] && CEILINGS=(--ceilings "$OUT_DIR/ceilings.json")

if want packages; then
  step "kernel packages from $PACKAGES"
  mapfile -t PKGS < <(find "$PACKAGES" -mindepth 2 -maxdepth 2 -name manifest.json \
                        -not -path "*/expect-fault/*" -printf '%h\n' 2>/dev/null | sort)
  if [ ${#PKGS[@]} -gt 0 ]; then
    bench "packages" run "${PKGS[@]}" --out "$OUT_DIR/kgen.json" --timeout 60 \
      "${CEILINGS[@]}" "${TIMING[@]}"
  else
    echo "no packages under $PACKAGES"
  fi
fi
# The attention packages, in the order (bytewise) the torch step reads
# them: their kv_lens depend on the seed and a package's place.
mapfile -t ATT_PKGS < <(find "$ATTENTION" -mindepth 2 -maxdepth 2 -name manifest.json \
                          -printf '%h\n' 2>/dev/null | LC_ALL=C sort)
if want packages && [ ${#ATT_PKGS[@]} -gt 0 ]; then
  step "attention packages from $ATTENTION: ${#ATT_PKGS[@]}"
  bench "attention packages" run "${ATT_PKGS[@]}" --seed "$ATTENTION_SEED" \
    --out "$OUT_DIR/kgen-attention.json" --timeout 60 "${CEILINGS[@]}" "${TIMING[@]}"
fi
mapfile -t FAULTY < <(find "$PACKAGES/expect-fault" -mindepth 2 -maxdepth 2 \
                        -name manifest.json -printf '%h\n' 2>/dev/null | sort)
if want faults && [ ${#FAULTY[@]} -gt 0 ] && dry; then
  step "packages that must fault (containment)"
  echo "would run: $BENCH run ${FAULTY[*]} --out $OUT_DIR/kgen-faults.json (every kgen result faulted)"
elif want faults && [ ${#FAULTY[@]} -gt 0 ]; then
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

# The packed candidates of the searches, unpacked beside the build.
UNPACKED=$BUILD_DIR/candidates
if { want tune && [ -z "$TUNE_DIR" ]; } || want sweep; then
  rm -rf "$UNPACKED"
  mkdir -p "$BUILD_DIR"
  if [ -f "$PACKED" ]; then
    # Python's tarfile (xz through lzma) where tar cannot read xz.
    if ! tar -C "$BUILD_DIR" -xJf "$PACKED" 2>/dev/null &&
       ! python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
           "$PACKED" "$BUILD_DIR"; then
      fail "unpacking $PACKED"
    fi
  else
    echo "no packed candidates at $PACKED (bench/prepare-gemm-device-check.sh writes them)"
  fi
fi
[ -n "$TUNE_DIR" ] || TUNE_DIR=$UNPACKED/tune

# The candidate package folders of op folder $1 (OP/c<rank>/<package>/,
# as kgen-tune --packages writes them), in rank order: c2 before c10.
candidates_of() {
  find "$1" -mindepth 3 -maxdepth 3 -name manifest.json -printf '%h\n' 2>/dev/null | sort -V
}

if want tune && [ -d "$TUNE_DIR" ]; then
  for op in "$TUNE_DIR"/*/; do
    op=${op%/}
    mapfile -t CANDS < <(candidates_of "$op")
    [ ${#CANDS[@]} -gt 0 ] || continue
    step "tuning $(basename "$op"): ${#CANDS[@]} candidates, ${TUNE_SECONDS} s"
    bench "tune $(basename "$op")" tune "${CANDS[@]}" --db "$OUT_DIR/tuning-db.json" \
      --out "$OUT_DIR/tune-$(basename "$op").json" --max-seconds "$TUNE_SECONDS" \
      --timeout 60 "${CEILINGS[@]}" --min-samples 10 --max-samples 50 --target-ms 50
  done
fi

# Per sweep op: the search a tuner runs (its 15% of the space within the
# budget, timed), then the search over the whole space (every valid config
# once, with fewer samples, in large batches; its best few again), and how
# close the first came to the second (bench/tuning_bar.py).
if want sweep && [ -d "$UNPACKED/sweep/all" ]; then
  : >"$OUT_DIR/tuning-bar-seconds.tsv"
  for op in "$UNPACKED"/sweep/all/*/; do
    op=$(basename "$op")
    mapfile -t BUDGET < <(candidates_of "$UNPACKED/sweep/budget/$op")
    mapfile -t ALL < <(candidates_of "$UNPACKED/sweep/all/$op")
    [ ${#BUDGET[@]} -gt 0 ] && [ ${#ALL[@]} -gt 0 ] || continue
    step "sweep $op: the search over ${#BUDGET[@]} candidates, ${TUNE_SECONDS} s"
    t0=$SECONDS
    bench "sweep $op (budget)" tune "${BUDGET[@]}" --db "$OUT_DIR/budget-db.json" \
      --out "$OUT_DIR/budget-$op.json" --max-seconds "$TUNE_SECONDS" \
      --timeout 60 "${CEILINGS[@]}" --min-samples 10 --max-samples 50 --target-ms 50
    printf '%s\t%d\t%s\t%d\n' "$op" $((SECONDS - t0)) "$OUT_DIR/budget-$op.json" \
      ${#ALL[@]} >>"$OUT_DIR/tuning-bar-seconds.tsv"
    step "sweep $op: the whole space, ${#ALL[@]} candidates"
    bench "sweep $op (all)" tune "${ALL[@]}" --db "$OUT_DIR/sweep-db.json" \
      --out "$OUT_DIR/sweep-$op.json" --max-seconds "$SWEEP_SECONDS" --batch 32 \
      --timeout 60 "${CEILINGS[@]}" --min-samples 5 --max-samples 20 --target-ms 10
  done
  step "tuning bar (also in tuning-bar.txt)"
  if dry; then
    echo "would run: python3 bench/tuning_bar.py --budget $OUT_DIR/budget-db.json" \
         "--sweep $OUT_DIR/sweep-db.json --seconds $OUT_DIR/tuning-bar-seconds.tsv"
    sed 's/^/  /' "$OUT_DIR/tuning-bar-seconds.tsv"
  else
    python3 "$ROOT/bench/tuning_bar.py" --budget "$OUT_DIR/budget-db.json" \
      --sweep "$OUT_DIR/sweep-db.json" --seconds "$OUT_DIR/tuning-bar-seconds.tsv" \
      | tee "$OUT_DIR/tuning-bar.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || fail "tuning bar (bench/tuning_bar.py)"
  fi
fi

if want suite; then
  step "cuBLASLt over bench/suites/gemm.json"
  # 10 s per shape (a model's ~20 shapes share one child and its limit).
  bench "cuBLASLt suite" baseline --suite "$ROOT/bench/suites/gemm.json" --timeout 10 \
    --out "$OUT_DIR/baseline-cublaslt.json" "${CEILINGS[@]}" "${TIMING[@]}"
fi

if want torch; then
  step "torch baselines"
  # SDPA (cuDNN, flash) at the ops of the attention packages, with the
  # kv_lens that kgen-bench run drew for them.
  TORCH_ATTENTION=()
  [ ${#ATT_PKGS[@]} -gt 0 ] && TORCH_ATTENTION=(
    --attention-suite "$ROOT/bench/suites/attention.json"
    --attention-packages "$ATTENTION" --kv-lens-seed "$ATTENTION_SEED")
  if dry; then
    echo "would run: python3 bench/torch_baselines.py --suite bench/suites/gemm.json" \
         "--out $OUT_DIR/baseline-torch.json${TORCH_ATTENTION[*]:+ ${TORCH_ATTENTION[*]}}"
  elif python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    # 240 s for the GEMMs and the models' SDPA, 120 more for the attention
    # suite (bench/README.md, "The device check").
    PYTHONUNBUFFERED=1 timeout 360 python3 "$ROOT/bench/torch_baselines.py" \
      --suite "$ROOT/bench/suites/gemm.json" --out "$OUT_DIR/baseline-torch.json" \
      "${TORCH_ATTENTION[@]}" "${CEILINGS[@]}" "${TIMING[@]}" || fail "torch baselines (exit $?)"
  else
    echo "torch with CUDA does not import here: torch baselines skipped"
  fi
fi

# The MoE suite (bench/README.md, "The device check"): kgen's packages, each
# verified against the host reference and timed (a DeepSeek-V3 package makes
# 10.5 GiB of e4m3 weights on the host: 120 s without a report), then the
# cuBLAS loop and torch's grouped mm at their ops, and for block-scaled ops
# (DeepSeek-V3) the fp8 row-wise loop; without packages (the compiler
# cannot make them yet) the baselines alone, at the suite's device_check
# entries.
if want moe; then
  mapfile -t MOE_PKGS < <(find "$MOE" -mindepth 2 -maxdepth 2 -name manifest.json \
                            -printf '%h\n' 2>/dev/null | LC_ALL=C sort)
  if [ ${#MOE_PKGS[@]} -gt 0 ]; then
    step "moe packages from $MOE: ${#MOE_PKGS[@]}"
    bench "moe packages" run "${MOE_PKGS[@]}" --out "$OUT_DIR/kgen-moe.json" --timeout 120 \
      "${CEILINGS[@]}" "${TIMING[@]}"
    TORCH_MOE=(--moe-packages "$MOE")
  else
    step "moe: no packages under $MOE; the baselines alone"
    TORCH_MOE=(--moe-device-check)
  fi
  step "moe baselines: the cuBLAS loop, torch's grouped mm (block-scaled ops: the fp8 row-wise loop too)"
  if dry; then
    echo "would run: python3 bench/torch_baselines.py --moe-only --moe-suite" \
         "$ROOT/bench/suites/moe.json ${TORCH_MOE[*]} --out $OUT_DIR/baseline-torch-moe.json"
  elif python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    # ~25 s for the device check's seven ops (torch's start included).
    PYTHONUNBUFFERED=1 timeout 240 python3 "$ROOT/bench/torch_baselines.py" --moe-only \
      --moe-suite "$ROOT/bench/suites/moe.json" "${TORCH_MOE[@]}" \
      --out "$OUT_DIR/baseline-torch-moe.json" "${CEILINGS[@]}" "${TIMING[@]}" \
      || fail "moe baselines (exit $?)"
  else
    echo "torch with CUDA does not import here: moe baselines skipped"
  fi
fi

if dry; then
  echo
  echo "device-check: dry run done; nothing measured"
  [ ${#FAILED[@]} -eq 0 ] || { printf 'device-check: FAILED: %s\n' "${FAILED[@]}"; exit 1; }
  return 0
fi
step "summary (also in summary.txt)"
for f in "$OUT_DIR"/*.json; do [ -f "$f" ] && "$BENCH" report "$f"; done >"$OUT_DIR/summary.txt"
if command -v python3 >/dev/null 2>&1; then
  python3 "$ROOT/bench/summarize.py" "$OUT_DIR"
else
  cat "$OUT_DIR/summary.txt"
fi
# The same results as one self-contained page and a CSV (roofline under the
# ceilings, speed-ups over the baselines; docs/performance-history.md).
REPORTED=()
for f in kgen.json kgen-attention.json kgen-moe.json baseline-cublaslt.json \
         baseline-torch.json baseline-torch-moe.json; do
  [ -f "$OUT_DIR/$f" ] && REPORTED+=("$OUT_DIR/$f")
done
if [ ${#REPORTED[@]} -gt 0 ]; then
  "$BENCH" report "${REPORTED[@]}" --title "kgen device check" \
    --html "$OUT_DIR/report.html" --csv "$OUT_DIR/report.csv" \
    || fail "report (kgen-bench report --html)"
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
