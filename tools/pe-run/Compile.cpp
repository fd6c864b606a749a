//===- Compile.cpp - Lowering and JIT compilation for pe-run --------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"

#include "pe/Runtime/Hooks.h"

#include "pe/Conversion/PEToCPU/CPUTarget.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace ::pe::run;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace pe::run {

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// Number of 8-byte slots of an LLVM memref-descriptor return type, or -1 if
/// it contains anything other than pointers, i64 and arrays/structs of them.
static int64_t slotCount(Type t) {
  if (isa<LLVM::LLVMPointerType>(t) || t.isSignlessInteger(64))
    return 1;
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(t)) {
    int64_t inner = slotCount(array.getElementType());
    return inner < 0 ? -1 : inner * int64_t(array.getNumElements());
  }
  if (auto st = dyn_cast<LLVM::LLVMStructType>(t)) {
    int64_t total = 0;
    for (Type member : st.getBody()) {
      int64_t inner = slotCount(member);
      if (inner < 0)
        return -1;
      total += inner;
    }
    return total;
  }
  return -1;
}

static int64_t resultSlots(const ResultSpec &r) { return 3 + 2 * r.rank; }

// LLVM lowers `math.sin` to a call to `sin`; a function of the input named
// `sin` would receive it and recurse.
std::string jitName(StringRef name) { return ("__pe_run_" + name).str(); }

/// Renames every function that `module` defines to its jitName.
static LogicalResult renameFunctionsForJit(ModuleOp module) {
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  for (func::FuncOp fn : functions) {
    if (fn.isExternal())
      continue; // A declaration names a function of a loaded library.
    auto newName =
        StringAttr::get(module.getContext(), jitName(fn.getSymName()));
    if (failed(SymbolTable::replaceAllSymbolUses(fn, newName, module)))
      return error("cannot rename function '" + fn.getSymName() +
                   "' for the JIT");
    SymbolTable::setSymbolName(fn, newName);
  }
  return success();
}

/// Checks that the lowered function has the calling convention pe-run
/// assumes, so that a pipeline with another convention fails cleanly instead
/// of corrupting memory.
static LogicalResult checkLoweredSignature(ModuleOp module,
                                           const Signature &sig,
                                           StringRef pipeline) {
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(jitName(sig.name));
  if (!fn || fn.isExternal())
    return error("pipeline '" + pipeline +
                 "' did not produce an llvm.func named '" + sig.name + "'");
  LLVM::LLVMFunctionType type = fn.getFunctionType();
  std::string why;
  ArrayRef<Type> params = type.getParams();
  size_t p = 0;
  for (auto [i, arg] : llvm::enumerate(sig.args)) {
    auto mismatch = [&, i = i](const Twine &what) {
      why = ("argument " + Twine(i) + ": " + what).str();
    };
    if (arg.isTensor) {
      size_t n = 3 + 2 * arg.shape.size();
      for (size_t k = 0; k < n && why.empty(); ++k, ++p) {
        if (p >= params.size()) {
          mismatch("too few LLVM parameters");
          break;
        }
        bool ok = k < 2 ? isa<LLVM::LLVMPointerType>(params[p])
                        : params[p].isSignlessInteger(64);
        if (!ok)
          mismatch("expected an expanded memref descriptor, got " +
                   typeString(params[p]));
      }
    } else {
      if (p >= params.size()) {
        mismatch("too few LLVM parameters");
      } else {
        Type want;
        Builder b(module.getContext());
        switch (arg.elem) {
        case Elem::Index:
        case Elem::I64:
          want = b.getI64Type();
          break;
        case Elem::I32:
          want = b.getI32Type();
          break;
        case Elem::F32:
          want = b.getF32Type();
          break;
        case Elem::F64:
          want = b.getF64Type();
          break;
        default:
          break;
        }
        if (params[p] != want)
          mismatch("expected " + typeString(want) + ", got " +
                   typeString(params[p]));
      }
      ++p;
    }
    if (!why.empty())
      break;
  }
  if (why.empty() && p != params.size())
    why = "the lowered function has " + std::to_string(params.size()) +
          " parameters, expected " + std::to_string(p);
  if (why.empty() && type.isVarArg())
    why = "the lowered function is variadic";
  if (why.empty()) {
    Type ret = type.getReturnType();
    int64_t want = 0;
    for (const ResultSpec &r : sig.results)
      want += resultSlots(r);
    int64_t got = isa<LLVM::LLVMVoidType>(ret) ? 0 : slotCount(ret);
    if (got != want)
      why = "unexpected return type " + typeString(ret);
  }
  if (!why.empty())
    return error("pipeline '" + pipeline + "' produced '" + sig.name +
                 "' with an unsupported calling convention (" + why + ")");
  return success();
}

//===----------------------------------------------------------------------===//
// Run-time failures of the compiled code
//===----------------------------------------------------------------------===//

// The compiled code reports a failed run-time check (cf.assert, lowered by
// upstream's convert-cf-to-llvm) as puts(message) then abort(). pe-run gives
// the JIT its own puts and abort, and a malloc that does not return null, so
// that each of these ends the run with one `pe-run: error:` line and exit
// status 1 instead of a crash. Other libraries (libc, libomp, libm) keep the
// real functions.
[[noreturn]] static void exitFromJit(const std::string &message) {
  std::fflush(stdout);
  report(message);
  llvm::errs().flush();
  std::_Exit(1);
}

extern "C" int peRunJitPuts(const char *message) {
  return ::pe::rt::recordMessage(message);
}

extern "C" [[noreturn]] void peRunJitAbort() {
  ::pe::rt::abortRun(exitFromJit);
}

extern "C" void *peRunJitMalloc(size_t bytes) {
  return ::pe::rt::checkedMalloc(bytes, exitFromJit);
}

extern "C" void *peRunJitAlignedAlloc(size_t alignment, size_t bytes) {
  return ::pe::rt::checkedAlignedAlloc(alignment, bytes, exitFromJit);
}

static llvm::orc::SymbolMap
jitRuntimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](StringRef name, auto *fn) {
    symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                             llvm::JITSymbolFlags::Exported};
  };
  add("puts", &peRunJitPuts);
  add("abort", &peRunJitAbort);
  add("malloc", &peRunJitMalloc);
  add("aligned_alloc", &peRunJitAlignedAlloc);
  return symbols;
}

FailureOr<llvm::orc::JITTargetMachineBuilder>
targetMachineBuilder(ModuleOp module, bool forJit) {
  LLVM::TargetAttr attr = mlir::pe::getModuleCPUTarget(module);
  if (!attr) {
    llvm::Expected<llvm::orc::JITTargetMachineBuilder> host =
        llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!host)
      return error(host.takeError());
    return std::move(*host);
  }
  mlir::pe::CPUTargetSpec spec = mlir::pe::getCPUTargetSpec(attr);
  llvm::Triple triple(spec.triple);
  if (forJit &&
      triple.getArch() != llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    return error("the code is for '" + spec.triple + "', which this machine (" +
                 llvm::sys::getProcessTriple() +
                 ") cannot run; --emit-executable writes an executable "
                 "for it");
  llvm::orc::JITTargetMachineBuilder jtmb(triple);
  jtmb.setCPU(spec.cpu);
  SmallVector<StringRef> flags;
  StringRef(spec.features).split(flags, ',', -1, /*KeepEmpty=*/false);
  for (StringRef flag : flags)
    jtmb.getFeatures().AddFeature(flag);
  return jtmb;
}

FailureOr<OwningOpRef<ModuleOp>> lower(ModuleOp original, const Signature &sig,
                                       const PipelineEntry &pipeline,
                                       bool runtimeChecks) {
  OwningOpRef<ModuleOp> module = original.clone();
  if (failed(renameFunctionsForJit(*module)))
    return failure();
  PassManager pm = PassManager::on<ModuleOp>(original.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return error("cannot apply the pass manager options");
  pipeline.build(pm, runtimeChecks);
  if (failed(pm.run(*module)))
    return error("pipeline '" + pipeline.name + "' failed");
  if (failed(checkLoweredSignature(*module, sig, pipeline.name)))
    return failure();
  return module;
}

/// The FMA probe of the code's vector width, for --flops: "avx512" for
/// 512-bit x86 kernels, "avx2" for 256-bit ones, "generic" for 128-bit ones;
/// empty for a module without a CPU target (a GPU pipeline's host code).
static std::string fmaIsaOf(ModuleOp module) {
  LLVM::TargetAttr attr = mlir::pe::getModuleCPUTarget(module);
  if (!attr)
    return "";
  FailureOr<mlir::pe::CPUTarget> target = mlir::pe::resolveCPUTarget(
      mlir::pe::getCPUTargetSpec(attr), [&] { return module.emitError(); });
  if (failed(target))
    return "";
  if (target->vectorBits >= 512)
    return "avx512";
  return target->vectorBits >= 256 ? "avx2" : "generic";
}

FailureOr<Compiled> compile(ModuleOp original, const Signature &sig,
                            const PipelineEntry &pipeline,
                            ArrayRef<std::string> sharedLibs,
                            bool runtimeChecks) {
  FailureOr<OwningOpRef<ModuleOp>> lowered =
      lower(original, sig, pipeline, runtimeChecks);
  if (failed(lowered))
    return failure();
  OwningOpRef<ModuleOp> module = std::move(*lowered);

  FailureOr<llvm::orc::JITTargetMachineBuilder> jtmb =
      targetMachineBuilder(*module, /*forJit=*/true);
  if (failed(jtmb))
    return failure();
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // One TargetMachine for the optimizer (its vectorizers need the host
  // features), one owned by the engine for code generation (RECIPE 5/6).
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> optTM =
      jtmb->createTargetMachine();
  if (!optTM)
    return error(optTM.takeError());
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> codegenTM =
      jtmb->createTargetMachine();
  if (!codegenTM)
    return error(codegenTM.takeError());

  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, optTM->get());
  SmallVector<StringRef> libs(sharedLibs.begin(), sharedLibs.end());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  options.sharedLibPaths = libs;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(*module, options, std::move(*codegenTM));
  if (!engine)
    return error("JIT compilation (pipeline '" + pipeline.name +
                 "') failed: " + llvm::toString(engine.takeError()));

  Compiled compiled;
  compiled.pipeline = pipeline.name.str();
  compiled.fmaIsa = fmaIsaOf(*module);
  compiled.engine = std::move(*engine);
  compiled.engine->registerSymbols(jitRuntimeSymbols);
  // lookupPacked materializes the code and reports unresolved symbols as an
  // error; initialize() (which runs global constructors and cannot fail
  // gracefully) comes after it. Calling the packed function is what
  // ExecutionEngine::invokePacked(name, args) does, without a symbol lookup
  // per call.
  llvm::Expected<void (*)(void **)> fn =
      compiled.engine->lookupPacked(jitName(sig.name));
  if (!fn)
    return error("JIT compilation (pipeline '" + pipeline.name +
                 "') failed: " + llvm::toString(fn.takeError()));
  compiled.engine->initialize();
  compiled.fn = *fn;
  return compiled;
}

} // namespace pe::run
