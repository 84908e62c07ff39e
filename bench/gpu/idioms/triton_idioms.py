"""triton_idioms.py - the Triton and torch side of the idioms benchmark
(bench/gpu/idioms/run.sh), run on the H200.

The kernels are the ones of bench/gpu/idioms/*.tile, executed as Python
(a .tile file's top level is imports, constants and defs: its @triton.jit
kernels run under Triton unchanged; its host functions are only called where
they are plain Python: case names, warps and block rules, flop counts), at
the files' own bench case lists (MATMUL_SHAPES, ATT_V1_CASES, ...), with the
same launch parameters as tile's side (grid, num_warps, num_stages,
constexprs). Where tile runs a marked variant of a kernel (attention_v2's
`_attn_fwd_tile`, softmax's `softmax_persistent_kernel_tile`), Triton runs
the idiomatic kernel (under Triton the two are the same kernel; see the
files' headers); if Triton rejects the idiomatic one, it runs the variant
and the row says so.

Every result is checked against torch: matmuls against torch.matmul of the
f32 inputs (TF32 off) with |c - ref| <= 2e-3 * sqrt(K) + 2e-3 * |ref|;
attention O against F.scaled_dot_product_attention everywhere and against
an f32 torch reference (softmax(q k^T * scale) v) on the first and the last
head (atol = rtol = 1e-2), attention v2's M (base-2 log-sum-exp) on those
heads against the f32 reference (1e-3), SDPA itself on those heads; softmax against torch.softmax (rtol 1e-5, atol 1e-6); layer
norm against F.layer_norm (atol = rtol = 1e-2: both round y to f16); the
attention backward (attention_bwd.tile: preprocess + dkdv + dq timed as one
sequence, its M and o from an f32 torch forward) against an f32 torch
backward, every head: delta, dq, dk, dv with atol 5e-3 of the tensor's
largest reference entry, rtol 1e-2 (tests/gpu/attention_bwd.tile's
tolerance); fused.tile's memory-bound kernels (launched by the file's own
launch()) against f32 torch references (see part_fused). The torch
baselines (cuBLAS, SDPA, SDPA's backward, torch.softmax, F.layer_norm, eager
torch for the fused kernels) are timed and checked the same way. Timings:
triton.testing.do_bench medians (warmup 25 ms, rep 100 ms, L2 flushed
between runs; SDPA's backward with its gradients reset to None before each
run, outside the timing).

Prints one JSON line per case: case (the name tile's side prints after
"case: idioms"), kernel, unit, triton_ms / triton_perf / triton_ok,
torch_ms / torch_perf / torch_ok, torch_impl, errors if any.

usage: python3 triton_idioms.py REPO_ROOT [--parts matmul,attention_v1,...] [--deadline S] [--seed N] [--small]
"""
import argparse
import json
import math
import os
import time

import torch
import torch.nn.functional as F
import triton
import triton.testing

PARTS = ("matmul", "attention_v1", "attention_v2", "attention_bwd", "softmax", "layernorm", "variants", "fused")
LOG2E = 1.4426950408889634
REP_MS = 100
t_start = time.time()
deadline_s = 1e9
FROM = int(os.environ.get("IDIOMS_FROM", "0"))   # run.sh's IDIOMS_FROM / _UNTIL: matmul's, variants', attention_bwd's
UNTIL = int(os.environ.get("IDIOMS_UNTIL", "1000"))   # from FROM, before UNTIL
SMALL = False   # --small: the files' small case lists (tile's default sizes), a quick check


def load(root, name):
    """Executes bench/gpu/idioms/NAME.tile's top level; the host builtins its
    plain-Python helpers call are provided here."""
    path = f"{root}/bench/gpu/idioms/{name}.tile"
    ns = {"__name__": "tile_idioms_" + name, "cdiv": triton.cdiv, "next_power_of_2": triton.next_power_of_2,
          "sqrt": math.sqrt}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def scratch(size, alignment, stream):
    """Triton's global scratch for descriptors made in a kernel
    (tl.make_tensor_descriptor: variants.tile's mm_desc)."""
    return torch.empty(size, device="cuda", dtype=torch.int8)


triton.set_allocator(scratch)


def bench(fn, grad_to_none=None):
    return triton.testing.do_bench(fn, warmup=25, rep=REP_MS, grad_to_none=grad_to_none, return_mode="median")


def emit(**row):
    print(json.dumps(row), flush=True)


def out_of_time():
    return time.time() - t_start > deadline_s


def short(e):
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:200]


def timed(row, prefix, fn, work, check, grad_to_none=None):
    """Runs fn under do_bench, then check() (True/False) on its result; fills
    row[prefix + '_ms' / '_perf' / '_ok'] or row[prefix + '_error']."""
    try:
        ms = bench(fn, grad_to_none)
        row[prefix + "_ms"] = ms
        row[prefix + "_perf"] = work / ms / 1e9 if row["unit"] == "TFLOP/s" else work / ms / 1e6
        row[prefix + "_ok"] = bool(check())
    except Exception as e:  # a compile error, out of resources: a row that says so
        row[prefix + "_error"] = short(e)
    return row


# ------------------------------------------------------------------ matmul

def matmul_close(c, ref, K, tol=2e-3):
    # tol 1e-2 for fp8 inputs: Hopper's fp8 MMAs add with fewer bits than f32 (matmul.tile's tolerance())
    return bool(((c.float() - ref).abs() <= tol * math.sqrt(K) + tol * ref.abs()).all())


def part_matmul(root):
    ns = load(root, "matmul")
    ns["BENCH"] = 0 if SMALL else 1
    ns["ONLY"] = os.environ.get("IDIOMS_ONLY", "")
    num_sms = ns["SMALL_NUM_SMS"] if SMALL else ns["NUM_SMS"]
    dev_sms = torch.cuda.get_device_properties(0).multi_processor_count
    cases = ns["matmul_cases"]()[FROM:UNTIL]
    data = {}
    torch_done = {}
    for case in cases:
        if out_of_time():
            break
        kind, (M, N, K), cfg = case
        dt = ns["input_dtype"](kind)
        nmajor = ns["b_n_major"](kind)
        if data.get("key") != ns["data_key"](case):
            data.clear()
            torch.cuda.empty_cache()
            if dt == "float16":  # B row-major, or K-major (an N x K weight's transpose) for "_kmajor"
                a = torch.randn((M, K), device="cuda", dtype=torch.float16)
                b = (torch.randn((K, N), device="cuda", dtype=torch.float16) if nmajor
                     else torch.randn((N, K), device="cuda", dtype=torch.float16).T)
            else:  # fp8: B K-major, as Triton's tutorial passes it (and torch._scaled_mm wants it), or N-major
                t = getattr(torch, dt)
                a = torch.randn((M, K), device="cuda").to(t)
                b = torch.randn((K, N), device="cuda").to(t) if nmajor else torch.randn((N, K), device="cuda").to(t).T
            ref = torch.matmul(a.float(), b.float())
            data.update(key=ns["data_key"](case), a=a, b=b, ref=ref)
        a, b, ref = data["a"], data["b"], data["ref"]
        act = "leaky_relu" if kind == "matmul_leaky_relu" else ""
        want = F.leaky_relu(ref, 0.01) if act else ref
        bm, bn, bk, group, warps, stages = cfg
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
        row = dict(case=ns["case_name"](case), kernel=kind, unit="TFLOP/s")
        if kind == "persistent_matmul":
            row["num_sms"] = num_sms
            row["device_sms"] = dev_sms
            kern = ns["matmul_persistent_kernel"]
            grid = (min(num_sms, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)

            def run():
                kern[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                           c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=group,
                           NUM_SMS=num_sms, num_warps=warps, num_stages=stages)
        else:
            kern = ns["matmul_kernel"]
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)

            def run():
                kern[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                           c.stride(1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=group,
                           ACTIVATION=act, num_warps=warps, num_stages=stages)
        flops = 2 * M * N * K
        tol = 2e-3 if dt == "float16" else 1e-2
        timed(row, "triton", run, flops, lambda: matmul_close(c, want, K, tol))
        key = (ns["data_key"](case), act)
        if key not in torch_done:
            t = dict(unit="TFLOP/s")
            if dt == "float8_e5m2":  # torch._scaled_mm has no e5m2 x e5m2 GEMM: no torch anchor
                fn = None
            elif dt != "float16":  # cuBLASLt's fp8 GEMM (unit scales, fp16 out); it takes B K-major only
                one = torch.tensor(1.0, device="cuda")
                bk = b.T.contiguous().T if nmajor else b
                fn = lambda: torch._scaled_mm(a, bk, scale_a=one, scale_b=one, out_dtype=torch.float16)  # noqa: E731
            elif act:
                fn = lambda: F.leaky_relu(torch.matmul(a, b), 0.01)  # noqa: E731
            else:
                fn = lambda: torch.matmul(a, b)  # noqa: E731
            if fn is not None:
                timed(t, "torch", fn, flops, lambda: matmul_close(fn(), want, K, tol))
            torch_done[key] = t
        row.update({k: v for k, v in torch_done[key].items() if k.startswith("torch")})
        row["torch_impl"] = ({"float16": "cuBLAS", "float8_e4m3fn": "torch._scaled_mm"}.get(dt, "none")
                             + (" + leaky_relu" if act else "") + (" (B made K-major first)" if dt != "float16" and nmajor
                                                                    else ""))
        emit(**row)
        del c


def part_variants(root):
    """variants.tile: the tutorial matmul rewritten in other idioms, launched
    by the file's own launch() (its host code is plain Python over torch
    tensors), checked against torch.matmul of the f32 inputs."""
    ns = load(root, "variants")
    ns["BENCH"] = 0 if SMALL else 1
    ns["ONLY"] = os.environ.get("IDIOMS_ONLY", "")
    for case in ns["var_cases"]()[FROM:UNTIL]:
        if out_of_time():
            break
        variant, (Z, M, N, K), cfg = case
        torch.cuda.empty_cache()
        dev = dict(device="cuda", dtype=torch.float16)
        bias = torch.randn((N,), **dev)
        if variant == "mm_batched":
            a, b = torch.randn((Z, M, K), **dev), torch.randn((Z, K, N), **dev)
        elif variant == "mm_fp8_block":   # fp8 A, K-major fp8 B, block scales (variants.tile)
            def halves(shape):
                x = (torch.randn(shape, device="cuda") * 5.0).to(torch.int32).float() * 0.5
                return x.clamp(-7.5, 7.5).to(torch.float8_e4m3fn)
            gk, gn = ns["GROUP_K"], ns["GROUP_N"]
            a, b = halves((M, K)), halves((N, K)).T
            bias = (torch.rand((M, triton.cdiv(K, gk)), device="cuda") + 0.5,
                    torch.rand((triton.cdiv(N, gn), triton.cdiv(K, gk)), device="cuda") + 0.5)
        elif variant == "mm_i8":   # int8 A, K-major int8 B, int32 C
            a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
            b = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8).T
        elif variant == "mm_w8a16":   # f16 A, int8 B (K x N), per-column f16 scales (bias)
            a = torch.randn((M, K), **dev)
            b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
            bias = ((torch.rand((N,), device="cuda") + 0.5) / 128.0).half()
        else:
            a = torch.randn((M, K), **dev)
            b = torch.randn((N, K), **dev).T if variant in ("mm_kmajor", "mm_wt", "mm_desc") else torch.randn((K, N), **dev)
        if variant == "mm_fp8_block":   # the scales applied elementwise: C = A' @ B'
            a_full = bias[0].repeat_interleave(gk, dim=1)[:, :K]
            b_full = bias[1].repeat_interleave(gn, dim=0).repeat_interleave(gk, dim=1)[:N, :K]
            ref = torch.matmul(a.float() * a_full, b.float() * b_full.T)
        else:
            ref = torch.matmul(a.float(), b.float())
        if variant == "mm_bias_relu":
            ref = torch.relu(ref + bias.float())
        elif variant == "mm_w8a16":
            ref = ref * bias.float()
        cshape = (Z, M, N) if variant == "mm_batched" else (M, N)
        splitk = variant == "mm_splitk"
        c = torch.zeros(cshape, device="cuda", dtype=torch.float32) if splitk else \
            torch.full(cshape, -1, device="cuda", dtype=torch.int32) if variant == "mm_i8" else \
            torch.full(cshape, float("nan"), device="cuda", dtype=torch.float16)
        row = dict(case=ns["case_name"](case), kernel=variant, unit="TFLOP/s")
        launch = ns["launch"]
        tol = ns["tolerance"](variant)

        def run():
            launch(variant, a, b, c, bias, cfg)

        def check():
            if splitk:
                c.zero_()
                run()
            return matmul_close(c, ref, K, tol)

        flops = 2 * Z * M * N * K
        timed(row, "triton", run, flops, check)
        if variant == "mm_bias_relu":
            fn = lambda: torch.relu(torch.matmul(a, b) + bias)  # noqa: E731
        elif variant == "mm_i8":
            fn = lambda: torch._int_mm(a, b)  # noqa: E731  (cuBLASLt's int8 GEMM)
        elif variant == "mm_w8a16":   # dequantize, then cuBLAS fp16
            fn = lambda: torch.matmul(a, b.half()) * bias  # noqa: E731
        elif variant == "mm_fp8_block":   # no block-scaled fp8 GEMM in torch: cuBLAS fp16 of the shape
            a16, b16 = (a.float() * a_full).half(), (b.float() * b_full.T).half()
            fn = lambda: torch.matmul(a16, b16)  # noqa: E731
        else:
            fn = lambda: torch.matmul(a, b)  # noqa: E731
        timed(row, "torch", fn, flops, lambda: matmul_close(fn(), ref, K, tol))
        row["torch_impl"] = "cuBLAS" + (" + bias + relu" if variant == "mm_bias_relu" else
                                        " (torch._int_mm)" if variant == "mm_i8" else
                                        " (b.half(), matmul, * scale)" if variant == "mm_w8a16" else
                                        " fp16 of the shape" if variant == "mm_fp8_block" else "")
        emit(**row)
        del c


# ------------------------------------------------------------------ attention

def attention_inputs(Z, H, N, D):
    # the distributions of tile's side: N(0, 1)
    q = torch.randn((Z, H, N, D), device="cuda", dtype=torch.float16)
    k = torch.randn((Z, H, N, D), device="cuda", dtype=torch.float16)
    v = torch.randn((Z, H, N, D), device="cuda", dtype=torch.float16)
    return q, k, v


def strides4(t):
    return (t.stride(0), t.stride(1), t.stride(2), t.stride(3))


def head_reference(q, k, v, z, h, causal, sm_scale):
    """(O, base-2 log-sum-exp) of head (z, h) in f32."""
    s = torch.matmul(q[z, h].float(), k[z, h].float().T) * sm_scale
    if causal:
        n = s.shape[0]
        s = s.masked_fill(torch.ones(n, n, device=s.device, dtype=torch.bool).triu(1), float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v[z, h].float()), torch.logsumexp(s, dim=-1) * LOG2E


def attention_close(o, ref, heads):
    """o against SDPA everywhere and against the f32 reference on the heads of `heads`."""
    if not torch.allclose(o, ref, atol=1e-2, rtol=1e-2):
        return False
    return all(torch.allclose(o[z, h].float(), want[0], atol=1e-2, rtol=1e-2) for (z, h), want in heads.items())


def part_attention(root, version):
    ns = load(root, version)
    ns["BENCH"] = 0 if SMALL else 1
    cases = ns["ATT_V1_CASES"] if version == "attention_v1" else ns["ATT_V2_CASES"]
    if SMALL:
        cases = ns["SMALL_ATT_V1_CASES"] if version == "attention_v1" else ns["SMALL_ATT_V2_CASES"]
    for case in cases:
        Z, H, N, D, bm, bn, warps, stages = case
        torch.cuda.empty_cache()
        q, k, v = attention_inputs(Z, H, N, D)
        sm_scale = 1.0 / math.sqrt(D)
        grid = (N // bm, Z * H)
        for causal in (False, True):
            if out_of_time():
                return
            o = torch.full_like(q, float("nan"))
            row = dict(case=ns["case_name"](version, case, causal), kernel=version + (" causal" if causal else ""),
                       unit="TFLOP/s")
            flops = ns["attention_flops"](Z, H, N, D, causal)
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm_scale)
            heads = {(z, h): head_reference(q, k, v, z, h, causal, sm_scale) for z, h in ((0, 0), (Z - 1, H - 1))}
            if version == "attention_v1":
                kern = ns["attn_fwd_v1"]

                def run():
                    kern[grid](q, k, v, sm_scale, o, *strides4(q), *strides4(k), *strides4(v), *strides4(o), H, N,
                               BLOCK_M=bm, BLOCK_N=bn, HEAD_DIM=D, IS_CAUSAL=causal, num_warps=warps,
                               num_stages=stages)

                check = lambda: attention_close(o, ref, heads)  # noqa: E731
                timed(row, "triton", run, flops, check)
            else:
                lse = torch.full((Z, H, N), float("nan"), device="cuda", dtype=torch.float32)
                stage = 3 if causal else 1

                def launcher(kern):
                    def run():
                        kern[grid](q, k, v, sm_scale, lse, o, *strides4(q), *strides4(k), *strides4(v),
                                   *strides4(o), Z, H, N, HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn, STAGE=stage,
                                   num_warps=warps, num_stages=stages)
                    return run

                def check():
                    return (attention_close(o, ref, heads)
                            and all(torch.allclose(lse[z, h], want[1], atol=1e-3, rtol=1e-3)
                                    for (z, h), want in heads.items()))

                timed(row, "triton", launcher(ns["_attn_fwd"]), flops, check)
                if "triton_error" in row:   # Triton rejects the idiomatic kernel: run tile's variant, say so
                    row["triton_idiomatic_error"] = row.pop("triton_error")
                    row["triton_kernel"] = "_attn_fwd_tile (the tile variant)"
                    timed(row, "triton", launcher(ns["_attn_fwd_tile"]), flops, check)
            sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(  # noqa: E731
                q, k, v, is_causal=causal, scale=sm_scale)
            # SDPA against the f32 reference heads
            sdpa_ok = lambda: all(torch.allclose(sdpa()[z, h].float(), want[0], atol=1e-2, rtol=1e-2)  # noqa: E731
                                  for (z, h), want in heads.items())
            timed(row, "torch", sdpa, flops, sdpa_ok)
            row["torch_impl"] = "SDPA"
            emit(**row)
            del o
        del q, k, v


# ------------------------------------------------------------------ attention backward

def bwd_reference(q, k, v, do, causal, sm_scale):
    """The forward, o (f16) and M (base-2 log-sum-exp of the scaled scores),
    and the backward, delta, dq, dk, dv, in f32 (TF32 off), one batch entry
    at a time (S, P, dS: H * N * N f32 each)."""
    Z, H, N, D = q.shape
    o = torch.empty_like(q)
    m = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
    delta = torch.empty((Z, H, N), device="cuda", dtype=torch.float32)
    dq, dk, dv = (torch.empty(q.shape, device="cuda", dtype=torch.float32) for _ in range(3))
    above = torch.ones(N, N, device="cuda", dtype=torch.bool).triu(1)
    for z in range(Z):
        qf, kf, vf, dof = q[z].float(), k[z].float(), v[z].float(), do[z].float()
        s = torch.matmul(qf, kf.transpose(-1, -2)) * sm_scale
        if causal:
            s.masked_fill_(above, float("-inf"))
        m[z] = torch.logsumexp(s, dim=-1) * LOG2E
        p = torch.softmax(s, dim=-1)
        del s
        of = torch.matmul(p, vf)
        o[z] = of.half()
        delta[z] = (dof * of).sum(-1)
        dv[z] = torch.matmul(p.transpose(-1, -2), dof)
        ds = p * (torch.matmul(dof, vf.transpose(-1, -2)) - delta[z][..., None])
        del p
        dq[z] = torch.matmul(ds, kf) * sm_scale
        dk[z] = torch.matmul(ds.transpose(-1, -2), qf) * sm_scale
        del ds
    return dict(o=o, m=m, delta=delta, dq=dq, dk=dk, dv=dv)


def grad_close(x, want):
    """tests/gpu/attention_bwd.tile's tolerance: atol 5e-3 of the largest
    reference entry (the gradients' scale varies), rtol 1e-2."""
    return bool(torch.allclose(x.float(), want, atol=5e-3 * want.abs().max().item(), rtol=1e-2))


def part_attention_bwd(root):
    """attention_bwd.tile: the backward's three kernels (attn_bwd_preprocess,
    attn_bwd_dkdv, attn_bwd_dq) under Triton with tile's launch parameters,
    timed as one do_bench sequence (tile sums the three launches' medians),
    on M and o from an f32 torch forward (tile makes them with the file's
    forward kernel); torch's anchor is SDPA's backward (out.backward(do))."""
    ns = load(root, "attention_bwd")
    ns["BENCH"] = 0 if SMALL else 1
    cases = ns["SMALL_BWD_CASES" if SMALL else "BWD_CASES"]
    pre, dkdv, dqk = ns["attn_bwd_preprocess"], ns["attn_bwd_dkdv"], ns["attn_bwd_dq"]
    n = 0
    for case in cases:
        Z, H, N, D, bm1, bn1, bm2, bn2, warps, stages = case
        todo = [causal for i, causal in enumerate((False, True)) if FROM <= n + i < UNTIL]   # tile's numbering
        n += 2
        if not todo:
            continue
        torch.cuda.empty_cache()
        q, k, v = attention_inputs(Z, H, N, D)
        do = torch.randn_like(q)
        sm_scale = 1.0 / math.sqrt(D)
        # the tutorial's arg_k: k * sm_scale / ln(2) in f16 (made once, outside the timing, as on tile's side)
        argk = (k.float() * (sm_scale * LOG2E)).half()
        for causal in todo:
            if out_of_time():
                return
            ref = bwd_reference(q, k, v, do, causal, sm_scale)
            o, m = ref["o"], ref["m"]
            delta = torch.full((Z, H, N), float("nan"), device="cuda", dtype=torch.float32)
            dq, dk, dv = (torch.full_like(q, float("nan")) for _ in range(3))
            row = dict(case=ns["case_name"](case, causal), kernel="attention_bwd" + (" causal" if causal else ""),
                       unit="TFLOP/s")
            flops = ns["bwd_flops"](Z, H, N, D, causal)

            def run():
                pre[(N // bm2, Z * H)](o, do, delta, *strides4(o), H, N, BLOCK_M=bm2, HEAD_DIM=D)
                dkdv[(N // bn1, Z * H)](q, argk, v, do, dk, dv, m, delta, sm_scale, *strides4(q), H, N,
                                        BLOCK_M1=bm1, BLOCK_N1=bn1, HEAD_DIM=D, CAUSAL=causal,
                                        num_warps=warps, num_stages=stages)
                dqk[(N // bm2, Z * H)](q, argk, v, do, dq, m, delta, *strides4(q), H, N,
                                       BLOCK_M2=bm2, BLOCK_N2=bn2, HEAD_DIM=D, CAUSAL=causal,
                                       num_warps=warps, num_stages=stages)

            def check():
                return all(grad_close(x, ref[key]) for x, key in ((delta, "delta"), (dq, "dq"), (dk, "dk"),
                                                                   (dv, "dv")))

            timed(row, "triton", run, flops, check)
            # torch: SDPA's backward on the same q, k, v, do
            qg, kg, vg = (t.detach().clone().requires_grad_(True) for t in (q, k, v))
            out = None
            try:
                out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, scale=sm_scale)
            except Exception as e:  # SDPA refuses the shape: a row that says so
                row["torch_error"] = short(e)
            if out is not None:
                def sdpa_bwd():
                    out.backward(do, retain_graph=True)

                def sdpa_check():
                    qg.grad = kg.grad = vg.grad = None
                    sdpa_bwd()
                    return all(grad_close(t.grad, ref[key]) for t, key in ((qg, "dq"), (kg, "dk"), (vg, "dv")))

                timed(row, "torch", sdpa_bwd, flops, sdpa_check, grad_to_none=[qg, kg, vg])
                row["torch_impl"] = "SDPA backward"
            emit(**row)
            del ref, o, m, delta, dq, dk, dv, qg, kg, vg, out
        del q, k, v, do, argk


# ------------------------------------------------------------------ softmax

def part_softmax(root):
    ns = load(root, "softmax")
    ns["BENCH"] = 0 if SMALL else 1
    ns["ONLY"] = os.environ.get("IDIOMS_ONLY", "")
    num_sms = ns["SMALL_NUM_SMS"] if SMALL else ns["NUM_SMS"]
    for n_rows, n_cols in ns["SMALL_SOFTMAX_SHAPES" if SMALL else "SOFTMAX_SHAPES"]:
        torch.cuda.empty_cache()
        x = torch.randn((n_rows, n_cols), device="cuda", dtype=torch.float32)
        want = torch.softmax(x.double(), dim=-1).float()
        block = triton.next_power_of_2(n_cols)
        nbytes = 2 * n_rows * n_cols * 4
        torch_row = dict(unit="GB/s")
        timed(torch_row, "torch", lambda: torch.softmax(x, dim=-1), nbytes,
              lambda: torch.allclose(torch.softmax(x, dim=-1), want, rtol=1e-5, atol=1e-6))
        torch_row.pop("unit")
        for persistent in (False, True):
            if out_of_time():
                return
            y = torch.full_like(x, float("nan"))
            if not persistent:
                w = ns["row_warps"](block)
                name = ns["case_name"]("softmax_row", (n_rows, n_cols), "block " + str(block) + " w" + str(w))
                kern = ns["softmax_row_kernel"]

                def run():
                    kern[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=block, num_warps=w)
            else:
                progs = ns["persistent_programs"](n_rows, num_sms)
                warps = ns["PERSISTENT_WARPS"]
                stages = ns["PERSISTENT_STAGES"]
                name = ns["case_name"]("softmax_persistent", (n_rows, n_cols),
                                       "block " + str(block) + " programs " + str(progs) + " w" + str(warps)
                                       + " s" + str(stages))
                kern = ns["softmax_persistent_kernel"]

                def run():
                    kern[(progs,)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block,
                                   num_stages=stages, num_warps=warps)

                def run_variant():
                    ns["softmax_persistent_kernel_tile"][(progs,)](
                        y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block, NUM_STAGES=stages,
                        num_stages=stages, num_warps=warps)
            row = dict(case=name, kernel="softmax_persistent" if persistent else "softmax_row", unit="GB/s")
            check = lambda: torch.allclose(y, want, rtol=1e-5, atol=1e-6)  # noqa: E731
            timed(row, "triton", run, nbytes, check)
            if persistent and "triton_error" in row:   # Triton rejects the idiomatic kernel: tile's variant
                row["triton_idiomatic_error"] = row.pop("triton_error")
                row["triton_kernel"] = "softmax_persistent_kernel_tile (the tile variant)"
                timed(row, "triton", run_variant, nbytes, check)
            row.update(torch_row)
            row["torch_impl"] = "torch.softmax"
            emit(**row)
        del x, want


# ------------------------------------------------------------------ layer norm

def part_layernorm(root):
    ns = load(root, "layernorm")
    ns["BENCH"] = 0 if SMALL else 1
    eps = 1e-5
    for shape in ns["SMALL_LN_SHAPES" if SMALL else "LN_SHAPES"]:
        M, N = shape[0], shape[1]
        if out_of_time():
            return
        torch.cuda.empty_cache()
        x = (torch.randn((M, N), device="cuda") * 2.0 + 1.5).half()
        w = (torch.rand((N,), device="cuda") + 0.5).half()
        b = torch.randn((N,), device="cuda").half()
        y = torch.full_like(x, float("nan"))
        mean = torch.empty((M,), device="cuda", dtype=torch.float32)
        rstd = torch.empty((M,), device="cuda", dtype=torch.float32)
        block = ns["ln_block"](N, shape[2] if SMALL else 65536 // 2)
        warps = ns["ln_warps"](block)
        want = F.layer_norm(x.float(), (N,), w.float(), b.float(), eps)
        kern = ns["layer_norm_fwd_kernel"]

        def run():
            kern[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, eps, BLOCK_SIZE=block, num_warps=warps)

        name = "layernorm " + str(M) + "x" + str(N) + " f16 block " + str(block) + " w" + str(warps)
        row = dict(case=name, kernel="layernorm", unit="GB/s")
        nbytes = 2 * M * N * 2
        timed(row, "triton", run, nbytes, lambda: torch.allclose(y.float(), want, atol=1e-2, rtol=1e-2))
        fn = lambda: F.layer_norm(x, (N,), w, b, eps)  # noqa: E731
        timed(row, "torch", fn, nbytes, lambda: torch.allclose(fn().float(), want, atol=1e-2, rtol=1e-2))
        row["torch_impl"] = "F.layer_norm"
        emit(**row)


# ------------------------------------------------------------------ fused (memory-bound LLM kernels)

def close(a, want, tol):
    return bool(torch.allclose(a.float(), want.float(), atol=tol, rtol=tol))


def quant_close(q, scale, want_q, want_s, v):
    """int8 q (round half away from zero of x / scale) against the f32
    reference: exact, except within 1e-4 of a tie, where one step either
    way is allowed (the GPU's f32 `/` is not correctly rounded; torch.round
    rounds half to even); scale to 1e-6."""
    if not torch.allclose(scale.float().flatten(), want_s.flatten(), rtol=1e-6, atol=0.0):
        return False
    diff = (q.to(torch.int32) - want_q.to(torch.int32)).abs()
    av = v.abs()
    tie = (av - av.floor() - 0.5).abs() < 1e-4
    return bool(((diff == 0) | (tie & (diff <= 1))).all())


def rms_norm_torch(x, w, eps):
    if hasattr(F, "rms_norm"):   # torch >= 2.4
        return F.rms_norm(x, (x.shape[-1],), w, eps)
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def part_fused(root):
    """fused.tile: memory-bound LLM kernels (rmsnorm, fused residual add +
    rmsnorm, SwiGLU, RoPE, cross entropy, int8 row quantization, transpose,
    embedding gather), launched by the file's own launch() (plain Python over
    the torch tensors: tile's grids, blocks and warps), checked against f32
    torch references (fp16 outputs atol = rtol = 1e-2, f32 rstd 1e-4, losses
    1e-4, int8 q exact but near ties, copies exact); torch eager anchors
    (F.rms_norm, x + res then F.rms_norm, F.silu(g) * u, the rotate-half
    formula on gathered cos / sin rows, F.cross_entropy on the fp16 logits,
    amax / round / clamp, x.t().contiguous(), F.embedding), timed and
    checked the same way. GB/s count the file's case_bytes() for both."""
    ns = load(root, "fused")
    ns["BENCH"] = 0 if SMALL else 1
    ns["ONLY"] = os.environ.get("IDIOMS_ONLY", "")
    eps, ignore = ns["EPS"], ns["IGNORE_INDEX"]
    launch = ns["launch"]
    dev = dict(device="cuda", dtype=torch.float16)
    nan = float("nan")
    shared = {}
    for case in ns["fused_cases"]()[FROM:UNTIL]:
        if out_of_time():
            return
        kind, s, cfg = case
        torch.cuda.empty_cache()
        row = dict(case=ns["case_name"](case), kernel=kind, unit="GB/s")
        nbytes = ns["case_bytes"](case)
        if kind in ("rmsnorm_fwd", "add_rmsnorm_fwd"):
            M, N = s
            x = torch.randn(s, **dev)
            w = (torch.rand((N,), device="cuda") + 0.5).half()
            y = torch.full_like(x, nan)
            rstd = torch.full((M,), nan, device="cuda", dtype=torch.float32)
            if kind == "rmsnorm_fwd":
                h = x.float()
                t = (x, w, y, rstd)
            else:
                res0 = torch.randn(s, **dev)
                res = res0.clone()
                h = x.float() + res0.float()
                t = (x, res, w, y, rstd)
            want_rstd = torch.rsqrt(h.pow(2).mean(-1) + eps)
            want = h * want_rstd[:, None] * w.float()
            if kind == "rmsnorm_fwd":
                def check():
                    return close(y, want, 1e-2) and close(rstd, want_rstd, 1e-4)

                def torch_fn():
                    return rms_norm_torch(x, w, eps)

                def torch_check():
                    return close(torch_fn(), want, 1e-2)
                row["torch_impl"] = "F.rms_norm" if hasattr(F, "rms_norm") else "torch eager rmsnorm"
            else:
                def check():   # the timed runs added x into res again and again: once more, from res0
                    res.copy_(res0)
                    launch(case, t)
                    return close(res, h, 1e-2) and close(y, want, 1e-2) and close(rstd, want_rstd, 1e-4)

                def torch_fn():
                    hh = x + res0
                    return hh, rms_norm_torch(hh, w, eps)

                def torch_check():
                    hh, yy = torch_fn()
                    return close(hh, h, 1e-2) and close(yy, want, 1e-2)
                row["torch_impl"] = "x + res, " + ("F.rms_norm" if hasattr(F, "rms_norm") else "torch eager rmsnorm")
        elif kind == "swiglu_fwd":
            M, N = s
            xy = torch.randn((M, 2 * N), **dev)
            out = torch.full((M, N), nan, **dev)
            t = (xy, out)
            want = F.silu(xy[:, :N].float()) * xy[:, N:].float()

            def check():
                return close(out, want, 1e-2)

            def torch_fn():
                return F.silu(xy[:, :N]) * xy[:, N:]

            def torch_check():
                return close(torch_fn(), want, 1e-2)
            row["torch_impl"] = "F.silu(g) * u"
        elif kind == "rope_fwd":
            T, H, D, seq = s
            half = D // 2
            x = torch.randn((T, H, D), **dev)
            cos = torch.rand((seq, half), device="cuda") * 2.0 - 1.0
            sin = torch.rand((seq, half), device="cuda") * 2.0 - 1.0
            out = torch.full_like(x, nan)
            t = (x, cos, sin, out)
            pos = torch.arange(T, device="cuda") % seq
            c, sn = cos[pos][:, None, :], sin[pos][:, None, :]   # the rows of the tokens' positions
            x1, x2 = x[..., :half].float(), x[..., half:].float()
            want = torch.cat((x1 * c - x2 * sn, x2 * c + x1 * sn), dim=-1)

            def check():
                return close(out, want, 1e-2)

            def torch_fn():
                a, b = x[..., :half], x[..., half:]
                return torch.cat((a * c - b * sn, b * c + a * sn), dim=-1).half()

            def torch_check():
                return close(torch_fn(), want, 1e-2)
            row["torch_impl"] = "torch eager rotate-half (cos / sin rows gathered beforehand)"
        elif kind == "cross_entropy_fwd":
            R, V = s
            if shared.get("key") != (kind, s):
                logits = torch.randn(s, **dev)
                targets = torch.randint(0, V, (R,), device="cuda", dtype=torch.int64)
                targets[::5] = ignore
                targets[-1] = V - 1
                shared.clear()
                shared.update(key=(kind, s), logits=logits, targets=targets,
                              want=F.cross_entropy(logits.float(), targets, reduction="none", ignore_index=ignore))
            logits, targets, want = shared["logits"], shared["targets"], shared["want"]
            loss = torch.full((R,), nan, device="cuda", dtype=torch.float32)
            t = (logits, targets, loss)

            def check():
                return close(loss, want, 1e-4)

            def torch_fn():
                return F.cross_entropy(logits, targets, reduction="none", ignore_index=ignore)

            def torch_check():   # fp16 losses
                return close(torch_fn(), want, 1e-2)
            row["torch_impl"] = "F.cross_entropy (fp16 logits)"
        elif kind == "quant_int8_rowwise":
            M, N = s
            x = torch.randn(s, **dev)
            q = torch.full(s, -128, device="cuda", dtype=torch.int8)
            scale = torch.full((M,), nan, device="cuda", dtype=torch.float32)
            t = (x, q, scale)
            xf = x.float()
            want_s = xf.abs().amax(-1).clamp_min(1e-8) / 127.0
            v = xf / want_s[:, None]
            want_q = torch.where(v >= 0, torch.floor(v + 0.5), torch.ceil(v - 0.5)).clamp(-127, 127)

            def check():
                return quant_close(q, scale, want_q, want_s, v)

            def torch_fn():
                sc = x.abs().amax(-1, keepdim=True).float().clamp_min(1e-8) / 127.0
                return torch.round(x.float() / sc).clamp(-127, 127).to(torch.int8), sc

            def torch_check():
                qq, sc = torch_fn()
                return quant_close(qq, sc, want_q, want_s, v)
            row["torch_impl"] = "torch eager amax / round / clamp"
        elif kind == "transpose_2d":
            x = torch.randn(s, **dev)
            out = torch.full((s[1], s[0]), nan, **dev)
            t = (x, out)
            want = x.t().contiguous()

            def check():
                return torch.equal(out, want)

            def torch_fn():
                return x.t().contiguous()

            def torch_check():
                return torch.equal(torch_fn(), want)
            row["torch_impl"] = "x.t().contiguous()"
        else:
            T, D, V = s
            ids = torch.randint(0, V, (T,), device="cuda", dtype=torch.int32)
            table = torch.randn((V, D), **dev)
            out = torch.full((T, D), nan, **dev)
            t = (ids, table, out)
            want = table[ids.long()]

            def check():
                return torch.equal(out, want)

            def torch_fn():
                return F.embedding(ids, table)

            def torch_check():
                return torch.equal(torch_fn(), want)
            row["torch_impl"] = "F.embedding"

        def run():
            launch(case, t)

        timed(row, "triton", run, nbytes, check)
        timed(row, "torch", torch_fn, nbytes, torch_check)
        emit(**row)
        del t


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=".")
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated: " + ", ".join(PARTS))
    ap.add_argument("--deadline", type=float, default=1e9, help="seconds: cases after this are skipped")
    ap.add_argument("--seed", type=int, help="torch's seed (default: the clock)")
    ap.add_argument("--small", action="store_true", help="the files' small cases (as tile runs them by default)")
    args = ap.parse_args()
    deadline_s = args.deadline
    SMALL = args.small
    seed = args.seed if args.seed is not None else int(time.time())
    torch.manual_seed(seed)
    # f32 references and cuBLAS under the kernels' contract: no TF32, f16
    # products summed in f32
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    emit(case="device", impl=torch.cuda.get_device_name(), triton=triton.__version__, torch=torch.__version__,
         seed=seed)
    for part in args.parts.split(","):
        if out_of_time():
            emit(case="deadline", part=part, elapsed_s=time.time() - t_start)
            break
        t0 = time.time()
        try:
            if part == "matmul":
                part_matmul(args.root)
            elif part in ("attention_v1", "attention_v2"):
                part_attention(args.root, part)
            elif part == "attention_bwd":
                part_attention_bwd(args.root)
            elif part == "softmax":
                part_softmax(args.root)
            elif part == "layernorm":
                part_layernorm(args.root)
            elif part == "variants":
                part_variants(args.root)
            elif part == "fused":
                part_fused(args.root)
            else:
                raise SystemExit(f"unknown part {part!r} (parts: {', '.join(PARTS)})")
        except Exception as e:  # one part's failure leaves the others
            emit(case="part failed", part=part, error=short(e))
        emit(case="part time", part=part, seconds=time.time() - t0)
