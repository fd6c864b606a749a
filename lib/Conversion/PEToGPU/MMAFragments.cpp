//===- MMAFragments.cpp - tensor-core fragments ---------------------------===//
//
// Part of the pe-mlir project.
//
// The tensor-core kernel's fragment primitives: m16n8k16 mma.sync, the
// xor shuffles of a fragment row and ldmatrix (.trans), each either the
// instruction or its emulation through workgroup memory in the exact PTX
// fragment layouts.
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

void MMAAttentionBuilder::emulatedMma(const MmaLanes &lanes,
                                      function_ref<Value(int64_t, int64_t)> a,
                                      function_ref<Value(int64_t, int64_t)> bOp,
                                      Value acc, Value accBase) {
  auto accAt = [&](int64_t i, int64_t j) {
    return addi(accBase, idx(2 * i + j));
  };
  // The PTX fragment layouts of m16n8k16 (g = lane / 4, t = lane % 4):
  //   A (16 x 16, row major)  a_{2i+j}: row g + 8 (i % 2), col 2t + 8 (i / 2)
  //   + j B (16 x 8, k x n)       b_{2i+j}: row 2t + 8 i + j,   col g C, D
  //   (16 x 8)           c_{2i+j}: row g + 8 i,        col 2t + j
  // Each lane writes its A and B elements to its warp's tiles in workgroup
  // memory and computes its own C elements from them.
  Value g = lanes.group, t = lanes.quad, w = lanes.warp;
  auto toF32 = [&](Value x) -> Value {
    return x.getType() == f32 ? x : arith::ExtFOp::create(b, f32, x);
  };
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      memref::StoreOp::create(
          b, toF32(a(i, j)), lanes.ea,
          ValueRange{w, addi(g, idx(8 * (i % 2))),
                     addi(muli(t, idx(2)), idx(8 * (i / 2) + j))});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      memref::StoreOp::create(
          b, toF32(bOp(i, j)), lanes.eb,
          ValueRange{w, addi(muli(t, idx(2)), idx(8 * i + j)), g});
  gpu::BarrierOp::create(b);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      Value row = addi(g, idx(8 * i)), col = addi(muli(t, idx(2)), idx(j));
      Value c = memref::LoadOp::create(b, acc, ValueRange{accAt(i, j)});
      auto dot = scf::ForOp::create(
          b, idx(0), idx(16), idx(1), ValueRange{c},
          [&](OpBuilder &ob, Location, Value k, ValueRange sum) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
            Value x =
                memref::LoadOp::create(b, lanes.ea, ValueRange{w, row, k});
            Value y =
                memref::LoadOp::create(b, lanes.eb, ValueRange{w, k, col});
            scf::YieldOp::create(
                b, ValueRange{math::FmaOp::create(b, x, y, sum[0])});
          });
      memref::StoreOp::create(b, dot.getResult(0), acc,
                              ValueRange{accAt(i, j)});
    }
  // Nobody writes the next operands before every lane has read these.
  gpu::BarrierOp::create(b);
}

void MMAAttentionBuilder::mma(const MmaLanes &lanes,
                              function_ref<Value(int64_t, int64_t)> a,
                              function_ref<Value(int64_t, int64_t)> bOp,
                              Value acc, Value accBase) {
  if (lanes.emulate)
    return emulatedMma(lanes, a, bOp, acc, accBase);
  auto accAt = [&](int64_t i, int64_t j) {
    return addi(accBase, idx(2 * i + j));
  };
  Type in = lanes.input;
  SmallVector<Value> cs;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      cs.push_back(memref::LoadOp::create(b, acc, ValueRange{accAt(i, j)}));
  SmallVector<Value> ds;
  if (in.isF16()) {
    // nvgpu.mma.sync on the fragment vectors.
    SmallVector<Value> as, bs;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 2; ++j)
        as.push_back(a(i, j));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        bs.push_back(bOp(i, j));
    Value av =
        vector::FromElementsOp::create(b, VectorType::get({4, 2}, in), as);
    Value bv =
        vector::FromElementsOp::create(b, VectorType::get({2, 2}, in), bs);
    Value cv =
        vector::FromElementsOp::create(b, VectorType::get({2, 2}, f32), cs);
    Value dv =
        nvgpu::MmaSyncOp::create(b, av, bv, cv, ArrayRef<int64_t>{16, 8, 16});
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        ds.push_back(vector::ExtractOp::create(b, dv, ArrayRef<int64_t>{i, j}));
  } else {
    // bf16: MLIR 22's nvgpu.mma.sync lowering cannot type bf16 operands
    // ("failed to deduce operand PTX types"), so nvvm.mma.sync directly,
    // each pair of bf16 packed into an i32 register.
    auto pack = [&](Value x, Value y) -> Value {
      Value pair =
          vector::FromElementsOp::create(b, VectorType::get({2}, in), {x, y});
      return LLVM::BitcastOp::create(b, b.getI32Type(), pair);
    };
    SmallVector<Value> as, bs;
    for (int64_t i = 0; i < 4; ++i)
      as.push_back(pack(a(i, 0), a(i, 1)));
    for (int64_t i = 0; i < 2; ++i)
      bs.push_back(pack(bOp(i, 0), bOp(i, 1)));
    Type result = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                   SmallVector<Type>(4, f32));
    Value d =
        NVVM::MmaOp::create(b, result, as, bs, cs, ArrayRef<int64_t>{16, 8, 16},
                            std::nullopt, std::nullopt,
                            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                                          NVVM::MMATypes::bf16},
                            std::array<NVVM::MMALayout, 2>{
                                NVVM::MMALayout::row, NVVM::MMALayout::col});
    for (int64_t e = 0; e < 4; ++e)
      ds.push_back(LLVM::ExtractValueOp::create(b, d, ArrayRef<int64_t>{e}));
  }
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      memref::StoreOp::create(b, ds[2 * i + j], acc, ValueRange{accAt(i, j)});
}

Value MMAAttentionBuilder::shuffleXor(const MmaLanes &lanes, Value v,
                                      int64_t mask) {
  if (!lanes.emulate) {
    Value offset = arith::ConstantOp::create(b, b.getI32IntegerAttr(mask));
    Value width = arith::ConstantOp::create(b, b.getI32IntegerAttr(kWarpLanes));
    return gpu::ShuffleOp::create(b, v, offset, width, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  // Through workgroup memory, with the warp's lanes as the block's threads
  // 32 w .. 32 w + 31 (whatever the target's subgroup size).
  memref::StoreOp::create(b, v, lanes.ex, ValueRange{lanes.tid});
  gpu::BarrierOp::create(b);
  Value other = arith::XOrIOp::create(b, lanes.tid, idx(mask));
  Value r = memref::LoadOp::create(b, lanes.ex, ValueRange{other});
  gpu::BarrierOp::create(b);
  return r;
}

std::array<Value, 4> MMAAttentionBuilder::ldmatrix(const MmaLanes &lanes,
                                                   Value buf, Value row,
                                                   Value col, bool trans) {
  std::array<Value, 4> frag;
  if (!lanes.emulate) {
    Value m = nvgpu::LdMatrixOp::create(
        b, VectorType::get({2, 2}, lanes.input), buf, ValueRange{row, col},
        b.getBoolAttr(trans), b.getI32IntegerAttr(2));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        frag[2 * i + j] =
            vector::ExtractOp::create(b, m, ArrayRef<int64_t>{i, j});
    return frag;
  }
  // Each lane publishes its row address; the lane of matrix i's row r
  // (lane 8 i + r of the warp) gives the row every receiving lane reads.
  int64_t cols = cast<MemRefType>(buf.getType()).getDimSize(1);
  Value flat = addi(muli(row, idx(cols)), col);
  memref::StoreOp::create(b,
                          arith::IndexCastOp::create(b, b.getI32Type(), flat),
                          lanes.ei, ValueRange{lanes.tid});
  gpu::BarrierOp::create(b);
  Value warpBase = muli(lanes.warp, idx(kWarpLanes));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      Value r = trans ? addi(muli(lanes.quad, idx(2)), idx(j)) : lanes.group;
      Value e = trans ? lanes.group : addi(muli(lanes.quad, idx(2)), idx(j));
      Value from = addi(warpBase, addi(idx(8 * i), r));
      Value addr = arith::IndexCastOp::create(
          b, b.getIndexType(),
          memref::LoadOp::create(b, lanes.ei, ValueRange{from}));
      frag[2 * i + j] = memref::LoadOp::create(
          b, buf,
          ValueRange{divui(addr, idx(cols)), addi(remui(addr, idx(cols)), e)});
    }
  // Nobody publishes the next addresses before every lane has read these.
  gpu::BarrierOp::create(b);
  return frag;
}
