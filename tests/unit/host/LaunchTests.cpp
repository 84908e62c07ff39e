// LaunchTests.cpp - kernel[grid](...) launches: argument conversion and
// grid resolution (recorded), then end to end on the interpreter through
// InterpLauncher (bind -> lower -> interpret).
#include "HostTestUtil.h"

#include <doctest/doctest.h>

using namespace tile;
using namespace hosttest;

namespace {
const char *kAddKernel = "import triton\n"
                         "import triton.language as tl\n"
                         "@triton.jit\n"
                         "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                         "    pid = tl.program_id(axis=0)\n"
                         "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
                         "    mask = offs < n\n"
                         "    x = tl.load(x_ptr + offs, mask=mask)\n"
                         "    y = tl.load(y_ptr + offs, mask=mask)\n"
                         "    tl.store(out_ptr + offs, x + y, mask=mask)\n";
} // namespace

TEST_CASE("launch arguments and a callable grid are converted") {
  RecordingLauncher l;
  RunResult r = runHost(std::string(kAddKernel) +
                            "def main():\n"
                            "    n = 100\n"
                            "    x = torch.rand(n)\n"
                            "    out = torch.empty(n, dtype=torch.float16)\n"
                            "    grid = lambda META: (triton.cdiv(META['n'], META['BLOCK']),)\n"
                            "    add_kernel[grid](x, x, out, n, BLOCK=32, num_warps=8)\n"
                            "    add_kernel[(2, 3)](x, x, out, 1.5, BLOCK=tl.float32)\n"
                            "    add_kernel[7](x, x, out, None, BLOCK='relu', num_stages=2, enable_fp_fusion=False)\n"
                            "    print(x.data_ptr() == out.data_ptr())\n",
                        l);
  REQUIRE(r.error == "");
  REQUIRE(l.requests.size() == 3);
  const host::LaunchRequest &a = l.requests[0];
  CHECK(a.kernel->name == "add_kernel");
  CHECK(a.grid == std::array<int64_t, 3>{4, 1, 1});
  CHECK(a.numWarps == 8);
  CHECK(a.numStages == 3);
  REQUIRE(a.positional.size() == 4);
  CHECK(a.positional[0].isPointer);
  CHECK(a.positional[0].elem == Scalar::F32);
  CHECK(a.positional[0].address != 0);
  CHECK(a.positional[2].elem == Scalar::F16);
  CHECK(a.positional[0].address != a.positional[2].address);
  CHECK(!a.positional[3].isPointer);
  CHECK(a.positional[3].value == sema::ConstValue(int64_t(100)));
  CHECK(a.positional[3].loc.line == 16);
  REQUIRE(a.keywords.size() == 1);
  CHECK(a.keywords[0].first == "BLOCK");
  CHECK(a.keywords[0].second.value == sema::ConstValue(int64_t(32)));
  CHECK(a.loc.line == 16);
  CHECK(l.requests[1].grid == std::array<int64_t, 3>{2, 3, 1});
  CHECK(l.requests[1].positional[3].value == sema::ConstValue(1.5));
  CHECK(l.requests[1].keywords[0].second.value == sema::ConstValue(sema::DTypeValue{ElemType::of(Scalar::F32)}));
  CHECK(l.requests[2].grid == std::array<int64_t, 3>{7, 1, 1});
  CHECK(l.requests[2].positional[3].value.isNone());
  CHECK(l.requests[2].numStages == 2);
  CHECK(l.requests[2].fpFusion == 0);   // enable_fp_fusion=False: a launch option, not a keyword
  CHECK(l.requests[2].keywords.size() == 1);
  CHECK(a.fpFusion == -1);              // not given: the default
  CHECK(r.out == "False\n");
}

TEST_CASE("bad launches are located errors") {
  std::string pre = std::string(kAddKernel) + "def main():\n    x = torch.zeros(4)\n";
  RunResult r = runHost(pre + "    add_kernel[(1, 2, 3, 4)](x, x, x, 4, BLOCK=4)\n");
  CHECK(r.error == "a launch grid needs 1 to 3 dimensions, got (1, 2, 3, 4)");
  CHECK(r.errLoc.line == 13);
  r = runHost(pre + "    add_kernel[(1.5,)](x, x, x, 4, BLOCK=4)\n");
  CHECK(r.error == "grid dimension 0 must be a non-negative int, got 1.5 (grid (1.5,))");
  r = runHost(pre + "    add_kernel[(0, 2)](x, x, x, 4, BLOCK=4)\n");
  CHECK(r.error == "empty launch grid (0, 2): every grid dimension must be at least 1 (nothing would run)");
  r = runHost(pre + "    add_kernel[(1,)](x, x, [x], 4, BLOCK=4)\n");
  CHECK(r.error.find("argument 3: a 'list' cannot be passed to a kernel") == 0);
  CHECK(r.errLoc.col == 28); // the [x] argument
  r = runHost(pre + "    add_kernel(x, x, x, 4, BLOCK=4)\n");
  CHECK(r.error == "kernel 'add_kernel' must be launched with a grid: add_kernel[grid](...)");
  r = runHost(pre + "    add_kernel[(1,)](x, x, x, 4, BLOCK=4, enable_fp_fusion=1)\n");
  CHECK(r.error == "enable_fp_fusion must be True or False, got 1");
  r = runHost(pre + "    add_kernel[(1,)](x, x, x, 4, BLOCK=4, num_warps=0)\n");
  CHECK(r.error == "num_warps must be a positive int, got 0");
}

// The cases below go through sema and the interpreter.

TEST_CASE("end to end: vector add on the interpreter") {
  host::InterpLauncher l;
  RunResult r = runHost(std::string(kAddKernel) +
                            "def main():\n"
                            "    n = 100\n"
                            "    x = torch.rand(n)\n"
                            "    y = torch.rand(n)\n"
                            "    out = torch.empty(n)\n"
                            "    grid = lambda META: (triton.cdiv(n, META['BLOCK']),)\n"
                            "    add_kernel[grid](x, y, out, n, BLOCK=32)\n"
                            "    assert_close(out, x + y)\n"
                            "    print('ok')\n",
                        l);
  CHECK(r.error == "");
  CHECK(r.out == "ok\n");
  CHECK(l.launches() == 1);
}

TEST_CASE("end to end: a second launch of a specialization compiles nothing") {
  host::InterpLauncher l;
  RunResult r = runHost(std::string(kAddKernel) +
                            "def main():\n"
                            "    for n in (100, 37, 101):\n"
                            "        x = torch.rand(n)\n"
                            "        out = torch.empty(n)\n"
                            "        add_kernel[(cdiv(n, 32),)](x, x, out, n, BLOCK=32)\n"
                            "        assert_close(out, x + x)\n"
                            "    x16 = torch.rand(64, dtype=float16)\n"
                            "    out16 = torch.empty(64, dtype=float16)\n"
                            "    add_kernel[(2,)](x16, x16, out16, 64, BLOCK=32)\n"
                            "    assert_close(out16, x16 + x16)\n",
                        l);
  CHECK(r.error == "");
  CHECK(l.launches() == 4);
  CHECK(l.cache().compilations() == 2); // one f32 and one f16 specialization
  CHECK(l.cache().size() == 2);
}

TEST_CASE("end to end: a wrong kernel fails assert_close") {
  host::InterpLauncher l;
  std::string src = kAddKernel;
  src.replace(src.find("x + y"), 5, "x - y");
  RunResult r = runHost(src +
                            "def main():\n"
                            "    x = torch.ones(8)\n"
                            "    out = torch.empty(8)\n"
                            "    add_kernel[(1,)](x, x, out, 8, BLOCK=8)\n"
                            "    assert_close(out, x + x)\n",
                        l);
  CHECK(r.status == 1);
  CHECK(r.error.find("8 of 8 elements are not close") != std::string::npos);
  CHECK(r.error.find("actual 0.0, expected 2.0") != std::string::npos);
}

TEST_CASE("end to end: an out-of-bounds store names the host tensor") {
  host::InterpLauncher l;
  RunResult r = runHost(std::string(kAddKernel) +
                            "def main():\n"
                            "    x = torch.ones(64)\n"
                            "    out = torch.empty(8)\n"
                            "    add_kernel[(1,)](x, x, out, 64, BLOCK=64)\n",
                        l);
  CHECK(r.status == 1);
  CHECK(r.error.find("float32[8]") != std::string::npos);
}

TEST_CASE("end to end: a kernel's error is not caught by host try/except") {
  host::InterpLauncher l;
  RunResult r = runHost(std::string(kAddKernel) +
                            "def main():\n"
                            "    x = torch.ones(64)\n"
                            "    out = torch.empty(8)\n"
                            "    try:\n"
                            "        add_kernel[(1,)](x, x, out, 64, BLOCK=64)\n"
                            "    except Exception:\n"
                            "        print('swallowed')\n",
                        l);
  CHECK(r.status == 1);
  CHECK(r.out == "");
  CHECK(r.error.find("out-of-bounds store") != std::string::npos);
  CHECK(r.error.find("tensor 'out' float32[8]") != std::string::npos);
}

TEST_CASE("end to end: lesson 2 tiled matmul") {
  host::InterpLauncher l;
  RunResult r = runHost("import triton\n"
                        "import triton.language as tl\n"
                        "@triton.jit\n"
                        "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,\n"
                        "                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,\n"
                        "                  N_ITERS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,\n"
                        "                  BLOCK_K: tl.constexpr):\n"
                        "    pid_m = tl.program_id(axis=0)\n"
                        "    pid_n = tl.program_id(axis=1)\n"
                        "    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)\n"
                        "    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n"
                        "    offs_k = tl.arange(0, BLOCK_K)\n"
                        "    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak\n"
                        "    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn\n"
                        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
                        "    for k in range(0, N_ITERS):\n"
                        "        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)\n"
                        "        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)\n"
                        "        acc = tl.dot(a, b, acc)\n"
                        "        a_ptrs += BLOCK_K * stride_ak\n"
                        "        b_ptrs += BLOCK_K * stride_bk\n"
                        "    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn\n"
                        "    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)\n"
                        "    tl.store(c_ptrs, acc, mask=mask)\n"
                        "def main():\n"
                        "    M, N, K = 40, 24, 36\n"
                        "    a = torch.randn((M, K))\n"
                        "    b = torch.randn((K, N))\n"
                        "    c = torch.empty((M, N))\n"
                        "    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))\n"
                        "    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),\n"
                        "                        c.stride(0), c.stride(1), N_ITERS=triton.cdiv(K, 16),\n"
                        "                        BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)\n"
                        "    # f32 dots default to tf32 inputs, as in Triton\n"
                        "    assert_close(c, a @ b, rtol=1e-2, atol=1e-2)\n"
                        "    print('matmul ok')\n",
                        l);
  CHECK(r.error == "");
  CHECK(r.out == "matmul ok\n");
}
