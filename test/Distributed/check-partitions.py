"""Checks partition directories written by gnn-partition (docs/partitioning.md).

  check-partitions.py assignment DIR OUT
      writes DIR/node_owner.npy as a gpmetis-style assignment (one part per
      line), for `gnn-partition --assignment`.
  check-partitions.py same-files A B
      every .npy file of A and B (the partition book and every part's files)
      is byte-identical, and the manifests' counts agree.
  check-partitions.py cut-within A B TOLERANCE
      A's edge cut is at most (1 + TOLERANCE) x B's.
  check-partitions.py balanced DIR BOUND
      every balanced constraint's largest part is at most BOUND x the mean.
"""
import json
import os
import struct
import sys


def read_int32_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", f"{path}: not an .npy file"
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10 : 10 + header_len].decode("latin1")
    assert "'<i4'" in header, f"{path}: expected int32, header {header}"
    body = data[10 + header_len :]
    return struct.unpack(f"<{len(body) // 4}i", body)


def manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def npy_files(d):
    return sorted(
        os.path.relpath(os.path.join(root, name), d)
        for root, _, names in os.walk(d)
        for name in names
        if name.endswith(".npy")
    )


command = sys.argv[1]
if command == "assignment":
    owner = read_int32_npy(os.path.join(sys.argv[2], "node_owner.npy"))
    with open(sys.argv[3], "w") as f:
        f.write("".join(f"{p}\n" for p in owner))
elif command == "same-files":
    a, b = sys.argv[2], sys.argv[3]
    files = npy_files(a)
    if files != npy_files(b):
        sys.exit(f"different file lists: {files} vs {npy_files(b)}")
    for name in files:
        with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
            if fa.read() != fb.read():
                sys.exit(f"{name} differs")
    ma, mb = manifest(a), manifest(b)
    for key in ["num_nodes", "num_edges", "num_features", "num_classes", "num_train",
                "num_valid", "num_test", "edge_cut", "parts", "edge_assign", "num_parts"]:
        if ma[key] != mb[key]:
            sys.exit(f"manifest field {key} differs: {ma[key]} vs {mb[key]}")
    print(f"{len(files)} files identical, manifest counts identical: OK")
elif command == "cut-within":
    a, b, tolerance = sys.argv[2], sys.argv[3], float(sys.argv[4])
    cut_a, cut_b = manifest(a)["edge_cut"], manifest(b)["edge_cut"]
    ratio = cut_a / cut_b
    verdict = "OK" if ratio <= 1 + tolerance else "FAIL"
    print(f"edge cut {cut_a} vs {cut_b}: ratio {ratio:.4f}: {verdict}")
    sys.exit(0 if verdict == "OK" else 1)
elif command == "balanced":
    d, bound = sys.argv[2], float(sys.argv[3])
    m = manifest(d)
    field = {"nodes": "owned_nodes", "edges": "edges", "train": "train"}
    worst = []
    for c in m["balance"]:
        values = [p[field[c]] for p in m["parts"]]
        ratio = max(values) / (sum(values) / len(values))
        worst.append(f"{c} {ratio:.4f}")
        if ratio > bound:
            sys.exit(f"{c}: largest part {ratio:.4f} x the mean, bound {bound}")
    print("balanced: " + ", ".join(worst) + ": OK")
else:
    sys.exit(f"unknown command {command}")
