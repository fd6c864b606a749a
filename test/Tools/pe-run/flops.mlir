// --flops=F (with --repeat): after each timed call, the FP32 multiply-add
// peak of the same threads, timed for about as long as the call; one line
// after the timing line with F, the threads, the loop's vector width and the
// rates and fraction as numbers.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'x=np.random.default_rng(0).uniform(-1, 1, (1, 2, 9, 16)).astype(np.float32)'
// The reference pipeline loads no libomp: the loop runs on pe-run's own
// threads, as many as OMP_NUM_THREADS says.
// RUN: env OMP_NUM_THREADS=3 pe-run %s -e rope --input=%t/x.npy --repeat=3 \
// RUN:   --flops=1e6 | FileCheck %s --check-prefix=POOL
// The cpu pipeline's code uses OpenMP: the loop runs on libomp's team.
// RUN: env OMP_NUM_THREADS=2 pe-run %s -e rope --pipeline=cpu --input=%t/x.npy \
// RUN:   --repeat=2 --flops=4608 | FileCheck %s --check-prefix=OMP
// With --roofline too, both lines follow the timing line.
// RUN: pe-run %s -e rope --pipeline=cpu --input=%t/x.npy --repeat=2 \
// RUN:   --roofline --flops=4608 | FileCheck %s --check-prefix=BOTH
// With --check each pipeline's timing line is followed by its own; the cpu
// pipeline has loaded libomp into the process, so both run on its team.
// RUN: pe-run %s -e rope --pipeline=cpu --check=reference --input=%t/x.npy \
// RUN:   --repeat=2 --flops=4608 | FileCheck %s --check-prefix=CHECKED
// The numbers agree with each other (one call: the medians are its values).
// RUN: pe-run %s -e rope --pipeline=cpu --input=%t/x.npy --repeat=1 \
// RUN:   --flops=123456789 | %python %S/Inputs/check-flops-line.py 123456789 \
// RUN:   | FileCheck %s --check-prefix=NUMBERS

// POOL:      {{^}}pe-run: time pipeline=reference runs=3 min_ms={{[0-9.]+}} median_ms={{[0-9.]+$}}
// POOL-NEXT: {{^}}pe-run: flops pipeline=reference flops=1000000 threads=3 team=pool isa={{avx512|avx2|generic}} call_gflops={{[0-9.]+}} peak_gflops={{[0-9.]+}} peak_fraction={{[0-9.]+$}}
// POOL-NOT:  pe-run:

// OMP:      {{^}}pe-run: time pipeline=cpu runs=2
// OMP-NEXT: {{^}}pe-run: flops pipeline=cpu flops=4608 threads=2 team=libomp isa=

// BOTH:      {{^}}pe-run: time pipeline=cpu runs=2
// BOTH-NEXT: {{^}}pe-run: roofline pipeline=cpu bytes=2304
// BOTH-NEXT: {{^}}pe-run: flops pipeline=cpu flops=4608
// BOTH-NOT:  pe-run:

// CHECKED:      pe-run: check result 0: {{.*}}: PASS
// CHECKED-NEXT: {{^}}pe-run: time pipeline=cpu runs=2
// CHECKED-NEXT: {{^}}pe-run: flops pipeline=cpu flops=4608 threads={{[0-9]+}} team=libomp
// CHECKED-NEXT: {{^}}pe-run: time pipeline=reference runs=2
// CHECKED-NEXT: {{^}}pe-run: flops pipeline=reference flops=4608 threads={{[0-9]+}} team=libomp
// CHECKED-NEXT: {{^}}pe-run: speedup reference/cpu median=

// NUMBERS: check-flops-line: consistent

func.func @rope(%x: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<8xf32>
  %r = pe.rope half %x inv_freq(%f : tensor<8xf32>) : tensor<1x2x?x16xf32>
  return %r : tensor<1x2x?x16xf32>
}
