#!/usr/bin/env python3
"""Prints `PNG WIDTHxHEIGHT` from a PNG file's header, or why it is not one."""
import struct
import sys

data = open(sys.argv[1], "rb").read(32)
if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
    sys.exit("%s: not a PNG file" % sys.argv[1])
width, height = struct.unpack(">II", data[16:24])
print("PNG %dx%d" % (width, height))
