// Dynamic sizes that break an op's size relations stop the compiled program
// with one error line and exit status 1, through both pipelines, instead of
// reading or writing out of bounds (pe-insert-runtime-checks; pe-run reports
// the failed cf.assert). Sizes that agree still run (the last case).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'q=np.ones((1, 4, 3, 16), np.float32)' \
// RUN:   'k8=np.ones((1, 2, 8, 16), np.float32)' \
// RUN:   'v4=np.ones((1, 2, 4, 16), np.float32)' \
// RUN:   'k4096=np.ones((1, 2, 4096, 16), np.float32)' \
// RUN:   'v1=np.ones((1, 2, 1, 16), np.float32)' \
// RUN:   'qd64=np.ones((1, 4, 3, 64), np.float32)' \
// RUN:   'kd16=np.ones((1, 2, 8, 16), np.float32)' \
// RUN:   'vd16=np.ones((1, 2, 8, 16), np.float32)' \
// RUN:   'x=np.ones((1, 2, 6, 16), np.float32)' \
// RUN:   'pos5=np.arange(5, dtype=np.int64)' \
// RUN:   'cos10=np.ones((10, 8), np.float32)' 'sin9=np.zeros((9, 8), np.float32)' \
// RUN:   'cos0=np.ones((0, 8), np.float32)' 'sin0=np.zeros((0, 8), np.float32)' \
// RUN:   'e=np.ones((2, 6, 16), np.float32)' 'table0=np.ones((0, 16), np.float32)' \
// RUN:   'table8=np.ones((8, 16), np.float32)' \
// RUN:   'neg=np.int64(-5)' 'huge=np.int64(2**40)' 'four=np.int64(4)' \
// RUN:   'v8=np.ones((1, 2, 8, 16), np.float32)' \
// RUN:   'q4=np.ones((1, 4, 3, 16), np.float32)' 'k48=np.ones((1, 4, 8, 16), np.float32)'

// K with 8 keys and V with 4; K with 4096 keys and V with 1 (this one read
// out of bounds before).
// RUN: not pe-run %s -e attention --input=%t/q.npy --input=%t/k8.npy --input=%t/v4.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=KV
// RUN: not pe-run %s -e attention --pipeline=cpu --input=%t/q.npy --input=%t/k8.npy --input=%t/v4.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=KV
// RUN: not pe-run %s -e attention --pipeline=cpu --input=%t/q.npy --input=%t/k4096.npy --input=%t/v1.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=KV
// KV: pe-run: error: run-time check failed: {{.*}}runtime-checks.mlir:[[@LINE+6]]:{{[0-9]+}}: 'pe.attention' op expects key and value of one sequence length
// KV-NOT: error
func.func @attention(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>) -> tensor<1x4x?x16xf32> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x4x?x16xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}

// Q with D = 64 and K with D = 16.
// RUN: not pe-run %s -e attention_d --input=%t/qd64.npy --input=%t/kd16.npy --input=%t/vd16.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=D
// RUN: not pe-run %s -e attention_d --pipeline=cpu --input=%t/qd64.npy --input=%t/kd16.npy --input=%t/vd16.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=D
// D: pe-run: error: run-time check failed: {{.*}}'pe.attention' op expects query and key of one head dimension
func.func @attention_d(%q: tensor<1x4x3x?xf32>, %k: tensor<1x2x8x?xf32>, %v: tensor<1x2x8x?xf32>) -> tensor<1x4x3x?xf32> {
  %attn_c3_1 = arith.constant 3 : index
  %attn_d0_3_1 = tensor.dim %v, %attn_c3_1 : tensor<1x2x8x?xf32>
  %attn_init1 = tensor.empty(%attn_d0_3_1) : tensor<1x4x3x?xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init1 : tensor<1x4x3x?xf32>) {scale = 0.125 : f64} : tensor<1x4x3x?xf32>, tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32> -> tensor<1x4x3x?xf32>
  return %0 : tensor<1x4x3x?xf32>
}

// Positions shorter than the sequence (6 tokens, 5 positions).
// RUN: not pe-run %s -e rope_positions --input=%t/x.npy --input=%t/pos5.npy --input=%t/cos10.npy --input=%t/cos10.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=POS
// RUN: not pe-run %s -e rope_positions --pipeline=cpu --input=%t/x.npy --input=%t/pos5.npy --input=%t/cos10.npy --input=%t/cos10.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=POS
// POS: pe-run: error: run-time check failed: {{.*}}'pe.rope' op expects positions as long as the sequence dimension
func.func @rope_positions(%x: tensor<1x2x?x16xf32>, %p: tensor<?xi64>, %cos: tensor<?x8xf32>, %sin: tensor<?x8xf32>) -> tensor<1x2x?x16xf32> {
  %0 = pe.rope half %x cache(%cos, %sin : tensor<?x8xf32>, tensor<?x8xf32>) positions(%p : tensor<?xi64>) : tensor<1x2x?x16xf32>
  return %0 : tensor<1x2x?x16xf32>
}

// cos and sin caches of different lengths; caches without rows.
// RUN: not pe-run %s -e rope_cache --input=%t/x.npy --input=%t/cos10.npy --input=%t/sin9.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=CACHE
// RUN: not pe-run %s -e rope_cache --pipeline=cpu --input=%t/x.npy --input=%t/cos10.npy --input=%t/sin9.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=CACHE
// CACHE: pe-run: error: run-time check failed: {{.*}}'pe.rope' op expects cos and sin caches of one shape (dimension 0)
// RUN: not pe-run %s -e rope_cache --input=%t/x.npy --input=%t/cos0.npy --input=%t/sin0.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not pe-run %s -e rope_cache --pipeline=cpu --input=%t/x.npy --input=%t/cos0.npy --input=%t/sin0.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: pe-run: error: run-time check failed: {{.*}}'pe.rope' op expects caches with at least one row
func.func @rope_cache(%x: tensor<1x2x?x16xf32>, %cos: tensor<?x8xf32>, %sin: tensor<?x8xf32>, %o: index) -> tensor<1x2x?x16xf32> {
  %0 = pe.rope half %x cache(%cos, %sin : tensor<?x8xf32>, tensor<?x8xf32>) offset(%o : index) : tensor<1x2x?x16xf32>
  return %0 : tensor<1x2x?x16xf32>
}

// A learned table without rows (it read row -1 before); positions too short.
// RUN: not pe-run %s -e learned --input=%t/e.npy --input=%t/table0.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: not pe-run %s -e learned --pipeline=cpu --input=%t/e.npy --input=%t/table0.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=TABLE
// TABLE: pe-run: error: run-time check failed: {{.*}}'pe.add_learned' op expects a table with at least one row
func.func @learned(%x: tensor<2x?x16xf32>, %t: tensor<?x16xf32>) -> tensor<2x?x16xf32> {
  %0 = pe.add_learned %x, %t : tensor<2x?x16xf32>, tensor<?x16xf32>
  return %0 : tensor<2x?x16xf32>
}
// RUN: not pe-run %s -e learned_positions --input=%t/e.npy --input=%t/table8.npy --input=%t/pos5.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=LPOS
// RUN: not pe-run %s -e sinusoidal_positions --pipeline=cpu --input=%t/e.npy --input=%t/pos5.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=SPOS
// LPOS: pe-run: error: run-time check failed: {{.*}}'pe.add_learned' op expects positions as long as the sequence dimension
// SPOS: pe-run: error: run-time check failed: {{.*}}'pe.add_sinusoidal' op expects positions as long as the sequence dimension
func.func @learned_positions(%x: tensor<2x?x16xf32>, %t: tensor<?x16xf32>, %p: tensor<?xi64>) -> tensor<2x?x16xf32> {
  %0 = pe.add_learned %x, %t positions(%p : tensor<?xi64>) : tensor<2x?x16xf32>, tensor<?x16xf32>
  return %0 : tensor<2x?x16xf32>
}
func.func @sinusoidal_positions(%x: tensor<2x?x16xf32>, %p: tensor<?xi64>) -> tensor<2x?x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<?xi64>) : tensor<2x?x16xf32>
  return %0 : tensor<2x?x16xf32>
}

// pe.alibi_bias with a run-time size of -5 (it faulted before); with 2^40
// query rows the result (4 TiB) is within the 2^47-byte bound but cannot be
// allocated, which pe-run reports too.
// RUN: not pe-run %s -e alibi --input=%t/neg.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not pe-run %s -e alibi --pipeline=cpu --input=%t/neg.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: pe-run: error: run-time check failed: {{.*}}'pe.alibi_bias' op expects non-negative sizes
// RUN: not pe-run %s -e alibi --input=%t/huge.npy --input=%t/four.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: pe-run: error: out of memory: the compiled code allocates 703687441{{[0-9]+}} bytes
// RUN: not pe-run %s -e alibi --input=%t/huge.npy --input=%t/huge.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: pe-run: error: run-time check failed: {{.*}}'pe.alibi_bias' op expects a result of at most 2^47 bytes
func.func @alibi(%tq: index, %tk: index) -> tensor<4x?x?xf32> {
  %0 = pe.alibi_bias symmetric [%tq, %tk] : tensor<4x?x?xf32>
  return %0 : tensor<4x?x?xf32>
}

// A pe.alibi_bias whose dynamic query size is 1 broadcasts its row 0 over
// the queries: the reference pipeline computes that; pe-cpu-pipeline fuses the
// bias into the attention, which computes each row's own bias, so it checks
// that the size is the query length and stops instead of answering
// differently.
// RUN: %python %S/Inputs/npy.py %t 'one=np.int64(1)' 'eight=np.int64(8)' 'three=np.int64(3)'
// RUN: pe-run %s -e alibi_attention --input=%t/q4.npy --input=%t/k48.npy --input=%t/k48.npy --input=%t/one.npy --input=%t/eight.npy --output=%t/o.npy
// RUN: not pe-run %s -e alibi_attention --pipeline=cpu --input=%t/q4.npy --input=%t/k48.npy --input=%t/k48.npy --input=%t/one.npy --input=%t/eight.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=FUSED
// A pe.alibi_bias whose sizes disagree with the attention's (5 query rows
// for 3 queries) stops both pipelines at the attention's broadcast check.
// RUN: %python %S/Inputs/npy.py %t 'five=np.int64(5)'
// RUN: not pe-run %s -e alibi_attention --input=%t/q4.npy --input=%t/k48.npy --input=%t/k48.npy --input=%t/five.npy --input=%t/eight.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ALIBISIZE
// RUN: not pe-run %s -e alibi_attention --pipeline=cpu --input=%t/q4.npy --input=%t/k48.npy --input=%t/k48.npy --input=%t/five.npy --input=%t/eight.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ALIBISIZE
// ALIBISIZE: pe-run: error: run-time check failed: {{.*}}'pe.attention' op expects bias dimension 1 to be 1 or the score dimension [B, H, Tq, Tk]
// RUN: pe-run %s -e alibi_attention --pipeline=cpu --check=reference --input=%t/q4.npy --input=%t/k48.npy --input=%t/k48.npy --input=%t/three.npy --input=%t/eight.npy --output=%t/o.npy
// FUSED: pe-run: error: run-time check failed: {{.*}}runtime-checks.mlir:[[@LINE+7]]:{{[0-9]+}}: 'pe.attention' op has a fused pe.alibi_bias, which must have one row per query
// FUSED-NOT: error
func.func @alibi_attention(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x?x16xf32>, %v: tensor<1x4x?x16xf32>, %tq: index, %tk: index) -> tensor<1x4x?x16xf32> {
  %b = pe.alibi_bias symmetric [%tq, %tk] : tensor<4x?x?xf32>
  %attn_c2_2 = arith.constant 2 : index
  %attn_d0_2_2 = tensor.dim %q, %attn_c2_2 : tensor<1x4x?x16xf32>
  %attn_init2 = tensor.empty(%attn_d0_2_2) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<4x?x?xf32>) outs(%attn_init2 : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}

// Sizes that agree run (and agree between the pipelines).
// RUN: pe-run %s -e attention --input=%t/q.npy --input=%t/k8.npy --input=%t/v8.npy --output=%t/ok.npy --pipeline=cpu --check=reference --rtol=1e-5 --atol=1e-6

// A destination of 5 rows for 3 queries (the result's size at run time is
// the destination's) stops both pipelines at the destination check; 3 rows
// run.
// RUN: %python %S/Inputs/npy.py %t 'five=np.int64(5)' 'three=np.int64(3)'
// RUN: not pe-run %s -e attention_destination --input=%t/q4.npy --input=%t/five.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=DEST
// RUN: not pe-run %s -e attention_destination --pipeline=cpu --input=%t/q4.npy --input=%t/five.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=DEST
// RUN: pe-run %s -e attention_destination --pipeline=cpu --check=reference --input=%t/q4.npy --input=%t/three.npy --output=%t/o.npy
// DEST: pe-run: error: run-time check failed: {{.*}}'pe.attention' op expects the result destination's dimension 2 to match the operands
// DEST-NOT: error
func.func @attention_destination(%q: tensor<1x4x?x16xf32>, %n: index) -> tensor<1x4x?x16xf32> {
  %init = tensor.empty(%n) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %q, %q outs(%init : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}
