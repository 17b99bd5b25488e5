#!/usr/bin/env bash
# The kgen main job. With a GPU, first:
#   0. tune the examples' full-size GEMMs (kgen-tune --measure: candidates
#      measured with kgen-bench, the winners into BUILD_DIR/tuning-db.json),
#      printing each tuned config's speed-up over the default heuristic;
#      everything below then uses those measured choices.
# Then (without a GPU, from the committed bench/results/tuning-db.json when
# it exists, else the heuristic), for each example in examples/,
#   1. parse and verify it at full size and list its kgen ops with their work;
#   2. decompose it (kgen-decompose-moe) and count the resulting kgen ops;
#   3. run the reduced copy (examples/reduced/) on the CPU reference, fused
#      and decomposed, on the same seeded random inputs, and check that both
#      give identical results;
#   4. choose a strategy for every GEMM, attention and MoE layer (kgen-select-strategy,
#      sm_90a: from bench/results/tuning-db.json when it exists, else the
#      heuristic), lower them to tile-level kernels and run those schedules
#      block by block on the CPU against the reference ("CPU-checked"),
#      listing each kernel;
#   5. compile the full-size GEMMs, attentions and MoE layers to CUDA kernel
#      packages for sm_90a (kgen-pipeline: wgmma + TMA, warp-specialised
#      gemms; FlashAttention-3-style prefill attention (wgmma, TMA,
#      ping-pong), FA2-style split-KV decode; an MoE
#      layer as six kernels, routing to combine, its expert GEMMs grouped
#      over the experts; with the same databases) and list per kernel who
#      chose its config and ptxas's registers, shared memory and spills;
#   6. run one kernel of each family (simt, mma_sync, wgmma, attention on
#      FA2's and FA3's schedules, moe) on
#      the emulated device (kgen-emulate: the emitted CUDA compiled for the
#      host, every CUDA thread a fiber, races, bounds and deadlocks checked)
#      against the host reference (examples/emulated/families.mlir).
# Usage: examples/main-job.sh [BUILD_DIR]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/bin
WORK=$(mktemp -d)
status=0
trap 'rm -rf "$WORK"' EXIT

count_kgen_ops() { grep -cE '= kgen\.' "$1" || true; }

# Strategies come from this machine's measurements (a GPU here: tuned
# now), then the committed tuning database, else the heuristic; the tables
# say which.
DBS=()
if "$BIN/kgen-bench" ceilings --out "$WORK/ceilings.json" 2> "$WORK/ceilings.log"; then
  echo "== a GPU: tuning the examples' GEMMs (kgen-tune --measure, 30 s per GEMM at most)"
  for full in "$ROOT"/examples/*.mlir; do
    "$BIN/kgen-tune" "$full" --measure --db "$BUILD/tuning-db.json" \
      --ceilings "$WORK/ceilings.json" --work-dir "$WORK/tune" \
      --cache "$WORK/nvrtc-cache" --max-seconds 30 | sed 's/^/  /' || status=1
  done
  DBS+=("$BUILD/tuning-db.json")
else
  echo "== no GPU here ($(tail -n 1 "$WORK/ceilings.log")): nothing tuned; strategies from" \
       "bench/results/tuning-db.json where it has them, else the default heuristic"
fi
[ -f "$ROOT/bench/results/tuning-db.json" ] && DBS+=("$ROOT/bench/results/tuning-db.json")
DB=""
((${#DBS[@]})) && DB=" db=$(IFS=,; echo "${DBS[*]}")"

rows=()
kernels=()
packages=""
for full in "$ROOT"/examples/*.mlir; do
  name=$(basename "$full" .mlir)
  reduced="$ROOT/examples/reduced/$name.mlir"
  echo "== $name: kgen ops at full size"
  "$BIN/kgen-opt" "$full" --kgen-print-op-stats -o "$WORK/$name.verified.mlir" \
    | tee "$WORK/$name.stats" | sed 's/^/  /'
  gflop=$(sed -nE 's/^total: .*, ([0-9.]+) GFLOP/\1/p' "$WORK/$name.stats")
  ops=$(count_kgen_ops "$WORK/$name.verified.mlir")
  "$BIN/kgen-opt" "$full" --kgen-decompose-moe -o "$WORK/$name.decomposed.mlir"
  dops=$(count_kgen_ops "$WORK/$name.decomposed.mlir")

  "$BIN/kgen-opt" "$reduced" --kgen-decompose-moe -o "$WORK/$name.reduced.decomposed.mlir"
  "$BIN/kgen-run" "$reduced" --seed 7 --output-dir "$WORK/$name.fused" > "$WORK/$name.run"
  ms=$(sed -nE 's/^ran .* in ([0-9.]+) ms.*/\1/p' "$WORK/$name.run")
  # Every result of the reference run: compared as INDEX:FILE pairs.
  results=$(cd "$WORK/$name.fused" && ls result*.npy | sed -E "s|^result([0-9]+)\.npy$|\1:$WORK/$name.fused/&|" | paste -sd,)
  if "$BIN/kgen-run" "$WORK/$name.reduced.decomposed.mlir" --seed 7 \
       --compare-file "$results" > "$WORK/$name.cmp"; then
    same="identical"
  else
    same="DIFFERENT"
  fi
  rgflop=$("$BIN/kgen-opt" "$reduced" --kgen-print-op-stats -o /dev/null \
           | sed -nE 's/^total: .*, ([0-9.]+) GFLOP/\1/p')
  rows+=("$name|$ops|$gflop|$dops|$rgflop|$ms|$same")

  # The schedules of the default sm_90a strategies, run on the CPU. Split-K
  # and the online softmax sum in another order than the reference: bf16
  # rounding tolerance.
  "$BIN/kgen-opt" "$reduced" --kgen-select-strategy="target=sm_90a$DB" \
    --kgen-lower-gemm-to-tiles --kgen-lower-attention-to-tiles --kgen-lower-moe-to-tiles \
    -o "$WORK/$name.tiles.mlir"
  if "$BIN/kgen-run" "$WORK/$name.tiles.mlir" --seed 7 --tolerance 1e-2 \
       --compare-file "$results" > "$WORK/$name.tiles.cmp"; then
    checked="CPU-checked ($(sed -nE 's/.*(rel_frob=[^ ]*).*/\1/p' "$WORK/$name.tiles.cmp" | head -n 1))"
  else
    checked="SCHEDULE MISMATCH"
  fi
  while read -r line; do
    row=$(sed -nE 's/^ *kgen\.kernel @([a-z0-9_]+) grid \[[0-9, ]+\] threads ([0-9]+) smem ([0-9]+).*instruction = ([a-z_]+), block_m = ([0-9]+), block_n = ([0-9]+), block_k = ([0-9]+), .*stages = ([0-9]+), .*split_k = ([0-9]+),.*/\1|\4 \5x\6x\7 s\8 k\9|\2|\3/p' <<<"$line")
    # Attention: rows x keys per step, stages, KV splits.
    [ -n "$row" ] || row=$(sed -nE 's/^ *kgen\.kernel @([a-z0-9_]+) grid \[[0-9, ]+\] threads ([0-9]+) smem ([0-9]+).*attention_config<.*instruction = ([a-z_]+), block_m = ([0-9]+), block_n = ([0-9]+), .*stages = ([0-9]+), .*split_kv = ([0-9]+),.*/\1|\4 \5x\6 s\7 kv\8|\2|\3/p' <<<"$line")
    # MoE: the expert GEMMs' rows x columns x K tiles; the routing,
    # ranking, gather and combine steps have no tile.
    [ -n "$row" ] || row=$(sed -nE 's/^ *kgen\.kernel @([a-z0-9_]+_(gate_up|down)) grid \[[0-9, ]+\] threads ([0-9]+) smem ([0-9]+).*grouped_gemm_config<.*instruction = ([a-z_]+), block_m = ([0-9]+), block_n = ([0-9]+), block_k = ([0-9]+), .*stages = ([0-9]+),.*/\1|\5 \6x\7x\8 s\9|\3|\4/p' <<<"$line")
    [ -n "$row" ] || row=$(sed -nE 's/^ *kgen\.kernel @([a-z0-9_]+) grid \[[0-9, ]+\] threads ([0-9]+) smem ([0-9]+).*grouped_gemm_config<.*/\1|moe step|\2|\3/p' <<<"$line")
    source=$(sed -nE 's/.*source = ([a-z]+).*/\1/p' <<<"$line")
    kernels+=("$name|$row|$source|$checked")
  done < <(grep -E '^ *kgen\.kernel @' "$WORK/$name.tiles.mlir")

  # Full-size packages; the manifests carry ptxas's report.
  if "$BIN/kgen-opt" "$full" --kgen-pipeline="target=sm_90a output-dir=$WORK/packages/$name$DB" \
       -o /dev/null 2> "$WORK/$name.pipeline.log"; then
    table=$(python3 "$ROOT/examples/package-table.py" "$name" "$WORK/packages/$name"/*/)
    [ -n "$table" ] && packages+="$table"$'\n'
    while read -r warning; do
      packages+="$name  $warning"$'\n'
    done < <(sed -nE 's/^[^ ]*: warning: (.*)$/\1/p' "$WORK/$name.pipeline.log")
  else
    packages+="$name  PIPELINE FAILED: $(head -n 1 "$WORK/$name.pipeline.log")"$'\n'
    status=1
  fi
done

# One kernel per family on the emulated device.
emulated=""
if "$BIN/kgen-opt" "$ROOT/examples/emulated/families.mlir" \
     --kgen-pipeline="target=sm_90a output-dir=$WORK/emulated" -o /dev/null \
     2> "$WORK/emulated.log"; then
  for pkg in "$WORK"/emulated/*/; do
    line=$("$BIN/kgen-emulate" "$pkg" 2>> "$WORK/emulated.log") || status=1
    emulated+="$line"$'\n'
  done
else
  emulated="PIPELINE FAILED: $(head -n 1 "$WORK/emulated.log")"$'\n'
  status=1
fi

echo
echo "kgen main job: full-size examples verified and decomposed; reduced copies run on the CPU reference"
printf '%-18s %8s %12s %11s %14s %10s  %s\n' example "kgen ops" "GFLOP full" decomposed \
  "GFLOP reduced" "CPU ms" "fused vs decomposed"
for r in "${rows[@]}"; do
  IFS='|' read -r name ops gflop dops rgflop ms same <<<"$r"
  printf '%-18s %8s %12s %11s %14s %10s  %s\n' "$name" "$ops" "$gflop" "$dops" "$rgflop" "$ms" "$same"
done

echo
echo "Kernels (sm_90a strategies), schedules run on the CPU against the reference"
printf '%-17s %-54s %-26s %7s %7s %-9s %s\n' example kernel "family tile stages split" threads smem "chosen by" check
for r in "${kernels[@]}"; do
  IFS='|' read -r name kernel config threads smem source checked <<<"$r"
  printf '%-17s %-54s %-26s %7s %7s %-9s %s\n' "$name" "$kernel" "$config" "$threads" "$smem" "$source" "$checked"
done

echo
echo "CUDA kernel packages of the full-size GEMMs, attentions and MoE layers (sm_90a), ptxas's report via NVRTC"
printf '%-17s %-52s %-24s %-26s %-9s %5s %7s %11s %6s\n' example kernel "shape" "family tile stages" "chosen by" regs smem "spill st/ld" stack
printf '%s' "$packages"

echo
echo "Emulated device: one kernel of each family, its emitted CUDA run on the CPU against the host reference"
printf '%-9s %-56s %-7s %-10s %-8s %9s %9s\n' family kernel result "rel error" tolerance seconds "MFLOP/s"
for fam in simt mma_sync wgmma attention attn-fa3 fa3-fp8 attn-fp8 attn-vlen moe moe-e4m3; do
  while read -r name family _ verdict rel tol secs mflops; do
    # Attention: FlashAttention-2's schedule (mma_sync) or FA3's (wgmma),
    # FA3's FP8 path (e4m3 Q, K and V); an e4m3 KV cache; a variable-length
    # batch.
    [[ $name == kgen_attention_* ]] &&
      family=$([ "$family" = wgmma ] && echo attn-fa3 || echo attention)
    [[ $name == kgen_attention_f8E4M3FN_* ]] && family=fa3-fp8
    [[ $name == kgen_attention_*_kvf8E4M3FN_* ]] && family=attn-fp8
    [[ $name == kgen_attention_*_varlen_* ]] && family=attn-vlen
    [[ $name == kgen_moe_* ]] && family=moe
    [[ $name == kgen_moe_*_e4m3_* ]] && family=moe-e4m3
    [ "$family" = "$fam" ] || continue
    printf '%-9s %-56s %-7s %-10s %-8s %9s %9s\n' "$family" "$name" "$verdict" "${rel#rel_err=}" \
      "${tol#tol=}" "${secs#seconds=}" "${mflops#mflops=}"
  done <<<"$emulated"
done
[[ $emulated == *PIPELINE\ FAILED* ]] && printf '%s' "$emulated"
grep -E '^kgen-emulate: ' "$WORK/emulated.log" | head -n 5 || true
for r in "${rows[@]}" "${kernels[@]}"; do
  [[ $r == *DIFFERENT || $r == *MISMATCH ]] && exit 1
done
exit $status
