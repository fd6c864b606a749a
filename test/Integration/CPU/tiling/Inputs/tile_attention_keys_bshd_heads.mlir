// Transform script of ../tile_attention_keys_bshd_heads.mlir (preloaded, so the payload carries none).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %heads = transform.structured.tile_using_for %0 tile_sizes [0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %1 by tile_sizes = [0, 0, 0, 0, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
