//===- EmitExecutable.cpp - pe-run --emit-executable ----------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The lowered module is translated to LLVM IR, optimized as the JIT does,
// compiled to an object in-process and linked by clang++ with pe's AOT
// archives: libpe_aot_main.a (main(): .npy in and out, timing; no LLVM or
// MLIR) and, for the GPU pipelines, the CUDA or Vulkan runtime as an archive.
// The object carries what main() needs (lib/Runtime/AOT/AOTMain.cpp):
// pe_aot_signature, pe_aot_entry (the packed interface pe-run calls through
// the ExecutionEngine), pe_aot_init/fini (the module's global constructors
// and destructors, run by main() once the inputs are read), and calls
// pe_aot_puts/abort/malloc/aligned_alloc where the JIT substitutes
// peRunJitPuts & co.
//
//===----------------------------------------------------------------------===//

#include "EmitExecutable.h"

#include "pe/Conversion/PEToCPU/CPUTarget.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#ifndef PE_AOT_LINKER
#define PE_AOT_LINKER "/usr/lib/llvm-22/bin/clang++"
#endif

using namespace mlir;
using namespace ::pe::run;
using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace pe::run {

/// The signature as the AOT main() reads it (pe/Runtime/Signature.h).
static std::string aotSignatureText(const Signature &sig, StringRef pipeline) {
  ::pe::rt::Signature text = runtimeSignature(sig);
  text.pipeline = pipeline.str();
  return ::pe::rt::formatSignature(text);
}

/// void pe_aot_entry(void **args): loads each parameter of `fn` through
/// args[i], calls it, stores the result through args[n] (the layout of the
/// ExecutionEngine's packed wrapper).
static void addPackedEntry(llvm::Module &m, llvm::Function *fn) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  llvm::Type *ptr = b.getPtrTy();
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, "pe_aot_entry", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::Value *packed = entry->getArg(0);
  SmallVector<llvm::Value *> args;
  for (llvm::Argument &arg : fn->args()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, packed, arg.getArgNo(), "slot");
    args.push_back(b.CreateLoad(arg.getType(), b.CreateLoad(ptr, slot)));
  }
  llvm::Value *result = b.CreateCall(fn, args);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, packed, fn->arg_size(), "result");
    b.CreateStore(result, b.CreateLoad(ptr, slot));
  }
  b.CreateRetVoid();
}

/// Replaces the appending global `list` (llvm.global_ctors or
/// llvm.global_dtors) by a function `name` that calls its entries in
/// priority order, so that main() decides when GPU modules are loaded.
static LogicalResult outlineGlobalStructors(llvm::Module &m, StringRef list,
                                            StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *fn =
      llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), false),
                             llvm::GlobalValue::ExternalLinkage, name, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  if (llvm::GlobalVariable *gv = m.getNamedGlobal(list)) {
    SmallVector<std::pair<uint64_t, llvm::Function *>> entries;
    if (auto *init = dyn_cast_or_null<llvm::ConstantArray>(
            gv->hasInitializer() ? gv->getInitializer() : nullptr)) {
      for (llvm::Value *op : init->operands()) {
        auto *entry = dyn_cast<llvm::ConstantStruct>(op);
        auto *prio =
            entry ? dyn_cast<llvm::ConstantInt>(entry->getOperand(0)) : nullptr;
        auto *callee =
            entry ? dyn_cast<llvm::Function>(entry->getOperand(1)) : nullptr;
        if (!prio || !callee ||
            !isa<llvm::ConstantPointerNull>(entry->getOperand(2)))
          return error("--emit-executable: unsupported entry in " + list);
        entries.emplace_back(prio->getZExtValue(), callee);
      }
    } else if (gv->hasInitializer() &&
               !isa<llvm::ConstantAggregateZero>(gv->getInitializer())) {
      return error("--emit-executable: unsupported " + list);
    }
    // Stable: entries of equal priority keep their order.
    for (size_t i = 1; i < entries.size(); ++i)
      for (size_t j = i; j > 0 && entries[j].first < entries[j - 1].first; --j)
        std::swap(entries[j], entries[j - 1]);
    // Destructors run in the reverse order of their priorities.
    if (list == "llvm.global_dtors")
      std::reverse(entries.begin(), entries.end());
    for (auto &[prio, callee] : entries)
      b.CreateCall(callee);
    gv->eraseFromParent();
  }
  b.CreateRetVoid();
  return success();
}

/// A temporary file removed when this goes out of scope.
namespace {
struct TempFile {
  SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

/// The features the AOT main() checks: every feature the module's CPU
/// target enables (its CPU's included, so that `x86-64-v3` alone checks
/// AVX2 and FMA), else the TargetMachine builder's (the host's).
static std::string aotFeatureList(ModuleOp lowered,
                                  llvm::orc::JITTargetMachineBuilder &jtmb) {
  LLVM::TargetAttr attr = mlir::pe::getModuleCPUTarget(lowered);
  if (!attr)
    return jtmb.getFeatures().getString();
  FailureOr<mlir::pe::CPUTarget> target = mlir::pe::resolveCPUTarget(
      mlir::pe::getCPUTargetSpec(attr), [&] { return lowered.emitError(); });
  if (failed(target))
    return jtmb.getFeatures().getString();
  SmallVector<std::string> flags;
  for (const auto &feature : target->enabled)
    flags.push_back("+" + feature.getKey().str());
  llvm::sort(flags);
  return llvm::join(flags, ",");
}

namespace {
/// What an executable is compiled for and linked with.
struct ExecutableTarget {
  llvm::orc::JITTargetMachineBuilder jtmb{
      llvm::Triple(llvm::sys::getProcessTriple())};
  /// The CPU pipeline's code is for the CPU target the lowered module names
  /// (the host by default, or --target-*); the GPU pipelines' host code only
  /// marshals buffers and launches kernels, so it is compiled for the
  /// generic CPU of the triple and runs on any GPU machine of the same
  /// architecture.
  bool hostCPU = true;
  /// The triple of a CPU target of another architecture, or empty.
  std::string crossTriple;
  /// The AOT archives, main() first.
  SmallVector<std::string> archives;
};
} // namespace

/// The archives the executable is linked with, checked before compiling.
static LogicalResult findArchives(ExecutableTarget &target, StringRef pipeline,
                                  StringRef libDir,
                                  const ShardedExecutable *sharded) {
  target.archives = {(Twine(libDir) + "/" +
                      (sharded ? sharded->mainArchive : "libpe_aot_main.a"))
                         .str()};
  if (pipeline == "cuda")
    target.archives.push_back(
        (Twine(libDir) + "/libpe_aot_cuda_runtime.a").str());
  if (pipeline == "vulkan")
    target.archives.push_back(
        (Twine(libDir) + "/libpe_aot_vulkan_runtime.a").str());
  target.hostCPU = pipeline != "cuda" && pipeline != "vulkan";
  for (const std::string &archive : target.archives)
    if (!llvm::sys::fs::exists(archive))
      return error("--emit-executable: cannot find " + archive +
                   " (built with pe-run)");
  if (!llvm::sys::fs::can_execute(PE_AOT_LINKER))
    return error("--emit-executable: cannot find the linker driver " +
                 Twine(PE_AOT_LINKER) + " (Debian package clang-22)");
  return success();
}

/// The target of the CPU pipeline's code: the lowered module's; for another
/// architecture, main() comes from its copy of libpe_aot_main.a (lib/<arch>/,
/// built with the Debian cross toolchain), linked by the same clang++ with
/// --target.
static LogicalResult chooseCPUTarget(ExecutableTarget &target, ModuleOp lowered,
                                     StringRef libDir) {
  FailureOr<llvm::orc::JITTargetMachineBuilder> jtmb =
      targetMachineBuilder(lowered, /*forJit=*/false);
  if (failed(jtmb))
    return failure();
  target.jtmb = std::move(*jtmb);
  const llvm::Triple &triple = target.jtmb.getTargetTriple();
  if (triple.getArch() == llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    return success();
  std::string crossMain =
      (Twine(libDir) + "/" + triple.getArchName() + "/libpe_aot_main.a").str();
  if (!llvm::sys::fs::exists(crossMain))
    return error("--emit-executable: the code is for '" + triple.str() +
                 "', but pe's AOT runtime for it (" + crossMain +
                 ") was not built (pe-run builds it for aarch64 when the "
                 "Debian packages gcc-aarch64-linux-gnu and "
                 "libstdc++-12-dev-arm64-cross are installed)");
  target.archives.front() = crossMain;
  target.crossTriple = triple.str();
  return success();
}

/// Optimizes `m` for `tm` and adds what main() needs: pe_aot_entry,
/// pe_aot_init/fini, the pe_aot_* allocation and error hooks and
/// pe_aot_signature (`signature`).
static LogicalResult prepareModule(llvm::Module &m, llvm::TargetMachine &tm,
                                   const Signature &sig,
                                   const std::string &signature) {
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(tm.getTargetTriple());
  if (llvm::Error err = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, &tm)(&m))
    return error(std::move(err));
  llvm::Function *fn = m.getFunction(jitName(sig.name));
  if (!fn || fn->isDeclaration())
    return error("--emit-executable: '" + sig.name +
                 "' is missing from the LLVM module");
  addPackedEntry(m, fn);
  if (failed(outlineGlobalStructors(m, "llvm.global_ctors", "pe_aot_init")) ||
      failed(outlineGlobalStructors(m, "llvm.global_dtors", "pe_aot_fini")))
    return failure();
  for (StringRef name : {"puts", "abort", "malloc", "aligned_alloc"})
    if (llvm::Function *f = m.getFunction(name); f && f->isDeclaration())
      f->setName(("pe_aot_" + name).str());
  llvm::LLVMContext &ctx = m.getContext();
  new llvm::GlobalVariable(
      m, llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), signature.size() + 1),
      /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantDataArray::getString(ctx, signature), "pe_aot_signature");
  return success();
}

/// Writes the object code of `m` to `path`.
static LogicalResult writeObject(llvm::Module &m, llvm::TargetMachine &tm,
                                 StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return error(path + ": " + ec.message());
  llvm::legacy::PassManager codegen;
  if (tm.addPassesToEmitFile(codegen, os, nullptr,
                             llvm::CodeGenFileType::ObjectFile))
    return error("--emit-executable: the target cannot emit objects");
  codegen.run(m);
  return success();
}

/// Links `object` with the archives into the executable `path`.
static LogicalResult link(const ExecutableTarget &target, StringRef object,
                          StringRef path, StringRef pipeline, bool openmp,
                          const ShardedExecutable *sharded) {
  std::string linker = PE_AOT_LINKER;
  SmallVector<std::string> args = {linker};
  if (!target.crossTriple.empty())
    args.push_back("--target=" + target.crossTriple);
  args.append({"-o", path.str(), object.str()});
  args.append(target.archives.begin(), target.archives.end());
  if (sharded)
    args.append(sharded->linkArgs.begin(), sharded->linkArgs.end());
  if (pipeline == "vulkan")
    args.push_back("-lvulkan");
  if (openmp) {
    args.push_back("-L" + std::string(PE_MLIR_LIB_DIR));
    args.push_back("-lomp");
  }
  // libstdc++ and libgcc linked in: the executable needs only libc, libm and
  // the driver (or libomp / libvulkan) at run time.
  for (const char *flag :
       {"-static-libstdc++", "-static-libgcc", "-lm", "-lpthread", "-ldl"})
    args.push_back(flag);
  TempFile log;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("pe-aot-link", "log", log.path))
    return error("cannot create a temporary file: " + ec.message());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, log.path.str(),
                                          log.path.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(linker, argRefs, std::nullopt, redirects,
                                     0, 0, &execError);
  if (rc == 0)
    return success();
  std::string output;
  if (auto buf = llvm::MemoryBuffer::getFile(log.path))
    output = (*buf)->getBuffer().rtrim().str();
  return error("--emit-executable: linking '" + path + "' failed (" +
               llvm::join(args, " ") + ")" +
               (execError.empty() ? "" : ": " + execError) +
               (output.empty() ? "" : ":\n" + output));
}

LogicalResult emitExecutable(ModuleOp original, const Signature &sig,
                             const PipelineEntry &pipeline, bool runtimeChecks,
                             StringRef path, StringRef libDir,
                             const ShardedExecutable *sharded) {
  ExecutableTarget target;
  if (failed(findArchives(target, pipeline.name, libDir, sharded)))
    return failure();
  FailureOr<OwningOpRef<ModuleOp>> lowered =
      lower(original, sharded ? sharded->local : sig, pipeline, runtimeChecks);
  if (failed(lowered))
    return failure();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(**lowered, llvmContext, "pe-aot");
  if (!m)
    return error("--emit-executable: translation to LLVM IR failed");
  if (target.hostCPU && failed(chooseCPUTarget(target, **lowered, libDir)))
    return failure();
  target.jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  target.jtmb.setRelocationModel(llvm::Reloc::PIC_);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
      target.jtmb.createTargetMachine();
  if (!tm)
    return error(tm.takeError());

  std::string signature = aotSignatureText(sig, pipeline.name);
  if (sharded)
    signature += sharded->signatureText;
  // The CPU the code was compiled for: main() checks the x86 features it can
  // query before the first call, so that a CPU executable copied to another
  // machine fails with a message instead of an illegal instruction.
  if (target.hostCPU)
    signature += "cpu " + target.jtmb.getCPU() + "\nfeatures " +
                 aotFeatureList(**lowered, target.jtmb) + "\n";
  if (failed(prepareModule(*m, **tm, sig, signature)))
    return failure();
  // OpenMP (the CPU pipeline's scf.parallel loops) calls into libomp.
  bool openmp = llvm::any_of(m->functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__kmpc_");
  });

  TempFile object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("pe-aot", "o", object.path))
    return error("cannot create a temporary file: " + ec.message());
  if (failed(writeObject(*m, **tm, object.path)))
    return failure();
  if (openmp && !target.crossTriple.empty())
    return error("--emit-executable: the code for '" + target.crossTriple +
                 "' calls the OpenMP runtime, which pe does not link for "
                 "that target: compile it without OpenMP "
                 "(--cpu-openmp=false, pe-cpu-pipeline{openmp=false})");
  if (failed(link(target, object.path, path, pipeline.name, openmp, sharded)))
    return failure();
  bool cuda = pipeline.name == "cuda", vulkan = pipeline.name == "vulkan";
  std::string needs = sharded  ? sharded->needs
                      : cuda   ? "libcuda.so.1 (the NVIDIA driver)"
                      : vulkan ? "libvulkan.so.1 and a Vulkan driver"
                      : openmp ? "libomp.so.5"
                               : "only libc and libm";
  llvm::outs() << "pe-run: wrote '" << path << "' (function '" << sig.name
               << "', pipeline " << pipeline.name << "; needs " << needs
               << " at run time; see '" << path << " --help')\n";
  return success();
}

} // namespace pe::run
