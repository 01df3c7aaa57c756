"""Checks the tensors of safetensors files (F32) against float64 references.

usage: param-groups.py CHECK ARGS... -- NAME...
  same A B            the named tensors of A and B are bit-identical
  differ A B          each named tensor differs between A and B
  decay P0 P1 REF C   P1 - REF == C * P0 (SGD: a group's weight decay wd at
                      rate lr adds -lr * wd * p0 to one step, C = -lr * wd)
  scale P0 P1 REF C   P1 - P0 == C * (REF - P0) (a group's rate C times the
                      optimizer's: the step scales by C)
Numbers are compared in float64 within 1e-6 + 1e-4 * |expected|.
"""
import json
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
        out[name] = (raw, struct.unpack(f"<{len(raw) // 4}f", raw))
    return out


args = sys.argv[1:]
split = args.index("--")
check, files, names = args[0], args[1:split], args[split + 1:]
if check in ("decay", "scale"):
    coefficient = float(files.pop())
loaded = [tensors(f) for f in files]
failed = False
for name in names:
    if any(name not in t for t in loaded):
        sys.exit(f"no tensor '{name}'")
    raws = [t[name][0] for t in loaded]
    values = [t[name][1] for t in loaded]
    if check == "same":
        ok = raws[0] == raws[1]
        what = "bit-identical" if ok else "DIFFERENT"
    elif check == "differ":
        ok = raws[0] != raws[1]
        what = "different" if ok else "IDENTICAL"
    else:
        p0, p1, ref = values
        worst = 0.0
        for a, b, r in zip(p0, p1, ref):
            if check == "decay":
                got, expected = b - r, coefficient * a
            else:
                got, expected = b - a, coefficient * (r - a)
            worst = max(worst, abs(got - expected) - 1e-4 * abs(expected))
        ok = worst <= 1e-6
        what = "as the float64 reference" if ok else f"OFF by {worst:.3g}"
    print(f"{name}: {what}")
    failed |= not ok
sys.exit(1 if failed else 0)
