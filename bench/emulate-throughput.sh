#!/usr/bin/env bash
# Emulated-device throughput (issue 12 item 8): a 256x256x256 bf16 GEMM in
# each kernel family (simt, mma_sync, wgmma with TMA and a cluster of 2),
# compiled by kgen-opt --kgen-pipeline and run by kgen-emulate on this CPU.
# Prints one row per family: the kernels' emulated wall time (the host
# compile excluded) and the emulated MFLOP/s; a benchmark, not a test.
# Usage: bench/emulate-throughput.sh [BUILD_DIR] [SEED]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
SEED=${2:-1}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# One function per family; the configs are the families' usual tiles.
cfg() { # instruction target bm bn bk wm wn stages tma ws cluster_m
  echo "#kgen.gemm_config<target = $2, instruction = $1, block_m = $3, block_n = $4, block_k = $5, warps_m = $6, warps_n = $7, stages = $8, tma = $9, warp_specialized = ${10}, cluster_m = ${11}, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>"
}
gemm() { # name config [transpose_b]
  local b="tensor<256x256xbf16>"
  echo "func.func @$1(%a: $b, %b: $b) -> $b {"
  echo "  %d = kgen.gemm %a, %b {${3:+$3, }config = $2} : $b, $b -> $b"
  echo "  return %d : $b"
  echo "}"
}
{
  gemm simt "$(cfg simt sm_80 64 64 16 2 2 2 false false 1)"
  gemm mma_sync "$(cfg mma_sync sm_80 128 128 32 2 2 3 false false 1)"
  gemm wgmma "$(cfg wgmma sm_90a 128 128 64 8 1 4 true true 2)" transpose_b
} > "$WORK/gemms.mlir"

echo "emulated throughput, 256x256x256 bf16, $(nproc) CPUs ($(sed -nE 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), seed $SEED"
printf '%-9s %-7s %10s %10s %10s\n' family result "compile s" "run s" "MFLOP/s"
for fn in simt mma_sync wgmma; do
  # Each function alone, so that its package is the only one.
  sed -n "/^func.func @$fn(/,/^}/p" "$WORK/gemms.mlir" > "$WORK/$fn.mlir"
  "$BUILD/bin/kgen-opt" "$WORK/$fn.mlir" \
    --kgen-pipeline="target=sm_90a output-dir=$WORK/$fn" -o /dev/null
  start=$(date +%s.%N)
  line=$("$BUILD/bin/kgen-emulate" --seed "$SEED" "$WORK/$fn"/*/ 2>"$WORK/$fn.log") || true
  total=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  read -r _ family _ verdict _ _ secs mflops <<<"$line"
  secs=${secs#seconds=}
  printf '%-9s %-7s %10.2f %10s %10s\n' "${family:-$fn}" "${verdict:-FAILED}" \
    "$(awk -v t="$total" -v s="${secs:-0}" 'BEGIN { print t - s }')" "${secs:--}" "${mflops#mflops=}"
  [ "${verdict:-}" = ok ] || sed 's/^/  /' "$WORK/$fn.log" | head -n 5
done
