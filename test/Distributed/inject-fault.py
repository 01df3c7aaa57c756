"""Injects a fault into a running job and times how every rank and the
launcher end:

  inject-fault.py PIDDIR METRICS EPOCHS LIMIT FAULT -- COMMAND...

COMMAND starts the ranks, each writing its pid to PIDDIR/pid.<rank> before
it execs the trainer. Once METRICS (rank 0's --metrics file) shows EPOCHS
epochs, the shell command FAULT runs: `kill -STOP $(cat PIDDIR/pid.1)` (a
hung rank), `ip link set host2 down` (a cut link, netns-cluster.sh).
Prints, for each rank and for the launcher, whether it exited within LIMIT
seconds of the fault (the launcher with its status), then kills whatever is
left and reports it, so that the test never leaves a process behind. The
measured times go to stderr.
"""
import os
import signal
import subprocess
import sys
import time

piddir, metrics, epochs, limit, fault = sys.argv[1:6]
epochs, limit = int(epochs), float(limit)
command = sys.argv[sys.argv.index("--") + 1:]
launcher = subprocess.Popen(command)


def pids():
    found = {}
    for name in os.listdir(piddir):
        if name.startswith("pid."):
            with open(os.path.join(piddir, name)) as f:
                text = f.read().strip()
            if text:
                found[int(name[4:])] = int(text)
    return found


def alive(pid):
    """Running or stopped, not a zombie waiting for its parent."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def epochs_done():
    try:
        with open(metrics) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


deadline = time.monotonic() + 120
while launcher.poll() is None and time.monotonic() < deadline:
    if epochs_done() >= epochs:
        break
    time.sleep(0.02)
if launcher.poll() is not None or epochs_done() < epochs:
    print("training never reached the fault (or ended before it)")
    launcher.kill()
    sys.exit(1)
ranks = pids()
if subprocess.run(fault, shell=True).returncode != 0:
    print(f"the fault failed: {fault}")
    launcher.kill()
    sys.exit(1)
start = time.monotonic()
print(f"fault after {epochs} epochs: {fault}")

exited = {}
status = None
while time.monotonic() - start < limit:
    now = time.monotonic() - start
    for rank, pid in ranks.items():
        if rank not in exited and not alive(pid):
            exited[rank] = now
    if status is None and launcher.poll() is not None:
        status, launcher_took = launcher.returncode, now
    if status is not None and len(exited) == len(ranks):
        break
    time.sleep(0.05)
for rank in sorted(ranks):
    if rank in exited:
        print(f"rank {rank} exited within {limit:g} s")
        print(f"rank {rank} exited {exited[rank]:.1f} s after the fault",
              file=sys.stderr)
    else:
        print(f"rank {rank} was still running {limit:g} s later")
if status is not None:
    print(f"the launcher exited with status {status} within {limit:g} s")
    print(f"the launcher exited {launcher_took:.1f} s after the fault",
          file=sys.stderr)
else:
    print(f"the launcher was still running {limit:g} s later")
    launcher.kill()
    launcher.wait()
# Cleanup, whatever happened.
left = sorted(r for r, pid in ranks.items() if alive(pid))
for rank in left:
    try:
        os.kill(ranks[rank], signal.SIGKILL)
    except OSError:
        pass
print("ranks left running: " + (", ".join(map(str, left)) if left else "none"))
