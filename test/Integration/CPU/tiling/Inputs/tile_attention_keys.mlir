// Transform script of ../tile_attention_keys.mlir (preloaded, so the payload carries none).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %0 by tile_sizes = [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
