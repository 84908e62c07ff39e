#!/usr/bin/env python3
"""compile_time.py - cold compile time of tilec, whole process: source to PTX
with the disk cache off (TILE_CACHE=0), the median of several runs each.

  bench/compile_time.py TILEC [TILEC2] [--runs N] [--slowest SNAPDIR] [--markdown]

The seed matmul (dsl_examples/lesson2_matmul.tile's matmul_kernel, f16,
sm_90a) at 128x256x64 on 8 warps with 3 stages (target <= 30 ms) and at
64x64x32 on 4 warps (target <= 10 ms); with --slowest SNAPDIR also the 12
slowest compiles of a PTX snapshot (tests/ptx_snapshot.py TILEC SNAPDIR
times every kernel of dsl_examples/, tests/gpu/ and the lit tests once;
target: none over 50 ms). With TILEC2 both compilers run side by
side (the same kernel alternately), for a before/after table.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SEED_SIG = "*fp16:16,*fp16:16,*fp32:16,i32:16,i32:16,i32:16,i32:16,i32:1,i32:16,i32:1,i32:16,i32:1"
SEEDS = [
    ("seed matmul 128x256x64 w8 s3", ["dsl_examples/lesson2_matmul.tile", "-k", "matmul_kernel", "-s", SEED_SIG,
                                      "-D", "N_ITERS=4", "-D", "BLOCK_M=128", "-D", "BLOCK_N=256", "-D", "BLOCK_K=64",
                                      "--num-warps", "8", "--num-stages", "3", "--arch", "sm_90a"], 30),
    ("seed matmul 64x64x32 w4 s3", ["dsl_examples/lesson2_matmul.tile", "-k", "matmul_kernel", "-s", SEED_SIG,
                                    "-D", "N_ITERS=4", "-D", "BLOCK_M=64", "-D", "BLOCK_N=64", "-D", "BLOCK_K=32",
                                    "--num-warps", "4", "--num-stages", "3", "--arch", "sm_90a"], 10),
]


def once(tilec, args):
    env = dict(os.environ, TILE_CACHE="0")
    t0 = time.perf_counter()
    r = subprocess.run([tilec, "compile"] + args + ["--emit", "ptx", "-o", "/dev/null"], cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ms = (time.perf_counter() - t0) * 1e3
    return ms if r.returncode == 0 else None


def median_ms(tilecs, args, runs):
    samples = [[] for _ in tilecs]
    for _ in range(runs):
        for i, t in enumerate(tilecs):
            ms = once(t, args)
            if ms is None:
                return [None] * len(tilecs)
            samples[i].append(ms)
    return [statistics.median(s) for s in samples]


def main():
    argv = sys.argv[1:]
    runs = 7
    if "--runs" in argv:
        i = argv.index("--runs")
        runs = int(argv[i + 1])
        del argv[i:i + 2]
    slowest = None
    if "--slowest" in argv:
        i = argv.index("--slowest")
        slowest = argv[i + 1]
        del argv[i:i + 2]
    markdown = "--markdown" in argv
    tilecs = [os.path.abspath(a) for a in argv if not a.startswith("--")]
    if not tilecs:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [(name, args, target) for name, args, target in SEEDS]
    if slowest:
        # times.txt of a snapshot: "MS NAME ARGS...", slowest first.
        for line in open(os.path.join(slowest, "times.txt")).readlines()[:12]:
            ms, name, key = line.rstrip("\n").split(" ", 2)
            c = shlex.split(key)
            kernel = c[c.index("-k") + 1]
            defs = [c[i + 1].split("=")[1][:8] for i in range(len(c) - 1) if c[i] == "-D"]
            warps = c[c.index("--num-warps") + 1] if "--num-warps" in c else "4"
            rows.append((f"{os.path.basename(c[0])}:{kernel} {'x'.join(defs)} w{warps}", c, 50))
    head = ["kernel"] + ([f"ms ({os.path.basename(t)})" for t in tilecs] if len(tilecs) > 1
                         else ["ms"]) + ["target"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    worst = 0.0
    for name, args, target in rows:
        ms = median_ms(tilecs, args, runs)
        cells = ["failed" if m is None else f"{m:.1f}" for m in ms]
        if ms[-1] is not None:
            worst = max(worst, ms[-1])
        line = [name] + cells + [f"<= {target}"]
        print(("| " + " | ".join(line) + " |") if markdown else "  ".join(line), flush=True)
    print(f"{'' if not markdown else '> '}slowest (last compiler): {worst:.1f} ms; median of {runs} runs, "
          f"TILE_CACHE=0, whole process, {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
