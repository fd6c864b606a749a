//===- SetMPIImplementation.cpp - name the MPI library of a module --------===//
//
// Part of the pe-mlir project.
//
// Upstream gap: MLIR 22's lowering of the mpi dialect to LLVM needs the
// module's DLTI entry "MPI:Implementation" (the ABI of MPICH or Open MPI) and
// fails without one; nothing upstream adds it.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/MPI/Passes.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/IR/BuiltinOps.h"

#define DEBUG_TYPE "pe-set-mpi-implementation"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_SETMPIIMPLEMENTATION
#include "pe/Transforms/MPI/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

static constexpr llvm::StringLiteral kKey = "MPI:Implementation";

namespace {
struct SetMPIImplementationPass
    : public pe::impl::SetMPIImplementationBase<SetMPIImplementationPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (implementation != "MPICH" && implementation != "OpenMPI") {
      module.emitError() << "pe-set-mpi-implementation: unknown MPI "
                            "implementation '"
                         << implementation << "' (expected MPICH or OpenMPI)";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    SmallVector<DataLayoutEntryInterface> entries;
    if (auto map = module->getAttrOfType<MapAttr>(DLTIDialect::kMapAttrName)) {
      for (DataLayoutEntryInterface entry : map.getEntries()) {
        if (auto key = dyn_cast<StringAttr>(entry.getKey());
            key && key.getValue() == kKey)
          return; // The module says which MPI it is for.
        entries.push_back(entry);
      }
    } else if (module->hasAttr(DLTIDialect::kMapAttrName)) {
      module.emitError() << "pe-set-mpi-implementation: '"
                         << DLTIDialect::kMapAttrName << "' is not a #dlti.map";
      return signalPassFailure();
    }
    entries.push_back(DataLayoutEntryAttr::get(
        StringAttr::get(ctx, kKey), StringAttr::get(ctx, implementation)));
    module->setAttr(DLTIDialect::kMapAttrName, MapAttr::get(ctx, entries));
  }
};
} // namespace
