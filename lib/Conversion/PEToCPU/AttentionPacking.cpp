//===- AttentionPacking.cpp - operand packing of the prefill kernel -------===//
//
// Part of the pe-mlir project.
//
// The prefill attention kernel's scratch layouts: keys rotated and packed
// into transposed blocks, a block of queries rotated and scaled, and with
// bf16 dot products the channel pairs of queries and key pairs of values.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

/// Packs key head `kvHead`, rotated, into Kt[Tk/64][D][64] (zero tail), or
/// with bf16Dot into Kt[Tk/64][D/2][64 x 2] bf16: per channel pair, the
/// pairs of the block's 64 keys (the rotated keys rounded to bf16).
void KernelBuilder::packKeys(Value kMem, Value kt, Value bIdx, Value kvHead,
                             Value tk, Value cosT, Value sinT) {
  // 16 keys at a time: rotate (or copy) them into rows[16][D], then transpose
  // each 16 x 16 tile with shuffles and store it as 16 channel rows of the
  // key block. With a partial last vector of channels, the rows are padded
  // to whole vectors (zeros) and only the head's channels are stored.
  Value rows = scratch({lanes, headPad}, {});
  Value blocks = dim(kt, 0);
  Value padded = muli(blocks, idx(kBlock));
  auto tileType = VectorType::get({lanes, lanes}, f32);
  scf::ForOp::create(
      b, idx(0), padded, idx(lanes), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value j0, ValueRange) {
        Scope outer(b, ob);
        scf::ForOp::create(
            b, idx(0), idx(lanes), idx(1), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value r, ValueRange) {
              Scope inner(b, ib);
              Value j = addi(j0, r);
              Value inside =
                  arith::CmpIOp::create(b, arith::CmpIPredicate::slt, j, tk);
              auto ifOp = scf::IfOp::create(b, inside, /*withElse=*/true);
              OpBuilder::InsertionGuard g(b);
              b.setInsertionPointToStart(&ifOp.getThenRegion().front());
              if (rotary && attn.rotatesKey())
                rotateRow(kMem, ValueRange{bIdx, kvHead, j}, rows,
                          ValueRange{r}, tableRow(kPos, bIdx, j), cosT, sinT,
                          1.0);
              else
                for (int64_t c = 0; c < headDim; c += lanes)
                  vector::StoreOp::create(
                      b,
                      loadF32(kMem, ValueRange{bIdx, kvHead, j, idx(c)},
                              rowMask(c, headDim)),
                      rows, ValueRange{r, idx(c)});
              b.setInsertionPointToStart(&ifOp.getElseRegion().front());
              for (int64_t c = 0; c < headPad; c += lanes)
                vector::StoreOp::create(b, vsplat(0.0), rows,
                                        ValueRange{r, idx(c)});
              b.setInsertionPointAfter(ifOp);
              scf::YieldOp::create(b);
            });
        Value blk = arith::DivUIOp::create(b, j0, idx(kBlock));
        Value col = arith::RemUIOp::create(b, j0, idx(kBlock));
        Value zero = arith::ConstantOp::create(
            b, DenseElementsAttr::get(tileType, b.getFloatAttr(f32, 0.0)));
        for (int64_t c = 0; c < headDim; c += lanes) {
          Value tile = zero;
          for (int64_t r = 0; r < lanes; ++r)
            tile = vector::InsertOp::create(
                b,
                vector::LoadOp::create(b, vf, rows, ValueRange{idx(r), idx(c)}),
                tile, r);
          Value t = vector::TransposeOp::create(b, tile, {1, 0});
          if (bf16Dot) {
            Value col2 = muli(col, idx(2));
            for (int64_t l = 0; l < lanes; l += 2)
              vector::StoreOp::create(
                  b,
                  interleave(toBf16(vector::ExtractOp::create(b, t, l)),
                             toBf16(vector::ExtractOp::create(b, t, l + 1))),
                  kt, ValueRange{blk, idx((c + l) / 2), col2});
            continue;
          }
          for (int64_t l = 0; l < lanes && c + l < headDim; ++l)
            vector::StoreOp::create(b, vector::ExtractOp::create(b, t, l), kt,
                                    ValueRange{blk, idx(c + l), col});
        }
        scf::YieldOp::create(b);
      });
}

/// Loads query rows [q0, q0 + 64) of head (bIdx, hIdx), rotated and times
/// `mul` (the softmax scale, or 1), into Qs[64][D]; rows past Tq are zero.
void KernelBuilder::loadQueries(Value qMem, Value qs, Value bIdx, Value hIdx,
                                Value q0, Value tq, Value cosT, Value sinT,
                                double mul) {
  scf::ForOp::create(
      b, idx(0), idx(kQBlock), idx(1), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value r, ValueRange) {
        Scope scope_nb(b, ob);
        Value i = addi(q0, r);
        Value inside =
            arith::CmpIOp::create(b, arith::CmpIPredicate::slt, i, tq);
        auto ifOp = scf::IfOp::create(b, inside, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          if (rotary) {
            rotateRow(qMem, ValueRange{bIdx, hIdx, i}, qs, ValueRange{r},
                      tableRow(qPos, bIdx, i), cosT, sinT, mul);
          } else {
            Value s = vsplat(mul);
            for (int64_t c = 0; c < headDim; c += lanes) {
              Value v = loadF32(qMem, ValueRange{bIdx, hIdx, i, idx(c)},
                                rowMask(c, headDim));
              vector::StoreOp::create(b, arith::MulFOp::create(b, v, s), qs,
                                      ValueRange{r, idx(c)});
            }
          }
          b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          for (int64_t c = 0; c < headPad; c += lanes)
            vector::StoreOp::create(b, vsplat(0.0), qs, ValueRange{r, idx(c)});
        }
        scf::YieldOp::create(b);
      });
}

void KernelBuilder::packQueryPairs(Value qs, Value qp) {
  scf::ForOp::create(b, idx(0), idx(kQBlock), idx(1), ValueRange{},
                     [&](OpBuilder &ob, Location loc, Value r, ValueRange) {
                       Scope scope_nb(b, ob);
                       for (int64_t c = 0; c < headDim; c += lanes)
                         vector::StoreOp::create(
                             b,
                             toBf16Pairs(vector::LoadOp::create(
                                 b, vf, qs, ValueRange{r, idx(c)})),
                             qp, ValueRange{r, idx(c / 2)});
                       scf::YieldOp::create(b);
                     });
}

void KernelBuilder::packValuePairs(Value vMem, Value vp, Value bIdx,
                                   Value kvHead, Value tk) {
  auto half = VectorType::get({lanes}, b.getBF16Type());
  SmallVector<Type> rowTypes(valueDim / lanes, half);
  scf::ForOp::create(
      b, idx(0), dim(vp, 0), idx(1), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value p, ValueRange) {
        Scope scope_nb(b, ob);
        SmallVector<Value> rows[2];
        for (int64_t t = 0; t < 2; ++t) {
          Value j = addi(muli(p, idx(2)), idx(t));
          Value inside =
              arith::CmpIOp::create(b, arith::CmpIPredicate::slt, j, tk);
          auto ifOp = scf::IfOp::create(b, rowTypes, inside, /*withElse=*/true);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          SmallVector<Value> loaded;
          for (int64_t e = 0; e < valueDim; e += lanes)
            loaded.push_back(vector::LoadOp::create(
                b, half, vMem, ValueRange{bIdx, kvHead, j, idx(e)}));
          scf::YieldOp::create(b, loaded);
          b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          Value zero = arith::ConstantOp::create(
              b, DenseElementsAttr::get(
                     half, b.getFloatAttr(half.getElementType(), 0.0)));
          scf::YieldOp::create(b, SmallVector<Value>(rowTypes.size(), zero));
          b.setInsertionPointAfter(ifOp);
          rows[t] = SmallVector<Value>(ifOp.getResults());
        }
        for (int64_t e = 0; e < valueDim / lanes; ++e)
          vector::StoreOp::create(b, interleave(rows[0][e], rows[1][e]), vp,
                                  ValueRange{p, idx(2 * e * lanes)});
        scf::YieldOp::create(b);
      });
}

void KernelBuilder::packValues(Value vMem, Value vs, Value bIdx, Value kvHead,
                               Value tk) {
  scf::ForOp::create(b, idx(0), tk, idx(1), ValueRange{},
                     [&](OpBuilder &ob, Location loc, Value j, ValueRange) {
                       Scope scope_nb(b, ob);
                       for (int64_t e = 0; e < valuePad; e += lanes)
                         vector::StoreOp::create(
                             b,
                             loadF32(vMem, ValueRange{bIdx, kvHead, j, idx(e)},
                                     rowMask(e, valueDim)),
                             vs, ValueRange{j, idx(e)});
                       scf::YieldOp::create(b);
                     });
}
