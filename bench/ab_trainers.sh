#!/usr/bin/env bash
# bench/ab_trainers.sh - A/B of two trainers of the same program on a shared
# machine: runs A and B in turn ROUNDS times on DATA and prints, per run, the
# medians over epochs 2..EPOCHS of epoch_seconds and epoch_cpu_seconds (the
# process's CPU time, which other engineers' work on the same cores inflates
# less than the wall clock), the peak RSS and the last loss, each with the
# load average when the run started.
#
#   bench/ab_trainers.sh OLD_TRAINER NEW_TRAINER DATA
#
# Settings from the environment: THREADS (1), EPOCHS (6), ROUNDS (3), and
# ARGS (more trainer options, e.g. "--node-order original").
set -euo pipefail
NAME=ab_trainers
(($# == 3)) || { echo "usage: $0 OLD_TRAINER NEW_TRAINER DATA" >&2; exit 2; }
A="$1" B="$2" DATA="$3"
THREADS="${THREADS:-1}" EPOCHS="${EPOCHS:-6}" ROUNDS="${ROUNDS:-3}"
PY="${PYTHON:-python3}"
[[ -x "$A" && -x "$B" ]] || { echo "$NAME: both trainers must be executables" >&2; exit 1; }
[[ -d "$DATA" ]] || { echo "$NAME: no dataset directory $DATA" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

for round in $(seq "$ROUNDS"); do
  for side in A B; do
    trainer="$A"; [[ "$side" == B ]] && trainer="$B"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    # shellcheck disable=SC2086
    /usr/bin/time -f "%M" -o "$WORK/rss" "$trainer" --data "$DATA" \
      --epochs "$EPOCHS" --threads "$THREADS" --metrics "$WORK/m.jsonl" \
      ${ARGS:-} > "$WORK/out" 2>&1 ||
      { echo "$NAME: $trainer failed:" >&2; tail -5 "$WORK/out" >&2; exit 1; }
    "$PY" - "$WORK/m.jsonl" "$WORK/rss" "$side" "$round" "$load" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
wall = [r["epoch_seconds"] for r in rows if "epoch_seconds" in r][1:]
cpu = [r["epoch_cpu_seconds"] for r in rows if "epoch_cpu_seconds" in r][1:]
rss_kib = int(open(sys.argv[2]).read().split()[-1])
print(f"round {sys.argv[4]} {sys.argv[3]}: load {sys.argv[5]} epoch "
      f"{statistics.median(wall):.4f} s cpu {statistics.median(cpu):.4f} s "
      f"peak RSS {rss_kib / 1024:.0f} MiB loss {rows[-1].get('loss')}")
PY
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
