// Fixed (issue 11): the verifier rejects the oversized inv_freq table with a diagnostic.
// pe-fuzz finding: UBSan signed-integer-overflow in the verifier:
// lib/Dialect/PE/IR/PEOps.cpp:241:22 verifyFrequencyCommon (2 * 9223372036854775807),
// from Llama3ScaleOp::verify (PEOps.cpp:395) / LongRopeScaleOp::verify (PEOps.cpp:425).
// Reproduce: pe-opt FILE (ASan/UBSan build: utils/pe.sh test --sanitize)
func.func @llama3_original_max() {
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 33 : i64} : tensor<9223372036854775807xf32>
  return
}
