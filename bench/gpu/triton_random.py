"""triton_random.py - runs bench/gpu/triton_random.tile's kernels under
Triton on the GPU and saves their outputs (.npy) for the tile side to
compare with. usage: python3 triton_random.py DIR"""
import os
import sys

import numpy as np
import torch
import triton

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
ns = {"__name__": "tile_example"}
path = os.path.join(here, "triton_random.tile")
exec(compile(open(path).read(), path, "exec"), ns)
N, SEED, WIDE = ns["N"], ns["SEED"], ns["WIDE"]
grid = (triton.cdiv(N, 1024),)
for base, name in ((0, "narrow"), (WIDE, "wide")):
    i = torch.zeros(N, dtype=torch.int64, device="cuda")
    f = torch.zeros(N, dtype=torch.float32, device="cuda")
    g = torch.zeros(N, dtype=torch.float32, device="cuda")
    ns["random_kernel"][grid](i, f, g, SEED, N, base, BLOCK=1024)
    np.save(f"{out}/{name}_randint.npy", i.cpu().numpy())
    np.save(f"{out}/{name}_rand.npy", f.cpu().numpy())
    np.save(f"{out}/{name}_randn.npy", g.cpu().numpy())
torch.manual_seed(0)
x = torch.randn(N, device="cuda")
o = torch.zeros(N, device="cuda")
ns["seeded_dropout"][grid](x, o, N, 0.5, SEED, BLOCK_SIZE=1024)
np.save(f"{out}/dropout_x.npy", x.cpu().numpy())
np.save(f"{out}/dropout_out.npy", o.cpu().numpy())
print("triton outputs saved to", out)
