// PtxKernels.h - hand-written PTX for the CUDA runtime tests (checked with
// ptxas -arch=sm_80 and sm_90a).
#pragma once

namespace tile::cuda::test {

/// add_one(int *a, unsigned n): a[i] += 1 for the linear thread index
/// i = ((ctaid.z * nctaid.y + ctaid.y) * nctaid.x + ctaid.x) * ntid.x + tid.x
/// when i < n, so any grid shape covers the array exactly once.
inline constexpr const char *AddOnePtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry add_one(
    .param .u64 add_one_param_0,
    .param .u32 add_one_param_1
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [add_one_param_0];
    ld.param.u32 %r1, [add_one_param_1];
    mov.u32 %r2, %ctaid.z;
    mov.u32 %r3, %nctaid.y;
    mov.u32 %r4, %ctaid.y;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    mov.u32 %r6, %nctaid.x;
    mov.u32 %r7, %ctaid.x;
    mad.lo.s32 %r8, %r5, %r6, %r7;
    mov.u32 %r9, %ntid.x;
    mov.u32 %r10, %tid.x;
    mad.lo.s32 %r11, %r8, %r9, %r10;
    setp.ge.u32 %p1, %r11, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r11, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r12, [%rd4];
    add.s32 %r13, %r12, 1;
    st.global.u32 [%rd4], %r13;
DONE:
    ret;
}
)";

/// Same kernel with a typo in an opcode: the JIT must reject it.
inline constexpr const char *SyntaxErrorPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry broken(
    .param .u64 broken_param_0
)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [broken_param_0];
    bogus_opcode.u64 %rd2, %rd1;
    ret;
}
)";

/// bad_store(): thread 0 stores to an unmapped global address.
inline constexpr const char *BadStorePtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry bad_store()
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 42;
    mov.u64 %rd1, 0xdead00000000;
    st.global.u32 [%rd1], %r1;
    ret;
}
)";

} // namespace tile::cuda::test
