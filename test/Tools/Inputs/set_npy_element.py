"""set_npy_element.py FILE.npy INDEX VALUE

Overwrites element INDEX (in C order) of a little-endian integer .npy file
(version 1 or 2) with VALUE, in place: how the tests make one bad row of a
binary array without numpy.
"""
import ast
import struct
import sys

path, index, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "r+b") as f:
    assert f.read(6) == b"\x93NUMPY", path + ": not an .npy file"
    major = f.read(2)[0]
    size = struct.unpack("<H" if major == 1 else "<I",
                         f.read(2 if major == 1 else 4))[0]
    header = ast.literal_eval(f.read(size).decode("latin1"))
    code = {"<i4": "<i", "<i8": "<q"}[header["descr"]]
    f.seek(f.tell() + index * struct.calcsize(code))
    f.write(struct.pack(code, value))
