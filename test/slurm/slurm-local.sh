#!/usr/bin/env bash
# A real single-node Slurm cluster made of the caller's own processes, for
# tests (Debian 12's slurmctld, slurmd, slurm-client and munge: Slurm 22.05).
#
# Usage:
#   slurm-local.sh start DIR   start a cluster whose every file is under DIR
#   slurm-local.sh stop DIR    cancel its jobs and stop it; exits 0 when clean
#   source DIR/env             then sbatch, squeue, scancel, sinfo and
#                              scontrol talk to that cluster
#
# start guarantees, when it exits 0:
#   - DIR (which must not exist or be empty, and be at most about 70 bytes
#     long: unix socket paths) holds slurm.conf, gres.conf, an empty
#     plugstack.conf, its own munge key, socket, pid, seed and log
#     (DIR/munge), the controller's state (DIR/state), slurmd's spool
#     (DIR/spool), the fake GPUs (DIR/dev), the daemons' logs (DIR/log) and
#     DIR/env, which sets only SLURM_CONF;
#   - munged, slurmctld and slurmd run in the background as the caller, on
#     DIR's munge socket and on two ports derived from DIR that were free
#     (20000-32767, never 6817/6818), so clusters in other directories run
#     beside it; nothing of the system's Slurm or munge is used;
#   - one node, this host's short hostname, is idle in the default partition
#     `gpu` (cluster kgen-ci), with SLURM_LOCAL_CPUS CPUs (default 4; more
#     than the machine has is allowed, tasks are not bound) and
#     SLURM_LOCAL_GPUS fake GPUs (default 2): `--gres=gpu:N` is accepted and
#     each job gets CUDA_VISIBLE_DEVICES set to its GPUs' indices (the
#     devices are symlinks to /dev/null: no cluster for real GPU runs);
#   - memory is not a consumable resource (CR_Core), so 1-CPU jobs run at
#     once up to the CPUs (and the GPUs, for GPU jobs); arrays of up to
#     100000 tasks; scancel's SIGTERM is followed by SIGKILL after 5 s.
#   When start fails it prints the tail of the logs, stops what it started and
#   exits 1; the node must be idle within 60 s (it takes well under 1 s).
#
# stop guarantees: every job of the cluster is cancelled (while slurmd can
# still kill them), then slurmctld, slurmd and munged get SIGTERM and, after
# 10 s, SIGKILL, and so do this cluster's slurmstepd processes left behind and
# their descendants (a job's processes). It exits 0 when no process of the
# cluster is left, 1 naming them otherwise. It is idempotent, does nothing for
# a DIR without a running cluster, may be called from a trap after a failed
# start, and leaves DIR (logs, jobcomp.log) in place. Processes a job
# detached from its slurmstepd (double fork) are not found, as with Slurm's
# own proctrack/linuxproc. About 1 s, 6 s when a job ignores SIGTERM.
#
# Without slurmdbd there is no accounting: sacct does not work
# (AccountingStorageType=accounting_storage/none). Finished jobs stay in
# `squeue -t all` and scontrol for MinJobAge (300 s, Slurm's default). Their
# final state is appended to DIR/jobcomp.log (jobcomp/filetxt works in
# 22.05), one line per job or started array task, e.g. "JobId=4 ...
# JobState=FAILED ... ArrayJobId=1 ArrayTaskId=0 ... ExitCode=3:0" (JobId is
# the task's own id); array tasks cancelled while pending get no line of
# their own, only one for the array (JobId=ARRAY, no ArrayTaskId).
#
# Only tested as root (CI runs as root). No cgroups, no systemd: proctrack is
# linuxproc (processes found by parentage; proctrack/cgroup fails in a
# container without the freezer cgroup), task/none, no memory limits.
set -euo pipefail

prog=slurm-local.sh
usage() {
  echo "usage: $prog start DIR | $prog stop DIR" >&2
  exit 2
}
die() {
  echo "$prog: error: $*" >&2
  exit 1
}

[[ $# -eq 2 ]] || usage
cmd=$1
[[ $cmd == start || $cmd == stop ]] || usage
[[ -n $2 ]] || usage
dir=$(realpath -m -- "$2")
PATH=$PATH:/usr/sbin:/sbin
conf=$dir/slurm.conf
host=$(hostname -s)

# The pid in pid file $1 when that process is alive and its command line
# names DIR/ (a reused pid is not ours); nothing otherwise.
pid_of() {
  local pid
  [[ -r $1 ]] || return 0
  pid=$(tr -dc '0-9' <"$1")
  [[ -n $pid ]] && alive "$pid" || return 0
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/"; then
    echo "$pid"
  fi
}

# Whether process $1 exists and is not a zombie (a daemon's zombie waits for
# pid 1, which in a container may reap late or never).
alive() {
  local line
  { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
  line=${line##*) }
  [[ ${line%% *} != Z ]]
}

# Pids of this script and its ancestors: never signalled.
ancestors() {
  local p=$$
  while [[ $p -gt 1 ]]; do
    echo "$p"
    p=$(awk '{ sub(/.*\) /, ""); print $2 }' "/proc/$p/stat" 2>/dev/null || echo 1)
  done
}

# Every process of this cluster that is still alive, never this script or
# its callers: the daemons of the pid files; any munged, slurmctld, slurmd or
# slurmstepd whose command line names DIR/ (a fixed string, not pgrep's
# regular expression), whose working directory is in DIR (slurmstepd's is
# DIR/log) or which has a file in DIR open (slurmstepd has slurmd's log); and
# all their descendants (a job's processes descend from its slurmstepd).
cluster_pids() {
  local self seeds p f comm cmdline
  self=" $(ancestors | tr '\n' ' ') "
  seeds=""
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [[ $self == *" $p "* ]] && continue
    alive "$p" || continue
    comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
    case $comm in
    munged | slurmctld | slurmd | slurmstepd) ;;
    *) continue ;;
    esac
    cmdline=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) || continue
    if [[ $cmdline == *"$dir/"* ]] ||
      [[ "$(readlink "/proc/$p/cwd" 2>/dev/null)/" == "$dir/"* ]] ||
      find "/proc/$p/fd" -mindepth 1 -maxdepth 1 -lname "$dir/*" 2>/dev/null | grep -q .; then
      seeds+=" $p"
    fi
  done
  for f in "$dir/slurmctld.pid" "$dir/slurmd.pid" "$dir/munge/munged.pid"; do
    p=$(pid_of "$f")
    [[ -n $p ]] && seeds+=" $p"
  done
  [[ -n $seeds ]] || return 0
  # Descendants: the closure over seeds of /proc/*/stat's parents, zombies
  # left out (the command name in parentheses may hold spaces; the state and
  # the ppid follow it).
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v seeds="$seeds" -v self="$self" '
    { pid = $1; sub(/.*\) /, ""); if ($1 != "Z") { parent[pid] = $2; pids[NR] = pid } }
    END {
      n = split(seeds, s, " ")
      for (i = 1; i <= n; i++) mine[s[i]] = 1
      do {
        grew = 0
        for (i in pids) {
          p = pids[i]
          if (!(p in mine) && (parent[p] in mine)) { mine[p] = 1; grew = 1 }
        }
      } while (grew)
      for (p in mine) if (index(self, " " p " ") == 0) print p
    }' | sort -n
}

# Sends SIGTERM to pids $@, waits up to 10 s for them, then SIGKILL.
terminate() {
  local p left i
  [[ $# -gt 0 ]] || return 0
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    left=""
    for p in "$@"; do
      alive "$p" && left+=" $p"
    done
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $left 2>/dev/null || true
  sleep 0.2
}

stop_cluster() {
  local ctld ids deadline left p
  [[ -d $dir ]] || return 0
  ctld=$(pid_of "$dir/slurmctld.pid")
  if [[ -n $ctld && -f $conf && -n $(pid_of "$dir/slurmd.pid") ]]; then
    # Cancel every job (pending ones too) while slurmd can still kill the
    # steps; wait for them to leave the queue (KillWait=5 s, then SIGKILL).
    # An array is cancelled by its array job id (%F): scancel of a task's own
    # job id (%A) is refused by 22.05's slurmctld, and scancel still exits 0.
    ids=$(SLURM_CONF=$conf timeout 10 squeue -h -o %F 2>/dev/null | sort -u) || true
    if [[ -n $ids ]]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$conf timeout 10 scancel $ids 2>/dev/null || true
      deadline=$((SECONDS + 15))
      while ((SECONDS < deadline)); do
        [[ -z $(SLURM_CONF=$conf timeout 5 squeue -h -o %A 2>/dev/null) ]] && break
        sleep 0.1
      done
    fi
  fi
  # slurmctld first, so it does not react to slurmd's going away.
  # shellcheck disable=SC2046
  terminate $(pid_of "$dir/slurmctld.pid")
  # shellcheck disable=SC2046
  terminate $(pid_of "$dir/slurmd.pid")
  # Steps slurmd left and their jobs' processes, then munged.
  # shellcheck disable=SC2046
  terminate $(cluster_pids | grep -vxF -- "$(pid_of "$dir/munge/munged.pid")" || true)
  # shellcheck disable=SC2046
  terminate $(pid_of "$dir/munge/munged.pid")
  left=$(cluster_pids)
  if [[ -n $left ]]; then
    echo "$prog: error: processes of the cluster in $dir are left:" >&2
    for p in $left; do
      echo "  $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" >&2
    done
    return 1
  fi
}

# A port pair base, base+1 in 20000-32767 (below Linux's ephemeral range),
# derived from DIR, with neither port bound by any socket.
port_bound() {
  local hex
  hex=$(printf ':%04X' "$1")
  awk -v p="$hex" 'NR > 1 && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
pick_ports() {
  local h base i
  h=$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
  for ((i = 0; i < 200; i++)); do
    base=$((20000 + ((h + 2 * i) % 12766) / 2 * 2))
    if ! port_bound "$base" && ! port_bound $((base + 1)); then
      echo "$base"
      return 0
    fi
  done
  die "no free port pair in 20000-32767"
}

show_logs() {
  local f
  for f in "$dir"/log/*.log; do
    [[ -f $f ]] || continue
    echo "--- tail of $f" >&2
    tail -n 20 "$f" >&2
  done
}

start_fail() {
  echo "$prog: error: $*" >&2
  show_logs
  stop_cluster || true
  exit 1
}

start_cluster() {
  local cpus gpus port mem_mb i state user t deadline
  # Unix socket paths hold at most 107 bytes: DIR/munge/munge.socket and
  # slurmstepd's DIR/spool/HOST_JOBID.STEPID (about 30 bytes after DIR).
  if ((${#dir} + ${#host} + 30 > 107)); then
    die "$dir is too long for the unix sockets in it (at most $((77 - ${#host})) bytes)"
  fi
  if [[ -e $dir ]] && [[ -n $(ls -A -- "$dir") ]]; then
    die "$dir exists and is not empty (stop it and remove it first)"
  fi
  for t in munged slurmctld slurmd sinfo; do
    command -v "$t" >/dev/null || die "$t is not installed (Debian: munge slurmctld slurmd slurm-client)"
  done
  cpus=${SLURM_LOCAL_CPUS:-4}
  gpus=${SLURM_LOCAL_GPUS:-2}
  [[ $cpus =~ ^[1-9][0-9]*$ && $gpus =~ ^[1-9][0-9]*$ ]] ||
    die "SLURM_LOCAL_CPUS and SLURM_LOCAL_GPUS must be positive integers"
  user=$(id -un)
  mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
  mkdir -p "$dir"/{munge,state,spool,log,dev}
  # munged wants its socket's directory searchable by all and refuses a key
  # readable by others.
  chmod 755 "$dir" "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
  chmod 400 "$dir/munge/munge.key"
  # Fake GPUs: gres/gpu drops GPUs without File= and refuses files that are
  # not devices, so each is a symlink to /dev/null.
  for ((i = 0; i < gpus; i++)); do
    ln -s /dev/null "$dir/dev/gpu$i"
  done
  port=$(pick_ports)

  cat >"$conf" <<EOF
# Written by slurm-local.sh start $dir
ClusterName=kgen-ci
# The node's address is given: no name resolution, no DNS SRV lookup.
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
# Clients read the munge socket from here: DIR/env needs only SLURM_CONF.
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# Not /etc/slurm/plugstack.conf (spank plugins) nor /bin/mail (absent).
PlugStackConfig=$dir/plugstack.conf
MailProg=/bin/true
# No cgroups: processes are tracked by parentage, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
# cons_tres's default, CR_Core_Memory, gives a job without --mem the whole
# node's memory: one job at a time. CR_Core shares the node by CPUs and GPUs.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
# More CPUs than the machine has (else the node is INVAL: Low CPUs).
SlurmdParameters=config_overrides
MaxArraySize=100000
MaxJobCount=200000
KillWait=5
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=$mem_mb Gres=gpu:$gpus State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  echo "NodeName=$host Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" >"$dir/gres.conf"
  : >"$dir/plugstack.conf"
  cat >"$dir/env" <<EOF
# Source this file to use the cluster of slurm-local.sh start $dir.
export SLURM_CONF=$conf
EOF

  munged --force --socket="$dir/munge/munge.socket" \
    --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed" --log-file="$dir/log/munged.log" \
    </dev/null >>"$dir/log/daemons.log" 2>&1 || start_fail "munged did not start"
  env SLURM_CONF="$conf" slurmctld -f "$conf" \
    </dev/null >>"$dir/log/daemons.log" 2>&1 || start_fail "slurmctld did not start"
  env SLURM_CONF="$conf" slurmd -f "$conf" -N "$host" \
    </dev/null >>"$dir/log/daemons.log" 2>&1 || start_fail "slurmd did not start"

  deadline=$((SECONDS + 60))
  for ((i = 1; SECONDS < deadline; i++)); do
    state=$(SLURM_CONF=$conf timeout 10 sinfo -h -n "$host" -o %T 2>/dev/null || true)
    case $state in
    idle) return 0 ;;
    # The node registered and was refused (a configuration slurmd contradicts).
    inval* | drain* | fail*) start_fail "node $host is $state: $(SLURM_CONF=$conf sinfo -h -n "$host" -o %E)" ;;
    esac
    # The daemons write their pid files once started (within a second).
    if ((i % 10 == 0)); then
      [[ -n $(pid_of "$dir/slurmctld.pid") ]] || start_fail "slurmctld exited"
      [[ -n $(pid_of "$dir/slurmd.pid") ]] || start_fail "slurmd exited"
    fi
    sleep 0.1
  done
  start_fail "node $host is not idle after 60 s (state: ${state:-none})"
}

case $cmd in
start) start_cluster ;;
stop) stop_cluster ;;
esac
