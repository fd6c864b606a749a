//===- PETilingUtils.h - helpers shared by the pe tilings -------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The slicing and offset helpers that the tilings of the encoding ops
// (PETiling.cpp) and of pe.attention (PEAttentionTiling.cpp) share; defined
// in PETiling.cpp. Internal to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_DIALECT_PE_IR_PETILINGUTILS_H
#define PE_LIB_DIALECT_PE_IR_PETILINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace pe {
namespace detail {

/// The sizes of a ranked tensor value as OpFoldResults.
SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value v);

/// An extract_slice of `v` with unit strides.
Value slice(OpBuilder &b, Location loc, Value v, ArrayRef<OpFoldResult> offsets,
            ArrayRef<OpFoldResult> sizes, SmallVector<Operation *> &slices);

/// `dynamic` (an index or integer value, or null) plus `add`, as an index
/// value; null when the sum is the constant 0 and `dynamic` is null.
Value addToOffset(OpBuilder &b, Location loc, Value dynamic, OpFoldResult add);

/// True when a tile covers a dimension of `size` whole. A static dimension:
/// offset 0 and the same constant size. A dynamic one: offset 0 and a size
/// that is not a constant (an untiled loop passes the dimension's value; a
/// tiled one an induction variable as offset).
bool coversWhole(OpFoldResult offset, OpFoldResult tileSize, int64_t size);

/// The iteration domain [0, d) of every dimension of result 0, as the op
/// reifies it.
SmallVector<Range> domainOfResult(ReifyRankedShapedTypeOpInterface op,
                                  OpBuilder &b);

/// The slope table of `heads` heads: the explicit one, or the paper's slopes
/// for `maxBias` as an f64 constant.
Value slopeTable(OpBuilder &b, Location loc, Value explicitSlopes,
                 int64_t heads, double maxBias);

} // namespace detail
} // namespace pe
} // namespace mlir

#endif // PE_LIB_DIALECT_PE_IR_PETILINGUTILS_H
