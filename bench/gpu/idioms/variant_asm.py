"""variant_asm.py - Triton's PTX for one kernel of variants.tile at one
config (the instruction mix: wgmma shapes, cp.async, global/shared widths),
to compare with tile's `tilec compile --emit ptx` of the same source.
usage: python3 variant_asm.py REPO_ROOT OUT_DIR VARIANT BM BN BK GROUP WARPS STAGES
"""
import os
import re
import sys
from collections import Counter

import torch
import triton

root, out, variant = sys.argv[1], sys.argv[2], sys.argv[3]
cfg = tuple(int(v) for v in sys.argv[4:10])
path = os.path.join(root, "bench", "gpu", "idioms", "variants.tile")
ns = {"__name__": "tile_variants", "cdiv": triton.cdiv}
exec(compile(open(path).read(), path, "exec"), ns)
M = N = K = 4096
if variant == "mm_i8":
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    b = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8).T
    c = torch.empty((M, N), device="cuda", dtype=torch.int32)
elif variant in ("mm_kmajor", "mm_wt"):   # K-major B, as variants.tile's make_data
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((N, K), device="cuda", dtype=torch.float16).T
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
else:
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
ns["launch"](variant, a, b, c, None, cfg)
kern = ns[variant]
h = list(kern.device_caches[0][0].values())[-1]   # Triton 3.x: (kernel cache, ...) per device
ptx = h.asm["ptx"]
os.makedirs(out, exist_ok=True)
open(os.path.join(out, f"triton_{variant}.ptx"), "w").write(ptx)
open(os.path.join(out, f"triton_{variant}.cubin"), "wb").write(h.asm["cubin"])
mix = Counter(re.findall(r"\b(?:wgmma\.mma_async[.\w]*|cp\.async\.bulk[.\w]*|cp\.async\.(?:ca|cg)[.\w]*|"
                         r"ld\.global[.\w]*|st\.global[.\w]*|ld\.shared[.\w]*|st\.shared[.\w]*|"
                         r"ldmatrix[.\w]*|stmatrix[.\w]*|mbarrier[.\w]*)", ptx))
print(variant, cfg, "regs", h.n_regs, "spills", h.n_spills, "smem", h.metadata.shared)
for k, v in sorted(mix.items()):
    print(f"  {v:5d} {k}")
