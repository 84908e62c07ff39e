// SeedKernels.h - the seed lesson's three kernels (tile_fill_kernel,
// matmul_kernel, transpose_kernel) character for character, as one source
// text without the import prelude (SemaTestUtil.h's kPrelude adds it).
#pragma once

namespace tile::sema::test {

inline constexpr const char *kSeedKernels = R"TILE(
@triton.jit
def tile_fill_kernel(out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(axis=0)                     # which row-block am I?
    pid_n = tl.program_id(axis=1)                     # which col-block am I?

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # (BLOCK_M,) row indices
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # (BLOCK_N,) col indices

    # The star of the lesson, in one line:
    #   column vector (BLOCK_M, 1)  +  row vector (1, BLOCK_N)
    #   -> broadcast into a (BLOCK_M, BLOCK_N) tile of linear indices
    linear = offs_m[:, None] * N + offs_n[None, :]

    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(out_ptr + linear, linear.to(tl.float32), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr,
                  M, N, K,                          # real sizes
                  stride_am, stride_ak,             # how A steps through memory
                  stride_bk, stride_bn,             # how B steps through memory
                  stride_cm, stride_cn,             # how C steps through memory
                  N_ITERS: tl.constexpr,            # how many K-chunks (see note)
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)                   # row-block / col-block
    pid_n = tl.program_id(axis=1)

    # rows/cols of C owned by this program, plus the K-chunk index vector
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)   # (BLOCK_M,)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)   # (BLOCK_N,)
    offs_k = tl.arange(0, BLOCK_K)                     # (BLOCK_K,)

    # pointer tiles we slide along K in the loop below
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, N_ITERS):
        # ragged K edge? load 0.0 for the out-of-range columns so the
        # partial sums stay exactly right
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)                      # acc += a @ b  (tensor cores)
        a_ptrs += BLOCK_K * stride_ak                # slide both windows to the
        b_ptrs += BLOCK_K * stride_bk                # next K-chunk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc, mask=mask)


@triton.jit
def transpose_kernel(in_ptr, out_ptr, M, N,
                     stride_im, stride_in, stride_om, stride_on,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # read the (n, m) element by swapping which index multiplies which stride
    in_ptrs = in_ptr + offs_n[:, None] * stride_im + offs_m[None, :] * stride_in
    mask = (offs_n[:, None] < N) & (offs_m[None, :] < M)
    val = tl.load(in_ptrs, mask=mask)
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, val, mask=mask)
)TILE";

} // namespace tile::sema::test
