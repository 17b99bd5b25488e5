#!/usr/bin/env bash
# The nightly performance job (bench/nightly.sh) on a Slurm cluster, once
# per GPU type (docs/campaigns.md, "Nightly suites on several GPU types"):
# one job per type, each on one GPU of that type, each with its own history
# STATE_ROOT/TYPE and report OUT_ROOT/TYPE; then a summary job after any end
# of them, which writes OUT_ROOT/summary.md (each type's verdict and the
# head of its report) and exits non-zero when a type regressed or failed.
# Slurm's arrays share one resource request, so the types are separate jobs
# of one submission. The jobs run this repository's bench/nightly.sh where it
# is: the repository (and --bench's kgen-bench) must be on a file system the
# nodes share, as OUT_ROOT and STATE_ROOT must.
#
# usage: bench/nightly-slurm.sh --types h200,a100 [--out-root DIR]
#          [--state-root DIR] [--partition P] [--gres-template TEMPLATE]
#          [--time T] [--sbatch-arg ARG]... [--dry-run] [-- nightly.sh args...]
#        bench/nightly-slurm.sh --summarize OUT_ROOT TYPES   (the summary job)
#   --types LIST          GPU types, comma-separated ([a-z0-9_-] each)
#   --out-root DIR        reports, OUT_ROOT/TYPE (default ./nightly-out);
#                         on a file system the nodes share
#   --state-root DIR      histories, STATE_ROOT/TYPE (default
#                         $KGEN_NIGHTLY_STATE, else ~/.local/share/kgen/nightly)
#   --partition P         the partition of every job
#   --gres-template T     each job's --gres, {type} replaced by the type
#                         (default gpu:{type}:1)
#   --time T              each job's time limit
#   --sbatch-arg ARG      passed to every sbatch (repeatable)
#   --dry-run             print the sbatch commands, submit nothing
#   after --               given to each bench/nightly.sh (--from-results,
#                         --bench, --threshold, device-check options, ...)
# Exit: 0 submitted (prints the job ids); 2 bad arguments; 1 sbatch refused
# (what this run submitted is cancelled). --summarize: 0 no type regressed
# or failed, 1 otherwise.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { echo "nightly-slurm: $*"; }

summarize() {
  local out=$1 types=$2 status=0 t code
  {
    echo "# Nightly performance, $(date -u +%Y-%m-%d), per GPU type"
    echo
    for t in ${types//,/ }; do
      if [ -f "$out/$t/exit-code" ]; then
        code=$(cat "$out/$t/exit-code")
      else
        code="none (the job did not finish: see $out/$t/slurm-*.out)"
      fi
      case "$code" in
        0) echo "## $t: no regression" ;;
        1) echo "## $t: REGRESSED or a kernel failed (exit 1)"; status=1 ;;
        *) echo "## $t: FAILED (exit $code)"; status=1 ;;
      esac
      echo
      [ -f "$out/$t/report.md" ] && head -n 20 "$out/$t/report.md" && echo
    done
  } >"$out/summary.md.tmp" && mv "$out/summary.md.tmp" "$out/summary.md"
  say "wrote $out/summary.md"
  return $status
}

if [ "${1:-}" = "--summarize" ]; then
  [ $# -eq 3 ] || { say "--summarize OUT_ROOT TYPES" >&2; exit 2; }
  summarize "$2" "$3"
  exit $?
fi

TYPES= OUT_ROOT=./nightly-out PARTITION= GRES='gpu:{type}:1' TIME= DRY=0
STATE_ROOT=${KGEN_NIGHTLY_STATE:-${XDG_DATA_HOME:-$HOME/.local/share}/kgen/nightly}
SBATCH_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --types) TYPES=${2:?--types needs a list}; shift 2 ;;
    --out-root) OUT_ROOT=${2:?--out-root needs a folder}; shift 2 ;;
    --state-root) STATE_ROOT=${2:?--state-root needs a folder}; shift 2 ;;
    --partition) PARTITION=${2:?--partition needs a name}; shift 2 ;;
    --gres-template) GRES=${2:?--gres-template needs a value}; shift 2 ;;
    --time) TIME=${2:?--time needs a value}; shift 2 ;;
    --sbatch-arg) SBATCH_ARGS+=("${2:?--sbatch-arg needs a value}"); shift 2 ;;
    --dry-run) DRY=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$TYPES" ] || { say "--types is required" >&2; exit 2; }
for t in ${TYPES//,/ }; do
  [[ "$t" =~ ^[a-z0-9_-]+$ ]] || { say "bad GPU type '$t' (a-z 0-9 _ -)" >&2; exit 2; }
done
mkdir -p "$OUT_ROOT" "$STATE_ROOT" || exit 2
OUT_ROOT=$(cd "$OUT_ROOT" && pwd)
STATE_ROOT=$(cd "$STATE_ROOT" && pwd)
# Slurm reads '%' and '\' in --output paths as patterns.
case "$OUT_ROOT" in
  *%*|*\\*) say "--out-root $OUT_ROOT holds '%' or '\\', which Slurm's output patterns read" >&2; exit 2 ;;
esac
# Last night's summary must not pass for tonight's.
rm -f "$OUT_ROOT/summary-exit-code" "$OUT_ROOT/summary.md"

# The batch script: sbatch copies a script it runs, so nightly.sh (which
# finds the repository from its own path) runs through this one, which
# also records its exit status for the summary.
STEP=$OUT_ROOT/slurm-step.sh
cat >"$STEP.tmp" <<'SCRIPT'
#!/bin/sh
# kgen nightly on Slurm (bench/nightly-slurm.sh wrote this): runs its
# arguments after the first, then writes their exit status to the first.
exitfile=$1; shift
"$@"; status=$?
echo "$status" >"$exitfile.tmp" && mv "$exitfile.tmp" "$exitfile"
exit "$status"
SCRIPT
chmod +x "$STEP.tmp" && mv "$STEP.tmp" "$STEP"

run() {
  if [ $DRY = 1 ]; then echo "would run: $*" >&2; echo 0; return 0; fi
  "$@"
}

IDS=()
cancel() { [ ${#IDS[@]} -gt 0 ] && scancel "${IDS[@]}"; }
common=()
[ -n "$PARTITION" ] && common+=(--partition="$PARTITION")
[ -n "$TIME" ] && common+=(--time="$TIME")
for t in ${TYPES//,/ }; do
  mkdir -p "$OUT_ROOT/$t" "$STATE_ROOT/$t" || exit 2
  rm -f "$OUT_ROOT/$t/exit-code"
  out=$(run sbatch --parsable --job-name="kgen-nightly-$t" --gres="${GRES//\{type\}/$t}" \
        "${common[@]}" "${SBATCH_ARGS[@]}" --output="$OUT_ROOT/$t/slurm-%j.out" \
        "$STEP" "$OUT_ROOT/$t/exit-code" "$ROOT/bench/nightly.sh" \
        --out "$OUT_ROOT/$t" --state "$STATE_ROOT/$t" --label "nightly $t $(date -u +%Y-%m-%d)" "$@") \
    || { say "sbatch refused the $t job" >&2; cancel; exit 1; }
  IDS+=("${out%%;*}")
  say "$t: job ${out%%;*}"
done
dep=afterany$(printf ':%s' "${IDS[@]}")
out=$(run sbatch --parsable --job-name=kgen-nightly-summary --dependency="$dep" \
      "${common[@]}" "${SBATCH_ARGS[@]}" --output="$OUT_ROOT/summary-%j.out" \
      "$STEP" "$OUT_ROOT/summary-exit-code" "$ROOT/bench/nightly-slurm.sh" \
      --summarize "$OUT_ROOT" "$TYPES") \
  || { say "sbatch refused the summary job" >&2; cancel; exit 1; }
say "summary: job ${out%%;*} (after any end of ${IDS[*]}), $OUT_ROOT/summary.md"
