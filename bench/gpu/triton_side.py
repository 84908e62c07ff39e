"""triton_side.py - the anchors of the GPU benchmark, run on the H200:
the same kernel source under Triton (the .tile files are Python: their
@triton.jit kernels are executed as they are), and torch (copy bandwidth,
cuBLAS). Prints one JSON line per case; bench/gpu/run_h200.sh joins them
with tile's numbers into one table.

usage: python3 triton_side.py REPO_ROOT
"""
import json
import sys

import torch
import triton
import triton.testing


def load_kernels(path):
    """Executes a .tile file's top level (imports and defs only)."""
    ns = {"__name__": "tile_example"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def bench(fn):
    # Median of CUDA-event timings, as triton.testing.do_bench measures.
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


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


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    emit(case="device", impl=torch.cuda.get_device_name(), triton=triton.__version__, torch=torch.__version__)
    vector_add(root)
    matmul(root)
