"""triton_asm.py - Triton's PTX and SASS for the seed matmul at one block
config, to compare the code generation with tile's side by side (run on the
H200; cuobjdump comes with CUDA there).
usage: python3 triton_asm.py REPO_ROOT OUT_DIR DTYPE BM BN BK WARPS STAGES
"""
import os
import subprocess
import sys

import torch
import triton

root, out, dt = sys.argv[1], sys.argv[2], sys.argv[3]
bm, bn, bk, warps, stages = (int(v) for v in sys.argv[4:9])
ns = {"__name__": "tile_example"}
path = f"{root}/dsl_examples/lesson2_matmul.tile"
exec(compile(open(path).read(), path, "exec"), ns)
kern = ns["matmul_kernel"]
M = N = K = 4096
dtype = getattr(torch, dt)
a = torch.randn(M, K, device="cuda").to(dtype)
b = torch.randn(K, N, device="cuda").to(dtype)
c = torch.empty(M, N, device="cuda", dtype=torch.float32)
grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
h = kern[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
               N_ITERS=triton.cdiv(K, bk), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages)
stem = f"{out}/triton_{dt}_{bm}x{bn}x{bk}w{warps}s{stages}"
open(stem + ".ptx", "w").write(h.asm["ptx"])
open(stem + ".cubin", "wb").write(h.asm["cubin"])
sass = subprocess.run(["cuobjdump", "-sass", stem + ".cubin"], capture_output=True, text=True).stdout
open(stem + ".sass", "w").write(sass)
print(stem, "regs", h.n_regs, "spills", h.n_spills, "smem", h.metadata.shared)
