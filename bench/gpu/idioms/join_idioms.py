"""join_idioms.py - one markdown table of the idioms benchmark
(bench/gpu/idioms/run.sh): tile's `tilec bench` outputs side by side with
triton_idioms.py's JSON lines, case by case.

usage: join_idioms.py --triton TRITON.jsonl TILE_OUT.txt...

tilec bench prints, per case, "case: idioms NAME", then the timed launch's
"bench: KERNEL ... median_ms=X ... tflops=T" (or gbps=G, from the host's
bench_work()), then "check: idioms NAME ok" once the host check passed (a
failed check ends that process with an error; run.sh goes on from the next
case and writes "idioms-failed: FILE case N" lines). Only launches that
declared work count: a case's other launches (a setup launch, a re-run)
are left out. A case with several launches that declare work (the
attention backward: preprocess, dkdv, dq) is one timed sequence, each
launch declaring the whole sequence's work: its time is the sum of their
medians, its rate the work over that sum (1 / sum(1 / rate_i)); the notes
say so. Such a case prints "launches: idioms N" after its case line: until
N of its launches have run (a launch failed), it has no rate. A NAME ending in
" (tile variant)" is tile's marked variant of the kernel Triton runs under
the same NAME (see the .tile files' headers).

Columns: kernel, shape, config, tile, Triton, torch (each TFLOP/s or GB/s),
tile/Triton, correct? (tile / Triton / torch: "ok", "FAIL", "-" when not run).
"""
import argparse
import json
import re
from collections import OrderedDict

VARIANT = " (tile variant)"


def tile_rows(paths):
    """OrderedDict name -> {perf, unit, ok, variant, error}, in run order."""
    rows = OrderedDict()
    for path in paths:
        cur = None
        for line in open(path, errors="replace"):
            line = line.rstrip("\n")
            if line.startswith("case: idioms "):
                name = line[len("case: idioms "):].strip()
                variant = name.endswith(VARIANT)
                if variant:
                    name = name[: -len(VARIANT)]
                cur = rows.setdefault(name, {})
                for key in ("perf", "unit", "ms", "rates", "regs", "smem", "launches"):
                    cur.pop(key, None)
                cur.update(variant=variant, ok=False)
                continue
            if cur is None:
                continue
            if line.startswith("launches: idioms "):   # the case's timed sequence: this many launches
                cur["launches"] = int(line.split()[-1])
                continue
            if line.startswith("bench:"):
                tf = re.search(r"\btflops=([0-9.eE+-]+|n/a)", line)   # n/a: the interpreter's
                gb = re.search(r"\bgbps=([0-9.eE+-]+|n/a)", line)
                ms = re.search(r"\b(?:median|interp)_ms=([0-9.eE+-]+)", line)
                if not (tf or gb):
                    continue   # a launch that declared no work: setup (a forward for a backward) or a re-run
                # the launches of a case that declare work are one timed sequence, each declaring
                # the sequence's whole work: time the sum of theirs, rate 1 / sum(1 / rate_i)
                rates = cur.setdefault("rates", [])
                value = (tf or gb).group(1)
                rates.append(None if value == "n/a" else float(value))
                cur["unit"] = "TFLOP/s" if tf else "GB/s"
                known = [r for r in rates if r is not None]
                cur["perf"] = None if len(known) < len(rates) else rates[0] if len(rates) == 1 else (
                    0.0 if min(rates) <= 0 else 1.0 / sum(1.0 / r for r in rates))
                if len(rates) < cur.get("launches", 1):   # the sequence so far: no rate until it is whole
                    cur["perf"] = None
                if ms:
                    cur["ms"] = cur.get("ms", 0.0) + float(ms.group(1))
                for key in ("regs", "smem"):
                    m = re.search(r"\b" + key + r"=(\S+)", line)
                    if m:
                        cur[key] = (cur[key] + "/" if key in cur else "") + m.group(1)
            elif line.startswith("check: idioms ") and line.endswith(" ok"):
                cur["ok"] = True
            elif re.search(r"\berror\b", line) and "error" not in cur and not cur.get("ok"):
                cur["error"] = line.strip()[:160]
    return rows


def triton_rows(path):
    rows, meta = OrderedDict(), []
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "kernel" in r:
            rows[r["case"]] = r
        else:
            meta.append(r)
    return rows, meta


def split_name(name):
    """'attention_v1 Z4 H16 N4096 D64 causal 128x64 w4 s3' ->
    ('attention_v1 causal', 'Z4 H16 N4096 D64', '128x64 w4 s3'); the first
    word after the kernel is the shape when it reads AxB[xC] (matmul,
    softmax, layer norm), later AxB words are block sizes."""
    words = name.split()
    kernel, rest = words[0], words[1:]
    if "causal" in rest:
        kernel += " causal"
        rest = [w for w in rest if w != "causal"]
    shape = []
    if rest and re.match(r"^\d+x\d+(x\d+){0,2}$", rest[0]):   # batched: ZxMxNxK
        shape.append(rest.pop(0))
    shape += [w for w in rest if re.match(r"^([ZHND]\d+|f16|f32)$", w)]
    config = [w for w in rest if w not in shape]
    return kernel, " ".join(shape), " ".join(config)


def fmt(perf, unit):
    if perf is None:
        return "-"
    short = "TF/s" if unit == "TFLOP/s" else "GB/s"
    return f"{perf:.0f} {short}" if perf >= 10 else f"{perf:.1f} {short}"


def verdict(ok, error=None, ran=True):
    if not ran:
        return "-"
    if error:
        return "ERR"
    return "ok" if ok else "FAIL"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triton", required=True)
    ap.add_argument("tile", nargs="+")
    args = ap.parse_args()
    tile = tile_rows(args.tile)
    try:
        tri, meta = triton_rows(args.triton)
    except OSError:
        tri, meta = OrderedDict(), []
    names = list(tile) + [n for n in tri if n not in tile]

    out = ["| kernel | shape | config | tile | Triton | torch | tile/Triton | correct? (tile / Triton / torch) |",
           "|---|---|---|---|---|---|---|---|"]
    notes = []
    for name in names:
        t = tile.get(name)
        r = tri.get(name, {})
        unit = (t or {}).get("unit") or r.get("unit", "")
        kernel, shape, config = split_name(name)
        if t and t.get("variant"):
            kernel += " (tile: variant)"
        tp = t.get("perf") if t else None
        rp = r.get("triton_perf")
        cp = r.get("torch_perf")
        ratio = f"{tp / rp:.2f}x" if tp and rp else "-"
        torch_cell = fmt(cp, unit) + (f" ({r['torch_impl']})" if r.get("torch_impl") and cp else "")
        correct = " / ".join((
            verdict(t.get("ok")) if t else "-",
            verdict(r.get("triton_ok"), r.get("triton_error"), "triton_ok" in r or "triton_error" in r),
            verdict(r.get("torch_ok"), r.get("torch_error"), "torch_ok" in r or "torch_error" in r)))
        out.append(f"| {kernel} | {shape} | {config} | {fmt(tp, unit)} | {fmt(rp, unit)} | {torch_cell} | "
                   f"{ratio} | {correct} |")
        if t and len(t.get("rates", ())) > 1 and t.get("perf") is not None:
            notes.append(f"- tile, {name}: {len(t['rates'])} launches timed as one sequence (the sum of their "
                         f"times{', ' + format(t['ms'], '.3f') + ' ms' if t.get('ms') else ''})")
        if t and t.get("error") and not t.get("ok"):
            notes.append(f"- tile, {name}: {t['error']}")
        for key in ("triton_error", "triton_idiomatic_error", "torch_error"):
            if r.get(key):
                notes.append(f"- {key.replace('_', ' ')}, {name}: {r[key]}")
        if r.get("triton_kernel"):
            notes.append(f"- Triton ran {r['triton_kernel']} for {name}")
    print("\n".join(out))
    for m in meta:
        if m.get("case") == "device":
            print(f"\nTriton side: {m.get('impl')}, Triton {m.get('triton')}, torch {m.get('torch')}, "
                  f"seed {m.get('seed')}")
        elif m.get("case") in ("part failed", "deadline"):
            notes.append(f"- Triton side {m.get('case')}: {m.get('part')} {m.get('error', '')}".rstrip())
    if notes:
        print("\nNotes:\n")
        print("\n".join(notes))


if __name__ == "__main__":
    main()
