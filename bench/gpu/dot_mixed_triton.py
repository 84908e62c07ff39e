# Triton on tests/gpu/dot_mixed.tile's kernel at 4096^3, 128x256x64 w8 s3, the same launch as
#   tilec bench -D BENCH=1 tests/gpu/dot_mixed.tile
# (run from the repository root on a GPU machine with torch and triton; prints TFLOP/s and a check against torch)
import torch, triton, triton.testing
ns = {"__name__": "dot_mixed"}
exec(compile(open("tests/gpu/dot_mixed.tile").read(), "tests/gpu/dot_mixed.tile", "exec"), ns)
k = ns["mm_mixed"]
M = N = K = 4096
for dt, scale in ((torch.float32, False), (torch.float16, True)):
    a = torch.randn(M, K, device="cuda").to(dt); b = torch.randn(K, N, device="cuda").half()
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    f = lambda: k[(M // 128, N // 256)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        c.stride(0), c.stride(1), SCALE_A=scale, BM=128, BN=256, BK=64, num_warps=8, num_stages=3)
    f(); ref = ((a * 0.5) if scale else a).half().float() @ b.float()
    ok = torch.allclose(c.float(), ref, rtol=2e-2, atol=0.2)
    ms = triton.testing.do_bench(f, warmup=25, rep=100, return_mode="median")
    print(f"triton {dt} scale={scale}: {2 * M * N * K / ms / 1e9:.0f} TFLOP/s ok={ok}")
