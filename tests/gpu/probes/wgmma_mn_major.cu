// wgmma_mn_major.cu - probe for the shared-memory matrix descriptor of an
// MN-major B operand (row-major K x N bf16, N contiguous, 128-byte
// swizzle, imm-trans-b = 1) of wgmma.mma_async.m64n128k16: which
// leading/stride byte offsets and which order of the 1024-byte swizzle
// atoms give D = A x B. A is the verified K-major recipe of
// ../shared/notes/hopper-lowering.md. Bit-exact check with small integers.
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -O2 -o wgmma_probe wgmma_mn_major.cu
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdint>
#include <vector>

constexpr int M = 64, N = 128, K = 64;

__device__ uint64_t desc(uint32_t addr, uint64_t lbo16, uint64_t sbo16) {
  return uint64_t((addr & 0x3FFFF) >> 4) | (lbo16 << 16) | (sbo16 << 32) | (uint64_t(1) << 62);
}

#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])

__global__ void probe(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int order, uint32_t lbo, uint32_t sbo,
                      uint32_t kgStep) {
  extern __shared__ __align__(1024) unsigned char smem[]; // 200 KB: wrong strides stay inside it
  unsigned char *sA = smem, *sB = smem + M * K * 2;
  int tid = threadIdx.x;
  for (int e = tid; e < M * K; e += blockDim.x) {
    int m = e / K, k = e % K;
    int off = m * 128 + (((k / 8) ^ (m % 8)) * 16) + (k % 8) * 2;
    *reinterpret_cast<__nv_bfloat16 *>(sA + off) = A[e];
  }
  for (int e = tid; e < K * N; e += blockDim.x) {
    int k = e / N, n = e % N;
    int na = n / 64, c = (n % 64) / 8, kg = k / 8, kr = k % 8;
    int atom = order == 0 ? kg * (N / 64) + na : na * (K / 8) + kg;
    int off = atom * 1024 + kr * 128 + ((c ^ kr) * 16) + (n % 8) * 2;
    *reinterpret_cast<__nv_bfloat16 *>(sB + off) = B[e];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0.f;
  uint32_t aBase = static_cast<uint32_t>(__cvta_generic_to_shared(sA));
  uint32_t bBase = static_cast<uint32_t>(__cvta_generic_to_shared(sB));
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  for (int ks = 0; ks < K / 16; ++ks) {
    uint64_t da = desc(aBase + ks * 32, 1, 64);
    uint64_t db = desc(bBase + ks * 2 * kgStep, lbo, sbo);
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%"
        "30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%"
        "59,%60,%61,%62,%63}, %64, %65, 1, 1, 1, 0, 1;\n"
        "}\n"
        : ACC8(0), ACC8(8), ACC8(16), ACC8(24), ACC8(32), ACC8(40), ACC8(48), ACC8(56)
        : "l"(da), "l"(db)
        : "memory");
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  int w = tid / 32, l = tid % 32;
  for (int i = 0; i < 64; ++i) {
    int row = 16 * w + l / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (l % 4) + (i % 2);
    C[row * N + col] = d[i];
  }
}

int main() {
  std::vector<__nv_bfloat16> a(M * K), b(K * N);
  std::vector<float> ref(M * N), got(M * N);
  for (int i = 0; i < M * K; ++i) a[i] = __float2bfloat16(float((i * 7 + 3) % 5 - 2));
  for (int i = 0; i < K * N; ++i) b[i] = __float2bfloat16(float((i * 11 + 1) % 7 - 3));
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += __bfloat162float(a[m * K + k]) * __bfloat162float(b[k * N + n]);
      ref[m * N + n] = s;
    }
  __nv_bfloat16 *dA, *dB;
  float *dC;
  cudaMalloc(&dA, a.size() * 2);
  cudaMalloc(&dB, b.size() * 2);
  cudaMalloc(&dC, got.size() * 4);
  cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  const int kSmem = 200 * 1024;
  cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  const uint32_t cand[] = {1, 8, 64, 128, 256, 512};
  int passes = 0;
  for (int order = 0; order < 2; ++order) {
    uint32_t kgStep = order == 0 ? (N / 64) * 1024 : 1024;
    for (uint32_t lbo : cand)
      for (uint32_t sbo : cand) {
        cudaMemset(dC, 0, got.size() * 4);
        probe<<<1, 128, kSmem>>>(dA, dB, dC, order, lbo, sbo, kgStep);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
          printf("order=%d lbo=%u sbo=%u: %s\n", order, lbo * 16, sbo * 16, cudaGetErrorString(e));
          return 1;
        }
        cudaMemcpy(got.data(), dC, got.size() * 4, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int i = 0; i < M * N; ++i) bad += got[i] != ref[i];
        if (bad == 0) {
          printf("PASS order=%d (atoms %s) lbo=%u B sbo=%u B\n", order, order == 0 ? "n-fastest" : "k-fastest",
                 lbo * 16, sbo * 16);
          ++passes;
        }
      }
  }
  printf("%d passing combinations\n", passes);
  return passes ? 0 : 1;
}
