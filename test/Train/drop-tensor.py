"""Copies a safetensors file without one tensor: drop-tensor.py IN OUT NAME.

For tests of a checkpoint that lacks what a program needs."""
import json
import struct
import sys

src, dst, name = sys.argv[1:4]
with open(src, "rb") as f:
    (length,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(length))
    data = f.read()
if name not in header:
    sys.exit(f"{src}: no tensor '{name}'")
kept = {k: v for k, v in header.items() if k != name and k != "__metadata__"}
out, parts, offset = {}, [], 0
for key, entry in sorted(kept.items(), key=lambda kv: kv[1]["data_offsets"][0]):
    begin, end = entry["data_offsets"]
    parts.append(data[begin:end])
    out[key] = dict(entry, data_offsets=[offset, offset + end - begin])
    offset += end - begin
if "__metadata__" in header:
    out["__metadata__"] = header["__metadata__"]
text = json.dumps(out).encode()
text += b" " * (-len(text) % 8)
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(parts))
