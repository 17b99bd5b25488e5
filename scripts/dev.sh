#!/usr/bin/env bash
# kgen developer entry point. Each command installs what is missing, builds,
# then does its job:
#   scripts/dev.sh demo     the main job on the bundled examples
#   scripts/dev.sh test     every test (GoogleTest units via ctest, lit suite),
#                           then the fuzzers for a bounded time (fuzz/README.md)
#   scripts/dev.sh build    install + build only
#   scripts/dev.sh deps [PKG...]  install only (the build's packages, and
#                           PKG..., e.g. the fuzzers' compiler)
# Environment: BUILD_DIR (default build), JOBS (default: all cores),
# KGEN_FUZZ_SECONDS (test: fuzzing time per target, default 30; 0 skips).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc)}
LLVM_DIR=/usr/lib/llvm-22

# Debian packages the build and the tests need (CUDA comes from /usr/local/cuda;
# chromium opens the HTML report headless: about 120 MB, 15 s to install).
PACKAGES=(cmake ninja-build g++ lld llvm-22-dev llvm-22-tools libmlir-22-dev
          mlir-22-tools nlohmann-json3-dev libgtest-dev libsqlite3-dev python3
          python3-numpy chromium)

# Installs the missing ones of PACKAGES and of the arguments.
deps() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "kgen: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  fi
}

build() {
  deps
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=$LLVM_DIR/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$LLVM_DIR/bin/lit \
    -DLLVM_USE_LINKER=lld >/dev/null
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

# The runtime alone, as a GPU machine without MLIR builds it: its tools and
# its own tests. The emulator's and the primitives' tests are the same in
# both builds: they are built and run once, in the full build.
runtime_only() {
  cmake -S "$ROOT" -B "$BUILD_DIR-runtime-only" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKGEN_RUNTIME_ONLY=ON >/dev/null
  cmake --build "$BUILD_DIR-runtime-only" -j "$JOBS" --target kgen-bench kgen-emulate \
    kgen-changepoint-bench kgen-runtime-tests kgen-runtime-cuda-tests
}

# What only the tests need: a single-node Slurm (test/slurm: the campaign
# tests start one of their own processes).
TEST_PACKAGES=(slurmctld slurmd slurm-client munge)
# The fuzzers' compiler (what fuzz/run-fuzzers.sh installs itself otherwise).
FUZZ_PACKAGES=(clang-22 libclang-rt-22-dev)

# The fuzzers' build (fuzz/run-fuzzers.sh --build-only, into
# $BUILD_DIR-fuzz) in the background at the lowest priority from the end of
# the main build to the start of lit: it takes the CPU time that the
# runtime-only build's configure, the runtime's tests (one process) and
# ctest (its last, longest tests) leave idle. lit, which keeps both cores
# busy, runs after it alone (measured: a niced build beside lit slows lit
# about as much as it gains). The fuzzers' run builds again (nothing left
# to do, or the same error, reported there). A process group of its own
# (set -m for this one job), so that an early exit stops it whole (cmake,
# ninja, compilers); not a session of its own (setsid): that would be a
# scheduler autogroup of its own, where nice does not reach, and it would
# take half the CPU.
FUZZ_BUILD_PID=""
start_fuzz_build() {
  set -m
  nice -n 19 env FUZZ_BUILD_DIR="$BUILD_DIR-fuzz" "$ROOT/fuzz/run-fuzzers.sh" \
    --build-only </dev/null >"$BUILD_DIR/fuzz-prebuild.log" 2>&1 &
  FUZZ_BUILD_PID=$!
  set +m
  trap stop_fuzz_build EXIT
}
stop_fuzz_build() {
  [ -z "$FUZZ_BUILD_PID" ] || kill -- "-$FUZZ_BUILD_PID" 2>/dev/null || true
  FUZZ_BUILD_PID=""
}
wait_fuzz_build() {
  [ -n "$FUZZ_BUILD_PID" ] || return 0
  echo "== waiting for the fuzzers' build (log: $BUILD_DIR/fuzz-prebuild.log)"
  wait "$FUZZ_BUILD_PID" || true
  FUZZ_BUILD_PID=""
}

run_tests() {
  local fuzz_seconds=${KGEN_FUZZ_SECONDS:-30} fp=0 ff=0
  # One install for everything, the fuzzers' compiler included.
  if [ "$fuzz_seconds" != 0 ]; then
    deps "${TEST_PACKAGES[@]}" "${FUZZ_PACKAGES[@]}"
  else
    deps "${TEST_PACKAGES[@]}"
  fi
  build
  [ "$fuzz_seconds" = 0 ] || start_fuzz_build
  local status=0
  echo "== runtime alone, without MLIR (KGEN_RUNTIME_ONLY)"
  runtime_only
  local t
  for t in kgen-runtime-tests kgen-runtime-cuda-tests; do
    "$BUILD_DIR-runtime-only/runtime/test/$t" --gtest_brief=1 || status=1
  done
  echo "== GoogleTest units (ctest)"
  (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS") | tee "$BUILD_DIR/ctest.log" \
    || status=1
  wait_fuzz_build
  echo "== lit integration tests"
  $LLVM_DIR/bin/lit -sv "$BUILD_DIR/test" | tee "$BUILD_DIR/lit.log" || status=1
  # Each fuzz target counts as one test: passed when it ran clean.
  if [ "$fuzz_seconds" != 0 ]; then
    echo "== fuzzers (fuzz/run-fuzzers.sh, $fuzz_seconds s per target)"
    FUZZ_SECONDS=$fuzz_seconds FUZZ_BUILD_DIR="$BUILD_DIR-fuzz" "$ROOT/fuzz/run-fuzzers.sh" \
      2>&1 | tee "$BUILD_DIR/fuzz.log" || status=1
    # Its closing line: "fuzz: N targets, M crashed (...)"; none if it failed
    # before fuzzing (counted as one failure).
    read -r fp ff < <(sed -nE 's/^fuzz: ([0-9]+) targets, ([0-9]+) crashed.*/\1 \2/p' \
                        "$BUILD_DIR/fuzz.log" | tail -n 1) || true
    if [ -z "${fp:-}" ]; then fp=0; ff=1; else fp=$((fp - ff)); fi
  fi
  # One closing line over every runner.
  local cp cf lp lf
  cp=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2 \1/p' \
       "$BUILD_DIR/ctest.log" | awk '{print $1-$2}')
  cf=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of.*/\1/p' "$BUILD_DIR/ctest.log")
  lp=$(sed -nE 's/^ *Passed *: *([0-9]+).*/\1/p' "$BUILD_DIR/lit.log")
  lf=$(sed -nE 's/^ *Failed *: *([0-9]+).*/\1/p' "$BUILD_DIR/lit.log")
  echo "$(( ${cp:-0} + ${lp:-0} + fp )) passed, $(( ${cf:-0} + ${lf:-0} + ff )) failed"
  return $status
}

case "${1:-}" in
  deps) shift; deps "$@" ;;
  build) build ;;
  demo) build && "$ROOT/examples/main-job.sh" "$BUILD_DIR" ;;
  test) run_tests ;;
  *) sed -n '2,11p' "$0"; exit 2 ;;
esac
