"""Independent float64 references for gnn-data's link metrics (plain Python).

  link_reference.py scores DIR SEED      writes DIR/labeled.csv, DIR/ranked.csv
  link_reference.py check-scores DIR OUT compares OUT (gnn-data link-metrics'
                                         output for both files) with AUC, AP,
                                         MRR, Hits@K computed here
  link_reference.py kg DIR SEED          writes a small knowledge graph and
                                         DistMult embeddings E.npy, R.npy
  link_reference.py check-kg DIR OUT     compares OUT (gnn-data kg-rank) with a
                                         brute-force filtered ranking

The definitions are written from the papers and libraries, not from the C++:
AUC as the fraction of (positive, negative) pairs ordered right, a tie one
half; AP as sklearn's sum over thresholds of (R_n - R_{n-1}) P_n; ranks as
OGB's 1 + #greater + #equal / 2. Scores are rounded to 2 decimals, so ties
occur, and the comparisons run on the float32 values gnn-data reads.
"""
import random
import struct
import sys


def f32(text):
    """The float32 value gnn-data reads for `text`, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


def mean(values):
    values = list(values)
    return sum(values) / len(values)


def auc(pos, neg):
    return mean((p > n) + 0.5 * (p == n) for p in pos for n in neg)


def average_precision(pos, neg):
    scored = [(s, 1) for s in pos] + [(s, 0) for s in neg]
    ap, recall_before = 0.0, 0.0
    for t in sorted(set(s for s, _ in scored), reverse=True):
        chosen = [label for s, label in scored if s >= t]
        tp = float(sum(chosen))
        precision = tp / len(chosen)
        recall = tp / len(pos)
        ap += (recall - recall_before) * precision
        recall_before = recall
    return ap


def ranking(ranks):
    return [mean(1.0 / r for r in ranks), mean(r <= 1 for r in ranks),
            mean(r <= 3 for r in ranks), mean(r <= 10 for r in ranks)]


def rank(answer, others):
    return 1.0 + sum(o > answer for o in others) + 0.5 * sum(o == answer for o in others)


def write_scores(d, seed):
    rng = random.Random(seed)
    with open(d + "/labeled.csv", "w") as f:
        for _ in range(300):
            label = int(rng.random() < 0.4)
            score = rng.gauss(0.8 if label else 0.0, 1.0)
            f.write("%d,%.2f\n" % (label, score))
    with open(d + "/ranked.csv", "w") as f:
        for _ in range(120):
            row = [rng.gauss(1.0, 1.0)] + [rng.gauss(0.0, 1.0) for _ in range(20)]
            f.write(",".join("%.1f" % s for s in row) + "\n")


def save_npy(path, rows):
    """A float32 [len(rows), len(rows[0])] .npy file (format 1.0)."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (
        len(rows), len(rows[0]))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        for row in rows:
            f.write(struct.pack("<%df" % len(row), *row))


def numbers(out, key):
    for line in open(out):
        words = line.split()
        if words and words[0] == key:
            return [float(w) for w in words[1:] if w[0].isdigit() or w[0] == "-"]
    sys.exit("no line '%s' in %s" % (key, out))


def close(name, ours, theirs):
    if abs(ours - theirs) > 1e-9:
        sys.exit("%s: gnn-data %.12f, reference %.12f" % (name, theirs, ours))


def check_scores(d, out):
    pos, neg = [], []
    for line in open(d + "/labeled.csv"):
        label, score = line.strip().split(",")
        (pos if label == "1" else neg).append(f32(score))
    close("auc", auc(pos, neg), numbers(out, "auc")[0])
    close("ap", average_precision(pos, neg), numbers(out, "ap")[0])
    ranks = []
    for line in open(d + "/ranked.csv"):
        row = [f32(s) for s in line.strip().split(",")]
        ranks.append(rank(row[0], row[1:]))
    theirs = numbers(out, "ranked")
    for name, a, b in zip(["mrr", "hits@1", "hits@3", "hits@10"], ranking(ranks), theirs):
        close(name, a, b)
    print("scores: auc, ap, mrr, hits match (%d labeled, %d ranked)" % (len(pos) + len(neg), len(ranks)))


def write_kg(d, seed):
    rng = random.Random(seed)
    entities, relations = 40, 3
    names = ["e%02d" % i for i in rng.sample(range(entities), entities)]
    triples = set()
    while len(triples) < 220:
        triples.add((rng.randrange(entities), rng.randrange(relations), rng.randrange(entities)))
    triples = sorted(triples)
    rng.shuffle(triples)
    splits = {"train": triples[:160], "valid": triples[160:190], "test": triples[190:]}
    # Every relation in train, as the reader requires.
    for r in range(relations):
        if not any(t[1] == r for t in splits["train"]):
            splits["train"].append((0, r, 1))
    for name, rows in splits.items():
        with open("%s/%s.txt" % (d, name), "w") as f:
            for h, r, t in rows:
                f.write("%s\tr%d\t%s\n" % (names[h], r, names[t]))
    # Ids in order of first appearance over train, valid, test.
    ent_ids, rel_ids = first_appearance(d)
    # Small integers: every score is exact in float32, and many tie.
    save_npy(d + "/E.npy", [[rng.randint(-2, 2) for _ in range(3)] for _ in ent_ids])
    save_npy(d + "/R.npy", [[rng.randint(-2, 2) for _ in range(3)] for _ in rel_ids])


def first_appearance(d):
    ent, rel = {}, {}
    for name in ["train", "valid", "test"]:
        for line in open("%s/%s.txt" % (d, name)):
            h, r, t = line.rstrip("\n").split("\t")
            rel.setdefault(r, len(rel))
            ent.setdefault(h, len(ent))
            ent.setdefault(t, len(ent))
    return ent, rel


def load_npy(path):
    data = open(path, "rb").read()
    length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + length].decode()
    rows, cols = [int(x) for x in header.split("(")[1].split(")")[0].split(",")[:2]]
    values = struct.unpack("<%df" % (rows * cols), data[10 + length:])
    return [values[i * cols:(i + 1) * cols] for i in range(rows)]


def check_kg(d, out):
    ent, rel = first_appearance(d)
    E, R = load_npy(d + "/E.npy"), load_npy(d + "/R.npy")
    known, test = set(), []
    for name in ["train", "valid", "test"]:
        for line in open("%s/%s.txt" % (d, name)):
            h, r, t = line.rstrip("\n").split("\t")
            known.add((ent[h], rel[r], ent[t]))
            if name == "test":
                test.append((ent[h], rel[r], ent[t]))
    score = lambda h, r, t: sum(a * b * c for a, b, c in zip(E[h], R[r], E[t]))
    n = len(ent)
    tails, heads = [], []
    for h, r, t in test:
        tails.append(rank(score(h, r, t), [score(h, r, e) for e in range(n)
                                           if e != t and (h, r, e) not in known]))
        heads.append(rank(score(h, r, t), [score(e, r, t) for e in range(n)
                                           if e != h and (e, r, t) not in known]))
    for key, ranks in [("both", tails + heads), ("tail", tails), ("head", heads)]:
        theirs = numbers(out, key)
        for name, a, b in zip(["mrr", "hits@1", "hits@3", "hits@10"], ranking(ranks), theirs):
            close(key + " " + name, a, b)
    print("kg: filtered ranks match (%d test triples, %d entities)" % (len(test), n))


if __name__ == "__main__":
    cmd, d = sys.argv[1], sys.argv[2]
    {"scores": lambda: write_scores(d, int(sys.argv[3])),
     "check-scores": lambda: check_scores(d, sys.argv[3]),
     "kg": lambda: write_kg(d, int(sys.argv[3])),
     "check-kg": lambda: check_kg(d, sys.argv[3])}[cmd]()
