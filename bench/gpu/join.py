"""join.py - joins tilec bench output and triton_side.py's JSON lines into
one markdown table, case by case.

tilec bench prints, in launch order, the host program's own lines
("case: seed matmul float32 1024 16 16 16", "case: vector_add f32 2^28") and
one timing line per launch ("bench: KERNEL ... median_ms=X ... tflops=T" or
"gbps=G", from the work the host code declared with bench_work()). Case lines
of older outputs carry the work themselves ("... flops N" / "... bytes N").
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
            kind, work = None, None
            if len(words) >= 2 and words[-2] in ("flops", "bytes"):
                kind, work = words[-2], int(words[-1])
                words = words[:-2]
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
            tf = re.search(r"\btflops=([0-9.eE+-]+)", line)
            gb = re.search(r"\bgbps=([0-9.eE+-]+)", line)
            if kind == "flops":
                row["tflops"] = work / ms / 1e9
            elif kind == "bytes":
                row["gbps"] = work / ms / 1e6
            if tf and "tflops" not in row:
                row["tflops"] = float(tf.group(1))
            if gb and "gbps" not in row:
                row["gbps"] = float(gb.group(1))
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
