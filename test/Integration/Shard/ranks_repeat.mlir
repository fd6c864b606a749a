// pe-run --ranks=2 --repeat=R: every rank times R calls after the first
// (started together after an MPI_Barrier); pe-run prints each rank's times
// and, per call, the time of its slowest rank. check_rank_times.py checks
// that the summary is at least every rank's own times (a summary taken from
// one rank's times fails it when another rank is slower). The result is
// still checked against the unsharded program (rtol 1e-6, atol 1e-7).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.random.default_rng(5).uniform(-1, 1, (2, 64, 64)).astype(np.float32))"
// RUN: pe-run %s -e f --ranks=2 --repeat=7 --input=%t/x.npy --check=cpu --rtol=1e-6 --atol=1e-7 > %t/out.txt
// RUN: FileCheck %s < %t/out.txt
// RUN: %python %pe_ref_lib/check_rank_times.py 2 7 < %t/out.txt | FileCheck %s --check-prefix=TIMES

// CHECK: pe-run: ran 'f' on 2 ranks (pe-shard-pipeline)
// CHECK-DAG: pe-run: time rank=0 runs=7 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}}
// CHECK-DAG: pe-run: time rank=1 runs=7 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}}
// CHECK: pe-run: time pipeline=shard ranks=2 runs=7 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}} slowest_rank={{[01]}}
// CHECK: pe-run: check result 0: {{.*}}: PASS
// TIMES: check_rank_times: PASS

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @f(%x: tensor<2x64x64xf32>) -> tensor<2x64x64xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x64x64xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x64x64xf32>
  %ys = shard.shard %y to %s : tensor<2x64x64xf32>
  return %ys : tensor<2x64x64xf32>
}
