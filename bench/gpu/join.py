"""join.py - joins tilec bench output and triton_side.py's JSON lines into
one markdown table, case by case; with --sizes and --check, also one table
per dtype of the seed matmul over matmul_sizes.tile's shapes and configs
(tile, Triton, cuBLAS or, for fp8, cuBLASLt through torch._scaled_mm, and
each result's relative error against float64).

usage: join.py TILE_BENCH.txt TRITON.jsonl [--sizes SIZES_BENCH.txt] [--check CHECK.txt]

tilec bench prints, in launch order, the host program's own lines
("case: seed matmul float32 1024 16 16 16", "case: vector_add f32 2^28") and
one timing line per launch ("bench: KERNEL ... median_ms=X ... tflops=T" or
"gbps=G", from the work the host code declared with bench_work()). Case lines
of older outputs carry the work themselves ("... flops N" / "... bytes N").
"""
import argparse
import json
import re
from collections import OrderedDict


overheads = []
sizes_reps = set()  # tilec bench's timed repeats in the sizes output


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


SIZES_CASE = re.compile(r"^case: sizes matmul (\w+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) warps (\d+)")
CHECK_LINE = re.compile(r"^check: (\w+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) warps (\d+) rel_err=(\S+) tol=(\S+) (\w+)")


def sizes_key(groups):
    """(dtype, "MxNxK", "BMxBNxBKwW") from a case or check line's groups."""
    dtype, M, N, K, bm, bn, bk, w = groups[:8]
    return dtype, f"{M}x{N}x{K}", f"{bm}x{bn}x{bk}w{w}"


def tile_sizes(path):
    """{key: TFLOP/s} from tilec bench on matmul_sizes.tile, in case order."""
    out, key, flops = OrderedDict(), None, 0
    for line in open(path):
        line = line.strip()
        m = SIZES_CASE.match(line)
        if m:
            key = sizes_key(m.groups())
            flops = 2 * int(m.group(2)) * int(m.group(3)) * int(m.group(4))
            out[key] = None  # measured unless a timing line follows
            continue
        ms = re.search(r"median_ms=([0-9.eE+-]+)", line)
        if line.startswith("bench:") and ms and key:
            out[key] = flops / float(ms.group(1)) / 1e9
            reps = re.search(r"\breps=(\d+)", line)
            if reps:
                sizes_reps.add(reps.group(1))
            key = None
    return out


def checks(path):
    """{key: (rel_err, tol, verdict)} from check_matmul.py's output."""
    out = {}
    for line in open(path):
        m = CHECK_LINE.match(line.strip())
        if m:
            out[sizes_key(m.groups())] = (float(m.group(9)), m.group(10), m.group(11))
    return out


def err_cell(err, ok):
    if err is None:
        return "not checked"
    return f"{err:.1e}" + ("" if ok else " **FAIL**")


def shape_order(shape):
    M, N, K = (int(x) for x in shape.split("x"))
    return (M != N or N != K, M * N * K)  # squares by size, then ragged


def sizes_tables(tile, checked, triton_rows):
    """One markdown table per dtype: rows shape x config."""
    if not tile and not triton_rows:
        return
    tri = {(r["dtype"], r["shape"], r.get("config")): r for r in triton_rows if r["impl"] == "triton"}
    cub = {(r["dtype"], r["shape"]): r for r in triton_rows if r["impl"] == "cublas"}
    keys = list(tile) + [k for k in tri if k not in tile]
    footnotes = []
    cub_marks = {}  # (dtype, shape): the footnote of its cuBLAS row's error or note
    for dtype in ("float16", "bfloat16", "float32", "float8_e4m3fn"):
        rows = sorted({k for k in keys if k[0] == dtype}, key=lambda k: (shape_order(k[1]), keys.index(k)))
        if not rows:
            continue
        out_dtype = next((r.get("out_dtype") for (d, _), r in cub.items() if d == dtype), dtype)
        fp8 = dtype == "float8_e4m3fn"
        what = {"float32": "tf32 dots", "float8_e4m3fn": "B K-major, f32 accumulation"}.get(dtype, "f32 accumulation")
        cub_name = "cuBLASLt" if fp8 else "cuBLAS"
        cub_what = "cuBLASLt (torch._scaled_mm, unit scales)" if fp8 else "cuBLAS"
        print(f"\n### Seed matmul, {dtype} inputs ({what}; tile and Triton store C in float32, "
              f"{cub_what} in {out_dtype})\n")
        tols = sorted({c[1] for k, c in checked.items() if k[0] == dtype and c[1] != "-"} |
                      {f"{r['tol']:.1e}" for k, r in tri.items() if k[0] == dtype and "tol" in r})
        cub_tol = next((f"{r['tol']:.1e}" for (d, _), r in cub.items() if d == dtype and "tol" in r), "-")
        rounding = f", with C's rounding to {out_dtype}" if out_dtype != "float32" else ""
        print(f"Relative Frobenius error against float64; tolerance {', '.join(tols) or '-'} "
              f"({cub_name}: {cub_tol}{rounding}).\n")
        print(f"| M x N x K | BM x BN x BK, warps | tile TFLOP/s | Triton TFLOP/s | tile/Triton | {cub_name} TFLOP/s "
              f"| tile rel. err | Triton rel. err | {cub_name} rel. err |")
        print("|---|---|---|---|---|---|---|---|---|")
        for key in rows:
            _, shape, cfg = key
            t = tile.get(key)
            tr = tri.get(key, {})
            cb = cub.get((dtype, shape), {})
            t_cell = f"{t:.1f}" if t else ("failed" if key in tile else "not run")
            if "error" in tr:
                footnotes.append(f"{dtype} {shape} {cfg}: Triton {tr['error']}")
                tr_cell = f"failed [{len(footnotes)}]"
            else:
                tr_cell = f"{tr['tflops']:.1f}" if "tflops" in tr else "not run"
            ratio = f"{t / tr['tflops']:.2f}" if t and "tflops" in tr else ""
            cb_cell = f"{cb['tflops']:.1f}" if "tflops" in cb else ""
            cb_note = cb.get("error") or cb.get("note")
            if cb_note:
                if (dtype, shape) not in cub_marks:
                    footnotes.append(f"{dtype} {shape}: {cub_name} {cb_note}")
                    cub_marks[(dtype, shape)] = len(footnotes)
                mark = cub_marks[(dtype, shape)]
                cb_cell = f"{cb_cell} [{mark}]" if cb_cell else f"failed [{mark}]"
            c = checked.get(key)
            t_err = err_cell(c[0], c[2] == "PASS") if c else ("not checked" if key in tile else "")
            if c and c[2] == "MISSING":
                t_err = "no C saved **FAIL**"
            tr_err = err_cell(tr["rel_err"], tr["ok"]) if "rel_err" in tr else ""
            cb_err = err_cell(cb["rel_err"], cb["ok"]) if "rel_err" in cb else ""
            bm, bn, rest = cfg.split("x")
            bk, w = rest.split("w")
            w = w.replace("s", ", stages ")
            print(f"| {shape} | {bm}x{bn}x{bk}, {w} | {t_cell} | {tr_cell} | {ratio} | {cb_cell} "
                  f"| {t_err} | {tr_err} | {cb_err} |")
    reps = "/".join(sorted(sizes_reps)) or "N"
    print(f"\nTimes: tile, CUDA events around each of {reps} launches after 5 warm-ups, median (L2 warm); "
          "Triton and cuBLAS, triton.testing.do_bench median (L2 flushed before each run). "
          "cuBLAS is torch.matmul on the same input dtypes, f32 with allow_tf32=True, "
          "f16/bf16 without reduced-precision reductions; fp8's cuBLASLt is torch._scaled_mm "
          "(unit tensor-wise scales, f16 C, use_fast_accum off).")
    if footnotes:
        print()
        for i, f in enumerate(footnotes, 1):
            print(f"[{i}] {f}")
    t_checked = list(checked.values())
    t_pass = sum(1 for c in t_checked if c[2] == "PASS")
    tr_checked = [r for r in tri.values() if "rel_err" in r] + [r for r in cub.values() if "rel_err" in r]
    print(f"\nChecked against float64: tile {t_pass} of {len(t_checked)} pass "
          f"({sum(1 for v in tile.values() if v)} timed); Triton and cuBLAS "
          f"{sum(1 for r in tr_checked if r['ok'])} of {len(tr_checked)} pass.")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tile_bench")
    ap.add_argument("triton_jsonl")
    ap.add_argument("--sizes", help="tilec bench output of matmul_sizes.tile")
    ap.add_argument("--check", help="check_matmul.py output for it")
    args = ap.parse_args()
    rows = tile_rows(args.tile_bench)
    header = {}
    sizes_rows = []
    for line in open(args.triton_jsonl):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("case") == "device":
            header = r
            continue
        if r.get("table") == "sizes":
            sizes_rows.append(r)
            continue
        rows.append(r)
    cases = OrderedDict()
    for r in rows:
        cases.setdefault(r["case"], []).append(r)
    if header:
        seed = f"; data seed {header['seed']}" if "seed" in header else ""
        print(f"Device: {header.get('impl')}; Triton {header.get('triton')}; torch {header.get('torch')}{seed}\n")
    if cases:
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
    if args.sizes or sizes_rows:
        tile = tile_sizes(args.sizes) if args.sizes else OrderedDict()
        checked = checks(args.check) if args.check else {}
        sizes_tables(tile, checked, sizes_rows)


if __name__ == "__main__":
    main()
