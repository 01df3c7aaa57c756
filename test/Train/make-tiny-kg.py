"""Writes a tiny knowledge graph in the standard text release (train.txt,
valid.txt, test.txt: head<TAB>relation<TAB>tail) into DIR: 24 entities in
4 clusters of 6, relation `same` from each entity of a cluster to every
other and `partner` both ways within the pairs (0, 1), (2, 3), (4, 5) of
a cluster; every 7th triple goes to valid, the next to test (each entity
keeps train triples). DistMult learns it (both relations are symmetric),
so a trained model ranks valid and test triples far above chance."""
import sys

out = sys.argv[1]
triples = []
for c in range(4):
    names = [f"c{c}_e{i}" for i in range(6)]
    for i in range(6):
        for j in range(6):
            if i != j:
                triples.append((names[i], "same", names[j]))
            if i // 2 == j // 2 and i != j:
                triples.append((names[i], "partner", names[j]))
splits = {"train": [], "valid": [], "test": []}
for k, t in enumerate(triples):
    split = "valid" if k % 7 == 3 else "test" if k % 7 == 4 else "train"
    splits[split].append(t)
for name, rows in splits.items():
    with open(f"{out}/{name}.txt", "w") as f:
        f.writelines("\t".join(t) + "\n" for t in rows)
