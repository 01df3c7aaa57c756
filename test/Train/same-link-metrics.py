"""same-link-metrics.py EVAL_OUT METRICS_OUT

Checks that the test AUC and AP of a trainer's `eval:` (or `final:`) line
equal, to the 4 decimals it prints, those `gnn-data link-metrics` computed
from the pair scores of --predict --pairs. Prints what it compared; exits 1
on a difference.
"""
import re
import sys

line = next(l for l in open(sys.argv[1]) if l.startswith(("eval:", "final:")))
trainer = {k: float(v) for k, v in re.findall(r"test_(auc|ap) ([0-9.]+)", line)}
metrics = dict(l.split() for l in open(sys.argv[2]) if l.strip())
ours = {k: round(float(metrics[k]), 4) for k in ("auc", "ap")}
ok = all(abs(ours[k] - trainer[k]) < 1e-9 for k in ("auc", "ap"))
print("trainer test_auc %.4f test_ap %.4f, from the pair scores %.4f %.4f: %s"
      % (trainer["auc"], trainer["ap"], ours["auc"], ours["ap"],
         "OK" if ok else "DIFFERENT"))
sys.exit(0 if ok else 1)
