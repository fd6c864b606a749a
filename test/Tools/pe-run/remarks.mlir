// --remarks=REGEX shows why a fusion or a generated kernel did not apply.
// The head dimension 520 keeps the first attention off the generated kernel
// (it runs through the reference lowering, still correct against the
// reference pipeline).
// RUN: pe-run %s -e masked --random-inputs --pipeline=cpu --check=reference \
// RUN:   --remarks='pe-.*|convert-pe-to-vector' 2>&1 | FileCheck %s
// CHECK-DAG: remark: [Missed] rope-not-fused | Category:pe-fuse-encodings-into-attention | Reason="the query's pe.rope result has other users, so it must exist anyway"
// CHECK-DAG: remark: [Missed] attention-kernel | Category:convert-pe-to-vector | Reason="no generated attention kernel (the reference lowering with a materialised score tensor is used): head dimensions must be at most 512"
// CHECK: pe-run: check result 0: {{.*}}: PASS
//
// Without the flag nothing is said.
// RUN: pe-run %s -e masked --random-inputs --pipeline=cpu --check=reference 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: remark
// QUIET: PASS
//
// RUN: not pe-run %s -e masked --random-inputs --remarks='(' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: pe-run: error: --remarks: invalid regular expression '('

func.func @masked(%q: tensor<1x2x8x16xf32>, %p: tensor<1x2x8x520xf32>, %m: tensor<8x8xi1>, %f: tensor<8xf32>)
    -> (tensor<1x2x8x520xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  %attn_init0 = tensor.empty() : tensor<1x2x8x520xf32>
  %o = pe.attention %p, %p, %p mask(%m : tensor<8x8xi1>) outs(%attn_init0 : tensor<1x2x8x520xf32>) : tensor<1x2x8x520xf32>, tensor<1x2x8x520xf32>, tensor<1x2x8x520xf32> -> tensor<1x2x8x520xf32>
  %qr = pe.rope interleaved %q inv_freq(%f : tensor<8xf32>) : tensor<1x2x8x16xf32>
  %attn_init1 = tensor.empty() : tensor<1x2x8x16xf32>
  %r = pe.attention %qr, %q, %q outs(%attn_init1 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o, %r, %qr : tensor<1x2x8x520xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}
