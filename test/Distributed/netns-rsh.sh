#!/bin/sh
# Open MPI's remote-shell agent for the hosts netns-cluster.sh builds
# (--mca plm_rsh_agent, as ssh would be):
#
#   netns-rsh.sh HOST COMMAND...
#
# HOST is a host's address (10.77.0.N): COMMAND runs in network namespace
# ${GNNC_NETNS_PREFIX}hostN, in a UTS namespace of its own whose hostname is
# hostN, so each host has its own interfaces, addresses and name. Like ssh,
# it hands COMMAND to a shell as one line.
host=$1
shift
n=${host##*.}
exec ip netns exec "${GNNC_NETNS_PREFIX}host$n" \
  unshare --uts sh -c "hostname host$n && $*"
