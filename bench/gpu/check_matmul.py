"""check_matmul.py - checks every C that bench/gpu/matmul_sizes.tile measured
against a float64 reference: the relative error ||C - ref||_F / ||ref||_F
of each saved C, PASS or FAIL against its dtype's tolerance.

matmul_sizes.tile saves, in one directory,
  DTYPE_MxNxK_a.npy, DTYPE_MxNxK_b.npy    (bfloat16: raw bits as uint16;
                                           float8_e4m3fn: raw bytes as uint8)
  DTYPE_MxNxK_c_BMxBNxBKwW.npy            (float32, one per block config)
The reference A @ B is computed once per dtype and shape, in float64: with
torch on the GPU when torch and a GPU are there, else with numpy on the CPU.
Prints one line per C,
  check: float16 4096 4096 4096 128 128 64 warps 4 rel_err=3.1e-07 tol=1e-04 PASS
(bench/gpu/join.py reads these) and a summary; exits 1 if any check failed
or, with --bench, if a case the benchmark measured has no C to check.

Tolerances (relative Frobenius error; triton_side.py uses the same ones):
- float16, bfloat16 inputs with float32 accumulation and C: the products of
  two f16 (11-bit) or bf16 (8-bit) significands are exact in f32, so the
  error is the f32 accumulation's, about 2^-24 * sqrt(K/2) = 4e-6 at
  K = 8192 with round-to-nearest; tensor cores align and truncate inside an
  MMA, which can add a few times that. 1e-4 leaves 25x headroom and still
  fails f16 rounding of C or of partial sums (2^-11 = 4.9e-4 and more) and
  operands rounded to bf16 or narrower.
- float32 inputs, tf32 dots (the seed kernel's tl.dot default, as Triton's):
  each operand keeps 10 explicit significand bits. Round-to-nearest gives
  about 3e-4; truncation (operands passed to the tensor core unrounded)
  about 8e-4, mostly a bias of the products toward zero. 2e-3 leaves 2.5x
  over truncation and fails bf16-precision operands (about 3e-3).
- float8_e4m3fn inputs (4-bit significands), f32 accumulation and C: the
  products are exact, but Hopper's fp8 MMAs (wgmma ... e4m3) keep fewer
  bits than f32 while they add (Triton's max_num_imprecise_acc; tile's fp8
  dots are the same instructions, docs/language.md "fp8"), an error that
  grows with K: on the H200 the idioms' fp8 matmul missed the f16 bound
  (rtol 2e-3, atol 2e-3 sqrt(K), elementwise) at 4096^3, e.g. 171.25 for
  171.82, under tile and Triton alike, and Triton's 8192^3 result missed
  even 1e-2 there (bench/results/fp8-h200-2026-12-04-session17.md). 1e-2
  is the idioms' fp8 bound (bench/gpu/idioms/matmul.tile tolerance(),
  triton_idioms.py), here on the Frobenius norm like the other dtypes: it
  measures an error spread over all of C, as the accumulation's is, and
  lets a few wrong elements through, but fails what a kernel bug gives: a
  K block missed or added (at least sqrt(BK/K) = 0.125 at K = 8192, BK =
  128), one output tile of garbage (0.016 for 64 x 128 of 8192^2), bytes
  read as another format (order 1).
- A C stored in a narrower type (cuBLAS via torch.matmul returns f16/bf16 C
  for f16/bf16 inputs; torch._scaled_mm, cuBLASLt's fp8 GEMM, f16 C here)
  adds its rounding: at most the unit roundoff in the Frobenius norm
  (2^-11 for f16, 2^-8 for bf16).

usage: python3 check_matmul.py DIR [--bench TILEC_BENCH_OUTPUT]
"""
import argparse
import os
import re
import sys

import numpy as np

try:
    import torch
except ImportError:  # a machine without torch: the numpy reference
    torch = None

ACCUMULATION_TOL = {"float16": 1e-4, "bfloat16": 1e-4, "float32": 2e-3, "float8_e4m3fn": 1e-2}
OUTPUT_ROUNDING = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 0.0}

C_FILE = re.compile(r"^(float16|bfloat16|float32|float8_e4m3fn)_(\d+)x(\d+)x(\d+)_c_(\d+)x(\d+)x(\d+)w(\d+)\.npy$")
BENCH_CASE = re.compile(r"^case: sizes matmul (\w+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) warps (\d+)")


def tolerance(dtype, out_dtype="float32"):
    """The relative Frobenius error allowed for inputs of `dtype` and a C
    stored as `out_dtype` (dtype names as strings)."""
    return ACCUMULATION_TOL[dtype] + OUTPUT_ROUNDING[out_dtype]


def passes(rel_err, tol):
    """NaN (an element the kernel did not write) fails."""
    return bool(rel_err <= tol)


def e4m3fn_values():
    """The float64 value of each of the 256 float8_e4m3fn bytes (OCP e4m3fn:
    sign, 4 exponent bits with bias 7, 3 mantissa bits; exponent 0 is
    subnormal, m/8 * 2^-6; no infinities; 0x7f and 0xff are NaN), computed
    exactly: every value is a small integer times a power of two."""
    values = np.empty(256, dtype=np.float64)
    for byte in range(256):
        sign = -1.0 if byte & 0x80 else 1.0
        exp = (byte >> 3) & 0xF
        man = byte & 0x7
        if exp == 0xF and man == 0x7:
            values[byte] = np.nan
        elif exp == 0:
            values[byte] = sign * man * 2.0 ** (-6 - 3)
        else:
            values[byte] = sign * (8 + man) * 2.0 ** (exp - 7 - 3)
    return values


E4M3FN = e4m3fn_values()
# the format's landmarks: 1.0, its largest, smallest normal and subnormal
assert E4M3FN[0x38] == 1.0 and E4M3FN[0x7E] == 448.0 and E4M3FN[0xFE] == -448.0
assert E4M3FN[0x08] == 2.0 ** -6 and E4M3FN[0x01] == 2.0 ** -9 and E4M3FN[0x80] == 0.0
assert np.isnan(E4M3FN[0x7F]) and np.isnan(E4M3FN[0xFF]) and np.isnan(E4M3FN).sum() == 2


def load_matrix(path, dtype):
    """A saved matrix as float32 numpy; bfloat16's uint16 bits widened,
    float8_e4m3fn's bytes decoded (exact: every e4m3fn value is an f32)."""
    m = np.load(path)
    if dtype == "bfloat16" and m.dtype == np.uint16:
        return (m.astype(np.uint32) << 16).view(np.float32)
    if dtype == "float8_e4m3fn" and m.dtype == np.uint8:
        return E4M3FN.astype(np.float32)[m]
    return m.astype(np.float32, copy=False)


class Reference:
    """A @ B in float64 and its norm, on the GPU (torch) or the CPU (numpy)."""

    def __init__(self, a, b):
        self.gpu = torch is not None and torch.cuda.is_available()
        if self.gpu:
            ta = torch.from_numpy(a).to("cuda", torch.float64)
            tb = torch.from_numpy(b).to("cuda", torch.float64)
            self.ref = torch.matmul(ta, tb)
            del ta, tb
            self.norm = torch.linalg.vector_norm(self.ref).item()
        else:
            self.ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
            self.norm = float(np.linalg.norm(self.ref))

    def rel_error(self, c):
        """||c - ref||_F / ||ref||_F of a float32 numpy C."""
        if self.gpu:
            diff = torch.from_numpy(c).to("cuda", torch.float64) - self.ref
            return torch.linalg.vector_norm(diff).item() / self.norm
        return float(np.linalg.norm(c.astype(np.float64) - self.ref)) / self.norm


def saved_cases(directory):
    """{(dtype, M, N, K): [(bm, bn, bk, warps, path)]} of the C files in DIR."""
    cases = {}
    for name in sorted(os.listdir(directory)):
        m = C_FILE.match(name)
        if not m:
            continue
        dtype = m.group(1)
        M, N, K, bm, bn, bk, w = (int(g) for g in m.groups()[1:])
        cases.setdefault((dtype, M, N, K), []).append((bm, bn, bk, w, os.path.join(directory, name)))
    return cases


def measured_cases(bench_path):
    """The (dtype, M, N, K, bm, bn, bk, warps) of every case line of a
    tilec bench output."""
    out = []
    for line in open(bench_path):
        m = BENCH_CASE.match(line.strip())
        if m:
            out.append((m.group(1),) + tuple(int(g) for g in m.groups()[1:]))
    return out


def check_shape(directory, key, configs):
    """Checks every C of one dtype and shape; returns [(case, ok)]."""
    dtype, M, N, K = key
    stem = os.path.join(directory, f"{dtype}_{M}x{N}x{K}")
    ref = Reference(load_matrix(stem + "_a.npy", dtype), load_matrix(stem + "_b.npy", dtype))
    tol = tolerance(dtype)
    results = []
    for bm, bn, bk, w, path in configs:
        c = np.load(path)
        if c.shape != (M, N):
            err = float("nan")
        else:
            err = ref.rel_error(c.astype(np.float32, copy=False))
        ok = passes(err, tol)
        print(f"check: {dtype} {M} {N} {K} {bm} {bn} {bk} warps {w} rel_err={err:.3e} tol={tol:.1e} "
              f"{'PASS' if ok else 'FAIL'}", flush=True)
        results.append(((dtype, M, N, K, bm, bn, bk, w), ok))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("directory")
    ap.add_argument("--bench", help="tilec bench output: every measured case must have a C")
    args = ap.parse_args()
    where = "torch, GPU" if torch is not None and torch.cuda.is_available() else "numpy, CPU"
    print(f"check_matmul: float64 reference with {where}", flush=True)
    results = []
    for key, configs in saved_cases(args.directory).items():
        results += check_shape(args.directory, key, configs)
    checked = {case for case, _ in results}
    missing = [c for c in measured_cases(args.bench) if c not in checked] if args.bench else []
    for c in missing:
        print("check: {} {} {} {} {} {} {} warps {} rel_err=nan tol=- MISSING (no C saved)".format(*c))
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed + len(missing)
    print(f"check_matmul: {passed} passed, {failed} failed"
          + (f" ({len(missing)} measured but not saved)" if missing else ""))
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
