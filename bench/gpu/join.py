"""join.py - joins tilec bench output and triton_side.py's JSON lines into
one markdown table, case by case.

tilec bench prints, in launch order, the host program's own lines
("case: seed matmul float32 1024 16 16 16 flops N", "case: vector_add f32
2^28 bytes N") and one timing line per launch ("bench: KERNEL ... median_ms=X ...").
"""
import json
import re
import sys
from collections import OrderedDict


overheads = []


def tile_rows(path):
    rows = []
    case = None
    for line in open(path):
        line = line.strip()
        if line.startswith("launch-overhead:"):
            overheads.append(line)
            continue
        if line.startswith("case: launch overhead"):
            case = None
            continue
        if line.startswith("case:"):
            words = line[5:].split()
            work = int(words[-1])
            kind = words[-2]
            if words[0] == "seed":
                dtype, size, bm, bn, bk = words[2], words[3], words[4], words[5], words[6]
                case = (f"seed matmul {dtype} {size}^3", f"tile {bm}x{bn}x{bk}", kind, work)
            else:
                case = ("vector_add f32 2^28", "tile", kind, work)
        m = re.search(r"median_ms=([0-9.eE+-]+)", line)
        if line.startswith("bench:") and m and case:
            ms = float(m.group(1))
            name, impl, kind, work = case
            row = {"case": name, "impl": impl, "ms": ms}
            if kind == "flops":
                row["tflops"] = work / ms / 1e9
            else:
                row["gbps"] = work / ms / 1e6
            rows.append(row)
            case = None
    return rows


def main():
    rows = tile_rows(sys.argv[1])
    header = {}
    for line in open(sys.argv[2]):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("case") == "device":
            header = r
            continue
        rows.append(r)
    cases = OrderedDict()
    for r in rows:
        cases.setdefault(r["case"], []).append(r)
    if header:
        print(f"Device: {header.get('impl')}; Triton {header.get('triton')}; torch {header.get('torch')}\n")
    print("| case | implementation | ms (median) | TFLOP/s | GB/s |")
    print("|---|---|---|---|---|")
    for name, rs in cases.items():
        for r in rs:
            tf = f"{r['tflops']:.1f}" if "tflops" in r else ""
            gb = f"{r['gbps']:.0f}" if "gbps" in r else ""
            print(f"| {name} | {r['impl']} | {r['ms']:.4f} | {tf} | {gb} |")
    if overheads:
        print("\nHost overhead of cached launches (tile; device-resident tensors):\n")
        for line in overheads:
            print(f"- {line}")


if __name__ == "__main__":
    main()
