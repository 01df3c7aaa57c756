"""Checks an early-stopped run against its own per-epoch validation metrics:
the best epoch is the first with the lowest valid_loss (or highest
valid_acc) so far, and the run must stop after the first epoch e with
e - best >= PATIENCE (or run all EPOCHS). The trainer's output must report
the best epoch's weights: its `final:` line names the best epoch and the
test accuracy that epoch's metrics line recorded.

usage: check-early-stopping.py METRICS.jsonl OUTPUT PATIENCE MONITOR EPOCHS
Prints the stop and best epochs; exits 1 on a mismatch.
"""
import json
import re
import sys

metrics, output, patience, monitor, epochs = sys.argv[1], sys.argv[2], \
    int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
records = [json.loads(line) for line in open(metrics) if line.strip()]
lower = monitor == "valid_loss"

best, stop = None, epochs
for r in records:
    if monitor not in r:
        continue  # not an evaluated epoch
    value = r[monitor]
    if best is None or (value < best[monitor] if lower else
                        value > best[monitor]):
        best = r
    if r["epoch"] - best["epoch"] >= patience:
        stop = r["epoch"]
        break

failed = False
if records[-1]["epoch"] != stop or len(records) != stop:
    print(f"the run trained {len(records)} epochs, to epoch "
          f"{records[-1]['epoch']}; expected it to stop after epoch {stop}")
    failed = True
final = re.search(r"^final: epoch (\d+) .* test_acc (\S+)$",
                  open(output).read(), re.M)
want = "%.4f" % best["test_acc"]
if not final or int(final.group(1)) != best["epoch"] or \
        final.group(2) != want:
    print(f"expected 'final: epoch {best['epoch']} ... test_acc {want}', got "
          f"{final.group(0) if final else 'no final line'}")
    failed = True
print(f"stopped after epoch {stop}, best epoch {best['epoch']} by {monitor}, "
      f"test_acc {want}: {'WRONG' if failed else 'OK'}")
sys.exit(1 if failed else 0)
