// pe-run --ranks killed while its ranks run (rank 1 hangs, no time limit):
// on SIGTERM, SIGINT or SIGHUP pe-run stops the launcher, the process
// manager's proxy and the ranks, removes its scratch directory, prints an
// error and ends by the signal. On SIGKILL the launcher still gets SIGTERM
// (PR_SET_PDEATHSIG) and stops its processes; only the scratch directory is
// left. ranks_cleanup.py sends the signal once the
// hanging rank is up, then counts the processes started under the run that
// are left and the scratch directories (in TMPDIR) that are left.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.zeros((2, 8, 4), np.float32))"
// RUN: %python %pe_ref_lib/ranks_cleanup.py --signal TERM %t -- pe-run %s -e f --ranks=2 --ranks-timeout=0 --mpiexec='%S/Inputs/faulty-mpiexec.sh hang' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefixes=CHECK,CLEAN,TERM
// RUN: %python %pe_ref_lib/ranks_cleanup.py --signal INT %t -- pe-run %s -e f --ranks=2 --ranks-timeout=0 --mpiexec='%S/Inputs/faulty-mpiexec.sh hang' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefixes=CHECK,CLEAN,INT
// RUN: %python %pe_ref_lib/ranks_cleanup.py --signal HUP %t -- pe-run %s -e f --ranks=2 --ranks-timeout=0 --mpiexec='%S/Inputs/faulty-mpiexec.sh hang' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefixes=CHECK,CLEAN,HUP
// RUN: %python %pe_ref_lib/ranks_cleanup.py --signal KILL %t -- pe-run %s -e f --ranks=2 --ranks-timeout=0 --mpiexec='%S/Inputs/faulty-mpiexec.sh hang' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefixes=CHECK,KILL

// TERM: pe-run: error: interrupted by Terminated: stopped faulty-mpiexec.sh and its processes and removed the scratch directory
// TERM: ranks_cleanup: signal TERM
// INT: pe-run: error: interrupted by Interrupt: stopped faulty-mpiexec.sh and its processes and removed the scratch directory
// INT: ranks_cleanup: signal INT
// HUP: pe-run: error: interrupted by Hangup: stopped faulty-mpiexec.sh and its processes and removed the scratch directory
// HUP: ranks_cleanup: signal HUP
// KILL: ranks_cleanup: signal KILL
// CHECK: ranks_cleanup: processes left 0
// CLEAN: ranks_cleanup: scratch directories left 0
// KILL: ranks_cleanup: scratch directories left 1

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @f(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x4xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x8x4xf32>
  %ys = shard.shard %y to %s : tensor<2x8x4xf32>
  return %ys : tensor<2x8x4xf32>
}
