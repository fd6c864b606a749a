// bf16 attention and the bf16 dot-product kernel: taken when the module's
// CPU target (llvm.target, here from pe-attach-cpu-target) has AVX512-BF16,
// otherwise the f32 kernel on widened operands, with a remark saying why.
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4 features=+avx512bf16" --convert-pe-to-vector | FileCheck %s --check-prefix=DOT
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4 features=+avx512bf16,-avx512bf16" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics | FileCheck %s --check-prefix=F32

// DOT-LABEL: func @prefill
// Keys packed as channel pairs, values as key pairs, queries as channel
// pairs, P as key pairs (the packed keys and values on the heap: their
// length is not known at compile time; the query and P blocks on the
// stack).
// DOT: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x16x128xbf16>
// DOT: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x64xbf16>
// DOT: memref.alloca() {alignment = 64 : i64} : memref<64x16xi32>
// DOT: memref.alloca() {alignment = 64 : i64} : memref<4x32xi32>
// Key packing: the transposed 16 x 16 f32 tile, rounded, channel pairs
// interleaved.
// DOT: vector.transpose
// DOT: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// DOT: vector.shuffle {{.*}} : vector<16xbf16>, vector<16xbf16>
// Q K^T: per channel pair 16 dot products, then the softmax scale; causal,
// so a group of 4 rows computes only the score vectors up to its last row's
// limit (case 1: 4 dot products per pair, the default all 16).
// DOT: scf.index_switch
// DOT: case 1 {
// DOT: scf.for %{{.*}} = %{{.*}} to %c16{{.*}} step %{{.*}} iter_args(
// DOT-COUNT-4: x86vector.avx512.dot %{{.*}} : vector<32xbf16> -> vector<16xf32>
// DOT-NOT: x86vector.avx512.dot
// DOT: scf.yield
// DOT: default {
// DOT: scf.for %{{.*}} = %{{.*}} to %c16{{.*}} step %{{.*}} iter_args(
// DOT: vector.load %{{.*}} : memref<?x16x128xbf16>, vector<32xbf16>
// DOT: vector.bitcast %{{.*}} : vector<16xi32> to vector<32xbf16>
// DOT-COUNT-16: x86vector.avx512.dot %{{.*}} : vector<32xbf16> -> vector<16xf32>
// DOT: arith.mulf %{{.*}}#0, %{{.*}} : vector<16xf32>
// P rounded to bf16 pairs.
// DOT: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// DOT: vector.bitcast %{{.*}} : vector<16xbf16> to vector<8xi32>
// P V on blocks with masked keys: value lanes of weight-0 keys zeroed.
// DOT: arith.cmpi ne, %{{.*}} : vector<32xi16>
// DOT: arith.select %{{.*}} : vector<32xi1>, vector<32xbf16>
// DOT: x86vector.avx512.dot
// F32-LABEL: func @prefill
// F32-NOT: x86vector
// F32: vector.fma
func.func @prefill(%q: tensor<1x4x?x32xbf16>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>) -> tensor<1x4x?x32xf32> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x4x?x32xbf16>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x32xf32>
  // expected-remark@+1 {{[Missed] bf16-dot | Category:convert-pe-to-vector | Reason="bf16 attention without bf16 dot products (the f32 kernel on widened operands is used): the target has no AVX512-BF16 (x86_64-unknown-linux-gnu cpu=x86-64-v4 features=+avx512bf16,-avx512bf16)"}}
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x?x32xf32>) {causal} : tensor<1x4x?x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16> -> tensor<1x4x?x32xf32>
  return %0 : tensor<1x4x?x32xf32>
}

// One query per head: the decode kernel, with either target.
// DOT-LABEL: func @decode
// DOT-NOT: x86vector
// DOT: return
func.func @decode(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>) -> tensor<1x4x1x32xbf16> {
  %attn_init1 = tensor.empty() : tensor<1x4x1x32xbf16>
  // expected-remark@+1 {{one query per head: the decode kernel, which is bound by reading K and V, widens them to f32}}
  %0 = pe.attention %q, %k, %v outs(%attn_init1 : tensor<1x4x1x32xbf16>) {causal} : tensor<1x4x1x32xbf16>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16> -> tensor<1x4x1x32xbf16>
  return %0 : tensor<1x4x1x32xbf16>
}

// An f32 query over a bf16 cache keeps the f32 math (no remark: the dot
// products would round the query).
// DOT-LABEL: func @f32_query
// DOT-NOT: x86vector
// DOT: return
func.func @f32_query(%q: tensor<1x4x?x32xf32>, %k: tensor<1x2x?x32xbf16>, %v: tensor<1x2x?x32xbf16>) -> tensor<1x4x?x32xf32> {
  %attn_c2_2 = arith.constant 2 : index
  %attn_d0_2_2 = tensor.dim %q, %attn_c2_2 : tensor<1x4x?x32xf32>
  %attn_init2 = tensor.empty(%attn_d0_2_2) : tensor<1x4x?x32xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init2 : tensor<1x4x?x32xf32>) {causal} : tensor<1x4x?x32xf32>, tensor<1x2x?x32xbf16>, tensor<1x2x?x32xbf16> -> tensor<1x4x?x32xf32>
  return %0 : tensor<1x4x?x32xf32>
}
