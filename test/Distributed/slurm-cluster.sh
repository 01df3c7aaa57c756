#!/usr/bin/env bash
# Runs COMMAND inside a single-node Slurm that lives only for this call:
#
#   slurm-cluster.sh DIR COMMAND...
#
# slurmctld and slurmd start from a slurm.conf generated in DIR (state,
# spool, temporary files, logs and pid files there too, ports picked at
# random so concurrent runs do not meet), COMMAND runs with SLURM_CONF
# pointing at it, and both daemons are stopped afterwards, whatever COMMAND
# did. Authentication is auth/none: the cluster is one machine and one
# user, and needs no munged.
# Exits 77 with a message on stdout when this machine cannot run Slurm
# (no slurmctld/slurmd/srun, or the node never comes up).
set -u
dir=$1
shift
for tool in slurmctld slurmd srun sinfo; do
  if ! command -v "$tool" > /dev/null; then
    echo "slurm-cluster: skipped: $tool is not installed (Debian: slurm-wlm)"
    exit 77
  fi
done
rm -rf "$dir" && mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
node=$(hostname -s)
cpus=$(nproc)
port=$((20000 + RANDOM % 20000))
user=$(id -un)
cat > "$dir/slurm.conf" <<CONF
ClusterName=gnnctest
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# PMIx's per-step directories (spmix_appdir_<uid>_<job>.<step>) go under
# TmpFS: every test cluster numbers its jobs from 1, so in a shared /tmp two
# clusters at once would both need spmix_appdir_0_1.0, and the second
# step's launch fails.
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$dir/slurm.conf

ctld=
slurmd_pid=
stop() {
  [ -n "$slurmd_pid" ] && kill "$slurmd_pid" 2> /dev/null
  [ -n "$ctld" ] && kill "$ctld" 2> /dev/null
  wait 2> /dev/null
}
trap stop EXIT
slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
ctld=$!
slurmd -D -f "$SLURM_CONF" > "$dir/slurmd.out" 2>&1 &
slurmd_pid=$!
# The node is up when sinfo shows it idle: within 60 s (it once took over
# the 20 s this used to allow while the suite's other worker was busy).
for _ in $(seq 300); do
  state=$(sinfo -h -n "$node" -o %t 2> /dev/null)
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" != idle ]; then
  echo "slurm-cluster: skipped: the node did not come up (state '$state'; see $dir/*.log)"
  exit 77
fi
"$@"
