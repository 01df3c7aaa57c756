#!/usr/bin/env bash
# Runs COMMAND on a cluster of HOSTS machines built on this one, each a
# network namespace with its own interface, address and hostname:
#
#   netns-cluster.sh DIR HOSTS COMMAND...
#
# host1..hostN (10.77.0.1..N/24) hang off a bridge in a head namespace
# (10.77.0.254), where COMMAND runs: `mpirun --hostfile DIR/hostfile -np N`
# then starts one rank per host through netns-rsh.sh (Open MPI's
# plm_rsh_agent, in place of ssh) and the ranks talk over TCP on 10.77.0.0/24
# only, so a link cut from the head (`ip link set host2 down`: the bridge's
# port to host2) is a cable pulled: no error, no reset, only silence. The
# settings go to Open MPI as OMPI_MCA_* variables.
#
# mpirun, told by the surviving ranks to abort the job, tells every daemon
# to kill its ranks and waits until each has answered or its connection has
# failed: with Linux's default of 15 retransmissions, a lost host's
# connection fails after about 15 minutes. In the head namespace the limit is
# 4 (about 6 s), so that mpirun ends soon after the surviving ranks.
#
# The namespaces, and every process still in them, are removed on exit, on
# SIGTERM/SIGINT too; namespaces left by a run that was killed outright
# (gnnc-PID-*, PID gone) are removed first. Exits 77 with a message on stdout
# where this machine cannot build them (no `ip` or `unshare`, or no
# CAP_NET_ADMIN).
set -u
dir=$1
hosts=$2
shift 2
for tool in ip unshare; do
  if ! command -v "$tool" > /dev/null; then
    echo "netns-cluster: skipped: $tool is not installed (Debian: iproute2, util-linux)"
    exit 77
  fi
done

# Leftovers of killed runs.
for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep '^gnnc-[0-9]*-'); do
  pid=${ns#gnnc-}
  pid=${pid%%-*}
  [ -d "/proc/$pid" ] || ip netns delete "$ns" 2> /dev/null
done

prefix=gnnc-$$-
head=${prefix}head
made=()
remove() {
  trap - EXIT TERM INT HUP
  local ns pids
  for ns in "${made[@]}"; do
    pids=$(ip netns pids "$ns" 2> /dev/null)
    [ -n "$pids" ] && kill -KILL $pids 2> /dev/null
  done
  for ns in "${made[@]}"; do
    ip netns delete "$ns" 2> /dev/null
  done
}
trap remove EXIT
trap 'remove; exit 143' TERM INT HUP

if ! error=$(ip netns add "$head" 2>&1); then
  echo "netns-cluster: skipped: cannot create a network namespace (needs root or CAP_NET_ADMIN): $error"
  exit 77
fi
made+=("$head")
set -e
ip -n "$head" link set lo up
ip -n "$head" link add br0 type bridge
ip -n "$head" addr add 10.77.0.254/24 dev br0
ip -n "$head" link set br0 up
# mpirun's connections give up on a silent peer after 4 retransmissions.
ip netns exec "$head" sh -c "echo 4 > /proc/sys/net/ipv4/tcp_retries2"
rm -rf "$dir" && mkdir -p "$dir"
for n in $(seq "$hosts"); do
  ns=${prefix}host$n
  ip netns add "$ns"
  made+=("$ns")
  ip -n "$ns" link set lo up
  ip -n "$ns" link add eth0 type veth peer name "host$n" netns "$head"
  ip -n "$ns" addr add "10.77.0.$n/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$head" link set "host$n" master br0
  ip -n "$head" link set "host$n" up
  echo "10.77.0.$n slots=1" >> "$dir/hostfile"
done
set +e

export GNNC_NETNS_PREFIX=$prefix
export OMPI_MCA_plm_rsh_agent
OMPI_MCA_plm_rsh_agent=$(cd "$(dirname "$0")" && pwd)/netns-rsh.sh
export OMPI_MCA_plm_rsh_no_tree_spawn=1
export OMPI_MCA_btl=tcp,self
export OMPI_MCA_btl_tcp_if_include=10.77.0.0/24
export OMPI_MCA_oob_tcp_if_include=10.77.0.0/24
# In the background, so that a signal reaches the trap at once.
ip netns exec "$head" "$@" &
wait $!
