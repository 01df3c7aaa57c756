"""`gnn-data info` and the trainer agree on what can be trained on.

Each case copies a bundled dataset, damages one thing (a row too many or
too few, an id out of range, a bad number, a missing or misplaced file, an
empty split, ...), and runs `gnn-data info` on it and a trainer compiled for
that dataset (one epoch). Both must accept it or both refuse it: info's exit
status is how a user checks a directory before a long job. Prints a line per
case and a summary; a disagreement also prints both last error lines.

  data-info-agrees.py --gnn-data BIN --src ROOT --work DIR \
      --cora-trainer EXE --aifb-trainer EXE
"""

import argparse
import gzip
import os
import shutil
import subprocess


def read(path):
    with gzip.open(path, "rt") as f:
        return f.read().splitlines()


def write(path, lines):
    with gzip.open(path, "wt") as f:
        f.write("".join(line + "\n" for line in lines))


def edit(rel, change):
    """A case that rewrites the lines of the gzipped file rel."""
    def apply(root):
        path = os.path.join(root, rel)
        write(path, change(read(path)))
    return apply


def remove(rel):
    return lambda root: os.remove(os.path.join(root, rel))


def move(rel, to):
    return lambda root: shutil.move(os.path.join(root, rel),
                                    os.path.join(root, to))


def copy_dir(rel, to):
    return lambda root: shutil.copytree(os.path.join(root, rel),
                                        os.path.join(root, to))


def first_value_is(value):
    """Replaces the first field of the first line."""
    return lambda lines: [value + lines[0][lines[0].index(","):]] + lines[1:]


FEAT, LABEL, EDGE = "raw/node-feat.csv.gz", "raw/node-label.csv.gz", "raw/edge.csv.gz"
SPLIT = "split/public/"
CORA = {
    "features: a row too many": edit(FEAT, lambda s: s + [s[0]]),
    "features: a row too few": edit(FEAT, lambda s: s[:-1]),
    "features: a ragged row": edit(FEAT, lambda s: [s[0] + ",1"] + s[1:]),
    "features: nan": edit(FEAT, first_value_is("nan")),
    "features: inf": edit(FEAT, first_value_is("inf")),
    "features: text": edit(FEAT, first_value_is("x")),
    "features: no columns": edit(FEAT, lambda s: [""] * len(s)),
    "features: missing": remove(FEAT),
    "labels: a row too many": edit(LABEL, lambda s: s + ["0"]),
    "labels: a row too few": edit(LABEL, lambda s: s[:-1]),
    "labels: -2": edit(LABEL, lambda s: ["-2"] + s[1:]),
    "labels: two columns": edit(LABEL, lambda s: ["1,2"] + s[1:]),
    "labels: all -1": edit(LABEL, lambda s: ["-1"] * len(s)),
    "labels: missing": remove(LABEL),
    "num-node-list: wrong": edit("raw/num-node-list.csv.gz", lambda s: ["2000"]),
    "num-node-list: two graphs": edit("raw/num-node-list.csv.gz",
                                      lambda s: ["1354", "1354"]),
    "num-node-list: text": edit("raw/num-node-list.csv.gz", lambda s: ["abc"]),
    "num-node-list: missing": remove("raw/num-node-list.csv.gz"),
    "num-edge-list: wrong": edit("raw/num-edge-list.csv.gz", lambda s: ["5"]),
    "edges: node out of range": edit(EDGE, lambda s: ["2708,0"] + s[1:]),
    "edges: negative": edit(EDGE, lambda s: ["-1,0"] + s[1:]),
    "edges: one column": edit(EDGE, lambda s: ["5"] + s[1:]),
    "train: node out of range": edit(SPLIT + "train.csv.gz", lambda s: s + ["2708"]),
    "train: a node twice": edit(SPLIT + "train.csv.gz", lambda s: s + [s[0]]),
    "train: missing": remove(SPLIT + "train.csv.gz"),
    "train: empty": edit(SPLIT + "train.csv.gz", lambda s: []),
    "valid: text": edit(SPLIT + "valid.csv.gz", lambda s: s + ["x"]),
    "valid: node out of range": edit(SPLIT + "valid.csv.gz", lambda s: s + ["99999"]),
    # Accepted by both (nothing the trainer needs is wrong).
    "labels: -1 on a train node": edit(LABEL, lambda s: ["-1"] + s[1:]),
    "edges: a self loop": edit(EDGE, lambda s: ["5,5"] + s[1:]),
    "valid: empty": edit(SPLIT + "valid.csv.gz", lambda s: []),
    "num-edge-list: missing": remove("raw/num-edge-list.csv.gz"),
    # (A missing test split is refused only by a program that evaluates
    # it: a property of the program, which info does not see.)
}

PERSON_LABEL = "raw/node-label/Personen/node-label.csv.gz"
NODE_DICT = "raw/num-node-dict.csv.gz"
TRIPLETS = "raw/triplet-type-list.csv.gz"
RELATION = "raw/relations/Personen___publication___Publikationen/"
TYPED_SPLIT = "split/rdf/Personen/"


def node_feat(rows):
    def apply(root):
        os.makedirs(os.path.join(root, "raw/node-feat/Personen"))
        write(os.path.join(root, "raw/node-feat/Personen/node-feat.csv.gz"), rows)
    return apply


AIFB = {
    "typed labels: a row too many": edit(PERSON_LABEL, lambda s: s + ["0"]),
    "typed labels: a row too few": edit(PERSON_LABEL, lambda s: s[:-1]),
    "typed labels: text": edit(PERSON_LABEL, lambda s: ["abc"] + s[1:]),
    "typed labels: under a 78-node type": move("raw/node-label/Personen",
                                               "raw/node-label/Projekte"),
    "typed labels: two types": copy_dir("raw/node-label/Personen",
                                        "raw/node-label/Projekte"),
    "node counts: smaller than the edges": edit(
        NODE_DICT, lambda s: [s[0], s[1].replace(",237,", ",200,")]),
    "node counts: a type missing": edit(
        NODE_DICT, lambda s: [",".join(s[0].split(",")[:-1]),
                              ",".join(s[1].split(",")[:-1])]),
    "node counts: negative": edit(
        NODE_DICT, lambda s: [s[0], s[1].replace(",28,", ",-3,")]),
    "relations: an unknown type": edit(TRIPLETS,
                                       lambda s: s + ["Nobody,knows,Personen"]),
    "relations: no directory": edit(TRIPLETS,
                                    lambda s: s + ["Personen,knows,Personen"]),
    "relations: two columns": edit(
        TRIPLETS, lambda s: ["Forschungsgebiete,dealtWithIn"] + s[1:]),
    "typed edges: source out of range": edit(
        RELATION + "edge.csv.gz", lambda s: ["237," + s[0].split(",")[1]] + s[1:]),
    "typed edges: count wrong": edit(RELATION + "num-edge-list.csv.gz",
                                     lambda s: [str(int(s[0]) + 5)]),
    "typed edges: missing": remove(RELATION + "edge.csv.gz"),
    "typed train: node out of range": edit(TYPED_SPLIT + "train.csv.gz",
                                           lambda s: s + ["237"]),
    "typed split: under another type": move("split/rdf/Personen",
                                            "split/rdf/Projekte"),
    "typed features: rows of another count": node_feat(["1.0,2.0"] * 10),
    "typed features: nan": node_feat(["1.0,2.0"] * 236 + ["nan,1"]),
    # Accepted by both.
    "typed labels: one class": edit(PERSON_LABEL, lambda s: ["0"] * len(s)),
    "typed test: empty": edit(TYPED_SPLIT + "test.csv.gz", lambda s: []),
}


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--gnn-data", "--src", "--work", "--cora-trainer",
                 "--aifb-trainer"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    agreed = total = 0
    for dataset, trainer, cases in (("cora", args.cora_trainer, CORA),
                                    ("aifb", args.aifb_trainer, AIFB)):
        source = os.path.join(args.src, "examples", "data", dataset)
        for name, damage in cases.items():
            root = os.path.join(args.work, dataset)
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(source, root)
            damage(root)
            info = subprocess.run([args.gnn_data, "info", "--no-cache", root],
                                  capture_output=True, text=True)
            train = subprocess.run([trainer, "--data", root, "--epochs", "1",
                                    "--threads", "1"],
                                   capture_output=True, text=True)
            info_ok, train_ok = info.returncode == 0, train.returncode == 0
            verdict = "agree" if info_ok == train_ok else "DISAGREE"
            total += 1
            agreed += info_ok == train_ok
            print("%s %s: %s: info %s, trainer %s" % (
                verdict, dataset, name, "accepts" if info_ok else "refuses",
                "accepts" if train_ok else "refuses"))
            if info_ok != train_ok:
                for who, run in (("info", info), ("trainer", train)):
                    last = (run.stderr.strip().splitlines() or [""])[-1]
                    print("  %s: %s" % (who, last))
    print("agree on %d of %d damaged datasets" % (agreed, total))


if __name__ == "__main__":
    main()
