#!/usr/bin/env bash
# kgen developer entry point. Each command installs what is missing, builds,
# then does its job:
#   scripts/dev.sh demo     the main job on the bundled examples
#   scripts/dev.sh test     every test (GoogleTest units via ctest, lit suite)
#   scripts/dev.sh build    install + build only
#   scripts/dev.sh deps     install only
# Environment: BUILD_DIR (default build), JOBS (default: all cores).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc)}
LLVM_DIR=/usr/lib/llvm-22

# Debian packages the build and the tests need (CUDA comes from /usr/local/cuda).
PACKAGES=(cmake ninja-build g++ lld llvm-22-dev llvm-22-tools libmlir-22-dev
          mlir-22-tools nlohmann-json3-dev libgtest-dev python3 python3-numpy)

deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
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

# The runtime alone, as a GPU machine without MLIR builds it, with its tests.
runtime_only() {
  cmake -S "$ROOT" -B "$BUILD_DIR-runtime-only" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DKGEN_RUNTIME_ONLY=ON >/dev/null
  cmake --build "$BUILD_DIR-runtime-only" -j "$JOBS"
}

run_tests() {
  build
  local status=0
  echo "== runtime alone, without MLIR (KGEN_RUNTIME_ONLY)"
  runtime_only
  # The primitives' tests (codegen) are the same in both builds: run once.
  (cd "$BUILD_DIR-runtime-only" && ctest -j "$JOBS" -E '^codegen' --output-on-failure \
     | tail -n 3) || status=1
  echo "== GoogleTest units (ctest)"
  (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS") | tee "$BUILD_DIR/ctest.log" \
    || status=1
  echo "== lit integration tests"
  $LLVM_DIR/bin/lit -sv "$BUILD_DIR/test" | tee "$BUILD_DIR/lit.log" || status=1
  # One closing line over both runners.
  local cp cf lp lf
  cp=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2 \1/p' \
       "$BUILD_DIR/ctest.log" | awk '{print $1-$2}')
  cf=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of.*/\1/p' "$BUILD_DIR/ctest.log")
  lp=$(sed -nE 's/^ *Passed *: *([0-9]+).*/\1/p' "$BUILD_DIR/lit.log")
  lf=$(sed -nE 's/^ *Failed *: *([0-9]+).*/\1/p' "$BUILD_DIR/lit.log")
  echo "$(( ${cp:-0} + ${lp:-0} )) passed, $(( ${cf:-0} + ${lf:-0} )) failed"
  return $status
}

case "${1:-}" in
  deps) deps ;;
  build) build ;;
  demo) build && "$ROOT/examples/main-job.sh" "$BUILD_DIR" ;;
  test) run_tests ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
