#!/usr/bin/env python3
"""soak_outputs.py --trainer EXE --data DIR [--runs N] [--seed S] ...

A soak of repeated trainer runs under disk and memory pressure (issue 33):
every run writes all its outputs (--checkpoint every epoch, --save,
--metrics, --predict) onto a small tmpfs, mounted in a private mount
namespace, that a filler file leaves a random amount of free space on, from
a memory cgroup (v1 memory.limit_in_bytes or v2 memory.max, a child of this
process's own; needs root) whose limit is drawn per run; half the runs
resume from the previous run's checkpoint, and a run is left alone, or
sent SIGKILL or SIGTERM at a random time. After every run each output is
checked: absent, or whole (a safetensors file whose header parses and whose
tensors end at the file's end; a metrics file of complete JSON lines; a
predictions file of `node,prediction` rows, one per node). The temporaries
(`<output>.tmp`) are allowed only after a SIGKILL (our own or the cgroup's
OOM killer), and must be gone, or be the same SIGKILL's, after every other
run. A run that fails must say why (`error: ...`, or a usage error such as
resuming a finished checkpoint). Prints one line per run and a summary; exits 1 on any violation.

Not a timed test: a bench script (bench/README.md). Example:
  gnnc examples/gcn_cora.gnn -o /tmp/gcn
  sudo python3 bench/soak_outputs.py --trainer /tmp/gcn \\
      --data examples/data/cora --runs 40
"""
import argparse
import json
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import time

OUTPUTS = {
    "checkpoint": "ck.safetensors",
    "save": "model.safetensors",
    "metrics": "m.jsonl",
    "predict": "pred.csv",
}


def safetensors_problem(path):
    data = open(path, "rb").read()
    if len(data) < 8:
        return "shorter than its 8-byte header length"
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        return "header runs past the end of the file"
    try:
        header = json.loads(data[8:8 + n])
    except ValueError as e:
        return "header is not JSON (%s)" % e
    end = 0
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        end = max(end, entry["data_offsets"][1])
    if 8 + n + end != len(data):
        return "tensors end at %d, the file at %d" % (8 + n + end, len(data))
    return None


def metrics_problem(path):
    text = open(path, "rb").read().decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        return "the last line is not complete"
    for k, line in enumerate(text.splitlines()):
        try:
            json.loads(line)
        except ValueError:
            return "line %d is not JSON: %r" % (k + 1, line[:60])
    return None


def predictions_problem(path, nodes):
    lines = open(path).read().split("\n")
    if lines[-1] != "":
        return "the last row is not complete"
    if lines[0] != "node,prediction":
        return "header %r" % lines[0]
    rows = lines[1:-1]
    if nodes and len(rows) != nodes:
        return "%d rows for %d nodes" % (len(rows), nodes)
    for row in rows:
        if len(row.split(",")) != 2:
            return "row %r" % row
    return None


def make_cgroup(tag):
    """A memory cgroup under this process's own; returns (dir, limit file)."""
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        own = [l.split(":")[2] for l in open("/proc/self/cgroup")
               if l.startswith("0:")][0].strip()
        parent, limit = "/sys/fs/cgroup" + own, "memory.max"
    else:
        own = [l.split(":")[2] for l in open("/proc/self/cgroup")
               if l.split(":")[1] == "memory"][0].strip()
        parent, limit = "/sys/fs/cgroup/memory" + own, "memory.limit_in_bytes"
    path = os.path.join(parent, "gnnc-soak-%d-%s" % (os.getpid(), tag))
    os.mkdir(path)
    return path, os.path.join(path, limit)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--trainer", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--nodes", type=int, default=0,
                   help="rows a predictions file must have (0: unchecked)")
    p.add_argument("--runs", type=int, default=40)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--epochs", type=int, default=150,
                   help="a run trains this many to twice as many epochs")
    p.add_argument("--tmpfs-kib", type=int, default=2048)
    p.add_argument("--memory-mib", default="none,400,60,30,20",
                   help="the limits a run draws from (none: no limit)")
    p.add_argument("--kill-within", type=float, default=2.0,
                   help="a kill comes within this many seconds")
    p.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()

    if not args.in_namespace:
        # The tmpfs is mounted in a private mount namespace: nothing to
        # unmount afterwards, whatever ends this script.
        os.execvp("unshare", ["unshare", "-m", sys.executable] + sys.argv
                  + ["--in-namespace"])

    trainer = os.path.abspath(args.trainer)
    data = os.path.abspath(args.data)
    rng = random.Random(args.seed)
    out = tempfile.mkdtemp(prefix="gnnc-soak-")
    subprocess.check_call(["mount", "-t", "tmpfs", "-o",
                           "size=%dk" % args.tmpfs_kib, "tmpfs", out])
    cgroup, limit_file = make_cgroup("runs")
    limits = [None if m == "none" else int(m) for m in
              args.memory_mib.split(",")]
    paths = {k: os.path.join(out, v) for k, v in OUTPUTS.items()}
    filler = os.path.join(out, "filler")
    tally, violations = {}, []
    killed_temps = set()  # the temporaries a SIGKILL may have left
    start = time.time()
    for run in range(args.runs):
        # Disk pressure: leave 0 to 100% of the tmpfs free.
        if os.path.exists(filler):
            os.remove(filler)
        st = os.statvfs(out)
        free = st.f_bavail * st.f_frsize
        with open(filler, "wb") as f:
            f.write(b"\0" * int(free * rng.random()))
        limit = rng.choice(limits)
        with open(limit_file, "w") as f:
            f.write(str(limit << 20) if limit else "max" if
                    limit_file.endswith("memory.max") else "-1")
        action = rng.choice(["none", "kill", "term"])
        resume = os.path.exists(paths["checkpoint"]) and rng.random() < 0.5
        epochs = rng.randint(args.epochs, 2 * args.epochs)
        cmd = [trainer, "--data", data, "--epochs", str(epochs),
               "--threads", "1", "--checkpoint-every", "1",
               "--checkpoint", paths["checkpoint"], "--save", paths["save"],
               "--metrics", paths["metrics"], "--predict", paths["predict"]]
        if resume:
            cmd += ["--resume", paths["checkpoint"]]
        procs = os.path.join(cgroup, "cgroup.procs")

        def enter_cgroup():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=out,
                                preexec_fn=enter_cgroup)
        sent = None
        if action != "none":
            try:
                proc.wait(timeout=rng.uniform(0, args.kill_within))
            except subprocess.TimeoutExpired:
                sent = signal.SIGKILL if action == "kill" else signal.SIGTERM
                proc.send_signal(sent)
        err = proc.communicate()[1].decode(errors="replace")
        rc = proc.returncode
        if rc == 0:
            outcome = "exit 0"
        elif rc > 0:
            outcome = "exit %d" % rc
        elif -rc == signal.SIGKILL:
            outcome = "SIGKILL" if sent == signal.SIGKILL else "OOM-killed"
        else:
            outcome = "signal %d" % -rc
        tally[outcome] = tally.get(outcome, 0) + 1

        problems = []
        # An error says so (exit 1: "error: ..."; exit 2, a usage error such
        # as resuming a finished checkpoint: the program's name and why).
        if rc > 0 and not err.startswith(os.path.basename(trainer) + ": "):
            problems.append("exit %d without a message: %r" % (rc, err))
        for key, path in paths.items():
            if not os.path.exists(path):
                continue
            if key in ("checkpoint", "save"):
                problem = safetensors_problem(path)
            elif key == "metrics":
                problem = metrics_problem(path)
            else:
                problem = predictions_problem(path, args.nodes)
            if problem:
                problems.append("%s torn: %s" % (OUTPUTS[key], problem))
        temps = {f for f in os.listdir(out) if ".tmp" in f or
                 f.endswith(".partial")}
        if rc == -signal.SIGKILL:
            killed_temps |= temps
        else:
            stray = temps - killed_temps
            if stray:
                problems.append("temporaries left: %s" % sorted(stray))
            killed_temps &= temps
        violations += ["run %d: %s" % (run, q) for q in problems]
        print("run %2d  limit %-5s  %-7s %s  -> %-10s %s" % (
            run, "%dM" % limit if limit else "none", action,
            "resume" if resume else "fresh ", outcome,
            "; ".join(problems) or "outputs whole" +
            (" (%s)" % err.strip().splitlines()[0][:90]
             if rc > 0 and err.strip() else "")), flush=True)
    try:
        os.rmdir(cgroup)
    except OSError:
        pass  # a process still in it: the kernel frees it when it ends
    subprocess.call(["umount", out])
    os.rmdir(out)
    print("soak: %d runs in %.0f s: %s; %d violations" % (
        args.runs, time.time() - start,
        ", ".join("%s %d" % kv for kv in sorted(tally.items())),
        len(violations)))
    for v in violations:
        print("  " + v)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
