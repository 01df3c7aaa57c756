"""check-embeddings.py EMBEDDINGS.npy SCORES.csv TOLERANCE

For a link program with a dot-product score: checks that every pair's score
in SCORES.csv (--predict --pairs: src,dst,score,probability) is the dot
product, in float64, of the two nodes' rows of EMBEDDINGS.npy (--embeddings,
float32 [nodes, width]). Reads the .npy by hand (no numpy). Prints the shape
and the largest difference; exits 1 above TOLERANCE.
"""
import array
import ast
import csv
import struct
import sys

with open(sys.argv[1], "rb") as f:
    assert f.read(6) == b"\x93NUMPY", "not an .npy file"
    major, _ = f.read(2)
    size = struct.unpack("<H" if major == 1 else "<I",
                         f.read(2 if major == 1 else 4))[0]
    header = ast.literal_eval(f.read(size).decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], header
    rows, width = header["shape"]
    values = array.array("f")
    values.frombytes(f.read())
assert len(values) == rows * width, "the data does not fill the shape"


def row(v):
    return values[v * width:(v + 1) * width]


worst = 0.0
for r in csv.DictReader(open(sys.argv[2])):
    dot = sum(float(a) * float(b)
              for a, b in zip(row(int(r["src"])), row(int(r["dst"]))))
    worst = max(worst, abs(dot - float(r["score"])))
ok = worst <= float(sys.argv[3])
print("embeddings [%d, %d]; largest |score - dot| %.2e: %s"
      % (rows, width, worst, "OK" if ok else "DIFFERENT"))
sys.exit(0 if ok else 1)
