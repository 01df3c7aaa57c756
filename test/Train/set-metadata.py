"""set-metadata.py IN OUT KEY VALUE: copies a safetensors file with one entry of
its __metadata__ set to VALUE (a string, as safetensors stores them)."""
import json
import struct
import sys

src, dst, key, value = sys.argv[1:5]
with open(src, "rb") as f:
    (length,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(length))
    data = f.read()
header.setdefault("__metadata__", {})[key] = value
encoded = json.dumps(header, separators=(",", ":")).encode()
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(encoded)) + encoded + data)
