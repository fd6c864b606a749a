// --repeat=N: one warm-up call, N timed calls, one greppable line per
// pipeline; with --check also the speedup line. --output stays optional.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'a=np.arange(64, dtype=np.float32)' 'expected=a * a'
// RUN: pe-run %s -e square --input=%t/a.npy --repeat=5 | FileCheck %s
// RUN: pe-run %s -e square --input=%t/a.npy --repeat=3 --check=reference \
// RUN:   | FileCheck %s --check-prefix=CHECKED
// RUN: pe-run %s -e square --input=%t/a.npy --repeat=1 --output=%t/out.npy \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=CMP

// CHECK:     {{^}}pe-run: time pipeline=reference runs=5 min_ms={{[0-9]+\.[0-9]+}} median_ms={{[0-9]+\.[0-9]+$}}
// CHECK-NOT: pe-run:
// CHECKED:      pe-run: check result 0: {{.*}}: PASS
// CHECKED-NEXT: {{^}}pe-run: time pipeline=reference runs=3 min_ms={{[0-9]+\.[0-9]+}} median_ms={{[0-9]+\.[0-9]+$}}
// CHECKED-NEXT: {{^}}pe-run: time pipeline=reference runs=3 min_ms={{[0-9]+\.[0-9]+}} median_ms={{[0-9]+\.[0-9]+$}}
// CHECKED-NEXT: {{^}}pe-run: speedup reference/reference median={{([0-9]+\.[0-9]+|inf)}}x{{$}}
// ONE:       pe-run: time pipeline=reference runs=1 min_ms=[[T:[0-9]+\.[0-9]+]] median_ms=[[T]]{{$}}
// CMP:       npycmp: PASS

func.func @square(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.mul ins(%a, %a : tensor<64xf32>, tensor<64xf32>)
                  outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}
