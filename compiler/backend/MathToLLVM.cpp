// MathToLLVM.cpp - the elementwise math ops with no correct NVPTX
// instruction (erf, tanh, pow) lowered to calls of NVIDIA's libdevice
// (__nv_erff, __nv_tanhf, __nv_powf; __nv_erf, __nv_tanh, __nv_pow for
// f64), which Libdevice.cpp links into the module and O3 inlines. libdevice
// documents these as within 2 ulp (erff 2, tanhf 2, powf 2), so they agree
// with the interpreter's <cmath> results far inside the f32 check tolerance.
// tanh.approx.f32 (sm_75+) would be faster but has ~2^-11 relative error.
#include "backend/Emitter.h"
#include "ir/Libdevice.h"

#include <fmt/format.h>

namespace tile::backend {

using ir::OpKind;

namespace {

const char *libdeviceName(OpKind k, bool f64) {
  switch (k) {
  case OpKind::Erf: return f64 ? "__nv_erf" : "__nv_erff";
  case OpKind::Tanh: return f64 ? "__nv_tanh" : "__nv_tanhf";
  case OpKind::Pow: return f64 ? "__nv_pow" : "__nv_powf";
  default: return nullptr;
  }
}

} // namespace

void Emitter::emitMathCall(ir::Op &op) {
  ir::Value *res = op.result();
  const ir::Type &rt = res->type;
  Scalar s = rt.elem.scalar;
  if (!rt.elem.isFloat() || rt.elem.isPtr)
    fail(op.loc, fmt::format("'{}' needs float operands, got {}", ir::opName(op.kind), rt.elem.str()));
  const char *name = libdeviceName(op.kind, s == Scalar::F64);
  if (!name) fail(op.loc, fmt::format("unsupported math op '{}' in the gpu back end", ir::opName(op.kind)));
  if (libdevicePath.empty()) {
    std::string looked;
    libdevicePath = findLibdevice(&looked);
    if (libdevicePath.empty())
      fail(op.loc, fmt::format("{} needs libdevice (set CUDA_HOME; looked in {})", ir::opName(op.kind), looked));
  }
  llvm::Type *ft = s == Scalar::F64 ? b.getDoubleTy() : b.getFloatTy();
  std::vector<llvm::Type *> params(op.operands.size(), ft);
  llvm::FunctionCallee callee = mod.getOrInsertFunction(name, llvm::FunctionType::get(ft, params, false));
  std::vector<Regs> in;
  for (ir::Value *v : op.operands) in.push_back(regsAs(v, rt));
  size_t n = rt.isTensor() ? dist(rt).numRegs() : 1;
  Regs out;
  for (size_t r = 0; r < n; ++r) {
    std::vector<llvm::Value *> args;
    for (const Regs &x : in) args.push_back(toF32(x[r], s));
    out.push_back(fromF32(b.CreateCall(callee, args), s));
  }
  define(res, out);
}

// extern_elementwise: a call of its libdevice symbol per register, operands
// and result in the symbol's own types (ir/Libdevice.h), so no conversion.
void Emitter::emitExternCall(ir::Op &op) {
  const std::string &symbol = op.strAttr("symbol");
  ir::Value *res = op.result();
  const ir::Type &rt = res->type;
  if (libdevicePath.empty()) {
    std::string looked;
    libdevicePath = findLibdevice(&looked);
    if (libdevicePath.empty())
      fail(op.loc, fmt::format("{} needs libdevice (set CUDA_HOME; looked in {})", symbol, looked));
  }
  std::vector<llvm::Type *> params;
  for (ir::Value *v : op.operands) params.push_back(llvmType(v->type.elem));
  llvm::FunctionCallee callee =
      mod.getOrInsertFunction(symbol, llvm::FunctionType::get(llvmType(rt.elem), params, false));
  std::vector<Regs> in;
  for (ir::Value *v : op.operands) {
    ir::Type want = rt;
    want.elem = v->type.elem;
    in.push_back(regsAs(v, want));
  }
  size_t n = rt.isTensor() ? dist(rt).numRegs() : 1;
  Regs out;
  for (size_t r = 0; r < n; ++r) {
    std::vector<llvm::Value *> args;
    for (const Regs &x : in) args.push_back(x[r]);
    out.push_back(b.CreateCall(callee, args));
  }
  define(res, out);
}

} // namespace tile::backend
