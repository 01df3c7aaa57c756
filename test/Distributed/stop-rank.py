"""Stops one rank of a running job with SIGSTOP (a hang, not a death) and
times how long the launcher takes to end:

  stop-rank.py PIDDIR RANK METRICS LIMIT -- COMMAND...

COMMAND starts the ranks, each writing its pid to PIDDIR/pid.<rank> before
it execs the trainer. Once METRICS (rank 0's --metrics file) shows three
epochs, rank RANK is stopped. Prints whether the launcher exited within
LIMIT seconds and with which status, then continues and kills the stopped
process (whatever happened) and reports any rank still running, so that
the test never leaves a process behind.
"""
import os
import signal
import subprocess
import sys
import time

piddir, rank, metrics, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
command = sys.argv[sys.argv.index("--") + 1:]
launcher = subprocess.Popen(command)


def pids():
    found = {}
    for name in os.listdir(piddir):
        if name.startswith("pid."):
            with open(os.path.join(piddir, name)) as f:
                text = f.read().strip()
            if text:
                found[name[4:]] = int(text)
    return found


def alive(pid):
    """Running or stopped, not a zombie waiting for its parent."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def epochs():
    try:
        with open(metrics) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


stopped = None
deadline = time.monotonic() + 120
while time.monotonic() < deadline and launcher.poll() is None:
    if rank in pids() and epochs() >= 3:
        stopped = pids()[rank]
        os.kill(stopped, signal.SIGSTOP)
        break
    time.sleep(0.05)
if stopped is None:
    print("training never started (or ended before the stop)")
    launcher.kill()
    sys.exit(1)
start = time.monotonic()
try:
    status = launcher.wait(timeout=limit)
    took = time.monotonic() - start
    print(f"stopped rank {rank}; the launcher exited with status {status} "
          f"within {limit:g} s")
    print(f"(it took {took:.1f} s)", file=sys.stderr)
except subprocess.TimeoutExpired:
    print(f"stopped rank {rank}; the launcher was still running {limit:g} s later")
    launcher.kill()
    launcher.wait()
# What the launcher left (Open MPI kills a stopped rank with SIGKILL).
time.sleep(0.5)
left = sorted(r for r, pid in pids().items() if alive(pid))
print("ranks left running: " + (", ".join(left) if left else "none"))
# Cleanup, whatever happened: the stopped process first, then the rest.
for pid in [stopped] + list(pids().values()):
    if alive(pid):
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
time.sleep(0.5)
if any(alive(pid) for pid in pids().values()):
    print("a rank survived SIGKILL")
