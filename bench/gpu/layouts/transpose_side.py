"""transpose_side.py - the anchors of bench/gpu/layouts/transpose.tile, run
on the GPU in the same call as `tilec bench`: the file's kernels under
Triton (the .tile file's top level is Python: its @triton.jit kernels run
as they are), same shapes, configs and launch parameters, and torch
(`x.t().contiguous()`, `xc.contiguous()`), do_bench medians, each result
checked. One line per case: name, Triton GB/s, torch GB/s, ok flags.

usage: python3 bench/gpu/layouts/transpose_side.py REPO_ROOT
"""
import os
import sys

import torch
import triton
import triton.testing


def main():
    path = os.path.join(sys.argv[1], "bench", "gpu", "layouts", "transpose.tile")
    ns = {"__name__": "tile_layouts"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    print(f"# {torch.cuda.get_device_name()}, Triton {triton.__version__}, torch {torch.__version__}")
    dtypes = {"float16": torch.float16, "float32": torch.float32}
    bench = lambda fn: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")  # noqa: E731
    for M, N in ns["SHAPES"]:
        for name, dt in dtypes.items():
            x = torch.randn((M, N), device="cuda", dtype=dt)
            xc = torch.randn((N, M), device="cuda", dtype=dt).T
            nbytes = 2 * M * N * x.element_size()
            for cfg in ns["CONFIGS"]:
                grid = (triton.cdiv(M, cfg[0]), triton.cdiv(N, cfg[1]))
                y = torch.empty((N, M), device="cuda", dtype=dt)

                def tr():
                    ns["transpose_kernel"][grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                                                 BM=cfg[0], BN=cfg[1], num_warps=cfg[2])
                ms = bench(tr)
                ok = torch.equal(y, x.T)
                tms = bench(lambda: x.t().contiguous())
                print(f"transpose {M}x{N} {name} {cfg[0]}x{cfg[1]} w{cfg[2]}: triton {nbytes / ms / 1e6:.0f} GB/s"
                      f" ok={ok}; torch {nbytes / tms / 1e6:.0f} GB/s")
                z = torch.empty((M, N), device="cuda", dtype=dt)

                def rm():
                    ns["to_rowmajor_kernel"][grid](xc, z, M, N, xc.stride(0), xc.stride(1), z.stride(0),
                                                   z.stride(1), BM=cfg[0], BN=cfg[1], num_warps=cfg[2])
                ms = bench(rm)
                ok = torch.equal(z, xc)
                tms = bench(lambda: xc.contiguous())
                print(f"to_rowmajor {M}x{N} {name} {cfg[0]}x{cfg[1]} w{cfg[2]}: triton {nbytes / ms / 1e6:.0f} GB/s"
                      f" ok={ok}; torch {nbytes / tms / 1e6:.0f} GB/s", flush=True)


if __name__ == "__main__":
    main()
