// Fixed (issue 11): the verifier rejects the oversized inv_freq table with a diagnostic.
// pe-fuzz finding: out of memory (unbounded compile-time work): Llama3ScaleOp::fold
// (PEOps.cpp:420) -> formula::llama3Scaling -> formula::defaultFrequencies
// (lib/Support/PEMath.cpp:138) allocates the whole table of a huge result type.
// Reproduce: pe-opt FILE --pe-cpu-pipeline
func.func @llama3_original_max() {
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 0x7FC00000 : f64, high_freq_factor = 1.0 : f64, original_max_position_embeddings = 33 : i64} : tensor<4294967296xf32>
  return
}
