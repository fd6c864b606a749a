//===- CPUTarget.h - the CPU target of the generated kernels ----*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The generated CPU kernels (convert-pe-to-vector) are built for a target
// that the IR names: the module's `llvm.target` attribute
// (`#llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">`),
// written by pe-attach-cpu-target from its options or left by the user. The
// vector width and the feature-gated paths (AVX512-BF16 dot products) come
// from that target, never from the machine running the pass. Tools may set a
// default target for modules that name none (pe-opt and pe-run set the
// host's: `host` is a convenience of the tools, not of the passes).
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PETOCPU_CPUTARGET_H
#define PE_CONVERSION_PETOCPU_CPUTARGET_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir {
class ModuleOp;
class Operation;
namespace LLVM {
class TargetAttr;
} // namespace LLVM
namespace pe {

/// A CPU target as written: an LLVM triple, a CPU name (empty: the triple's
/// generic CPU) and LLVM feature flags ("+avx512bf16,-avx512fp16").
struct CPUTargetSpec {
  std::string triple, cpu, features;
};

/// A CPU target checked against LLVM's target registry.
struct CPUTarget {
  /// The normalised triple, the CPU and features as given.
  std::string triple, cpu, features;
  /// The widest vectors the kernels use, in bits: 512 with AVX-512F, 256
  /// with AVX2 and FMA (x86-64-v3), else 128 (SSE2 on x86-64, NEON on
  /// AArch64).
  int64_t vectorBits = 128;
  /// The architectural vector registers of that width: 32 with AVX-512F
  /// (zmm0-31) and on AArch64 (v0-31), 16 with AVX2 or SSE2 (ymm/xmm0-15).
  int64_t vectorRegisters = 16;
  /// The features the CPU and the flags enable, implied ones included.
  llvm::StringSet<> enabled;

  /// f32 lanes per vector.
  int64_t f32Lanes() const { return vectorBits / 32; }
  /// The vector accumulators a kernel's register tile may keep: half the
  /// registers, the other half holding the loaded and broadcast operands
  /// of the FMAs (the tile passes over its operands in chunks of that
  /// many accumulators instead of spilling).
  int64_t accumulatorVectors() const { return vectorRegisters / 2; }
  /// Whether the target has LLVM feature `name` (without '+').
  bool hasFeature(StringRef name) const { return enabled.contains(name); }
};

/// Checks `spec` and derives the kernel parameters: an unknown or unsupported
/// triple (the kernels support x86-64 and AArch64), an unknown CPU or a bad
/// feature list is reported through `emitError`.
FailureOr<CPUTarget>
resolveCPUTarget(const CPUTargetSpec &spec,
                 function_ref<InFlightDiagnostic()> emitError);

/// The spec of an `#llvm.target` attribute.
CPUTargetSpec getCPUTargetSpec(LLVM::TargetAttr attr);

/// The `llvm.target` attribute of `op`'s module (`op` itself if it is one),
/// or null.
LLVM::TargetAttr getModuleCPUTarget(Operation *op);

/// The target of the kernels for `op`: its module's `llvm.target`, else the
/// tool's default target; an error (on `op`) if there is neither.
FailureOr<CPUTarget> lookupCPUTarget(Operation *op);

/// Names the target of modules without an `llvm.target` (tools call this
/// once, before running passes); std::nullopt removes it.
void setDefaultCPUTarget(std::optional<CPUTargetSpec> spec);
/// The default target, if a tool set one.
std::optional<CPUTargetSpec> getDefaultCPUTarget();

/// The machine running this process: its triple, CPU name and every feature
/// it reports (llvm::sys::getHostCPUFeatures). For tools only: passes take
/// their target from the IR.
CPUTargetSpec getHostCPUTargetSpec();

/// Writes `target` on `module` for the kernels and the LLVM translation:
/// `llvm.target` (#llvm.target), `llvm.target_triple`, and `target_cpu` /
/// `target_features` on each func.func, which convert-func-to-llvm keeps and
/// the translation turns into the functions' "target-cpu" and
/// "target-features".
void attachCPUTarget(ModuleOp module, const CPUTarget &target);

} // namespace pe
} // namespace mlir

#endif // PE_CONVERSION_PETOCPU_CPUTARGET_H
