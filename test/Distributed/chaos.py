"""chaos.py [--faults N] [--seed S] [--ranks R] [--final-fault CMD]
           --trainer NAME --checkpoint FILE -- COMMAND...

Runs COMMAND (a gnn-run command line) and, while it runs, injects N faults
into the ranks of its trainer: each fault waits until a (re)started run has
written its checkpoint FILE once (so that every run trains), then for a
random 0 to 0.8 s, then sends SIGKILL or SIGSTOP (alternating,
starting with SIGKILL) to one of the ranks chosen at random, and waits for
the restart (new rank processes) before the next. The ranks are the
processes whose argv[0] is NAME and whose working directory is this one.
With --final-fault, the last fault is the shell command CMD instead (say
`ip link set host2 down`: a host lost for good, netns-cluster.sh), after
which the job may go on with fewer ranks.
Prints one line per fault, then `chaos: N faults (K SIGKILL, S SIGSTOP),
exit E, wall W s`, and exits with COMMAND's status.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time


def ranks(trainer, cwd):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv0 = f.read().split(b"\0")[0].decode(errors="replace")
            if argv0 == trainer and os.readlink("/proc/%s/cwd" % pid) == cwd:
                found.append(int(pid))
        except OSError:
            pass
    return sorted(found)


def mtime(path):
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--faults", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--trainer", required=True)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--final-fault", metavar="CMD")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    rng = random.Random(args.seed)
    cwd = os.getcwd()
    started = time.monotonic()
    run = subprocess.Popen(command)
    kinds = {signal.SIGKILL: 0, signal.SIGSTOP: 0}
    commands = 0
    previous = []
    for fault in range(args.faults):
        kind = signal.SIGKILL if fault % 2 == 0 else signal.SIGSTOP
        # The next run's ranks, all of them up and none of the last run's.
        while run.poll() is None:
            now = ranks(args.trainer, cwd)
            if len(now) == args.ranks and not set(now) & set(previous):
                break
            time.sleep(0.02)
        if run.poll() is not None:
            break
        written = mtime(args.checkpoint)
        while run.poll() is None and mtime(args.checkpoint) == written:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.8))
        now = ranks(args.trainer, cwd)
        if not now or run.poll() is not None:
            break
        if args.final_fault and fault == args.faults - 1:
            subprocess.run(args.final_fault, shell=True, check=True)
            commands += 1
            print("chaos: fault %d: %s" % (fault + 1, args.final_fault),
                  flush=True)
            break
        victim = rng.choice(now)
        os.kill(victim, kind)
        kinds[kind] += 1
        print("chaos: fault %d: %s to rank process %d" %
              (fault + 1, signal.Signals(kind).name, victim), flush=True)
        previous = now
    status = run.wait(timeout=600)
    print("chaos: %d faults (%d SIGKILL, %d SIGSTOP%s), exit %d, wall %.1f s" %
          (sum(kinds.values()) + commands, kinds[signal.SIGKILL],
           kinds[signal.SIGSTOP], ", 1 command" if commands else "",
           status, time.monotonic() - started), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
