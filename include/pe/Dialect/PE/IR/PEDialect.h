//===- PEDialect.h - pe dialect ---------------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEDIALECT_H
#define PE_DIALECT_PE_IR_PEDIALECT_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "pe/Dialect/PE/IR/PEOpsDialect.h.inc"

#endif // PE_DIALECT_PE_IR_PEDIALECT_H
