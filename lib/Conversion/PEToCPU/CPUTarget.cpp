//===- CPUTarget.cpp - the CPU target of the generated kernels ------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/CPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <memory>
#include <mutex>

using namespace mlir;
using namespace mlir::pe;

/// LLVM's target descriptions (subtarget tables) of every target this LLVM
/// was built with, registered once.
static void initializeTargetDescriptions() {
  static llvm::once_flag flag;
  llvm::call_once(flag, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
  });
}

FailureOr<CPUTarget>
mlir::pe::resolveCPUTarget(const CPUTargetSpec &spec,
                           function_ref<InFlightDiagnostic()> emitError) {
  initializeTargetDescriptions();
  if (spec.triple.empty()) {
    emitError() << "CPU target: no triple (for example "
                   "'x86_64-unknown-linux-gnu' or 'aarch64-unknown-linux-gnu')";
    return failure();
  }
  llvm::Triple triple(llvm::Triple::normalize(spec.triple));
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target || triple.getArch() == llvm::Triple::UnknownArch) {
    emitError() << "CPU target: unknown triple '" << spec.triple << "'"
                << (lookupError.empty() ? "" : ": ") << lookupError;
    return failure();
  }
  bool x86 = triple.getArch() == llvm::Triple::x86_64;
  bool aarch64 = triple.getArch() == llvm::Triple::aarch64;
  if (!x86 && !aarch64) {
    emitError() << "CPU target: the generated kernels support x86-64 and "
                   "AArch64, not '"
                << triple.getArchName() << "' (triple '" << spec.triple << "')";
    return failure();
  }
  // The generic subtarget's tables name every CPU and feature of the triple.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!generic) {
    emitError() << "CPU target: no subtarget information for '" << spec.triple
                << "'";
    return failure();
  }
  if (!spec.cpu.empty() && !generic->isCPUStringValid(spec.cpu)) {
    emitError() << "CPU target: unknown CPU '" << spec.cpu << "' for '"
                << triple.str() << "'";
    return failure();
  }
  SmallVector<StringRef> flags;
  StringRef(spec.features).split(flags, ',', -1, /*KeepEmpty=*/false);
  SmallVector<std::string> cleaned;
  for (StringRef flag : flags) {
    flag = flag.trim();
    if (flag.empty())
      continue;
    StringRef name = flag.drop_front();
    if ((flag.front() != '+' && flag.front() != '-') || name.empty()) {
      emitError() << "CPU target: feature '" << flag
                  << "' must be '+name' or '-name' (features='" << spec.features
                  << "')";
      return failure();
    }
    bool known = llvm::any_of(
        generic->getAllProcessorFeatures(),
        [&](const llvm::SubtargetFeatureKV &kv) { return name == kv.Key; });
    if (!known) {
      emitError() << "CPU target: unknown feature '" << name << "' for '"
                  << triple.str() << "' (features='" << spec.features << "')";
      return failure();
    }
    cleaned.push_back(flag.str());
  }
  CPUTarget result;
  result.triple = triple.str();
  result.cpu = spec.cpu;
  result.features = llvm::join(cleaned, ",");
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(
      triple, spec.cpu.empty() ? "generic" : spec.cpu, result.features));
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (sti->checkFeatures((Twine("+") + kv.Key).str()))
      result.enabled.insert(kv.Key);
  if (x86) {
    if (result.hasFeature("avx512f")) {
      result.vectorBits = 512;
      result.vectorRegisters = 32;
    } else if (result.hasFeature("avx2") && result.hasFeature("fma")) {
      result.vectorBits = 256;
    }
  } else if (result.hasFeature("neon")) {
    result.vectorRegisters = 32;
  } else {
    emitError() << "CPU target: the generated kernels need NEON on AArch64 "
                   "(features='"
                << spec.features << "')";
    return failure();
  }
  return result;
}

CPUTargetSpec mlir::pe::getCPUTargetSpec(LLVM::TargetAttr attr) {
  CPUTargetSpec spec;
  spec.triple = attr.getTriple().str();
  spec.cpu = attr.getChip().str();
  if (LLVM::TargetFeaturesAttr features = attr.getFeatures())
    spec.features = features.getFeaturesString();
  return spec;
}

LLVM::TargetAttr mlir::pe::getModuleCPUTarget(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (!module)
    return {};
  return dyn_cast_or_null<LLVM::TargetAttr>(
      module->getAttr(LLVM::LLVMDialect::getTargetAttrName()));
}

static std::mutex defaultTargetMutex;
static std::optional<CPUTargetSpec> defaultTarget;

void mlir::pe::setDefaultCPUTarget(std::optional<CPUTargetSpec> spec) {
  std::lock_guard<std::mutex> lock(defaultTargetMutex);
  defaultTarget = std::move(spec);
}

std::optional<CPUTargetSpec> mlir::pe::getDefaultCPUTarget() {
  std::lock_guard<std::mutex> lock(defaultTargetMutex);
  return defaultTarget;
}

FailureOr<CPUTarget> mlir::pe::lookupCPUTarget(Operation *op) {
  std::optional<CPUTargetSpec> spec;
  if (LLVM::TargetAttr attr = getModuleCPUTarget(op))
    spec = getCPUTargetSpec(attr);
  else
    spec = getDefaultCPUTarget();
  if (!spec) {
    op->emitError() << "no CPU target for the generated kernels: give the "
                       "module an 'llvm.target' attribute (pe-attach-cpu-"
                       "target{triple=... cpu=... features=...}, or "
                       "pe-cpu-pipeline's options of the same names)";
    return failure();
  }
  return resolveCPUTarget(*spec, [&] { return op->emitError(); });
}

CPUTargetSpec mlir::pe::getHostCPUTargetSpec() {
  initializeTargetDescriptions();
  CPUTargetSpec spec;
  spec.triple = llvm::sys::getProcessTriple();
  spec.cpu = llvm::sys::getHostCPUName().str();
  // The features the host reports are those of its CPU name, except where
  // a machine (or a hypervisor) turned some off: only those differences are
  // spelled out, so that the common case is the CPU name alone.
  std::string lookupError;
  llvm::Triple triple(spec.triple);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  std::unique_ptr<llvm::MCSubtargetInfo> cpuOnly(
      target ? target->createMCSubtargetInfo(triple, spec.cpu, "") : nullptr);
  SmallVector<std::string> flags;
  for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
    std::string flag =
        (feature.getValue() ? "+" : "-") + feature.getKey().str();
    bool known =
        cpuOnly && llvm::any_of(cpuOnly->getAllProcessorFeatures(),
                                [&](const llvm::SubtargetFeatureKV &kv) {
                                  return feature.getKey() == kv.Key;
                                });
    // Features LLVM does not know for the triple cannot be checked or passed
    // on; the others only where they differ from the CPU's.
    if (known && cpuOnly->checkFeatures(flag))
      continue;
    if (known)
      flags.push_back(flag);
  }
  llvm::sort(flags);
  spec.features = llvm::join(flags, ",");
  return spec;
}

void mlir::pe::attachCPUTarget(ModuleOp module, const CPUTarget &target) {
  MLIRContext *ctx = module.getContext();
  auto features = target.features.empty()
                      ? LLVM::TargetFeaturesAttr()
                      : LLVM::TargetFeaturesAttr::get(ctx, target.features);
  module->setAttr(
      LLVM::LLVMDialect::getTargetAttrName(),
      LLVM::TargetAttr::get(ctx, StringAttr::get(ctx, target.triple),
                            StringAttr::get(ctx, target.cpu), features));
  module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                  StringAttr::get(ctx, target.triple));
  module.walk([&](func::FuncOp fn) {
    if (fn.isExternal())
      return;
    if (!target.cpu.empty())
      fn->setAttr("target_cpu", StringAttr::get(ctx, target.cpu));
    if (features)
      fn->setAttr(LLVM::TargetFeaturesAttr::getAttributeName(), features);
  });
}
