// --random-inputs: deterministic per (seed, argument index), documented
// distributions, and the documented splitmix64 stream.
// RUN: rm -rf %t && mkdir -p %t
// RUN: pe-run %s -e copy --random-inputs --seed=1 \
// RUN:   --output=%t/s1_a.npy --output=%t/s1_b.npy --output=%t/s1_c.npy --output=%t/s1_d.npy --output=%t/s1_m.npy
// RUN: pe-run %s -e copy --random-inputs --seed=1 \
// RUN:   --output=%t/t1_a.npy --output=%t/t1_b.npy --output=%t/t1_c.npy --output=%t/t1_d.npy --output=%t/t1_m.npy
// RUN: pe-run %s -e copy --random-inputs --seed=2 \
// RUN:   --output=%t/s2_a.npy --output=%t/s2_b.npy --output=%t/s2_c.npy --output=%t/s2_d.npy --output=%t/s2_m.npy
// RUN: pe-run %s -e copy --random-inputs \
// RUN:   --output=%t/s0_a.npy --output=%t/s0_b.npy --output=%t/s0_c.npy --output=%t/s0_d.npy --output=%t/s0_m.npy
// RUN: pe-run %s -e copy --random-inputs --seed=0 \
// RUN:   --output=%t/z0_a.npy --output=%t/z0_b.npy --output=%t/z0_c.npy --output=%t/z0_d.npy --output=%t/z0_m.npy
// An --input for argument 0; the others keep their own streams.
// RUN: %python %S/Inputs/npy.py %t 'given=np.full((4, 8), 3.5, dtype=np.float32)'
// RUN: pe-run %s -e copy --input=%t/given.npy --random-inputs --seed=1 \
// RUN:   --output=%t/g1_a.npy --output=%t/g1_b.npy --output=%t/g1_c.npy --output=%t/g1_d.npy --output=%t/g1_m.npy
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   '!names = "abcdm"' \
// RUN:   '!same = lambda p, q: all(np.array_equal(load(p + n), load(q + n)) for n in names)' \
// RUN:   '!assert same("s1_", "t1_"), "same seed, different data"' \
// RUN:   '!assert same("s0_", "z0_"), "the default seed is not 0"' \
// RUN:   '!assert all(not np.array_equal(load("s1_" + n), load("s2_" + n)) for n in "abcd"), "seeds 1 and 2 agree"' \
// RUN:   '!assert np.array_equal(load("g1_a"), load("given"))' \
// RUN:   '!assert all(np.array_equal(load("g1_" + n), load("s1_" + n)) for n in "bcdm")' \
// RUN:   '!a, b, c, d, m = (load("s1_" + n) for n in names)' \
// RUN:   '!assert a.dtype == np.float32 and a.min() >= -1 and a.max() < 1 and a.min() < -0.5 and a.max() > 0.5' \
// RUN:   '!assert b.dtype == np.int32 and set(b.tolist()) == set(range(8))' \
// RUN:   '!assert c.dtype == np.float16 and c.min() >= -1 and c.max() < 1' \
// RUN:   '!assert d.dtype == np.float32 and d.min() >= -1 and d.max() < 1 and (bf16(d) == d).all()' \
// RUN:   '!assert m.dtype == np.bool_ and 0 < m.sum() < m.size' \
// RUN:   '!r = splitmix64(1, 0, 32)' \
// RUN:   '!assert np.array_equal(a.ravel(), np.array([((x >> 40) - 2**23) * 2.0**-23 for x in r], dtype=np.float32))' \
// RUN:   '!r = splitmix64(1, 1, 64)' \
// RUN:   '!assert np.array_equal(b, np.array([x >> 61 for x in r], dtype=np.int32))' \
// RUN:   '?"random: ok"' | FileCheck %s
//
// Dynamic shapes need an --input.
// RUN: not pe-run %s -e dyn --random-inputs --output=%t/x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DYN

// CHECK: random: ok
// DYN: pe-run: error: --random-inputs: argument 0 has type tensor<?xf32> with dynamic dimensions; give it an --input file

func.func @copy(%a: tensor<4x8xf32>, %b: tensor<64xi32>, %c: tensor<100xf16>,
                %d: tensor<100xbf16>, %m: tensor<100xi1>, %n: index)
    -> (tensor<4x8xf32>, tensor<64xi32>, tensor<100xf16>, tensor<100xbf16>, tensor<100xi1>) {
  %ea = tensor.empty() : tensor<4x8xf32>
  %ra = linalg.copy ins(%a : tensor<4x8xf32>) outs(%ea : tensor<4x8xf32>) -> tensor<4x8xf32>
  %eb = tensor.empty() : tensor<64xi32>
  %rb = linalg.copy ins(%b : tensor<64xi32>) outs(%eb : tensor<64xi32>) -> tensor<64xi32>
  %ec = tensor.empty() : tensor<100xf16>
  %rc = linalg.copy ins(%c : tensor<100xf16>) outs(%ec : tensor<100xf16>) -> tensor<100xf16>
  %ed = tensor.empty() : tensor<100xbf16>
  %rd = linalg.copy ins(%d : tensor<100xbf16>) outs(%ed : tensor<100xbf16>) -> tensor<100xbf16>
  %em = tensor.empty() : tensor<100xi1>
  %rm = linalg.copy ins(%m : tensor<100xi1>) outs(%em : tensor<100xi1>) -> tensor<100xi1>
  return %ra, %rb, %rc, %rd, %rm
      : tensor<4x8xf32>, tensor<64xi32>, tensor<100xf16>, tensor<100xbf16>, tensor<100xi1>
}

func.func @dyn(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
