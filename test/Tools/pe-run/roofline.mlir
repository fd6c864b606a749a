// --roofline (with --repeat): the bytes of the tensor arguments (in their
// stored types) and of the results, the threads the roofs run on, and the
// bandwidths and fractions as numbers, after the timing line.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'a=np.ones(64, dtype=np.float16)' \
// RUN:   'b=np.arange(100, dtype=np.float32)' \
// RUN:   'x=np.random.default_rng(0).uniform(-1, 1, (1, 2, 9, 16)).astype(np.float32)'
// f16 a (128 B) + f32 b (400 B) + f32 result (256 B): 784 B. The reference
// pipeline loads no libomp: the roofs run on pe-run's own threads.
// RUN: env OMP_NUM_THREADS=3 pe-run %s -e mixed --input=%t/a.npy --input=%t/b.npy \
// RUN:   --repeat=3 --roofline | FileCheck %s --check-prefix=MIXED
// A dynamic result counts with its run-time size: x and the result are
// 2 x 9 x 16 f32 each, 2304 B. The cpu pipeline's code uses OpenMP: the
// roofs run on libomp's team, whose size OMP_NUM_THREADS sets.
// RUN: env OMP_NUM_THREADS=2 pe-run %s -e rope --pipeline=cpu --input=%t/x.npy \
// RUN:   --repeat=2 --roofline | FileCheck %s --check-prefix=ROPE
// RUN: env OMP_NUM_THREADS=1 pe-run %s -e rope --pipeline=cpu --input=%t/x.npy \
// RUN:   --repeat=1 --roofline | FileCheck %s --check-prefix=ONE
// With --check both pipelines are timed cold; the roofline line follows each.
// RUN: pe-run %s -e rope --pipeline=cpu --check=reference --input=%t/x.npy \
// RUN:   --repeat=2 --roofline | FileCheck %s --check-prefix=CHECKED

// MIXED:      {{^}}pe-run: time pipeline=reference runs=3 min_ms={{[0-9.]+}} median_ms={{[0-9.]+$}}
// MIXED-NEXT: {{^}}pe-run: roofline pipeline=reference bytes=784 threads=3 team=pool call_gbs={{[0-9.]+}} read_gbs={{[0-9.]+}} copy_gbs={{[0-9.]+}} copy_nt_gbs={{[0-9.]+}} read_fraction={{[0-9.]+}} copy_fraction={{[0-9.]+}} best_read_gbs={{[0-9.]+}} best_read_fraction={{[0-9.]+$}}
// MIXED-NOT:  pe-run:

// ROPE:      {{^}}pe-run: time pipeline=cpu runs=2
// ROPE-NEXT: {{^}}pe-run: roofline pipeline=cpu bytes=2304 threads=2 team=libomp call_gbs={{[0-9.]+}} read_gbs={{[0-9.]+}} copy_gbs={{[0-9.]+}} copy_nt_gbs={{[0-9.]+}} read_fraction={{[0-9.]+}} copy_fraction={{[0-9.]+}} best_read_gbs={{[0-9.]+}} best_read_fraction={{[0-9.]+$}}

// ONE: {{^}}pe-run: roofline pipeline=cpu bytes=2304 threads=1 team=libomp

// CHECKED:      pe-run: check result 0: {{.*}}: PASS
// CHECKED-NEXT: {{^}}pe-run: time pipeline=cpu runs=2
// CHECKED-NEXT: {{^}}pe-run: roofline pipeline=cpu bytes=2304 threads={{[0-9]+}} team=libomp
// CHECKED-NEXT: {{^}}pe-run: time pipeline=reference runs=2
// CHECKED-NEXT: {{^}}pe-run: roofline pipeline=reference bytes=2304 threads={{[0-9]+}}
// CHECKED-NEXT: {{^}}pe-run: speedup reference/cpu median=

func.func @mixed(%a: tensor<64xf16>, %b: tensor<100xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<64xf16>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f16, %o: f32):
    %f = arith.extf %x : f16 to f32
    linalg.yield %f : f32
  } -> tensor<64xf32>
  return %w : tensor<64xf32>
}

func.func @rope(%x: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<8xf32>
  %r = pe.rope half %x inv_freq(%f : tensor<8xf32>) : tensor<1x2x?x16xf32>
  return %r : tensor<1x2x?x16xf32>
}
