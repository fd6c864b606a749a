//===- FreeMPICommunicators.cpp - MPI_Comm_free after the last use --------===//
//
// Part of the pe-mlir project.
//
// Upstream gap: convert-shard-to-mpi creates a communicator (mpi.comm_split)
// for every collective and MLIR 22's mpi dialect cannot free one. After the mpi
// dialect is lowered to calls, this pass frees each split communicator in
// its block, after its last use.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/MPI/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FREEMPICOMMUNICATORS
#include "pe/Transforms/MPI/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {

constexpr StringLiteral kSplit = "MPI_Comm_split";
constexpr StringLiteral kFree = "MPI_Comm_free";

/// True when `call` calls the function `name` directly.
bool calls(LLVM::CallOp call, StringRef name) {
  std::optional<StringRef> callee = call.getCallee();
  return callee && *callee == name;
}

/// The ops of `block` after which the communicator written to `slot` must
/// stay alive: those that use a value loaded from `slot`, through value
/// casts and extensions, and the ops of `block` that contain such uses.
/// Fails when the communicator escapes: it is stored, returned, passed to a
/// successor block, or `slot` is used by anything but loads and the split.
FailureOr<Operation *> lastUse(LLVM::CallOp split, Value slot) {
  Block *block = split->getBlock();
  Operation *last = split;
  auto extend = [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && last->isBeforeInBlock(inBlock))
      last = inBlock;
    return inBlock != nullptr;
  };
  llvm::SetVector<Value> values;
  for (Operation *user : slot.getUsers()) {
    if (user == split.getOperation())
      continue;
    auto load = dyn_cast<LLVM::LoadOp>(user);
    if (!load || !extend(load))
      return failure();
    values.insert(load.getResult());
  }
  for (unsigned i = 0; i < values.size(); ++i) {
    for (OpOperand &use : values[i].getUses()) {
      Operation *user = use.getOwner();
      if (!extend(user) || user->hasTrait<OpTrait::IsTerminator>() ||
          isa<LLVM::StoreOp>(user))
        return failure();
      // A communicator is an integer (MPICH) or a pointer (Open MPI):
      // follow its conversions; any other user is a use (a call).
      if (isa<LLVM::SExtOp, LLVM::ZExtOp, LLVM::TruncOp, LLVM::BitcastOp,
              LLVM::IntToPtrOp, LLVM::PtrToIntOp>(user))
        values.insert(user->getResult(0));
    }
  }
  return last;
}

struct FreeMPICommunicatorsPass
    : public pe::impl::FreeMPICommunicatorsBase<FreeMPICommunicatorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::CallOp> splits;
    module->walk([&](LLVM::CallOp call) {
      if (calls(call, kSplit) && call.getNumOperands() == 4)
        splits.push_back(call);
    });
    if (splits.empty())
      return;

    OpBuilder builder(module.getContext());
    auto ptrType = LLVM::LLVMPointerType::get(module.getContext());
    auto i32 = builder.getI32Type();
    auto freeFn = module.lookupSymbol<LLVM::LLVMFuncOp>(kFree);
    if (!freeFn) {
      builder.setInsertionPointToStart(module.getBody());
      freeFn =
          LLVM::LLVMFuncOp::create(builder, module.getLoc(), kFree,
                                   LLVM::LLVMFunctionType::get(i32, {ptrType}));
    }
    for (LLVM::CallOp split : splits) {
      Value slot = split.getOperand(3);
      FailureOr<Operation *> last = lastUse(split, slot);
      if (failed(last)) {
        split.emitRemark()
            << "pe-free-mpi-communicators: the communicator of this "
               "MPI_Comm_split is stored, returned or passed on; it is not "
               "freed here";
        continue;
      }
      builder.setInsertionPointAfter(*last);
      LLVM::CallOp::create(builder, split.getLoc(), freeFn, ValueRange{slot});
    }
  }
};

} // namespace
