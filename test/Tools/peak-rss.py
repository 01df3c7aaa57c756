"""Runs a command and checks the peak resident set of its process.

usage: peak-rss.py below|above SIZE_MIB COMMAND [ARG...]
Passes the command's output through, then prints the peak in MiB
(getrusage of the child: its VmHWM) and the verdict; exits 1 if the command
fails or the peak is not below (or above) SIZE_MIB.
"""
import resource
import subprocess
import sys

relation, limit, command = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
rc = subprocess.run(command).returncode
sys.stdout.flush()
if rc != 0:
    print(f"command exited {rc}")
    sys.exit(1)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
ok = peak < limit if relation == "below" else peak > limit
print(f"peak RSS {peak:.0f} MiB, {relation} {limit:.0f} MiB: {'OK' if ok else 'NO'}")
sys.exit(0 if ok else 1)
