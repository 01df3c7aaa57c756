"""Filtered ranking of a knowledge graph's valid and test triples under a
DistMult checkpoint, in float64, independently of gnnrt: checks the
trainer's `final:` line (valid_mrr, test_mrr, test_hits@1/3/10).

usage: kg-ranking.py DATA_DIR CHECKPOINT TRAINER_OUTPUT [SCALE]
       kg-ranking.py DATA_DIR CHECKPOINT --scores QUERIES PREDICTIONS [SCALE]
       kg-ranking.py DATA_DIR CHECKPOINT --one-vs-all-loss TRAINER_OUTPUT [SCALE [PENALTY]]

The second form checks `--predict PREDICTIONS --pairs QUERIES` instead: one
row per query triple, in its order, by name, with the float64 score (within
1e-5) and its sigmoid. The third checks the loss of a one-epoch run's
final line (one step from the checkpoint: its loss before the update) against
the 1vsAll loss (`negatives = all`): the mean over the train triples, as
tail and as head queries, of -log softmax over every entity e of
score(h, r, e) at t (of score(e, r, t) at h), within 1e-5 relative; with
PENALTY (`n3:WEIGHT` or `l2:WEIGHT`, the program's `penalty`) plus WEIGHT
times the mean over those queries of sum |x|^3 (or x^2) over the three rows
the score multiplies, the scaled entity rows and the relation's.

Entity and relation ids follow KnowledgeGraph.h's documented order (first
appearance over train, valid, test; each line's head before its tail), so
row i of the learned entity table `inputs.entity` is entity i. The score of
(h, r, t) is sum_i e_h[i] * w_r[i] * e_t[i] (the relation table
`score.r`), e the entity rows times SCALE (1 by default; the program's
`score(g, x * SCALE)`). Each triple ranks its tail among all entities as (h, r, e) and
its head as (e, r, t), every other known true triple (train, valid, test)
removed; rank = 1 + #greater + #equal / 2; MRR and Hits@k average both
directions over the triples.
"""
import json
import re
import struct
import sys


def tensors(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        data = f.read()
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[begin:end]
        values = struct.unpack(f"<{len(raw) // 4}f", raw)
        out[name] = (entry["shape"], values)
    return out


def read_triples(path):
    with open(path) as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()]


data_dir, checkpoint = sys.argv[1:3]
scores_mode = sys.argv[3] == "--scores"
loss_mode = sys.argv[3] == "--one-vs-all-loss"
if loss_mode:
    output = sys.argv[4]
    scale = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
    norm, _, penalty_weight = (sys.argv[6] if len(sys.argv) > 6
                               else "n3:0").partition(":")
    penalty_power = {"n3": 3, "l2": 2}[norm]
    penalty_weight = float(penalty_weight)
elif scores_mode:
    queries_path, predictions_path = sys.argv[4:6]
    scale = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
else:
    output = sys.argv[3]
    scale = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
splits = {s: read_triples(f"{data_dir}/{s}.txt") for s in ("train", "valid", "test")}
entities, relations = {}, {}
for s in ("train", "valid", "test"):
    for h, r, t in splits[s]:
        entities.setdefault(h, len(entities))
        if r not in relations:
            relations[r] = len(relations)
        entities.setdefault(t, len(entities))
ids = {s: [(entities[h], relations[r], entities[t]) for h, r, t in splits[s]]
       for s in splits}
known = set(ids["train"]) | set(ids["valid"]) | set(ids["test"])

loaded = tensors(checkpoint)
(n, dim), e = loaded["inputs.entity"]
_, w = loaded["score.r"]
assert n == len(entities), (n, len(entities))
row = [[v * scale for v in e[i * dim:(i + 1) * dim]] for i in range(n)]
rel = [w[r * dim:(r + 1) * dim] for r in range(len(w) // dim)]


def score(h, r, t):
    return sum(a * b * c for a, b, c in zip(row[h], rel[r], row[t]))


def check_scores():
    import csv
    import math
    queries = read_triples(queries_path)
    with open(predictions_path) as f:
        rows = list(csv.reader(f))
    if rows[0] != ["head", "relation", "tail", "score", "probability"]:
        sys.exit(f"header {rows[0]}")
    rows = rows[1:]
    if len(rows) != len(queries):
        sys.exit(f"{len(rows)} rows for {len(queries)} triples")
    worst = 0.0
    for (h, r, t), (ph, pr, pt, ps, pp) in zip(queries, rows):
        if (ph, pr, pt) != (h, r, t):
            sys.exit(f"row {ph, pr, pt} where the file has {h, r, t}")
        want = score(entities[h], relations[r], entities[t])
        got = float(ps)
        worst = max(worst, abs(got - want) / max(1.0, abs(want)))
        if abs(float(pp) - 1 / (1 + math.exp(-got))) > 1e-6:
            sys.exit(f"probability {pp} of score {ps}")
    verdict = "OK" if worst <= 1e-5 else "TOO LARGE"
    print(f"{len(rows)} triples, largest score difference {worst:.1e}: {verdict}")
    sys.exit(0 if verdict == "OK" else 1)


if scores_mode:
    check_scores()


def check_one_vs_all_loss():
    import math
    total = 0.0
    for h, r, t in ids["train"]:
        for anchor, target in ((h, t), (t, h)):
            logits = [score(anchor, r, e) for e in range(n)]
            top = max(logits)
            lse = top + math.log(sum(math.exp(x - top) for x in logits))
            total += lse - logits[target]
    want = total / (2 * len(ids["train"]))
    # Both queries of a triple multiply the same three rows.
    norm = sum(sum(abs(v) ** penalty_power
                   for v in row[h] + list(rel[r]) + row[t])
               for h, r, t in ids["train"]) / len(ids["train"])
    penalty = penalty_weight * norm
    want += penalty
    lines = [l for l in open(output) if l.startswith("final: epoch 1 ")]
    if not lines:
        sys.exit("no final line of epoch 1 in " + output)
    got = float(re.search(r" loss ([0-9.]+)", lines[0]).group(1))
    ok = abs(got - want) <= 1e-5 * want + 1e-4
    print(f"1vsAll loss: trainer {got:.4f}, float64 reference {want:.4f} "
          f"(penalty {penalty:.4f}): {'ok' if ok else 'DIFFERENT'}")
    sys.exit(0 if ok else 1)


if loss_mode:
    check_one_vs_all_loss()


def metrics(triples):
    ranks = []
    for h, r, t in triples:
        for side in ("tail", "head"):
            true = score(h, r, t)
            greater = equal = 0
            for c in range(n):
                cand = (h, r, c) if side == "tail" else (c, r, t)
                if cand == (h, r, t) or cand in known:
                    continue
                s = score(*cand)
                greater += s > true
                equal += s == true
            ranks.append(1 + greater + equal / 2)
    count = len(ranks)
    return {"mrr": sum(1 / x for x in ranks) / count,
            **{f"hits@{k}": sum(x <= k for x in ranks) / count for k in (1, 3, 10)}}


valid, test = metrics(ids["valid"]), metrics(ids["test"])
expected = {"valid_mrr": valid["mrr"], "test_mrr": test["mrr"],
            "test_hits@1": test["hits@1"], "test_hits@3": test["hits@3"],
            "test_hits@10": test["hits@10"]}
final = [l for l in open(output) if l.startswith("final:")]
if not final:
    sys.exit("no final: line in " + output)
failed = False
for key, value in expected.items():
    m = re.search(re.escape(key) + r" ([0-9.]+)", final[-1])
    if not m:
        sys.exit(f"no {key} in the final line: {final[-1]}")
    got = float(m.group(1))
    ok = abs(got - value) <= 6e-5
    failed |= not ok
    print(f"{key}: trainer {got:.4f}, float64 reference {value:.4f}: "
          f"{'ok' if ok else 'DIFFERENT'}")
print("valid_mrr of a random ranking would be about",
      f"{sum(1 / (1 + i) for i in range(n)) / n:.4f}")
sys.exit(1 if failed else 0)
