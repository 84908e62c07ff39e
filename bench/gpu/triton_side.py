"""triton_side.py - the anchors of the GPU benchmark, run on the H200:
the same kernel source under Triton (the .tile files are Python: their
@triton.jit kernels are executed as they are), and torch (copy bandwidth,
cuBLAS). Prints one JSON line per case; bench/gpu/run_h200.sh joins them
with tile's numbers into one table.

Part "seed": vector_add and the seed matmul at the block sizes of
cases.tile. Part "sizes": the seed matmul at the dtypes, shapes and block
configs of matmul_sizes.tile (read from that file, so both sides run the
same list), Triton with the same launch arguments (num_warps included) and
cuBLAS (torch.matmul, same input dtypes; f32 with tf32 allowed; fp8:
cuBLASLt through torch._scaled_mm with unit scales), each result's relative
error against a float64 reference on fresh random data, with
check_matmul.py's tolerances. Those rows carry "table": "sizes".

usage: python3 triton_side.py REPO_ROOT [--parts seed,sizes]
"""
import argparse
import json
import os
import sys
import time

import torch
import triton
import triton.testing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_matmul import passes, tolerance  # noqa: E402  (one place for the tolerances)


def load_kernels(path):
    """Executes a .tile file's top level (imports and defs only)."""
    ns = {"__name__": "tile_example"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def bench(fn, rep=200):
    # Median of CUDA-event timings, as triton.testing.do_bench measures
    # (warmup and rep are milliseconds of runs; L2 is flushed before each).
    return triton.testing.do_bench(fn, warmup=25, rep=rep, return_mode="median")


def emit(**row):
    print(json.dumps(row), flush=True)


def vector_add(root):
    ns = load_kernels(f"{root}/dsl_examples/vector_add.tile")
    add_kernel = ns["add_kernel"]
    n = 1 << 28
    x = torch.rand(n, device="cuda", dtype=torch.float32)
    y = torch.rand(n, device="cuda", dtype=torch.float32)
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    ms = bench(lambda: add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024))
    assert torch.equal(out, x + y)
    emit(case="vector_add f32 2^28", impl="triton", ms=ms, gbps=3 * 4 * n / ms / 1e6)
    ms = bench(lambda: out.copy_(x))
    emit(case="vector_add f32 2^28", impl="torch copy", ms=ms, gbps=2 * 4 * n / ms / 1e6)
    ms = bench(lambda: torch.add(x, y, out=out))
    emit(case="vector_add f32 2^28", impl="torch add", ms=ms, gbps=3 * 4 * n / ms / 1e6)


def matmul(root):
    ns = load_kernels(f"{root}/dsl_examples/lesson2_matmul.tile")
    matmul_kernel = ns["matmul_kernel"]
    for dtype in (torch.float32, torch.float16):
        for size in (1024, 4096):
            M = N = K = size
            a = torch.randn((M, K), device="cuda", dtype=dtype)
            b = torch.randn((K, N), device="cuda", dtype=dtype)
            c = torch.empty((M, N), device="cuda", dtype=torch.float32)
            name = f"seed matmul {str(dtype).replace('torch.', '')} {size}^3"
            flops = 2 * M * N * K
            for bm, bn, bk in ((16, 16, 16), (64, 64, 32)):
                grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))

                def run():
                    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        c.stride(0), c.stride(1), N_ITERS=triton.cdiv(K, bk),
                                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)

                ms = bench(run)
                ref = torch.matmul(a.float(), b.float())
                err = (c - ref).abs().max().item()
                emit(case=name, impl=f"triton {bm}x{bn}x{bk}", ms=ms, tflops=flops / ms / 1e9, max_err=err)
            ms = bench(lambda: torch.matmul(a, b))
            emit(case=name, impl="torch (cuBLAS)", ms=ms, tflops=flops / ms / 1e9)


SIZES_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "float8_e4m3fn": torch.float8_e4m3fn}
SIZES_CONFIGS = {"float16": "CONFIGS_16", "bfloat16": "CONFIGS_16", "float32": "CONFIGS_32",
                 "float8_e4m3fn": "CONFIGS_8"}  # matmul_sizes.tile's list of each dtype
SIZES_REP_MS = 100  # do_bench's rep: about 30 runs at 8192^3


def rel_error(c, ref, ref_norm):
    """||c - ref||_F / ||ref||_F, in float64."""
    return torch.linalg.vector_norm(c.double() - ref).item() / ref_norm


def checked(row, err, dtype, out_dtype="float32"):
    tol = tolerance(dtype, out_dtype)
    row.update(rel_err=err, tol=tol, ok=passes(err, tol))
    return row


# Triton alone also runs its best f16/bf16 config of the issue's
# measurements (4 stages), so that "Triton's best" is its best, not only the
# best of tile's list (tile runs everything at 3 stages).
TRITON_ONLY_16 = ((128, 128, 64, 8, 4),)


def sizes_triton(matmul_kernel, a, b, ref, ref_norm, dtype, cfg, base):
    M, K = a.shape
    N = b.shape[1]
    bm, bn, bk, warps = cfg[:4]
    stages = cfg[4] if len(cfg) > 4 else 3
    row = dict(base, impl="triton", config=f"{bm}x{bn}x{bk}w{warps}" + (f"s{stages}" if stages != 3 else ""))
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))

    def run():
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), N_ITERS=triton.cdiv(K, bk),
                            BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)

    try:
        ms = bench(run, rep=SIZES_REP_MS)
    except Exception as e:  # e.g. out of shared memory: a row that says so
        msg = str(e).strip().splitlines()
        return dict(row, error=f"{type(e).__name__}: {msg[0] if msg else ''}"[:160])
    return checked(dict(row, ms=ms, tflops=2 * M * N * K / ms / 1e9), rel_error(c, ref, ref_norm), dtype)


def sizes_inputs(dtype, M, N, K):
    """A and B as matmul_sizes.tile makes them; fp8: randn in f32 rounded to
    e4m3fn, B K-major (the transpose of an N x K tensor), as Triton's
    tutorial passes fp8 B and torch._scaled_mm wants it."""
    if dtype == torch.float8_e4m3fn:
        a = torch.randn((M, K), device="cuda").to(dtype)
        return a, torch.randn((N, K), device="cuda").to(dtype).T
    return torch.randn((M, K), device="cuda", dtype=dtype), torch.randn((K, N), device="cuda", dtype=dtype)


def sizes_cublaslt_fp8(a, b, ref, ref_norm, dtype, base):
    """cuBLASLt's fp8 GEMM: torch._scaled_mm with unit tensor-wise scales,
    f16 C (as the idioms' fp8 anchor, triton_idioms.py), partial sums
    promoted (use_fast_accum off, its default). It takes A row-major and B
    K-major only, and wants K and N multiples of 16 (its mat2 check) where
    the kernels do not: a shape whose N is not (the ragged 4000x3000x2000)
    runs as C^T = B^T A^T, the same GEMM with the operands' roles swapped
    (B^T is the N x K row-major tensor, A^T is K-major), its M a multiple of
    16 then; C^T is checked transposed."""
    M, K = a.shape
    N = b.shape[1]
    one = torch.tensor(1.0, device="cuda")
    swapped = N % 16 != 0
    if not swapped:
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16)  # noqa: E731
    else:
        bt, at = b.T, a.T
        fn = lambda: torch._scaled_mm(bt, at, scale_a=one, scale_b=one, out_dtype=torch.float16)  # noqa: E731
    row = dict(base, impl="cublas", api="torch._scaled_mm", out_dtype="float16")
    if swapped:
        row["note"] = f"ran as C^T = B^T A^T (torch._scaled_mm wants N a multiple of 16; N = {N})"
    try:
        ms = bench(fn, rep=SIZES_REP_MS)
        c = fn()
    except Exception as e:  # e.g. a shape cuBLASLt's fp8 GEMM does not take: a row that says so
        msg = str(e).strip().splitlines()
        return dict(row, error=f"{type(e).__name__}: {msg[0] if msg else ''}"[:160])
    if swapped:
        c = c.T
    row.update(ms=ms, tflops=2 * M * N * K / ms / 1e9)
    return checked(row, rel_error(c, ref, ref_norm), dtype, "float16")


def sizes_cublas(a, b, ref, ref_norm, dtype, base):
    M, K = a.shape
    N = b.shape[1]
    ms = bench(lambda: torch.matmul(a, b), rep=SIZES_REP_MS)
    c = torch.matmul(a, b)
    out_dtype = str(c.dtype).replace("torch.", "")
    row = dict(base, impl="cublas", out_dtype=out_dtype, ms=ms, tflops=2 * M * N * K / ms / 1e9)
    return checked(row, rel_error(c, ref, ref_norm), dtype, out_dtype)


def sizes(root, dtypes=None, only=0):
    """The seed matmul over matmul_sizes.tile's dtypes, shapes and configs:
    Triton and cuBLAS, each result checked against float64. dtypes: names
    to keep (None: all); only: that square size alone (0: every shape)."""
    matmul_kernel = load_kernels(f"{root}/dsl_examples/lesson2_matmul.tile")["matmul_kernel"]
    cases = load_kernels(f"{root}/bench/gpu/matmul_sizes.tile")
    flags = torch.backends.cuda.matmul
    saved = (flags.allow_tf32, flags.allow_fp16_reduced_precision_reduction,
             flags.allow_bf16_reduced_precision_reduction)
    # cuBLAS under the kernels' contract: f32 inputs as tf32, f16/bf16
    # products summed in f32 (no reduced-precision split-K reductions).
    flags.allow_tf32 = True
    flags.allow_fp16_reduced_precision_reduction = False
    flags.allow_bf16_reduced_precision_reduction = False
    try:
        for name, dtype in SIZES_DTYPES.items():
            if dtypes and name not in dtypes:
                continue
            configs = cases[SIZES_CONFIGS[name]]
            shapes = cases["SHAPES"]
            if only:
                shapes = ((only, only, only),) if only > 0 else shapes[-1:]   # --only -1: the ragged shape
            for M, N, K in shapes:
                a, b = sizes_inputs(dtype, M, N, K)
                ref = torch.matmul(a.double(), b.double())
                ref_norm = torch.linalg.vector_norm(ref).item()
                base = dict(table="sizes", dtype=name, shape=f"{M}x{N}x{K}")
                for cfg in configs + (TRITON_ONLY_16 if name in ("float16", "bfloat16") else ()):
                    emit(**sizes_triton(matmul_kernel, a, b, ref, ref_norm, name, cfg, base))
                if dtype == torch.float8_e4m3fn:
                    emit(**sizes_cublaslt_fp8(a, b, ref, ref_norm, name, base))
                else:
                    emit(**sizes_cublas(a, b, ref, ref_norm, name, base))
                del a, b, ref
                torch.cuda.empty_cache()
    finally:
        (flags.allow_tf32, flags.allow_fp16_reduced_precision_reduction,
         flags.allow_bf16_reduced_precision_reduction) = saved


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=".")
    ap.add_argument("--parts", default="seed,sizes", help="comma-separated: seed, sizes")
    ap.add_argument("--seed", type=int, help="torch's seed (default: the clock, for fresh data)")
    ap.add_argument("--dtypes", help="sizes part: comma-separated dtype names to run (default: all)")
    ap.add_argument("--only", type=int, default=0, help="sizes part: that square size alone (-1: the ragged shape)")
    args = ap.parse_args()
    parts = args.parts.split(",")
    seed = args.seed if args.seed is not None else int(time.time())
    torch.manual_seed(seed)
    emit(case="device", impl=torch.cuda.get_device_name(), triton=triton.__version__, torch=torch.__version__,
         seed=seed)
    if "seed" in parts:
        vector_add(args.root)
        matmul(args.root)
    if "sizes" in parts:
        sizes(args.root, args.dtypes.split(",") if args.dtypes else None, args.only)
