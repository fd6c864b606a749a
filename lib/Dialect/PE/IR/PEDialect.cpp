//===- PEDialect.cpp - pe dialect -----------------------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::pe;

#include "pe/Dialect/PE/IR/PEEnums.cpp.inc"
#include "pe/Dialect/PE/IR/PEOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pe/Dialect/PE/IR/PEAttrs.cpp.inc"

void PEDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pe/Dialect/PE/IR/PEAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "pe/Dialect/PE/IR/PEOps.cpp.inc"
      >();
}

Operation *PEDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
