#!/usr/bin/env python3
"""Runs the ```sh blocks of a tutorial, in order, as one bash script.

  run-tutorial.py TUTORIAL.md --src SRC --gnnc BUILD/bin/gnnc --work DIR
                  [--epochs N] [--finally SCRIPT]

The tutorials are written for the repository root after `make build`; the
work directory stands in for it (`build/bin` is the folder of the gnnc given,
`examples` and `bench` link to the source tree's), so files the commands write stay out of the source tree. `--epochs N`
shortens every `--epochs M` with M > N, to keep tests fast. Prints each
block's stdout after a `### block K` line (stderr, the trainers' progress,
goes to DIR/stderr.txt) and exits with the script's status, naming the
block that failed. `--finally SCRIPT` runs in DIR after the blocks, also
when one failed (to stop daemons a page started).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tutorial")
    parser.add_argument("--src", required=True)
    parser.add_argument("--gnnc", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--finally", dest="cleanup")
    args = parser.parse_args()

    text = open(args.tutorial).read()
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    if not blocks:
        sys.exit("run-tutorial: %s has no ```sh blocks" % args.tutorial)
    if args.epochs:
        blocks = [re.sub(r"--epochs (\d+)",
                         lambda m: "--epochs %d" % min(int(m.group(1)),
                                                       args.epochs), b)
                  for b in blocks]
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.makedirs(os.path.join(args.work, "build"))
    os.symlink(os.path.dirname(os.path.abspath(args.gnnc)),
               os.path.join(args.work, "build", "bin"))
    for folder in ("examples", "bench"):
        os.symlink(os.path.join(os.path.abspath(args.src), folder),
                   os.path.join(args.work, folder))
    script = "".join(
        'echo "### block %d"\necho "### block %d" >&2\n%s' % (i, i, b)
        for i, b in enumerate(blocks, 1))
    # A subshell, so that a failing block still reaches the cleanup.
    script = "(\nset -eo pipefail\n%s)\nstatus=$?\n" % script
    if args.cleanup:
        script += "(%s) >&2\n" % args.cleanup
    script += "exit $status\n"
    with open(os.path.join(args.work, "stderr.txt"), "w") as err:
        try:
            proc = subprocess.run(["bash", "-c", script], cwd=args.work,
                                  stdout=subprocess.PIPE, stderr=err,
                                  text=True, timeout=300)
        except subprocess.TimeoutExpired:
            if args.cleanup:
                subprocess.run(["bash", "-c", args.cleanup], cwd=args.work,
                               stdout=err, stderr=err)
            raise
    sys.stdout.write(proc.stdout)
    if proc.returncode:
        ran = re.findall(r"^### block (\d+)$", proc.stdout, re.M)
        block = int(ran[-1]) if ran else 1
        print("run-tutorial: block %d failed (exit %d):\n%s" % (
            block, proc.returncode, blocks[block - 1]), file=sys.stderr)
        with open(os.path.join(args.work, "stderr.txt")) as err:
            sys.stderr.write(err.read()[-2000:])
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
