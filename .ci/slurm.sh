#!/usr/bin/env bash
# CI on a real Slurm: start a one-node cluster on this machine (munged, slurmctld, slurmd as
# root, a two-CPU node, no systemd, no cgroups), run `dptext slurm configs/ci.toml --shards 3
# --submit`, wait for the merge job and compare its results.csv byte for byte with
# results/baselines/ci/results.csv. Every daemon it starts is stopped (by the pid it recorded)
# and every file it made removed on exit, so it can be rerun. It installs Debian's slurm-wlm
# and munge with apt-get when they are missing. Usage: .ci/slurm.sh [DPTEXT_BINARY]
# Time: ~1 min with the packages installed and the data cached (apt-get adds ~1 min once).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "slurm CI: needs root (it starts munged, slurmctld and slurmd); skipping is not allowed: run it as root" >&2
  exit 1
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 || ! command -v sbatch >/dev/null 2>&1; then
  echo "== installing slurm-wlm and munge (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

tmp=$(mktemp -d /tmp/dptext-slurm-ci.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  status=$?
  for p in "${pids[@]}"; do
    [ -f "$p" ] || continue
    pid=$(cat "$p" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  # Give them a moment to exit, then make sure.
  for _ in $(seq 1 50); do
    alive=0
    for p in "${pids[@]}"; do
      pid=$(cat "$p" 2>/dev/null || true)
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
    done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do
    pid=$(cat "$p" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ]; then
    for f in "$tmp"/log/*.log "$tmp"/run/slurm/logs/*.out; do
      [ -f "$f" ] && { echo "---- $f"; tail -n 30 "$f"; }
    done
  fi
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
mkdir -p "$tmp"/{log,state,spool,munge,run}

dp=${1:-}
if [ -z "$dp" ]; then
  go build -o "$tmp/dptext" ./cmd/dptext
  dp="$tmp/dptext"
fi
dp=$(cd "$(dirname "$dp")" && pwd)/$(basename "$dp")

echo "== munge: a fresh key, munged on a private socket"
dd if=/dev/urandom bs=1 count=1024 of="$tmp/munge/munge.key" 2>/dev/null
chmod 700 "$tmp/munge"
chmod 400 "$tmp/munge/munge.key"
sock="$tmp/munge/munge.socket"
pids+=("$tmp/munge/munged.pid")
munged --force --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munge.seed"

host=$(hostname -s)
mem_mb=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# One node, this host, for CI: no cgroups, no accounting, everything in $tmp.
ClusterName=dptextci
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$host CPUs=2 RealMemory=$mem_mb State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

echo "== slurmctld and slurmd (node $host, 2 CPUs, ${mem_mb} MB)"
pids+=("$tmp/slurmctld.pid" "$tmp/slurmd.pid")
slurmctld -i
slurmd
for i in $(seq 1 60); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  [ "$i" = 60 ] && { echo "slurm CI: node $host not idle after 30 s (state: ${state:-none})"; exit 1; }
  sleep 0.5
done
sinfo

echo "== dptext slurm configs/ci.toml --shards 3 --submit"
out=$("$dp" slurm configs/ci.toml --shards 3 --cpus 1 --out "$tmp/run" --submit)
echo "$out"
merge=$(echo "$out" | awk '/^merge: / { print $2 }')
[ -n "$merge" ] || { echo "slurm CI: no merge job id in the output"; exit 1; }

echo "== waiting for merge job $merge (at most 10 min)"
deadline=$((SECONDS + 600))
while :; do
  state=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case "$state" in
    COMPLETED) break ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
      echo "slurm CI: merge job $merge ended $state"; exit 1 ;;
  esac
  if [ "$(scontrol show job "$merge" 2>/dev/null | grep -c 'DependencyNeverSatisfied')" -gt 0 ]; then
    echo "slurm CI: a shard failed (the merge's dependency can never be satisfied)"; exit 1
  fi
  [ "$SECONDS" -lt "$deadline" ] || { echo "slurm CI: merge job $merge not done after 10 min (state ${state:-unknown})"; exit 1; }
  sleep 1
done
cmp "$tmp/run/results.csv" "$repo/results/baselines/ci/results.csv"

echo "== the recovery step of docs/slurm.md: sbatch --array=1 shards.sbatch reruns shard 1 of 3, then the merge"
rm -f "$tmp/run/shards/1-of-3.json" "$tmp/run/results.csv"
sbatch --wait --array=1 --output="$tmp/run/slurm/logs/rerun-%a.out" "$tmp/run/slurm/shards.sbatch" >/dev/null
grep -q 'shard 1/3: ' "$tmp/run/slurm/logs/rerun-1.out" || { echo "slurm CI: the rerun of task 1 did not run shard 1/3:"; cat "$tmp/run/slurm/logs/rerun-1.out"; exit 1; }
grep -q '"status": "shard complete"' "$tmp/run/shards/1-of-3.json" || { echo "slurm CI: shard 1/3 did not complete on its rerun"; exit 1; }
sbatch --wait "$tmp/run/slurm/merge.sbatch" >/dev/null
cmp "$tmp/run/results.csv" "$repo/results/baselines/ci/results.csv"
waited=$(cat "$tmp"/run/slurm/logs/shard-*.out | grep -c 'another process is fetching or checking it' || true)
echo "shard tasks that waited for another's data fetch or check: $waited"
echo "slurm CI: the merged results.csv of 3 Slurm shards, and again after rerunning shard 1 alone, equals results/baselines/ci/results.csv"
