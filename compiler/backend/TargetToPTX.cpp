// TargetToPTX.cpp - the NVPTX side: the TargetMachine for an arch, the
// kernel module, LLVM's O3 pipeline (less what this IR does not need),
// PTX emission and ptxas (cubin).
#include "backend/Codegen.h"
#include "backend/Emitter.h"
#include "backend/LLVMInfo.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace tile::backend {

namespace {

const char *kTriple = "nvptx64-nvidia-cuda";

/// PTX ISA version features accepted by LLVM 19 and ptxas 13 per arch.
std::string ptxFeatures(const std::string &arch) {
  if (arch.rfind("sm_9", 0) == 0) return "+ptx80";
  if (arch == "sm_89") return "+ptx78";
  return "+ptx75";
}

/// The space-separated words of environment variable `name` (none if unset).
std::vector<std::string> envWords(const char *name) {
  std::vector<std::string> out;
  if (const char *env = std::getenv(name)) {
    std::istringstream in(env);
    for (std::string w; in >> w;) out.push_back(w);
  }
  return out;
}

void initOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    nvptxTargetAvailable();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit shared pointers (as Triton); must precede the TargetMachine.
    // GVN without memory dependences: over the 3877 snapshot kernels it
    // removed no load (a barrier or an async copy stands between every
    // store and load of shared memory), and their queries were most of
    // GVN's time.
    // Loop strength reduction without its same-scaled-register filter: with
    // it, LSR rewrote the 16 pointer induction variables of mm_wt's K loop
    // (look-ahead addresses carried by tile-pipeline) as 16 variables plus a
    // shared per-thread offset, 40 add.s64 an iteration; without it, one
    // variable and 16 adds (25, as mm_kmajor). LSR wholly off (24) changed
    // the scan kernels' code, and tests/gpu/scans.tile then failed once on
    // the H100 (session 21; not understood): with LSR on their PTX is the
    // one that passed before, byte for byte.
    // TILE_LLVM_ARGS: more LLVM options, space-separated, for experiments
    // (`-disable-lsr` takes LSR out)
    std::vector<std::string> extra = envWords("TILE_LLVM_ARGS");
    std::vector<const char *> args = {"tilec", "-nvptx-short-ptr", "-enable-gvn-memdep=false",
                                      "-lsr-filter-same-scaled-reg=false"};
    for (const std::string &a : extra) args.push_back(a.c_str());
    llvm::cl::ParseCommandLineOptions(int(args.size()), args.data(), "", &llvm::errs());
  });
}

std::unique_ptr<llvm::TargetMachine> makeTargetMachine(const std::string &arch, bool fpFusion, Location loc) {
  initOnce();
  static const char *known[] = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};
  if (std::find(std::begin(known), std::end(known), arch) == std::end(known))
    fail(loc, fmt::format("unsupported gpu architecture '{}' (supported: sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a)", arch));
  std::string err;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(kTriple, err);
  if (!t) fail(loc, "nvptx target unavailable: " + err);
  llvm::TargetOptions to;
  // Fast: fmul+fadd become fma wherever LLVM sees the pair (Triton's
  // enable_fp_fusion); Standard fuses only what the IR marks `contract`
  // (nothing tile emits).
  to.AllowFPOpFusion = fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  // Default, not Aggressive: Aggressive adds NVPTX's GVN twice (a third of
  // code generation's time). Default and O3 without DSE (below), measured
  // together over the 3877 snapshot kernels, changed 44 of them, each by
  // 1-9 instructions fewer.
  return std::unique_ptr<llvm::TargetMachine>(
      t->createTargetMachine(kTriple, arch, ptxFeatures(arch), to, llvm::Reloc::PIC_, std::nullopt,
                             llvm::CodeGenOptLevel::Default));
}

/// Optional passes of O3 that this IR does not need: the emitter writes no
/// dead stores, and dead-store elimination was a quarter of the optimizer's
/// time (it walks MemorySSA from each of the hundreds of shared-memory
/// stores of a layout conversion). Without it the PTX of a 10-kernel sample
/// (matmuls, attention, layer norm, softmax, libdevice math) was the same;
/// over all 3877 snapshot kernels it was measured only together with
/// CodeGenOptLevel::Default (44 kernels changed, each 1-9 instructions fewer).
constexpr llvm::StringLiteral kSkippedPasses[] = {"DSEPass"};

void optimize(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks pic;
  // TILE_SKIP_PASSES: more optional passes to skip, space-separated class
  // names (SLPVectorizerPass, ...), for measuring what a pass buys
  static const std::vector<std::string> skipMore = envWords("TILE_SKIP_PASSES");
  pic.registerShouldRunOptionalPassCallback([](llvm::StringRef name, llvm::Any) {
    return std::find(std::begin(kSkippedPasses), std::end(kSkippedPasses), name) == std::end(kSkippedPasses) &&
           std::find(skipMore.begin(), skipMore.end(), name.str()) == skipMore.end();
  });
  llvm::PassBuilder pb(&tm, llvm::PipelineTuningOptions(), std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

std::string print(const llvm::Module &m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

std::unique_ptr<llvm::Module> build(llvm::LLVMContext &ctx, llvm::TargetMachine &tm, const ir::Function &fn,
                                    const TargetOptions &opts, int *sharedBytes) {
  auto emit = [&](bool registerRings, bool *usedRings) {
    auto m = std::make_unique<llvm::Module>(fn.name, ctx);
    m->setTargetTriple(kTriple);
    m->setDataLayout(tm.createDataLayout());
    Emitter e(*m, fn, opts);
    e.registerRings = e.ownOperands = registerRings;
    try {
      int smem = e.emitKernel();
      if (sharedBytes) *sharedBytes = smem;
    } catch (const CompileError &) {
      *usedRings = e.usedRegisterRings || e.usedOwnOperands;
      throw;
    }
    if (!e.libdevicePath.empty()) linkLibdevice(*m, e.libdevicePath, fn.loc);
    return m;
  };
  bool usedRings = false;
  try {
    return emit(true, &usedRings);
  } catch (const CompileError &) {
    // register rings (computed dot operands in shared memory) or buffers of
    // loop-invariant operands that do not fit beside the rest: the kernel
    // without them
    if (!usedRings) throw;
    return emit(false, &usedRings);
  }
}

/// The module of one kernel and what it was built with, stage by stage.
class NvptxKernel final : public LoweredKernel {
public:
  NvptxKernel(const ir::Function &fn, const TargetOptions &opts) : loc_(fn.loc) {
    tm_ = makeTargetMachine(opts.arch, opts.fpFusion, fn.loc);
    m_ = build(ctx_, *tm_, fn, opts, &sharedBytes_);
  }
  std::string llvmText() const override { return print(*m_); }
  void optimize() override { backend::optimize(*m_, *tm_); }
  std::string emitPTX() override {
    llvm::SmallString<0> buf;
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    if (tm_->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      fail(loc_, "the nvptx target cannot emit ptx");
    pm.run(*m_);
    return std::string(buf.str());
  }
  int sharedBytes() const override { return sharedBytes_; }

private:
  Location loc_;
  llvm::LLVMContext ctx_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::unique_ptr<llvm::Module> m_;
  int sharedBytes_ = 0;
};

std::unique_ptr<LoweredKernel> lowerKernel(const ir::Function &fn, const TargetOptions &opts) {
  return std::make_unique<NvptxKernel>(fn, opts);
}

std::string identity() { return "LLVM " + llvmVersion(); }

} // namespace

const CodeGenerator &nvptxCodeGenerator() {
  static const CodeGenerator generator{&lowerKernel, &ptxToCubin, &identity};
  return generator;
}

std::string emitLLVM(const ir::Function &fn, const TargetOptions &opts, bool opt) {
  auto tm = makeTargetMachine(opts.arch, opts.fpFusion, fn.loc);
  llvm::LLVMContext ctx;
  auto m = build(ctx, *tm, fn, opts, nullptr);
  if (opt) optimize(*m, *tm);
  return print(*m);
}

KernelBinary compileToPTX(const ir::Function &fn, const TargetOptions &opts) {
  auto tm = makeTargetMachine(opts.arch, opts.fpFusion, fn.loc);
  llvm::LLVMContext ctx;
  KernelBinary kb;
  kb.name = fn.name;
  kb.numWarps = opts.numWarps;
  auto m = build(ctx, *tm, fn, opts, &kb.sharedBytes);
  optimize(*m, *tm);
  kb.llvmIR = print(*m);
  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    fail(fn.loc, "the nvptx target cannot emit ptx");
  pm.run(*m);
  kb.ptx = std::string(buf.str());
  return kb;
}

// ---------------------------------------------------------------- ptxas

namespace {

std::string findPtxas() {
  if (const char *path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && access((dir + "/ptxas").c_str(), X_OK) == 0) return dir + "/ptxas";
  }
  if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return "/usr/local/cuda/bin/ptxas";
  return "";
}

std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

std::string ptxToCubin(const std::string &ptx, const std::string &arch) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) fail(Location{}, "ptxas not found (looked in PATH and /usr/local/cuda/bin)");
  char dirTemplate[] = "/tmp/tilec-ptxas-XXXXXX";
  if (!mkdtemp(dirTemplate)) fail(Location{}, "cannot create a temporary directory for ptxas");
  std::filesystem::path dir(dirTemplate);
  std::ofstream(dir / "k.ptx", std::ios::binary) << ptx;
  std::string cmd = fmt::format("'{}' -arch={} -o '{}' '{}' 2> '{}'", ptxas, arch, (dir / "k.cubin").string(),
                                (dir / "k.ptx").string(), (dir / "err.txt").string());
  int rc = std::system(cmd.c_str());
  std::string cubin = readFile(dir / "k.cubin"), err = readFile(dir / "err.txt");
  std::filesystem::remove_all(dir);
  if (rc != 0) fail(Location{}, "ptxas failed:\n" + err);
  return cubin;
}

} // namespace tile::backend
