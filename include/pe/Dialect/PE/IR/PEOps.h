//===- PEOps.h - pe dialect operations --------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEOPS_H
#define PE_DIALECT_PE_IR_PEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pe/Dialect/PE/IR/PEDialect.h"

#include "pe/Dialect/PE/IR/PEEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pe/Dialect/PE/IR/PEAttrs.h.inc"

#define GET_OP_CLASSES
#include "pe/Dialect/PE/IR/PEOps.h.inc"

#endif // PE_DIALECT_PE_IR_PEOPS_H
