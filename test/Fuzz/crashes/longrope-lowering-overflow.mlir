// Fixed (issue 11): the lowering uses the short table when L = INT64_MAX.
// pe-fuzz finding (issue 11: LongRoPE original_max_position_embeddings + 1 overflows):
// UBSan signed-integer-overflow in LongRopeLowering::matchAndRewrite
// (lib/Conversion/PEToLinalg/PEToLinalg.cpp:512:75: 9223372036854775807 + 1).
// Reproduce: pe-opt FILE --pe-reference-pipeline (ASan/UBSan build)
func.func @yarn() -> (tensor<2xf32>, f32) {
  %f, %m = pe.yarn_scale {factor = 1.0e+38 : f64, original_max_position_embeddings = 256 : i64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}

func.func @dynamic_ntk(%n: index) -> (tensor<4xf32>, f32) {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 16 : i64} : tensor<4xf32>
  return %f, %m : tensor<4xf32>, f32
}

func.func @longrope(%n: i32) -> (tensor<2xf32>, f32) {
  %f, %m = pe.longrope_scale %n : i32 {short_factor = array<f64: 1.0, 2.0>, long_factor = array<f64: 4.0, 8.0>, original_max_position_embeddings = 9223372036854775807 : i64, max_position_embeddings = 64 : i64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}
