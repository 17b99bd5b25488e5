#!/usr/bin/env bash
# slurm-local.test's driver: starts a cluster with slurm-local.sh in OUT/c,
# runs an array, a job depending on it and a cancelled array task in OUT/work,
# prints what it saw (job ids replaced by names), and stops the cluster on
# every exit, a failed one too. Exits 1 on any failure or timeout.
# Usage: slurm-local-jobs.sh SLURM_LOCAL_SH OUT
set -euo pipefail
slurm_local=$1
out=$2
cluster=$out/c

finish() {
  local rc=$?
  trap - EXIT
  bash "$slurm_local" stop "$cluster" || rc=1
  [[ $rc -eq 0 ]] || echo "slurm-local-jobs.sh: failed (exit $rc)" >&2
  exit "$rc"
}
trap finish EXIT
trap 'exit 143' TERM INT HUP

t0=$SECONDS
bash "$slurm_local" start "$cluster"
echo "start took $((SECONDS - t0)) s" >&2
# shellcheck disable=SC1091
source "$cluster/env"
mkdir -p "$out/work"
cd "$out/work"

# Polls until squeue reports what command $2.. prints (one word) as $1, for
# at most 30 s.
wait_for() {
  local want=$1 got i
  shift
  for ((i = 0; i < 300; i++)); do
    got=$("$@" 2>/dev/null || true)
    [[ $got == "$want" ]] && return 0
    sleep 0.1
  done
  echo "timeout: '$*' printed '$got', not '$want'" >&2
  squeue -t all >&2 || true
  exit 1
}
# Jobs (or tasks) of $1 not yet finished: pending, running, completing.
unfinished() { squeue -h -j "$1" -t PD,R,CG,S -o %i | wc -l; }
running() { squeue -h -j "$1" -t R -o %i | wc -l; }

echo "node: $(sinfo -h -o '%P %D %T %G')"

# Three tasks of one GPU each on a node of two: tasks 0 and 1 run together,
# each waiting (up to 20 s) until the other has started, task 2 after them.
cat >task.sh <<'EOF'
#!/bin/bash
i=$SLURM_ARRAY_TASK_ID
touch "started.$i"
for ((n = 0; n < 200; n++)); do
  [[ $(ls started.* | wc -l) -ge 2 ]] && break
  sleep 0.1
done
echo "task $i gpus=$CUDA_VISIBLE_DEVICES started=$(ls started.* | wc -l)" >"out.$i"
sleep 2
EOF
array=$(sbatch --parsable --array=0-2 --gres=gpu:1 task.sh)
dep=$(sbatch --parsable --dependency="afterany:$array" --wrap 'cat out.0 out.1 out.2 > all.txt')
echo "array $array, dependent $dep"
wait_for 0 unfinished "$dep"
squeue -h -t all -j "$array" -o 'array task %K %T' | sort
squeue -h -t all -j "$dep" -o 'dependent %T %r'
echo "GPUs of tasks 0 and 1: $(sed -n 's/.*gpus=\([^ ]*\).*/\1/p' out.0 out.1 | sort | tr '\n' ' ')"
grep -c "ArrayJobId=$array .*ExitCode=0:0" "$cluster/jobcomp.log" |
  sed 's/^/jobcomp: completed array tasks: /'
grep "^JobId=$dep " "$cluster/jobcomp.log" | grep -o 'JobState=[A-Z]*' |
  sed 's/^/jobcomp: dependent /'

# scancel ARRAY_TASK stops that task only.
long=$(sbatch --parsable --array=0-1 --wrap 'sleep 300')
wait_for 2 running "$long"
scancel "${long}_1"
wait_for 0 unfinished "${long}_1"
squeue -h -t all -j "$long" -o 'long task %K %T' | sort
grep "ArrayJobId=$long ArrayTaskId=1 " "$cluster/jobcomp.log" | grep -o 'JobState=[A-Z]*' |
  sed 's/^/jobcomp: long task 1 /'

# stop cancels the running task 0 and leaves nothing.
t0=$SECONDS
trap - EXIT
bash "$slurm_local" stop "$cluster"
echo "stop took $((SECONDS - t0)) s" >&2
grep "ArrayJobId=$long ArrayTaskId=0 " "$cluster/jobcomp.log" | grep -o 'JobState=[A-Z]*' |
  sed 's/^/jobcomp: long task 0 /'
echo stopped
