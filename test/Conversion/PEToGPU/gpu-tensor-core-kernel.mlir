// The tensor-core attention kernel of convert-pe-to-gpu (chip sm_80 and
// above, f16/bf16, Tq != 1, head dimensions multiples of 16), its emulated
// form (tensor-cores=emulate), and the shape-dependent reasons for keeping
// the SIMT kernel (remark tensor-core-kernel; the option-dependent ones are
// in gpu-tensor-core-remarks.mlir).
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu="chip=sm_80 key-tile=16" --remarks-filter=convert-pe-to-gpu --verify-diagnostics | FileCheck %s
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu="tensor-cores=emulate key-tile=16" --remarks-filter=convert-pe-to-gpu --verify-diagnostics | FileCheck %s --check-prefix=EMU

// f16, GQA 4/2, D = 32, Dv = 16, causal, key tiles of 16. One block of 4
// warps (128 threads) per 64 (head, token) rows of a KV head; K and V tiles
// in workgroup memory as f16, in two stages of 16 rows each (tile t in
// stage t % 2, copied with cp.async while tile t - 1 is computed); per
// lane in private memory: Q's A fragments
// (D / 16 k-steps x 8 f16), S's and O's accumulators (4 f32 per 8 keys or
// channels) and 4 row statistics; loop-carried: each of the lane's two rows'
// running max and partial sum.
// CHECK-LABEL: func.func @f16
// CHECK: gpu.launch
// CHECK-SAME: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
// CHECK-SAME: workgroup(%[[KS:[a-z0-9_]+]] : memref<32x32xf16, #gpu.address_space<workgroup>>, %[[VS:[a-z0-9_]+]] : memref<32x16xf16, #gpu.address_space<workgroup>>)
// CHECK-SAME: private(%[[QF:[a-z0-9_]+]] : memref<16xf16, #gpu.address_space<private>>, %[[SF:[a-z0-9_]+]] : memref<8xf32, #gpu.address_space<private>>, %[[OF:[a-z0-9_]+]] : memref<8xf32, #gpu.address_space<private>>, %{{[a-z0-9_]+}} : memref<4xf32, #gpu.address_space<private>>)
// Q's fragments, rounded to f16 once loaded (and rotated, with RoPE).
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[QF]]
// The first tile's copies, into stage (first tile) % 2, before the loop:
// 16 bytes (8 f16) each, the threads on consecutive chunks (16 keys x 4
// chunks of K, x 2 of V: one chunk per thread below 64 and 32), zero-filled
// past L[b] (the source size), one commit group; each 16-byte chunk of a
// row goes to its XOR-swizzled place (4 chunks per row: chunk ^ (row / 2) % 4).
// CHECK: scf.if
// CHECK: arith.remui %{{.*}}, %c2
// CHECK: scf.if
// CHECK: arith.xori
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[KS]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<2560xf16> to memref<32x32xf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %[[VS]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<1280xf16> to memref<32x16xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// Per tile: wait for this thread's copies, one barrier, then the next
// tile's copies into the other stage (1 - t % 2) before the tile's math.
// CHECK: scf.for %[[T:.*]] = {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: %[[STAGE:.*]] = arith.remui %[[T]], %c2
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: arith.subi %c1{{.*}}, %[[STAGE]]
// CHECK: nvgpu.device_async_copy {{.*}}, %[[KS]]
// CHECK: nvgpu.device_async_copy {{.*}}, %[[VS]]
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// The tile's rows of the stage: from row 16 * stage.
// CHECK: arith.muli %[[STAGE]], %c16
// S = Q K^T: 2 n-tiles x 2 k-steps, A from the Q fragments, B from Ks by
// ldmatrix.x2 at the swizzled address of the lane's row.
// CHECK: arith.xori
// CHECK: nvgpu.ldmatrix %[[KS]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: memref.load %[[QF]]
// CHECK: vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-COUNT-3: nvgpu.mma.sync
// Per accumulator element: scale, the causal and length masks.
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.maximumf
// Row max over the 4 lanes of a fragment row.
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32
// CHECK: math.exp
// O += P V: P rounded to f16 A fragments, B from Vs by ldmatrix.x2.trans;
// 2 n-tiles x 1 k-step.
// CHECK: nvgpu.ldmatrix %[[VS]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: nvgpu.mma.sync
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// No barrier after the tile (the next iteration's barrier orders its
// copies after this tile's reads).
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// Epilogue: the row sums over the 4 lanes, O / l stored by active rows.
// CHECK: gpu.shuffle  xor
// CHECK: arith.divf
// CHECK: scf.if
// CHECK: memref.load %[[OF]]
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<2560xf16>
// CHECK: gpu.terminator

// Emulated: the same two-stage swizzled f16 tiles, the A fragments as f32
// (values rounded to f16), per warp a 16 x 16 A and a 16 x 8 B tile (f32),
// a 128-lane exchange buffer for shuffles and one for the row addresses of
// ldmatrix; no nvgpu or nvvm op, no shuffle; the fragment loops stay
// rolled. The copies are plain loads and stores of the 128 threads, with
// the same stages, swizzle and barriers; ldmatrix: each lane publishes its
// row address, then reads its elements from the rows of the lanes the
// instruction's lane mapping names.
// EMU-LABEL: func.func @f16
// EMU: gpu.launch
// EMU-SAME: workgroup(%[[KS:[a-z0-9_]+]] : memref<32x32xf16, #gpu.address_space<workgroup>>, %[[VS:[a-z0-9_]+]] : memref<32x16xf16, #gpu.address_space<workgroup>>, %[[EA:[a-z0-9_]+]] : memref<4x16x16xf32, #gpu.address_space<workgroup>>, %[[EB:[a-z0-9_]+]] : memref<4x16x8xf32, #gpu.address_space<workgroup>>, %[[EX:[a-z0-9_]+]] : memref<128xf32, #gpu.address_space<workgroup>>, %[[EI:[a-z0-9_]+]] : memref<128xi32, #gpu.address_space<workgroup>>)
// EMU-SAME: private(%{{.*}} : memref<16xf32, #gpu.address_space<private>>
// EMU-NOT: nvgpu
// EMU-NOT: nvvm
// EMU-NOT: gpu.shuffle
// EMU: arith.truncf %{{.*}} : f32 to f16
// EMU-NEXT: arith.extf %{{.*}} : f16 to f32
// EMU: scf.if
// EMU: scf.for %{{.*}} = %{{.*}} to %c512 step %c128
// EMU: memref.store %{{.*}}, %[[KS]]
// EMU: scf.for %{{.*}} = %{{.*}} to %c256 step %c128
// EMU: memref.store %{{.*}}, %[[VS]]
// EMU: scf.for %[[T:.*]] = {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// EMU: %[[STAGE:.*]] = arith.remui %[[T]], %c2
// EMU-NEXT: gpu.barrier
// EMU: arith.subi %c1{{.*}}, %[[STAGE]]
// EMU: memref.store %{{.*}}, %[[KS]]
// EMU: memref.store %{{.*}}, %[[VS]]
// EMU: memref.store %{{.*}}, %[[EI]]
// EMU-NEXT: gpu.barrier
// EMU: memref.load %[[EI]]
// EMU: memref.load %[[KS]]
// EMU: gpu.barrier
// EMU: memref.store %{{.*}}, %[[EA]]
// EMU: memref.store %{{.*}}, %[[EB]]
// EMU: gpu.barrier
// EMU: memref.load %[[EA]]
// EMU: memref.load %[[EB]]
// EMU: math.fma
// EMU: gpu.barrier
// EMU: memref.store %{{.*}}, %[[EX]]
// EMU: gpu.barrier
// EMU: arith.xori
// EMU: memref.load %[[EX]]
// EMU: gpu.barrier
// EMU-NOT: nvgpu
// EMU: gpu.terminator
func.func @f16(%q: tensor<1x4x40x32xf16>, %k: tensor<1x2x40x32xf16>, %v: tensor<1x2x40x16xf16>) -> tensor<1x4x40x16xf16> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf16>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x40x16xf16>) {causal} : tensor<1x4x40x32xf16>, tensor<1x2x40x32xf16>, tensor<1x2x40x16xf16> -> tensor<1x4x40x16xf16>
  return %0 : tensor<1x4x40x16xf16>
}

// -----

// bf16 in [B, S, H, D] with an f32 result and the lse result: nvvm.mma.sync
// on bf16 pairs packed into i32 (MLIR 22's nvgpu.mma.sync lowering has no
// bf16); the lse is stored by lane t = 0 of each fragment row.
// CHECK-LABEL: func.func @bf16
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%{{.*}} : memref<32x16xbf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix {{.*}} -> vector<2x2xbf16>
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xbf16>
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: math.log
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<192xf32>
// CHECK: gpu.terminator
// The emulation does not depend on the input type.
// EMU-LABEL: func.func @bf16
// EMU: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// EMU: arith.truncf %{{.*}} : f32 to bf16
// EMU-NOT: nvvm.mma.sync
// EMU: gpu.terminator
func.func @bf16(%q: tensor<2x24x4x16xbf16>, %k: tensor<2x24x4x16xbf16>, %v: tensor<2x24x4x16xbf16>) -> (tensor<2x24x4x16xf32>, tensor<2x4x24xf32>) {
  %attn_init1 = tensor.empty() : tensor<2x24x4x16xf32>
  %attn_lse_init1 = tensor.empty() : tensor<2x4x24xf32>
  %0, %1 = pe.attention %q, %k, %v outs(%attn_init1, %attn_lse_init1 : tensor<2x24x4x16xf32>, tensor<2x4x24xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x24x4x16xbf16>, tensor<2x24x4x16xbf16>, tensor<2x24x4x16xbf16> -> tensor<2x24x4x16xf32>, tensor<2x4x24xf32>
  return %0, %1 : tensor<2x24x4x16xf32>, tensor<2x4x24xf32>
}

// -----

// Shapes that keep the SIMT kernel (64 threads), with the reason; f32
// attention, and an f32 query over an f16 cache, keep it without a remark
// (f32 runs on the FMA units by design: no TF32).
// CHECK-LABEL: func.func @simt
// CHECK-COUNT-6: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64
// CHECK-NOT: mma.sync
// EMU-LABEL: func.func @simt
// EMU-COUNT-6: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64
func.func @simt(%a: tensor<1x2x8x24xf16>, %b: tensor<1x2x8x32xf16>, %c: tensor<1x2x8x8xf16>, %d: tensor<1x8x1x64xf16>, %e: tensor<1x2x8x64xf16>, %x: tensor<1x2x8x64xf32>, %w: tensor<1x2x8x256xf16>) {
  %attn_init2 = tensor.empty() : tensor<1x2x8x24xf16>
  // expected-remark@+1 {{no tensor-core attention kernel (the SIMT kernel runs): head dimensions 24 and 24 are not both multiples of 16 (mma.sync m16n8k16)}}
  %0 = pe.attention %a, %a, %a outs(%attn_init2 : tensor<1x2x8x24xf16>) : tensor<1x2x8x24xf16>, tensor<1x2x8x24xf16>, tensor<1x2x8x24xf16> -> tensor<1x2x8x24xf16>
  %attn_init3 = tensor.empty() : tensor<1x2x8x8xf16>
  // expected-remark@+1 {{head dimensions 32 and 8 are not both multiples of 16 (mma.sync m16n8k16)}}
  %1 = pe.attention %b, %b, %c outs(%attn_init3 : tensor<1x2x8x8xf16>) : tensor<1x2x8x32xf16>, tensor<1x2x8x32xf16>, tensor<1x2x8x8xf16> -> tensor<1x2x8x8xf16>
  %attn_init4 = tensor.empty() : tensor<1x8x1x64xf16>
  // expected-remark@+1 {{decode (one query token): the decode kernel splits the keys over blocks and threads instead}}
  %2 = pe.attention %d, %e, %e outs(%attn_init4 : tensor<1x8x1x64xf16>) : tensor<1x8x1x64xf16>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16> -> tensor<1x8x1x64xf16>
  %attn_init5 = tensor.empty() : tensor<1x2x8x256xf16>
  // expected-remark@+1 {{head dimensions 256 and 256 above 128 (the lane's fragments would not fit in registers)}}
  %5 = pe.attention %w, %w, %w outs(%attn_init5 : tensor<1x2x8x256xf16>) : tensor<1x2x8x256xf16>, tensor<1x2x8x256xf16>, tensor<1x2x8x256xf16> -> tensor<1x2x8x256xf16>
  %attn_init6 = tensor.empty() : tensor<1x2x8x64xf32>
  %3 = pe.attention %x, %x, %x outs(%attn_init6 : tensor<1x2x8x64xf32>) : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x2x8x64xf32>
  %attn_init7 = tensor.empty() : tensor<1x2x8x64xf32>
  %4 = pe.attention %x, %e, %e outs(%attn_init7 : tensor<1x2x8x64xf32>) : tensor<1x2x8x64xf32>, tensor<1x2x8x64xf16>, tensor<1x2x8x64xf16> -> tensor<1x2x8x64xf32>
  return
}
