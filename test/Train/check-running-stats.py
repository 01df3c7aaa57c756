"""Checks batch_norm's running statistics against float64 (batch-norm-running.test).

  check-running-stats.py WEIGHTS.st DATA EPOCHS MOMENTUM PREDICTIONS.csv

The program normalizes the input features (the same rows every full-graph
step), so after E steps running_mean = (1 - (1 - m)^E) * mean(x) and
running_var = (1 - m)^E + (1 - (1 - m)^E) * var(x) (unbiased). Then the
trainer's predictions (--predict, made by evaluation) must be the argmax of
lin(normalized with the running statistics), and not all those of the
batch's statistics, which would be the wrong evaluation.
"""
import array
import csv
import gzip
import json
import math
import struct
import sys


def load_safetensors(path):
    blob = open(path, "rb").read()
    size = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        values = array.array("f")
        values.frombytes(blob[8 + size + begin:8 + size + end])
        tensors[name] = (list(values), entry["shape"])
    return tensors


weights, data, epochs, momentum, predictions = sys.argv[1:6]
epochs, momentum = int(epochs), float(momentum)
# Cora's features are sparse: keep each row's nonzero (column, value).
rows = []
with gzip.open(data + "/raw/node-feat.csv.gz", "rt") as f:
    for line in f:
        rows.append([(j, float(v)) for j, v in enumerate(line.split(","))
                     if float(v) != 0.0])
n = len(rows)
w = load_safetensors(weights)
features = len(w["norm.gamma"][0])
sums, squares = [0.0] * features, [0.0] * features
for row in rows:
    for j, v in row:
        sums[j] += v
        squares[j] += v * v
mean = [s / n for s in sums]
biased = [squares[j] / n - mean[j] ** 2 for j in range(features)]
unbiased = [b * n / (n - 1) for b in biased]
kept = (1 - momentum) ** epochs
for name, want in (("norm.running_mean", [(1 - kept) * m for m in mean]),
                   ("norm.running_var",
                    [kept + (1 - kept) * v for v in unbiased])):
    got = w[name][0]
    err = max(abs(g - e) / max(abs(e), 1e-3) for g, e in zip(got, want))
    print("%s max_rel_err %.1e %s" % (name, err, "ok" if err < 1e-5 else "BAD"))


def predict(mean, var):
    """argmax of lin(gamma * (x - mean) / sqrt(var + eps) + beta), row by row
    over the nonzeros: x_j * scale_j * W[j] plus a constant per class."""
    gamma, beta = w["norm.gamma"][0], w["norm.beta"][0]
    lw, (_, classes) = w["lin.w"][0], w["lin.w"][1]
    lb = w["lin.b"][0]
    scale = [gamma[j] / math.sqrt(var[j] + 1e-5) for j in range(features)]
    const = list(lb)
    for j in range(features):
        shift = beta[j] - mean[j] * scale[j]
        for k in range(classes):
            const[k] += shift * lw[j * classes + k]
    out = []
    for row in rows:
        logits = list(const)
        for j, v in row:
            for k in range(classes):
                logits[k] += v * scale[j] * lw[j * classes + k]
        out.append(max(range(classes), key=lambda k: logits[k]))
    return out


running = predict(w["norm.running_mean"][0], w["norm.running_var"][0])
batch = predict(mean, biased)
with open(predictions) as f:
    got = [int(r["prediction"]) for r in csv.DictReader(f)]
print("predictions: %d nodes, %d differ from the running statistics' model, "
      "%d from the batch statistics'" % (
          len(got), sum(g != r for g, r in zip(got, running)),
          sum(g != b for g, b in zip(got, batch))))
