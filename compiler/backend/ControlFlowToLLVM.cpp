// ControlFlowToLLVM.cpp - for / while / if as basic blocks with one phi per
// register of every carried value (conditions and bounds are scalars, so
// uniform over the program and barriers inside stay legal); print through
// vprintf and assert through __assertfail.
#include "backend/Emitter.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <fmt/format.h>

#include <algorithm>

namespace tile::backend {

namespace {

llvm::BasicBlock *newBlock(Emitter &e, const char *name) {
  return llvm::BasicBlock::Create(e.ctx, name, e.b.GetInsertBlock()->getParent());
}

/// One phi per register of each carried value, with the entry values.
std::vector<Regs> makePhis(Emitter &e, const std::vector<Regs> &init, llvm::BasicBlock *from) {
  std::vector<Regs> out;
  for (const Regs &r : init) {
    Regs phis;
    for (llvm::Value *v : r) phis.push_back(e.openLoopPhi(v, from));
    out.push_back(std::move(phis));
  }
  return out;
}

void addIncoming(Emitter &e, std::vector<Regs> &phis, const std::vector<Regs> &vals, llvm::BasicBlock *from) {
  for (size_t i = 0; i < phis.size(); ++i)
    for (size_t r = 0; r < phis[i].size(); ++r) e.closeLoopPhi(llvm::cast<llvm::PHINode>(phis[i][r]), vals[i][r], from);
}

/// Whether a carried value's registers go four to a 32-bit phi: 8-bit
/// registers (fp8, i8 tiles a pipelined load carries to the next
/// iteration). PTX has no 8-bit registers: a phi a byte costs a 16-bit
/// register a byte, a move each in the loop and a bfi chain wherever the
/// bytes are stored together again; packed, LLVM folds the packing into
/// the loads' 32-bit lanes and a store's bytes into byte permutes.
bool packsBytes(const Regs &r) {
  return !r.empty() && r.size() % 4 == 0 &&
         std::all_of(r.begin(), r.end(), [](llvm::Value *v) { return v->getType()->isIntegerTy(8); });
}

Regs packBytes(Emitter &e, const Regs &r) {
  Regs out;
  for (size_t i = 0; i < r.size(); i += 4) out.push_back(packWord(e.b, {r[i], r[i + 1], r[i + 2], r[i + 3]}));
  return out;
}

Regs unpackBytes(Emitter &e, const Regs &r) {
  Regs out;
  auto *v4 = llvm::FixedVectorType::get(e.b.getInt8Ty(), 4);
  for (llvm::Value *w : r) {
    llvm::Value *v = e.b.CreateBitCast(w, v4);
    for (uint64_t k = 0; k < 4; ++k) out.push_back(e.b.CreateExtractElement(v, k));
  }
  return out;
}

std::vector<ir::Type> argTypes(const ir::Block &blk, size_t first) {
  std::vector<ir::Type> out;
  for (size_t i = first; i < blk.args.size(); ++i) out.push_back(blk.args[i]->type);
  return out;
}

} // namespace

std::vector<Regs> Emitter::terminatorValues(ir::Op &term, const std::vector<ir::Type> &types, size_t first) {
  TILE_ASSERT(term.operands.size() - first == types.size(), "terminator arity differs from its parent's");
  std::vector<Regs> out;
  for (size_t i = 0; i < types.size(); ++i) out.push_back(regsAs(term.operands[first + i], types[i]));
  return out;
}

/// Whether op lies in the body of a for or while loop (at any depth).
static bool insideLoop(const ir::Op &op) {
  for (const ir::Block *b = op.parent; b && b->parent && b->parent->parent; b = b->parent->parent->parent) {
    const ir::Op *owner = b->parent->parent;
    if (owner->kind == ir::OpKind::For || owner->kind == ir::OpKind::While) return true;
  }
  return false;
}

bool Emitter::emitFor(ir::Op &op) {
  ir::Block &body = *op.regions[0]->block;
  ir::Type ivType = op.operands[0]->type;
  std::vector<ir::Type> types = argTypes(body, 1);
  llvm::Value *lb = scalar(op.operands[0]), *ub = scalar(op.operands[1]), *step = scalar(op.operands[2]);
  std::vector<Regs> init;
  auto async = [&](size_t i) { return asyncCarried.count({&op, i}) != 0; };   // tiles in shared memory
  for (size_t i = 0; i < types.size(); ++i) init.push_back(async(i) ? Regs{} : regsAs(op.operands[3 + i], types[i]));
  // k-split accumulators: copy 0 starts from the init, the others from 0
  std::vector<int64_t> split(types.size(), 0);
  for (size_t i = 0; i < types.size(); ++i) {
    split[i] = kSplitReplicas(op, i);
    if (!split[i]) continue;
    llvm::Value *first = b.CreateICmpEQ(replicaIndex(body.args[1 + i]->type.shape[1]), i32(0));
    for (llvm::Value *&v : init[i]) v = b.CreateSelect(first, v, llvm::ConstantFP::get(v->getType(), 0.0));
  }
  std::vector<bool> inFlight(types.size(), false);
  bool aliasScratch = false;   // a pipelined wgmma's operand buffers are the scratch region
  for (size_t i = 0; i < types.size(); ++i) {
    inFlight[i] = !split[i] && wgmmaInFlight(op, i);
    for (const auto &[dot, alias] : pipelinedWgmma) aliasScratch |= alias && dot->parent == &body;
  }
  if (aliasScratch) beginSharedUse();   // once, before the loop
  // the accumulator of a dot in flight whose B is staged from registers
  // (stagedB) starts from registers defined here, before the loop's
  // guard: from constants, which codegen materializes on the path that
  // skips the loop, ptxas serialized every wgmma of the kernel (C7515,
  // "non wgmma instructions defining accumulator registers"; W8A16 at
  // 128x128x64: 110 TFLOP/s on the H100). Only there: the seed and
  // tutorial matmuls get no such warning, and one of them ran 3% slower
  // tied (128x128x32, 4 warps, 4 stages: 557 against 574 TFLOP/s).
  for (size_t i = 0; i < types.size(); ++i)
    if (inFlight[i] && stagesB(op, i) &&
        std::all_of(init[i].begin(), init[i].end(), [](llvm::Value *v) { return llvm::isa<llvm::Constant>(v); }))
      init[i] = tieRegisters(init[i], "// wgmma accumulators, first");
  std::vector<bool> packed(types.size(), false);
  for (size_t i = 0; i < types.size(); ++i) {
    packed[i] = !split[i] && !inFlight[i] && packsBytes(init[i]);
    if (packed[i]) init[i] = packBytes(*this, init[i]);
  }
  stageInvariantOperands(op);
  llvm::BasicBlock *pre = b.GetInsertBlock(), *header = newBlock(*this, "for.header"),
                   *loop = newBlock(*this, "for.body"), *exit = newBlock(*this, "for.exit");
  b.CreateBr(header);
  b.SetInsertPoint(header);
  std::vector<Regs> phis = makePhis(*this, {{lb}}, pre);
  llvm::Value *iv = phis[0][0];
  std::vector<Regs> carried = makePhis(*this, init, pre);
  std::vector<Regs> parityPhi = makePhis(*this, {{i32(0)}}, pre);
  std::vector<Regs> iterPhi = makePhis(*this, {{i32(0)}}, pre);
  bool sgn = isSigned(ivType.elem.scalar);
  llvm::Value *zero = llvm::ConstantInt::get(step->getType(), 0);
  llvm::Value *up = sgn ? b.CreateICmpSGT(step, zero) : b.CreateICmpNE(step, zero);
  llvm::Value *cond = b.CreateSelect(up, sgn ? b.CreateICmpSLT(iv, ub) : b.CreateICmpULT(iv, ub),
                                     sgn ? b.CreateICmpSGT(iv, ub) : b.CreateICmpUGT(iv, ub));
  b.CreateCondBr(cond, loop, exit);
  b.SetInsertPoint(loop);
  define(body.args[0].get(), {iv});
  for (size_t i = 0; i < types.size(); ++i) {
    if (async(i)) defineVirtual(body.args[1 + i].get());
    else define(body.args[1 + i].get(), packed[i] ? unpackBytes(*this, carried[i]) : carried[i]);
  }
  loops.push_back({&body, parityPhi[0][0], iterPhi[0][0]});
  emitBlock(body);
  bool exitBarrier = loops.back().exitBarrier;
  loops.pop_back();
  std::vector<Regs> next;
  for (size_t i = 0; i < types.size(); ++i)
    next.push_back(async(i)      ? Regs{}
                   : packed[i] ? packBytes(*this, regsAs(body.terminator()->operands[i], types[i]))
                               : regsAs(body.terminator()->operands[i], types[i]));
  llvm::Value *ivNext = b.CreateAdd(iv, step);
  llvm::Value *parityNext = b.CreateXor(parityPhi[0][0], i32(1));
  llvm::Value *iterNext = b.CreateAdd(iterPhi[0][0], i32(1));
  llvm::BasicBlock *latch = b.GetInsertBlock();
  llvm::BranchInst *back = b.CreateBr(header);
  if (op.hasAttr("loop_unroll_factor") && op.intAttr("loop_unroll_factor") > 1) {   // tl.range's hint
    llvm::Metadata *count[] = {llvm::MDString::get(ctx, "llvm.loop.unroll.count"),
                               llvm::ConstantAsMetadata::get(b.getInt32(uint32_t(op.intAttr("loop_unroll_factor"))))};
    llvm::MDNode *loopMd = llvm::MDNode::getDistinct(ctx, {nullptr, llvm::MDNode::get(ctx, count)});
    loopMd->replaceOperandWith(0, loopMd);
    back->setMetadata(llvm::LLVMContext::MD_loop, loopMd);
  }
  addIncoming(*this, phis, {{ivNext}}, latch);
  addIncoming(*this, parityPhi, {{parityNext}}, latch);
  addIncoming(*this, iterPhi, {{iterNext}}, latch);
  addIncoming(*this, carried, next, latch);
  b.SetInsertPoint(exit);
  // double-buffered dot operands: the last iteration's reads finish before
  // an enclosing loop's next round writes the buffers again (nothing else
  // uses them, so a loop that runs once per program needs no barrier)
  // cp.async operand tiles: the last iterations issued copies (zero fills,
  // past the end) that nobody waited for; they land in the scratch region,
  // which the code after the loop may use, so wait for them here
  if (std::any_of(asyncCarried.begin(), asyncCarried.end(), [&](const auto &c) { return c.first == &op; }))
    asyncWaitGroup(0);
  exitBarrier = exitBarrier && insideLoop(op);
  if (exitBarrier) barrier();
  if (aliasScratch) smemClean = false;   // the last iteration's MMAs may still read it
  for (size_t i = 0; i < types.size(); ++i) {
    if (async(i)) {
      defineVirtual(op.results[i].get());
      continue;
    }
    Regs r = split[i]    ? combineKSplit(carried[i], types[i], split[i], op.loc)
             : packed[i] ? unpackBytes(*this, carried[i])
             : inFlight[i] || deferredCarried.count({&op, i}) ? wgmmaWait(carried[i])
                           : carried[i];
    define(op.results[i].get(), convertRegs(r, types[i], op.results[i]->type, op.loc));
  }
  if (loopRings.count(&op) || ownAAt.count(&op)) {
    releaseRings(op);
    exitBarrier = true;
  }
  return exitBarrier && std::none_of(split.begin(), split.end(), [](int64_t r) { return r != 0; });
}

void Emitter::emitWhile(ir::Op &op) {
  ir::Block &before = *op.regions[0]->block, &after = *op.regions[1]->block;
  std::vector<ir::Type> beforeTypes = argTypes(before, 0), afterTypes = argTypes(after, 0);
  std::vector<Regs> init;
  for (size_t i = 0; i < beforeTypes.size(); ++i) init.push_back(regsAs(op.operands[i], beforeTypes[i]));
  stageInvariantOperands(op);
  llvm::BasicBlock *pre = b.GetInsertBlock(), *condBB = newBlock(*this, "while.cond"),
                   *loop = newBlock(*this, "while.body"), *exit = newBlock(*this, "while.exit");
  b.CreateBr(condBB);
  b.SetInsertPoint(condBB);
  std::vector<Regs> carried = makePhis(*this, init, pre);
  for (size_t i = 0; i < beforeTypes.size(); ++i) define(before.args[i].get(), carried[i]);
  emitBlock(before);
  ir::Op &condOp = *before.terminator();
  llvm::Value *c = scalar(condOp.operands[0]);
  std::vector<Regs> vals = terminatorValues(condOp, afterTypes, 1);
  b.CreateCondBr(c, loop, exit);
  b.SetInsertPoint(loop);
  for (size_t i = 0; i < afterTypes.size(); ++i) define(after.args[i].get(), vals[i]);
  emitBlock(after);
  std::vector<Regs> next = terminatorValues(*after.terminator(), beforeTypes, 0);
  addIncoming(*this, carried, next, b.GetInsertBlock());
  b.CreateBr(condBB);
  b.SetInsertPoint(exit);
  for (size_t i = 0; i < afterTypes.size(); ++i) define(op.results[i].get(), convertRegs(vals[i], afterTypes[i], op.results[i]->type, op.loc));
  if (ownAAt.count(&op)) releaseRings(op);
}

void Emitter::emitIf(ir::Op &op) {
  std::vector<ir::Type> types;
  for (auto &r : op.results) types.push_back(r->type);
  llvm::Value *c = scalar(op.operands[0]);
  llvm::BasicBlock *thenBB = newBlock(*this, "if.then"), *elseBB = newBlock(*this, "if.else"),
                   *merge = newBlock(*this, "if.end");
  b.CreateCondBr(c, thenBB, elseBB);
  std::vector<Regs> vals[2];
  llvm::BasicBlock *ends[2];
  llvm::BasicBlock *starts[2] = {thenBB, elseBB};
  for (int k = 0; k < 2; ++k) {
    b.SetInsertPoint(starts[k]);
    ir::Block &blk = *op.regions[k]->block;
    emitBlock(blk);
    if (blk.terminator() && blk.terminator()->kind == ir::OpKind::Yield) vals[k] = terminatorValues(*blk.terminator(), types, 0);
    ends[k] = b.GetInsertBlock();
    b.CreateBr(merge);
  }
  b.SetInsertPoint(merge);
  for (size_t i = 0; i < types.size(); ++i) {
    Regs out;
    for (size_t r = 0; r < vals[0][i].size(); ++r) {
      llvm::PHINode *p = b.CreatePHI(vals[0][i][r]->getType(), 2);
      p->addIncoming(vals[0][i][r], ends[0]);
      p->addIncoming(vals[1][i][r], ends[1]);
      out.push_back(p);
    }
    define(op.results[i].get(), out);
  }
}

// ---------------------------------------------------------------- debugging

namespace {

llvm::FunctionCallee vprintf(Emitter &e) {
  auto *ptr = llvm::PointerType::get(e.ctx, 0);
  return e.mod.getOrInsertFunction("vprintf", llvm::FunctionType::get(e.b.getInt32Ty(), {ptr, ptr}, false));
}

/// Calls vprintf(fmt, args...) with the arguments packed in a local buffer.
void callPrintf(Emitter &e, const std::string &format, const std::vector<llvm::Value *> &args) {
  llvm::Value *fmtStr = e.b.CreateGlobalStringPtr(format, "fmt", 0, &e.mod);
  std::vector<llvm::Type *> tys;
  for (llvm::Value *a : args) tys.push_back(a->getType());
  auto *st = llvm::StructType::get(e.ctx, tys);
  llvm::IRBuilder<> entry(&e.kernel->getEntryBlock(), e.kernel->getEntryBlock().begin());
  llvm::Value *buf = entry.CreateAlloca(st);
  for (size_t i = 0; i < args.size(); ++i) e.b.CreateStore(args[i], e.b.CreateStructGEP(st, buf, i));
  llvm::Value *gen = e.b.CreateAddrSpaceCast(buf, llvm::PointerType::get(e.ctx, 0));
  e.b.CreateCall(vprintf(e), {fmtStr, gen});
}

} // namespace

void Emitter::emitPrint(ir::Op &op) {
  std::string prefix = op.hasAttr("prefix") ? op.strAttr("prefix") : "";
  if (!prefix.empty() && prefix.back() != ' ') prefix += ' ';
  bool hex = op.hasAttr("hex") && op.boolAttr("hex");
  llvm::Value *pid[3] = {sreg("ctaid.x"), sreg("ctaid.y"), sreg("ctaid.z")};
  for (size_t o = 0; o < op.operands.size(); ++o) {
    ir::Value *v = op.operands[o];
    ElemType t = v->type.elem;
    std::string operand = op.operands.size() > 1 ? fmt::format("(operand {}) ", o) : "";
    std::string conv = hex || t.isPtr ? "0x%llx" : t.isFloat() ? "%.9g" : (isSigned(t.scalar) ? "%lld" : "%llu");
    std::string escaped;
    for (char c : prefix + operand) escaped += c == '%' ? std::string("%%") : std::string(1, c);
    const Regs &r = regs(v);
    std::vector<std::vector<llvm::Value *>> crd;
    if (v->type.isTensor()) crd = coords(dist(v->type));
    for (size_t k = 0; k < r.size(); ++k) {
      std::vector<llvm::Value *> args(pid, pid + 3);
      std::string idx;
      if (v->type.isTensor()) {
        for (size_t d = 0; d < crd[k].size(); ++d) {
          idx += d ? ", %d" : "%d";
          args.push_back(crd[k][d]);
        }
        idx = " idx (" + idx + ")";
      }
      llvm::Value *x = r[k];
      if (hex || t.isPtr) x = t.isPtr ? b.CreatePtrToInt(x, b.getInt64Ty()) : b.CreateZExt(b.CreateBitCast(x, b.getIntNTy(bitWidth(t.scalar))), b.getInt64Ty());
      else if (t.isFloat()) x = b.CreateFPExt(toF32(x, t.scalar), b.getDoubleTy());
      else x = b.CreateIntCast(x, b.getInt64Ty(), isSigned(t.scalar));
      args.push_back(x);
      callPrintf(*this, "pid (%d, %d, %d)" + idx + " " + escaped + conv + "\n", args);
    }
  }
}

void Emitter::emitAssert(ir::Op &op) {
  std::string msg = op.hasAttr("msg") ? op.strAttr("msg") : "assertion is false";
  const Regs &r = regs(op.operands[0]);
  llvm::Value *allOk = b.getTrue();
  for (llvm::Value *v : r) allOk = b.CreateAnd(allOk, b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType())));
  llvm::BasicBlock *failBB = newBlock(*this, "assert.fail"), *cont = newBlock(*this, "assert.ok");
  b.CreateCondBr(allOk, cont, failBB);
  b.SetInsertPoint(failBB);
  auto *ptr = llvm::PointerType::get(ctx, 0);
  auto fty = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, b.getInt32Ty(), ptr, b.getInt64Ty()}, false);
  llvm::FunctionCallee af = mod.getOrInsertFunction("__assertfail", fty);
  b.CreateCall(af, {b.CreateGlobalStringPtr(msg, "assert_msg", 0, &mod), b.CreateGlobalStringPtr(fn.name + ".tile", "assert_file", 0, &mod),
                    i32(op.loc.line), b.CreateGlobalStringPtr(fn.name, "assert_func", 0, &mod), b.getInt64(1)});
  b.CreateUnreachable();
  b.SetInsertPoint(cont);
}

} // namespace tile::backend
