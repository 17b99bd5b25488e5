#!/usr/bin/env bash
# The nightly performance job (docs/performance-history.md, "The nightly
# workflow"): measure, add the run to the history, compare it with the last
# good run, write the report, exit non-zero on a regression.
#   1. measure (on a GPU): bench/device-check.sh with the steps ceilings,
#      packages and suite (it builds kgen-bench alone; bench/README.md),
#      into OUT/measure/; or, with --from-results DIR, take DIR's recorded
#      results files instead (no GPU, no build: CI proves the workflow so,
#      on synthetic runs, and the report says so in a banner)
#   2. add the run (kgen.json: the kernel packages beside their cuBLASLt
#      baselines) to the history STATE/history.sqlite
#   3. compare it with the last good run (the run number in
#      STATE/last-good): kgen-bench compare prints what regressed and why
#   4. write OUT/report.html (self-contained), OUT/report.md (a comment)
#      and OUT/report.csv: the run, the comparison with its causes, the
#      roofline under the run's ceilings, speed-ups over the baselines,
#      each kernel's history with its change points
#   5. a run with no regression and no failing kernel becomes the last
#      good run; a regressed one does not, so tomorrow compares with the
#      last good run again
#
# usage: bench/nightly.sh [--out DIR] [--state DIR] [--from-results DIR]
#                         [--bench PATH] [--label TEXT] [--threshold PCT]
#                         [device-check options...]
#        bench/nightly.sh --accept RUN [--state DIR] [--bench PATH]
#   --out DIR           report folder (default ./nightly-out)
#   --state DIR         the history and the last good run, kept between
#                       nights (default $KGEN_NIGHTLY_STATE, else
#                       ~/.local/share/kgen/nightly)
#   --from-results DIR  no measurement: DIR holds the night's results
#                       (kgen.json; ceilings.json, baseline-cublaslt.json
#                       and baseline-torch.json are reported too when there)
#   --bench PATH        the kgen-bench to use with --from-results (default
#                       $KGEN_BENCH, else build/bin/kgen-bench, else PATH)
#   --label TEXT        the run's label in the history (default: nightly
#                       and the date)
#   --banner TEXT       a line above the report (default with --from-results:
#                       that the results were recorded, not measured by
#                       the job; CI's synthetic runs say they are synthetic)
#   --threshold PCT     the comparison's practical minimum for every kernel
#                       (default per kind, kgen-bench compare --help)
#   --accept RUN        no night: make history run RUN the last good run (a
#                       slowdown the team accepts; acknowledge its step with
#                       kgen-bench history ack too) and stop
#   anything else goes to bench/device-check.sh (--packages, --quick,
#   --dry-run: no GPU, no build, the commands printed)
# Exit: 0 no regression, 1 a kernel regressed or failed (or the check
# failed), 2 bad arguments or unreadable results, 3 no CUDA device.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT_DIR=./nightly-out
STATE=${KGEN_NIGHTLY_STATE:-${XDG_DATA_HOME:-$HOME/.local/share}/kgen/nightly}
FROM=
BENCH=${KGEN_BENCH:-}
LABEL="nightly $(date -u +%Y-%m-%d)"
THRESHOLD=()
CHECK_ARGS=()
ACCEPT=
BANNER=

while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT_DIR=${2:?--out needs a folder}; shift 2 ;;
    --state) STATE=${2:?--state needs a folder}; shift 2 ;;
    --from-results) FROM=${2:?--from-results needs a folder}; shift 2 ;;
    --bench) BENCH=${2:?--bench needs a path}; shift 2 ;;
    --label) LABEL=${2:?--label needs a text}; shift 2 ;;
    --threshold) THRESHOLD=(--threshold "${2:?--threshold needs a percentage}"); shift 2 ;;
    --accept) ACCEPT=${2:?--accept needs a run number}; shift 2 ;;
    --banner) BANNER=${2:?--banner needs a text}; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) CHECK_ARGS+=("$1"); shift ;;
  esac
done

say() { echo "nightly: $*"; }

mkdir -p "$OUT_DIR" "$STATE" || exit 2
OUT_DIR=$(cd "$OUT_DIR" && pwd)
DB=$STATE/history.sqlite
CHECK_FAILED=0

# kgen-bench where nothing is built: --bench, $KGEN_BENCH, the build, PATH.
find_bench() {
  [ -n "$BENCH" ] && return 0
  if [ -x "$ROOT/build/bin/kgen-bench" ]; then
    BENCH=$ROOT/build/bin/kgen-bench
  else
    BENCH=$(command -v kgen-bench) || { say "no kgen-bench (--bench)" >&2; exit 2; }
  fi
}

if [ -n "$ACCEPT" ]; then
  find_bench
  [[ "$ACCEPT" =~ ^[0-9]+$ ]] || { say "--accept: expected a run number, got '$ACCEPT'" >&2; exit 2; }
  "$BENCH" history show "$ACCEPT" --db "$DB" >/dev/null || exit 2
  echo "$ACCEPT" >"$STATE/last-good.tmp" && mv "$STATE/last-good.tmp" "$STATE/last-good"
  say "run $ACCEPT is the last good run"
  exit 0
fi

if [ -n "$FROM" ]; then
  if [ ${#CHECK_ARGS[@]} -gt 0 ]; then
    say "unknown argument '${CHECK_ARGS[0]}' (--help)" >&2
    exit 2
  fi
  if [ ! -f "$FROM/kgen.json" ]; then
    say "no kgen.json in $FROM" >&2
    exit 2
  fi
  RESULTS=$(cd "$FROM" && pwd)
  find_bench
  BANNER=${BANNER:-"Recorded results from $RESULTS, not measured by this job"}
  say "recorded results from $RESULTS: nothing measured"
else
  BUILD=${KGEN_BUILD_DIR:-/tmp/kgen-device-build}
  RESULTS=$OUT_DIR/measure
  KGEN_BUILD_DIR=$BUILD "$ROOT/bench/device-check.sh" --out "$RESULTS" \
    --steps ceilings,packages,suite "${CHECK_ARGS[@]}"
  rc=$?
  # 3: no GPU; 2: bad arguments. 1 (a kernel failed) still gets a report.
  [ $rc -eq 3 ] || [ $rc -eq 2 ] && exit $rc
  [ $rc -eq 0 ] || CHECK_FAILED=1
  BENCH=${BENCH:-$BUILD/bin/kgen-bench}
  if [[ " ${CHECK_ARGS[*]} " == *" --dry-run "* ]]; then
    say "dry run: then"
    echo "would run: $BENCH history add $RESULTS/kgen.json --label '$LABEL' --db $DB"
    echo "would run: $BENCH compare LAST_GOOD NEW --db $DB ${THRESHOLD[*]}"
    echo "would run: $BENCH report $RESULTS/kgen.json [baselines] --compare LAST_GOOD" \
         "--db $DB --html $OUT_DIR/report.html --markdown $OUT_DIR/report.md" \
         "--csv $OUT_DIR/report.csv"
    exit 0
  fi
  if [ ! -f "$RESULTS/kgen.json" ]; then
    say "the device check wrote no kgen.json (exit $rc)" >&2
    exit 1
  fi
fi

# The night's files: the run itself first (compared and charted).
FILES=("$RESULTS/kgen.json")
for f in baseline-cublaslt.json baseline-torch.json; do
  [ -f "$RESULTS/$f" ] && FILES+=("$RESULTS/$f")
done

ADDED=$("$BENCH" history add "$RESULTS/kgen.json" --label "$LABEL" --db "$DB") || exit 2
echo "$ADDED"
RUN=$(sed -n 's/^added run \([0-9][0-9]*\):.*/\1/p' <<<"$ADDED" | tail -n 1)
[ -n "$RUN" ] || { say "cannot tell the run's number from: $ADDED" >&2; exit 2; }

LAST_GOOD=
[ -f "$STATE/last-good" ] && LAST_GOOD=$(tr -dc 0-9 <"$STATE/last-good")

REPORT=(--html "$OUT_DIR/report.html" --markdown "$OUT_DIR/report.md"
        --csv "$OUT_DIR/report.csv" --db "$DB" --title "kgen nightly: run $RUN ($LABEL)")
[ -n "$BANNER" ] && REPORT+=(--banner "$BANNER")
VERDICT=0
if [ -n "$LAST_GOOD" ]; then
  say "run $RUN against the last good run, $LAST_GOOD"
  "$BENCH" compare "$LAST_GOOD" "$RUN" --db "$DB" "${THRESHOLD[@]}"
  VERDICT=$?
  [ $VERDICT -le 1 ] || exit 2
  "$BENCH" report "${FILES[@]}" --compare "$LAST_GOOD" "${THRESHOLD[@]}" "${REPORT[@]}"
  rc=$?
  [ $rc -le 1 ] || exit 2
else
  say "run $RUN: the first run in $DB, nothing to compare with"
  "$BENCH" report "${FILES[@]}" "${REPORT[@]}" || exit 2
fi
say "report: $OUT_DIR/report.html, report.md, report.csv"

if [ $VERDICT -ne 0 ]; then
  say "REGRESSION against run $LAST_GOOD; the last good run stays $LAST_GOOD"
  exit 1
fi
if [ $CHECK_FAILED -ne 0 ]; then
  say "the device check failed (a kernel wrong or failing); the last good run stays ${LAST_GOOD:-none}"
  exit 1
fi
echo "$RUN" >"$STATE/last-good.tmp" && mv "$STATE/last-good.tmp" "$STATE/last-good"
say "no regression; run $RUN is the last good run"
exit 0
