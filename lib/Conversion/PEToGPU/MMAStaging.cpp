//===- MMAStaging.cpp - the K/V tile stages -------------------------------===//
//
// Part of the pe-mlir project.
//
// The tensor-core kernel's K/V tiles in workgroup memory: the cp.async
// copies of a key tile into its stage (plain copies when emulated), the wait
// for them, the in-place rotation of staged keys and the B fragments of a
// tile.
//
//===----------------------------------------------------------------------===//

#include "MMAAttentionBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::gpu_kernels;

void MMAAttentionBuilder::copyKeyTile(const AttentionHost &host, const Lane &l,
                                      Value tile, Value stage) {
  int64_t bk = options.keyTile, threads = kMmaWarps * kWarpLanes;
  Value j0 = muli(tile, idx(bk));
  Value row0 = muli(stage, idx(bk));
  if (emulate) {
    // Plain loads and stores, element by element, into the same swizzled
    // places.
    Value zero = cf(0.0);
    auto copyTile = [&](Value dst, Value src, int64_t channels) {
      forLoop(l.lanes.tid, idx(bk * channels), idx(threads), [&](Value e) {
        Value rr = divui(e, idx(channels)), c = remui(e, idx(channels));
        Value j = addi(j0, rr);
        Value valid = cmpi(arith::CmpIPredicate::slt, j, l.tk);
        Value jSafe = select(valid, j, idx(0));
        Value start = rowStart(host, l.bIdx, l.kvh, jSafe, host.kvHeads,
                               l.tkAll, channels);
        Value x = select(valid, loadF32(src, addi(start, c)), zero);
        Value row = addi(row0, rr);
        memref::StoreOp::create(b, arith::TruncFOp::create(b, in, x), dst,
                                ValueRange{row, swizzle(row, c, channels)});
      });
    };
    copyTile(l.ks, host.k, host.d);
    copyTile(l.vs, host.v, host.dv);
    return;
  }
  // 16 bytes (8 elements of the 16-bit input type) per cp.async; D and Dv
  // are multiples of 16, so a row is whole chunks, and the threads take
  // consecutive chunks. A key past L[b] reads 0 bytes (of a valid address)
  // and zero-fills its chunk.
  constexpr int64_t kChunk = 8;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  auto copyTile = [&](Value dst, Value src, int64_t channels) {
    int64_t perRow = channels / kChunk, chunks = bk * perRow;
    for (int64_t e = 0, n = llvm::divideCeilSigned(chunks, threads); e < n;
         ++e) {
      Value chunk = addi(l.lanes.tid, idx(e * threads));
      auto copyChunk = [&] {
        Value rr = divui(chunk, idx(perRow));
        Value c = muli(remui(chunk, idx(perRow)), idx(kChunk));
        Value j = addi(j0, rr);
        Value valid = cmpi(arith::CmpIPredicate::slt, j, l.tk);
        Value jSafe = select(valid, j, idx(0));
        Value start = rowStart(host, l.bIdx, l.kvh, jSafe, host.kvHeads,
                               l.tkAll, channels);
        Value row = addi(row0, rr);
        nvgpu::DeviceAsyncCopyOp::create(
            b, tokenType, dst, ValueRange{row, swizzle(row, c, channels)}, src,
            ValueRange{addi(start, c)}, b.getIndexAttr(kChunk),
            select(valid, idx(kChunk), idx(0)), b.getUnitAttr());
      };
      if (chunks % threads == 0 || (e + 1) * threads <= chunks)
        copyChunk();
      else
        ifThen(cmpi(arith::CmpIPredicate::ult, chunk, idx(chunks)), copyChunk);
    }
  };
  copyTile(l.ks, host.k, host.d);
  copyTile(l.vs, host.v, host.dv);
  NVVM::CpAsyncCommitGroupOp::create(b);
}

void MMAAttentionBuilder::waitKeyTile() {
  if (!emulate)
    NVVM::CpAsyncWaitGroupOp::create(b, uint32_t{0});
}

void MMAAttentionBuilder::rotateStagedKeys(const AttentionHost &host,
                                           const Lane &l, Value j0,
                                           Value row0) {
  // The rotation of the synchronous staging (stageTile), on the copied
  // input-type values: the same f32 arithmetic and one rounding.
  int64_t pairs = rotary / 2, bk = options.keyTile;
  Value zero = cf(0.0);
  forLoop(l.lanes.tid, idx(bk * pairs), idx(kMmaWarps * kWarpLanes),
          [&](Value e) {
            Value rr = divui(e, idx(pairs)), p = remui(e, idx(pairs));
            Value j = addi(j0, rr);
            Value valid = cmpi(arith::CmpIPredicate::slt, j, l.tk);
            Value jSafe = select(valid, j, idx(0));
            Value row = addi(row0, rr);
            auto load = [&](Value c) -> Value {
              Value x = memref::LoadOp::create(
                  b, l.ks, ValueRange{row, swizzle(row, c, host.d)});
              return arith::ExtFOp::create(b, f32, x);
            };
            rotatePair(
                load, ropeRow(host.kBatched, l.bIdx, jSafe, l.tkAll), p,
                host.kCos, host.kSin, [&](Value y0, Value y1) {
                  auto store = [&](Value y, Value c) {
                    Value x =
                        arith::TruncFOp::create(b, in, select(valid, y, zero));
                    memref::StoreOp::create(
                        b, x, l.ks, ValueRange{row, swizzle(row, c, host.d)});
                  };
                  auto [c0, c1] = pairChannels(p);
                  store(y0, c0);
                  store(y1, c1);
                });
          });
}

std::array<Value, 4> MMAAttentionBuilder::emitKeyTile(const AttentionHost &host,
                                                      const Lane &l, Value tile,
                                                      Value row0,
                                                      ValueRange state) {
  Value j0 = muli(tile, idx(options.keyTile));
  emitScores(host, l, j0, row0);
  TileSoftmax softmax = emitSoftmax(l, state);
  Value lNew[2];
  for (int64_t half = 0; half < 2; ++half)
    lNew[half] =
        addf(mulf(state[2 + half], softmax.alpha[half]),
             memref::LoadOp::create(b, l.stat, ValueRange{idx(2 + half)}));
  emitPV(host, l, row0, softmax);
  return {softmax.mNew[0], softmax.mNew[1], lNew[0], lNew[1]};
}
