// The bf16 rounding of pe-expand-bf16-conversions survives LLVM's O3
// pipeline as vector code. With a NaN selected as a bf16 constant after the
// bit cast (upstream's expansion), InstCombine moves the cast above the
// select, and the X86 backend without AVX512-BF16 scalarizes the select on
// bf16 vectors: a vucomiss, a cmov and a 2-byte store per lane, and the
// streaming stores of a large result are lost. The RoPE kernel below writes
// 32 MiB per result: streaming stores of two adjacent 16-channel (AVX-512)
// or 8-channel (AVX2) chunks at a time (a whole register), never the
// truncating vpmovdw to memory, which has no non-temporal form.
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" | mlir-translate --mlir-to-llvmir | opt -O3 | llc -O3 -relocation-model=pic | FileCheck %s --check-prefix=AVX2
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" | mlir-translate --mlir-to-llvmir | opt -O3 | llc -O3 -relocation-model=pic | FileCheck %s --check-prefix=AVX512

// AVX2-LABEL: rope_bf16:
// AVX2-NOT: vucomiss
// AVX2-NOT: __truncsfbf2
// AVX2: vcmpunordps
// AVX2: vmovntdq %ymm
// AVX2-NOT: vucomiss
// AVX2-NOT: __truncsfbf2

// AVX512-LABEL: rope_bf16:
// AVX512-NOT: vucomiss
// AVX512-NOT: __truncsfbf2
// AVX512: vcmpunordps
// AVX512: vmovntdq %zmm
// AVX512-NOT: vucomiss
// AVX512-NOT: vpmovdw {{.*}}(
// AVX512-NOT: __truncsfbf2

func.func @rope_bf16(%x: tensor<1x32x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
  %r = pe.rope half %x inv_freq(%f : tensor<64xf32>) : tensor<1x32x4096x128xbf16>
  return %r : tensor<1x32x4096x128xbf16>
}
