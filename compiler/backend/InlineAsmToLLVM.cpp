// InlineAsmToLLVM.cpp - the inline_asm op (tl.inline_asm_elementwise).
//
// Triton's rule (its ElementwiseInlineAsmOp lowering): a thread's registers
// go to the asm `pack` at a time (padded with undef to a multiple of pack);
// within a group, each operand and result whose elements are narrower than
// 32 bits is packed into vectors of min(32 / bits, pack) elements (so four
// i8 or two f16 travel in one 32-bit register), wider ones go one per asm
// operand. Several results (or several registers of one) come back as an
// LLVM struct. `pure = false` marks the asm as having side effects.
#include "backend/Emitter.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/Support/Error.h>

#include <fmt/format.h>

namespace tile::backend {

namespace {

/// Elements of `t` one asm operand carries for a given pack.
int64_t perOperand(ElemType t, int64_t pack) {
  int bits = t.isPtr ? 64 : bitWidth(t.scalar);
  return bits < 32 ? std::min<int64_t>(32 / bits, pack) : 1;
}

} // namespace

void Emitter::emitInlineAsm(ir::Op &op) {
  const ir::Type &rt = op.result()->type;
  int64_t pack = op.intAttr("pack");
  size_t n = rt.isTensor() ? dist(rt).numRegs() : 1;
  size_t groups = (n + size_t(pack) - 1) / size_t(pack);
  std::vector<Regs> in;
  for (ir::Value *v : op.operands) {
    ir::Type want = rt;   // operands follow the result's distribution
    want.elem = v->type.elem;
    Regs r = regsAs(v, want);
    while (r.size() < groups * size_t(pack)) r.push_back(llvm::UndefValue::get(r[0]->getType()));
    in.push_back(std::move(r));
  }
  std::vector<llvm::Type *> retTys;
  std::vector<int64_t> retPer;
  for (auto &res : op.results) {
    int64_t per = perOperand(res->type.elem, pack);
    if (pack % per != 0)
      fail(op.loc, fmt::format("inline_asm_elementwise: pack {} is not a multiple of the {} {} elements one register "
                               "holds", pack, per, res->type.elem.str()));
    llvm::Type *ty = llvmType(res->type.elem);
    if (per > 1) ty = llvm::FixedVectorType::get(ty, unsigned(per));
    retTys.insert(retTys.end(), size_t(pack / per), ty);
    retPer.push_back(per);
  }
  llvm::Type *retTy = retTys.size() == 1 ? retTys[0] : llvm::StructType::get(ctx, retTys);
  // the operands of group g, packed
  auto groupArgs = [&](size_t g) {
    std::vector<llvm::Value *> args;
    for (size_t i = 0; i < in.size(); ++i) {
      int64_t per = perOperand(op.operands[i]->type.elem, pack);
      for (int64_t j = 0; j < pack; j += per) {
        llvm::Value *x = in[i][g * size_t(pack) + size_t(j)];
        if (per == 1) { args.push_back(x); continue; }
        llvm::Value *vec = llvm::UndefValue::get(llvm::FixedVectorType::get(x->getType(), unsigned(per)));
        for (int64_t k = 0; k < per && j + k < pack; ++k)
          vec = b.CreateInsertElement(vec, in[i][g * size_t(pack) + size_t(j + k)], b.getInt32(uint32_t(k)));
        args.push_back(vec);
      }
    }
    return args;
  };
  std::vector<llvm::Type *> argTys;
  for (llvm::Value *a : groupArgs(0)) argTys.push_back(a->getType());
  auto *fty = llvm::FunctionType::get(retTy, argTys, false);
  const std::string &constraints = op.strAttr("constraints");
  if (llvm::Error err = llvm::InlineAsm::verify(fty, constraints))
    fail(op.loc, fmt::format("inline_asm_elementwise: constraints \"{}\" do not fit {} operand(s) and {} result "
                             "register(s) per asm ({})", constraints, argTys.size(), retTys.size(),
                             llvm::toString(std::move(err))));
  llvm::InlineAsm *asmFn = llvm::InlineAsm::get(fty, op.strAttr("asm"), constraints, !op.boolAttr("pure"));
  std::vector<Regs> out(op.results.size());
  for (size_t g = 0; g < groups; ++g) {
    llvm::Value *call = b.CreateCall(fty, asmFn, groupArgs(g));
    unsigned field = 0;
    for (size_t i = 0; i < op.results.size(); ++i)
      for (int64_t k = 0; k < pack / retPer[i]; ++k) {
        llvm::Value *v = retTys.size() == 1 ? call : b.CreateExtractValue(call, field);
        ++field;
        if (retPer[i] == 1) { out[i].push_back(v); continue; }
        for (int64_t e = 0; e < retPer[i]; ++e) out[i].push_back(b.CreateExtractElement(v, b.getInt32(uint32_t(e))));
      }
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    out[i].resize(n);
    define(op.results[i].get(), out[i]);
  }
}

} // namespace tile::backend
