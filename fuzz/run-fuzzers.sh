#!/usr/bin/env bash
# Builds kgen's libFuzzer targets (fuzz/README.md) in a clang build folder of
# their own, then runs each for a bounded time from the tests' seeds. Exits 1
# when a target crashed, hit a sanitizer report, a failed fuzz check, a leak,
# a hang or its memory limit, printing the reproducer's path and the command
# that replays it.
#
# usage: fuzz/run-fuzzers.sh [--seconds N] [--jobs J] [--build-only] [TARGET...]
#   TARGET       e.g. npy or kgen-fuzz-npy (default: every target built)
#   --seconds N  fuzzing time per target (default $FUZZ_SECONDS, else 60)
#   --jobs J     targets fuzzed at once (default $FUZZ_JOBS, else the cores)
#   --build-only build, write the seeds, and stop
#   --seed S     libFuzzer's random seed (default $FUZZ_SEED, else 1; 0 draws
#                one, printed in each target's log). A fixed seed makes the
#                mutation sequence repeatable; how far a timed run gets still
#                depends on the machine's speed.
# Environment: FUZZ_BUILD_DIR (default <repo>/build-fuzz), JOBS (build
# parallelism, default: the cores). Working corpora stay in
# FUZZ_BUILD_DIR/corpus/<target> between runs; reproducers go to
# FUZZ_BUILD_DIR/artifacts/<target>/, logs to FUZZ_BUILD_DIR/logs/.
# The closing line reads "fuzz: N targets, M crashed (S s each)".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
PARALLEL=${FUZZ_JOBS:-$(nproc)}
SEED=${FUZZ_SEED:-1}
BUILD_JOBS=${JOBS:-$(nproc)}
BUILD_ONLY=0
LLVM_DIR=/usr/lib/llvm-22
# Per-input limits: a hang is an input running longer than this; memory
# beyond the RSS limit is reported as an out-of-memory crash.
INPUT_TIMEOUT=25
RSS_LIMIT_MB=4096

targets=()
while (($#)); do
  case "$1" in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --jobs) PARALLEL=$2; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    --seed) SEED=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "run-fuzzers.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("kgen-fuzz-${1#kgen-fuzz-}"); shift ;;
  esac
done
case "$SECONDS_EACH$PARALLEL$SEED" in
  *[!0-9]*) echo "run-fuzzers.sh: --seconds, --jobs and --seed take whole numbers" >&2; exit 2 ;;
esac
((PARALLEL >= 1)) || PARALLEL=1

# clang 22 and its libFuzzer runtime (Debian's clang-22, libclang-rt-22-dev),
# plus what the main build needs.
deps() {
  "$ROOT/scripts/dev.sh" deps clang-22 libclang-rt-22-dev
}

# Everything in the folder is instrumented (CMAKE_CXX_FLAGS); -O1 with
# assertions on (no NDEBUG) and line tables for the stacks.
build() {
  local sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
  # A folder configured with another compiler is configured afresh (CMake
  # would drop the -D options below when it notices the change itself).
  if [ -f "$BUILD/CMakeCache.txt" ] &&
     ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$LLVM_DIR/bin/clang++" "$BUILD/CMakeCache.txt"; then
    rm -rf "$BUILD/CMakeCache.txt" "$BUILD/CMakeFiles"
  fi
  cmake -S "$ROOT" -B "$BUILD" -G Ninja \
    -DCMAKE_C_COMPILER=$LLVM_DIR/bin/clang -DCMAKE_CXX_COMPILER=$LLVM_DIR/bin/clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS=$sanitize" "-DCMAKE_CXX_FLAGS=$sanitize" \
    -DKGEN_FUZZ=ON -DKGEN_BUILD_TESTS=OFF \
    -DMLIR_DIR=$LLVM_DIR/lib/cmake/mlir -DLLVM_EXTERNAL_LIT=$LLVM_DIR/bin/lit \
    -DLLVM_USE_LINKER=lld >/dev/null
  mkdir -p "$BUILD/logs"
  if ! cmake --build "$BUILD" --target kgen-fuzzers -j "$BUILD_JOBS" \
       >"$BUILD/logs/build.log" 2>&1; then
    grep -E 'error|FAILED' "$BUILD/logs/build.log" | head -n 20 || true
    echo "fuzz: the build failed (log: $BUILD/logs/build.log)"
    exit 1
  fi
}

# Runs one target; its log and reproducers stay in the build folder.
fuzz_one() {
  local name=$1 short=${1#kgen-fuzz-}
  local work=$BUILD/corpus/$short art=$BUILD/artifacts/$short log=$BUILD/logs/$short.log
  # Scratch files of the harnesses (FuzzUtil.h); a crashed process leaves
  # its own behind, removed here at the next run.
  local tmp=$BUILD/tmp/$short
  rm -rf "$art" "$tmp"
  mkdir -p "$work" "$art" "$tmp" "$BUILD/logs"
  # timeout(1) is a backstop only: libFuzzer stops itself at -max_total_time.
  local rc=0
  TMPDIR=$tmp UBSAN_OPTIONS=print_stacktrace=1 \
  timeout --kill-after=30 $((SECONDS_EACH + 300)) \
    "$BUILD/fuzz/bin/$name" -max_total_time="$SECONDS_EACH" -seed="$SEED" \
      -timeout=$INPUT_TIMEOUT -rss_limit_mb=$RSS_LIMIT_MB \
      -artifact_prefix="$art/" -print_final_stats=1 \
      "$work" "$BUILD/seeds/$short" >"$log" 2>&1 || rc=$?
  echo "$rc" >"$BUILD/logs/$short.rc"
}

report_one() {
  local name=$1 rc=$2 short=${1#kgen-fuzz-}
  local art=$BUILD/artifacts/$short log=$BUILD/logs/$short.log
  local runs cov
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2 || true)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $short: clean, ${runs:-?} inputs, coverage ${cov:-?} edges, $(ls "$BUILD/corpus/$short" | wc -l) in corpus"
    return 0
  fi
  local reproducer
  reproducer=$(ls -t "$art"/* 2>/dev/null | head -n 1 || true)
  echo "fuzz: $short: CRASHED (exit $rc) after ${runs:-?} inputs"
  # The report: from the sanitizer's or the check's first line, bounded.
  grep -nE '==ERROR|runtime error:|fuzz check failed|deadly signal|ALARM|out-of-memory|SUMMARY' \
    "$log" | head -n 5 | sed 's/^/  | /'
  awk '/==ERROR|runtime error:|fuzz check failed|deadly signal|ALARM|out-of-memory/ {on=1}
       on && n < 40 {print "  | " $0; n++}
       on && /^SUMMARY/ {exit}' "$log"
  if [ -n "$reproducer" ]; then
    echo "fuzz: $short: reproducer $reproducer"
    echo "fuzz: $short: replay with $BUILD/fuzz/bin/$name $reproducer"
  else
    echo "fuzz: $short: no reproducer written; the whole log is $log"
  fi
  return 1
}

deps
echo "fuzz: building the targets in $BUILD"
build
python3 "$ROOT/fuzz/make-seeds.py" "$ROOT" "$BUILD/seeds" | paste -sd' ' | sed 's/fuzz: //g; s/^/fuzz: seeds: /'
if ((BUILD_ONLY)); then
  exit 0
fi
if ((${#targets[@]} == 0)); then
  for bin in "$BUILD"/fuzz/bin/kgen-fuzz-*; do
    targets+=("$(basename "$bin")")
  done
fi
for t in "${targets[@]}"; do
  if [ ! -x "$BUILD/fuzz/bin/$t" ]; then
    echo "run-fuzzers.sh: no target $t in $BUILD/fuzz/bin" >&2
    exit 2
  fi
done

echo "fuzz: ${#targets[@]} targets, $SECONDS_EACH s each, $PARALLEL at once"
running=0
for t in "${targets[@]}"; do
  if ((running >= PARALLEL)); then
    wait -n || true
    running=$((running - 1))
  fi
  rm -f "$BUILD/logs/${t#kgen-fuzz-}.rc"
  fuzz_one "$t" &
  running=$((running + 1))
done
wait

crashed=()
for t in "${targets[@]}"; do
  rc=$(cat "$BUILD/logs/${t#kgen-fuzz-}.rc" 2>/dev/null || echo 1)
  report_one "$t" "$rc" || crashed+=("${t#kgen-fuzz-}")
done
echo "fuzz: ${#targets[@]} targets, ${#crashed[@]} crashed ($SECONDS_EACH s each)${crashed[*]:+: ${crashed[*]}}"
((${#crashed[@]} == 0))
