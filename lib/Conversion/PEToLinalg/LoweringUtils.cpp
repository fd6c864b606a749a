//===- LoweringUtils.cpp - helpers of convert-pe-to-linalg ----------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "LinalgLowering.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::pe;

namespace mlir {
namespace pe {
namespace linalg_lowering {

Type computeType(Type elementType) {
  if (elementType.isF64())
    return elementType;
  return Float32Type::get(elementType.getContext());
}

Value fconst(OpBuilder &b, Location loc, Type type, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
}

Value iconst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value toF64(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), v);
}

SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (type.isDynamicDim(i))
      sizes.push_back(tensor::DimOp::create(b, loc, tensor, i).getResult());
    else
      sizes.push_back(b.getIndexAttr(type.getDimSize(i)));
  }
  return sizes;
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value sizeValue(OpBuilder &b, Location loc, OpFoldResult size) {
  if (auto v = dyn_cast<Value>(size))
    return v;
  return iconst(b, loc, cast<IntegerAttr>(cast<Attribute>(size)).getInt());
}

SmallVector<utils::IteratorType> parallel(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

Value f64Tensor(OpBuilder &b, Location loc, ArrayRef<double> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getF64Type());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, values));
}

Value clampRow(OpBuilder &b, Location loc, Value idx, Value rows) {
  Value zero = iconst(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, rows, iconst(b, loc, 1));
  idx = arith::MaxSIOp::create(b, loc, idx, zero);
  return arith::MinSIOp::create(b, loc, idx, last);
}

Value buildSequenceGeneric(
    OpBuilder &rewriter, Location loc, Value input, const PositionSource &pos,
    ArrayRef<std::pair<Value, AffineMap>> extra,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange, Value)> body) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  AffineMap id = rewriter.getMultiDimIdentityMap(rank);
  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> maps = {id};
  for (auto [value, map] : extra) {
    inputs.push_back(value);
    maps.push_back(map);
  }
  if (pos.positions) {
    inputs.push_back(pos.positions);
    maps.push_back(pos.positionsMap(rewriter.getContext(), rank));
  }
  maps.push_back(id);
  Value init = emptyTensor(rewriter, loc, getSizes(rewriter, loc, input),
                           type.getElementType());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
      parallel(rank), [&](OpBuilder &b, Location l, ValueRange args) {
        Value posArg = pos.positions ? args[1 + extra.size()] : Value();
        Value position = pos.position(b, l, rank, posArg);
        linalg::YieldOp::create(
            b, l, body(b, l, args[0], args.slice(1, extra.size()), position));
      });
  return generic.getResult(0);
}

} // namespace linalg_lowering
} // namespace pe
} // namespace mlir
