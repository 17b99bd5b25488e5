#!/usr/bin/env bash
# campaign.test's driver: a tuning campaign and the nightly job on a real
# single-node Slurm (slurm-local.sh, in OUT/c), with SYNTHETIC measurements
# (kgen-bench --synthetic: no GPU). Plans two modules into three shards,
# submits them, kills shard 1's task mid-way (scancel, after its first item
# is done), checks what status and the merge say, resumes, and compares
# the merged database with a single machine's run of the same searches.
# Then bench/nightly-slurm.sh over two GPU types on recorded runs. Prints
# what it saw (job ids replaced by names) and stops the cluster on every
# exit, a failed one too.
# Usage: campaign-on-slurm.sh SRC_ROOT BIN_DIR OUT
set -euo pipefail
src=$1
bin=$2
out=$3
cluster=$out/c
camp=$out/campaign

finish() {
  local rc=$?
  trap - EXIT
  bash "$src/test/slurm/slurm-local.sh" stop "$cluster" >&2 || rc=1
  [[ $rc -eq 0 ]] || echo "campaign-on-slurm.sh: failed (exit $rc)" >&2
  exit "$rc"
}
trap finish EXIT

bash "$src/test/slurm/slurm-local.sh" start "$cluster" >&2
# shellcheck disable=SC1091
source "$cluster/env"
export PATH=$bin:$PATH

# Polls (at most $1 s) until the command after it succeeds.
wait_until() {
  local limit=$1 i
  shift
  for ((i = 0; i < limit * 10; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  echo "timeout after $limit s: $*" >&2
  squeue -t all >&2 || true
  exit 1
}

# Two modules, six items, three shards of two items; one search takes a
# second per candidate measured (three candidates, one finalist round).
kgen-tune campaign plan "$src/test/Tools/Inputs/gemm-kernels.mlir" \
  "$src/examples/mixtral_moe.mlir" --out "$camp/plan.json" --max-candidates 3 \
  --seconds-per-candidate 5 --shard-seconds 40 --finalists 1 --rounds 1 \
  --jobs 2 2>/dev/null | sed -n 1p
submitted=$(kgen-tune campaign submit "$camp/plan.json" --synthetic \
  --synthetic-delay-ms 1000 --gres gpu:1)
array=$(sed -n 's/^submitted shards .* as job array \([0-9]*\)$/\1/p' <<<"$submitted")
echo "$submitted" | sed -E "s/job array $array\$/job array ARRAY/; s/as job [0-9]+/as job MERGE/; s/of $array\)/of ARRAY)/"

# Kill shard 1's task once its first item is done and its second started
# (its log says so): cancelled in the step between the two items, a child
# the shard had just started could outlive the task's processes Slurm
# signals (proctrack/linuxproc walks the process tree) and finish item 2.
first=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['shards'][1]['items'][0])" "$camp/plan.json")
wait_until 60 test -f "$camp/shards/s001/$first.db.json"
wait_until 60 grep -q "shard 1 item 2/2" "$camp/logs/${array}_1.out"
scancel "${array}_1"
echo "cancelled shard 1's task after its first item"
kgen-tune campaign wait "$camp/plan.json" --timeout 120 >/dev/null
kgen-tune campaign status "$camp/plan.json" | sed -E 's/ +$//'
python3 -c "import json,sys; m = json.load(open(sys.argv[1])); print('merge job: items merged', m['items_merged'], 'missing', m['items_missing'])" "$camp/merged/merge.json"

# Resume: only shard 1, and only its unfinished item is measured.
resumed=$(kgen-tune campaign resume "$camp/plan.json")
again=$(sed -n 's/^submitted shards .* as job array \([0-9]*\)$/\1/p' <<<"$resumed")
echo "$resumed" | sed -E "s/job array $again\$/job array RESUMED/; s/as job [0-9]+/as job MERGE/; s/of $again\)/of RESUMED)/"
kgen-tune campaign wait "$camp/plan.json" --timeout 120 >/dev/null
grep -h "shard 1: " "$camp/logs/${again}_1.out"
kgen-tune campaign status "$camp/plan.json" | tail -n 2
python3 -c "import json,sys; m = json.load(open(sys.argv[1])); print('merge job: items merged', m['items_merged'], 'missing', m['items_missing'], 'flagged nodes', len(m['flagged_nodes']))" "$camp/merged/merge.json"

# A single machine's run of the same searches gives the same database.
python3 "$src/test/Tools/Inputs/tune-plan-locally.py" "$camp/plan.json" \
  "$bin/kgen-bench" "$out/single.json" --synthetic >/dev/null
python3 "$src/test/Tools/Inputs/same-tuning-db.py" "$camp/merged/tuning.json" "$out/single.json"

# The nightly job once per GPU type, on recorded runs, and its summary.
python3 "$src/test/Tools/Inputs/make-perf-runs.py" "$out/runs" >/dev/null
mkdir -p "$out/night" && cp "$out/runs/base.json" "$out/night/kgen.json"
bash "$src/bench/nightly-slurm.sh" --types h200,a100 --gres-template gpu:1 \
  --out-root "$out/nightly" --state-root "$out/nightly-state" -- \
  --from-results "$out/night" --bench "$bin/kgen-bench" \
  --banner "SYNTHETIC recorded run (make-perf-runs.py)" \
  | sed -E 's/job [0-9]+/job ID/; s/of [0-9 ]+\)/of IDS)/'
wait_until 120 test -f "$out/nightly/summary-exit-code"
grep '^## ' "$out/nightly/summary.md"
echo "summary exit $(cat "$out/nightly/summary-exit-code")"
