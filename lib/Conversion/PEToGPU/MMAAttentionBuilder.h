//===- MMAAttentionBuilder.h - the tensor-core kernel's builder -*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The builder of the tensor-core attention kernel (see MMAAttention.cpp for
// the kernel), shared by its files: MMAAttention.cpp (the kernel and its
// pattern), MMAFragments.cpp (mma.sync, ldmatrix and shuffles, or their
// emulation) and MMAStaging.cpp (the K/V tile stages).
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_CONVERSION_PETOGPU_MMAATTENTIONBUILDER_H
#define PE_LIB_CONVERSION_PETOGPU_MMAATTENTIONBUILDER_H

#include "KernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace pe {
namespace gpu_kernels {

/// Builds the tensor-core kernel of one op.
class MMAAttentionBuilder : public KernelBuilder {
public:
  MMAAttentionBuilder(PatternRewriter &rewriter, AttentionOp op,
                      const GPUKernelOptions &options, bool emulate,
                      int64_t stages)
      : KernelBuilder(rewriter, op, op.getRotation(), options), op(op),
        emulate(emulate), stages(stages),
        in(op.getQuery().getType().getElementType()) {}

  /// Replaces the op (and its lse result) by the kernel.
  void build();

private:
  /// The lanes of the kernel and how its mma.sync run.
  struct MmaLanes {
    bool emulate;
    Type input;                         // f16 or bf16
    Value tid, lane, warp, group, quad; // quad: lane % 4, group: lane / 4
    Value ea, eb, ex, ei;               // emulation scratch (workgroup)
  };
  /// One of the lane's two query rows (fragment rows g and g + 8 of its
  /// warp).
  struct QueryRow {
    Value active, h, i, qPos, slope, limit;
  };
  /// What the kernel body knows of its lane.
  struct Lane {
    MmaLanes lanes;
    Value tq, tkAll, ks, vs, qf, sf, of, stat, gq, t2, bIdx, kvh, tk;
    QueryRow rows[2];
    Value negInf, zero;
  };
  /// The online softmax state of one tile: per row half, m_new, the rescale
  /// factor and the exponent base.
  struct TileSoftmax {
    Value mNew[2], alpha[2], safeM[2];
  };

  /// The kernel body of `launch`.
  void emitKernel(const AttentionHost &host, gpu::LaunchOp launch);
  /// The lane's (head, token) rows and their per-row values.
  void initRows(const AttentionHost &host, Lane &l, Value r0, Value rowsTotal,
                Value shift, Value alibiBase);
  /// Q's A fragments, rotated as they are loaded, into `qf`.
  void emitQueryFragments(const AttentionHost &host, const Lane &l);
  /// One key tile, staged from row `row0` of the K/V buffers: returns the
  /// new (m, l) of both rows.
  std::array<Value, 4> emitKeyTile(const AttentionHost &host, const Lane &l,
                                   Value tile, Value row0, ValueRange state);
  /// Starts the copies of key tile `tile` into stage `stage` of the K/V
  /// buffers (rows stage * key-tile ..): cp.async of 16 bytes (keys past L[b]
  /// zero-filled) as one commit group, or, emulated, plain loads and stores.
  /// K is copied as it is: rotateStagedKeys rotates it in place.
  void copyKeyTile(const AttentionHost &host, const Lane &l, Value tile,
                   Value stage);
  /// Waits for this thread's copies (cp.async.wait_group 0; nothing when
  /// emulated: plain stores are complete). A barrier must follow before
  /// other threads' copies are read.
  void waitKeyTile();
  /// With RoPE on the keys: rotates the rotary channels of the K tile of
  /// keys from `j0` staged at row `row0`, in place (each thread its pairs).
  void rotateStagedKeys(const AttentionHost &host, const Lane &l, Value j0,
                        Value row0);
  /// S = Q K^T into `sf`, then the score modifications and the lane's row
  /// maxima.
  void emitScores(const AttentionHost &host, const Lane &l, Value j0,
                  Value row0);
  /// m_new, the rescale factors, P = exp(S - m_new) in place and the lane's
  /// row sums; returns the softmax state.
  TileSoftmax emitSoftmax(const Lane &l, ValueRange state);
  /// O = O alpha + P V.
  void emitPV(const AttentionHost &host, const Lane &l, Value row0,
              const TileSoftmax &softmax);
  /// l summed over the 4 lanes of each row; O / l, lse = m + log l.
  void emitEpilogue(const AttentionHost &host, const Lane &l, scf::ForOp tiles);

  /// One m16n8k16 mma.sync of this warp, C (4 f32 at acc[accBase + 2 i +
  /// j], the lane's c_{2i+j}) += A B: `a(i, j)` gives the lane's A fragment
  /// element {a_{2i+j}} (vector<4x2>), `bOp(i, j)` its B element (vector<2x2>),
  /// both as values of the input type (or f32 holding such values when
  /// emulated).
  void mma(const MmaLanes &lanes, function_ref<Value(int64_t, int64_t)> a,
           function_ref<Value(int64_t, int64_t)> bOp, Value acc, Value accBase);
  /// mma through workgroup memory, in the PTX fragment layouts.
  void emulatedMma(const MmaLanes &lanes,
                   function_ref<Value(int64_t, int64_t)> a,
                   function_ref<Value(int64_t, int64_t)> bOp, Value acc,
                   Value accBase);
  /// `v` of the lane `lane ^ mask` of the same warp (mask < 32).
  Value shuffleXor(const MmaLanes &lanes, Value v, int64_t mask);
  /// The lane's B fragment {b_{2i+j}} (values of the input type) of an
  /// ldmatrix.x2 (.trans with `trans`) from the K/V buffer `buf`: the lane
  /// gives the address [row, col] of row lane % 8 of matrix (lane / 8) % 2;
  /// without .trans lane l receives elements 2 (l % 4) + j of row l / 4 of
  /// matrix i, with .trans element l / 4 of rows 2 (l % 4) + j. Emulated,
  /// the addresses go through the exchange buffer `ei`.
  std::array<Value, 4> ldmatrix(const MmaLanes &lanes, Value buf, Value row,
                                Value col, bool trans);
  /// The physical column of column `c` of K/V buffer row `row` (`channels`
  /// columns): the 16-byte chunks of a row XOR-swizzled by the row, so that
  /// the 8 rows an ldmatrix reads (and the cp.async writes) fall in distinct
  /// banks; the identity when the chunks per row are not a power of two.
  Value swizzle(Value row, Value c, int64_t channels) {
    int64_t chunks = channels / 8;
    if (!llvm::isPowerOf2_64(chunks))
      return c;
    Value key = chunks >= 8 ? remui(row, idx(8))
                            : remui(divui(row, idx(8 / chunks)), idx(chunks));
    Value chunk = arith::XOrIOp::create(b, divui(c, idx(8)), key);
    return addi(muli(chunk, idx(8)), remui(c, idx(8)));
  }
  /// `body(i)` for i < n: unrolled into straight-line code (so that
  /// fragments indexed by i stay in registers), or an scf.for when `rolled`.
  void fragLoop(bool rolled, int64_t n, function_ref<void(Value)> body) {
    if (rolled) {
      forLoop(idx(0), idx(n), idx(1), body);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      body(idx(i));
  }
  /// The input type rounding of an A fragment element: the input type, or
  /// f32 holding exactly such a value when emulated (the emulation needs no
  /// 16-bit arithmetic on the target).
  Value round(Value x) {
    Value r = arith::TruncFOp::create(b, in, x);
    return emulate ? Value(arith::ExtFOp::create(b, f32, r)) : r;
  }

  AttentionOp op;
  bool emulate;
  /// Workgroup-memory stages of the K/V tiles: 2 (the next tile's copies
  /// overlap this tile's mma.sync) or 1.
  int64_t stages;
  /// The input type (f16 or bf16).
  Type in;
};

} // namespace gpu_kernels
} // namespace pe
} // namespace mlir

#endif // PE_LIB_CONVERSION_PETOGPU_MMAATTENTIONBUILDER_H
