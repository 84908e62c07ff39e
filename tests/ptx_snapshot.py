#!/usr/bin/env python3
"""ptx_snapshot.py - compiles every kernel we know a specialization of to PTX
and writes one file per kernel into a directory, so a refactor of the
compiler can be checked byte for byte (`diff -r BEFORE AFTER`).

  tests/ptx_snapshot.py TILEC OUTDIR            write the snapshot
  tests/ptx_snapshot.py TILEC OUTDIR --record   first refresh the launch list
  tests/ptx_snapshot.py TILEC OUTDIR --sample N every Nth recorded launch only
  tests/ptx_snapshot.py --stats DIR [DIR2]      instruction counts per kernel
                                                (DIR2: side by side, changes marked)

The kernels, each a `tilec compile ... --emit ptx` command:
  - every row of tests/gpu/check_ptxas.sh's table;
  - every `%tilec compile` RUN line of tests/lit that emits llvm, ptx or a
    cubin (the output stage replaced by PTX);
  - every specialization the host programs of dsl_examples/ and tests/gpu/
    launch, listed in tests/ptx_snapshot_launches.txt. `--record` rebuilds
    that list by running each program on the interpreter with
    TILE_RECORD_LAUNCHES (slow: minutes).
A kernel that fails to compile gets a .err file holding tilec's message, so
a change in an error shows too. OUTDIR/index.txt maps files to commands,
OUTDIR/times.txt lists each compile's wall time, slowest first.
"""
import concurrent.futures
import hashlib
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCHES = os.path.join(ROOT, "tests", "ptx_snapshot_launches.txt")


def check_ptxas_rows():
    text = open(os.path.join(ROOT, "tests", "gpu", "check_ptxas.sh")).read()
    table = text.split("<<'TABLE'\n", 1)[1].split("\nTABLE", 1)[0]
    cmds = []
    for row in table.splitlines():
        if not row.strip():
            continue
        file, kernel, sig, defs, warps = row.split("|")
        cmds.append([os.path.join("dsl_examples", file), "-k", kernel, "-s", sig] + shlex.split(defs) +
                    ["--num-warps", warps])
    return cmds


def lit_rows():
    cmds = []
    for dirpath, _, files in sorted(os.walk(os.path.join(ROOT, "tests", "lit"))):
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            if not f.endswith((".test", ".tile", ".tir")):
                continue
            for line in open(path, errors="replace"):
                m = re.search(r"RUN:\s*(.*)$", line)
                if not m or not m.group(1).startswith("%tilec compile"):
                    continue
                cmd = m.group(1).split("|")[0]
                cmd = cmd.replace("%S", os.path.relpath(dirpath, ROOT)).replace("%examples", "dsl_examples")
                cmd = cmd.replace("%s", os.path.relpath(path, ROOT))
                try:
                    toks = shlex.split(cmd)[2:]
                except ValueError:
                    continue
                out, emit, skip = [], None, False
                i = 0
                while i < len(toks):
                    t = toks[i]
                    if t in ("--emit", "-o"):
                        if t == "--emit":
                            emit = toks[i + 1]
                        i += 2
                        continue
                    if t.startswith(("--print-ir", "2>", ">")) or t in ("--no-locations", "--dump-dir"):
                        if t == "--dump-dir" or t in ("--print-ir-after", "--print-ir-before"):
                            i += 1
                        i += 1
                        continue
                    if "%t" in t:
                        skip = True
                    out.append(t)
                    i += 1
                if skip or emit not in ("ptx", "cubin", "llvm", "llvm-opt", "llvm-noopt"):
                    continue
                cmds.append(out)
    return cmds


def split_spec(spec):
    """Splits a specialization key at top-level commas (reprs may hold some)."""
    items, cur, quote, depth = [], "", None, 0
    for ch in spec:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        cur += ch
    if cur:
        items.append(cur)
    return items


def launch_rows():
    cmds = []
    if not os.path.exists(LAUNCHES):
        return cmds
    for line in open(LAUNCHES):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        file, kernel, spec, warps, stages = line.split("|")
        sig, defs = [], []
        for item in split_spec(spec):
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", item)
            if m:
                defs += ["-D", f"{m.group(1)}={m.group(2)}"]
            else:
                sig.append(item)
        cmds.append([file, "-k", kernel, "-s", ",".join(sig)] + defs + ["--num-warps", warps, "--num-stages", stages])
    return cmds


def record(tilec):
    progs = sorted(os.path.join("dsl_examples", f) for f in os.listdir(os.path.join(ROOT, "dsl_examples"))
                   if f.endswith(".tile"))
    progs += sorted(os.path.join("tests", "gpu", f) for f in os.listdir(os.path.join(ROOT, "tests", "gpu"))
                    if f.endswith(".tile"))
    tmp = LAUNCHES + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    env = dict(os.environ, TILE_RECORD_LAUNCHES=os.path.abspath(tmp), TILE_CACHE="0", TILE_NO_GPU="1")
    for p in progs:
        r = subprocess.run([tilec, "run", "--interpret", p], cwd=ROOT, env=env, capture_output=True, text=True)
        print(f"{'ok  ' if r.returncode == 0 else 'FAIL'} {p}", file=sys.stderr)
    seen, lines = set(), []
    for line in open(tmp):
        file, rest = line.rstrip("\n").split("|", 1)
        file = os.path.relpath(os.path.abspath(os.path.join(ROOT, file)), ROOT)
        entry = f"{file}|{rest}"
        if entry not in seen:
            seen.add(entry)
            lines.append(entry)
    os.remove(tmp)
    with open(LAUNCHES, "w") as f:
        f.write("# SOURCE|KERNEL|SPECIALIZATION|WARPS|STAGES: every launch of the host programs of\n"
                "# dsl_examples/ and tests/gpu/ (tests/ptx_snapshot.py --record rebuilds it)\n")
        f.write("\n".join(lines) + "\n")


def compile_one(tilec, args, outdir):
    key = " ".join(shlex.quote(a) for a in args)
    kernel = args[args.index("-k") + 1]
    name = f"{kernel}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"
    env = dict(os.environ, TILE_CACHE="0")
    t0 = time.perf_counter()
    r = subprocess.run([tilec, "compile"] + args + ["--emit", "ptx"], cwd=ROOT, env=env, capture_output=True)
    ms = (time.perf_counter() - t0) * 1e3
    if r.returncode == 0:
        open(os.path.join(outdir, name + ".ptx"), "wb").write(r.stdout)
    else:
        open(os.path.join(outdir, name + ".err"), "wb").write(r.stderr)
    return name, key, r.returncode, ms


COUNTED = [
    ("ld.global", r"\bld\.global[.\w]*"), ("st.global", r"\bst\.global[.\w]*"),
    ("ld.shared", r"\bld\.shared[.\w]*"), ("st.shared", r"\bst\.shared[.\w]*"),
    ("cp.async", r"\bcp\.async\.(?:ca|cg)[.\w]*"), ("wgmma", r"\bwgmma\.mma_async[.\w]*"),
    ("mma", r"\bmma\.sync[.\w]*"), ("ldmatrix", r"\bldmatrix[.\w]*"), ("bar", r"\bbar\.sync\b"),
]


def stats(path):
    text = open(path).read()
    body = [l.strip() for l in text.splitlines()]
    out = {"instructions": sum(1 for l in body if l.endswith(";") and not l.startswith((".", "//")))}
    for label, pat in COUNTED:
        for m in re.findall(pat, text):
            vec = re.search(r"\.v[248]\b", m)
            width = re.search(r"\.(?:b|u|s|f)(8|16|32|64|128)\b", m)
            k = label + (vec.group(0) if vec else "") + ("." + width.group(1) if width and label.startswith(("ld", "st")) else "")
            out[k] = out.get(k, 0) + 1
    return out


def print_stats(d1, d2=None):
    names = sorted(f for f in os.listdir(d1) if f.endswith(".ptx"))
    changed = 0
    for n in names:
        s1 = stats(os.path.join(d1, n))
        if d2 is None:
            print(n, " ".join(f"{k}={v}" for k, v in sorted(s1.items())))
            continue
        p2 = os.path.join(d2, n)
        if not os.path.exists(p2):
            print(n, "MISSING in", d2)
            continue
        if open(os.path.join(d1, n), "rb").read() == open(p2, "rb").read():
            continue
        changed += 1
        s2 = stats(p2)
        keys = sorted(set(s1) | set(s2))
        diffs = [f"{k}: {s1.get(k, 0)} -> {s2.get(k, 0)}" for k in keys if s1.get(k, 0) != s2.get(k, 0)]
        print(f"CHANGED {n}: " + ("; ".join(diffs) if diffs else "same counts"))
    if d2 is not None:
        print(f"{changed} of {len(names)} kernels changed")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--stats":
        return print_stats(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tilec, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    if "--record" in sys.argv:
        record(tilec)
    os.makedirs(outdir, exist_ok=True)
    cmds, seen = [], set()
    # --sample N: every Nth recorded launch only (a quick check; the
    # names stay those of the full snapshot, so `diff` compares the files present).
    sample = int(sys.argv[sys.argv.index("--sample") + 1]) if "--sample" in sys.argv else 1
    for c in check_ptxas_rows() + lit_rows() + launch_rows()[::sample]:
        k = tuple(c)
        if k not in seen:
            seen.add(k)
            cmds.append(c)
    jobs = int(os.environ.get("JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        results = list(ex.map(lambda c: compile_one(tilec, c, outdir), cmds))
    with open(os.path.join(outdir, "index.txt"), "w") as f:
        for name, key, rc, _ in sorted(results):
            f.write(f"{name} rc={rc} {key}\n")
    # Wall time of each compile (one run, JOBS in parallel): bench/compile_time.py
    # --slowest takes the slowest from here.
    with open(os.path.join(outdir, "times.txt"), "w") as f:
        for name, key, rc, ms in sorted(results, key=lambda r: -r[3]):
            f.write(f"{ms:.1f} {name} {key}\n")
    failed = sum(1 for _, _, rc, _ in results if rc)
    print(f"{len(results)} kernels written to {outdir} ({failed} failed to compile: .err files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
