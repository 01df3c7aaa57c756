#!/usr/bin/env python3
"""Each kernel's share of a run profiled by
`ncu --metrics gpu__time_duration.sum --csv` (bench/cuda/device_checks.sh):
the total time per kernel name, largest first (ncu's --print-units base:
nanoseconds).

    kernel_times.py PROFILE.csv [TOP]
"""
import collections
import csv
import re
import sys


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 14
    with open(path) as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    if not rows:
        sys.exit(f"{path}: no ncu CSV rows")
    head, rows = rows[0], rows[1:]
    name, value = head.index("Kernel Name"), head.index("Metric Value")
    total, count = collections.Counter(), collections.Counter()
    for row in rows:
        # "void gnnrt::...::(anonymous namespace)::k<float, gnnrt::BFloat16>(args)"
        key = re.sub(r"\(anonymous namespace\)::", "", row[name]).split("(")[0]
        key = re.sub(r"\b\w+::", "", key).removeprefix("void ")[:70]
        total[key] += float(row[value].replace(",", ""))
        count[key] += 1
    all_ns = sum(total.values())
    print(f"{len(rows)} kernels, {all_ns / 1e6:.1f} ms in all")
    for key, ns in total.most_common(top):
        print(f"{ns / 1e6:9.2f} ms {100 * ns / all_ns:5.1f}% x{count[key]:<4} {key}")


if __name__ == "__main__":
    main()
