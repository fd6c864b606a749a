//===- Passes.td - pe dialect transformations --------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_TRANSFORMS_PASSES_TD
#define PE_DIALECT_PE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldFrequencies : Pass<"pe-fold-frequencies"> {
  let summary = "Evaluate RoPE frequency and scaling ops at compile time";
  let description = [{
    Replaces every frequency op (`pe.rope_frequencies`, `pe.linear_scale`,
    `pe.ntk_scale`, `pe.dynamic_ntk_scale`, `pe.yarn_scale`,
    `pe.llama3_scale`, `pe.longrope_scale`) whose operands are constants by
    two `arith.constant`s: the inv_freq vector and the attention scaling, as
    computed by the ops' folders. Ops with a run-time sequence length are
    left alone. Unlike `--canonicalize`, this touches nothing else.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FuseAlibiIntoAttention : Pass<"pe-fuse-alibi-into-attention"> {
  let summary = "Compute ALiBi biases inside attention instead of in memory";
  let description = [{
    Rewrites a `pe.attention` (or a `pe.fused_attention` without ALiBi) whose
    bias is a `pe.alibi_bias` into a `pe.fused_attention` carrying the ALiBi
    distance, `max_bias` and query offset, so that no `[H, Tq, Tk]` tensor is
    materialised. Does not fire when the bias has other users, has explicit
    slopes, has a head count other than the attention's, or when the
    attention also has a mask.
  }];
}

def FuseRopeIntoAttention : Pass<"pe-fuse-rope-into-attention"> {
  let summary = "Rotate queries and keys inside attention";
  let description = [{
    Rewrites a `pe.attention` (or a `pe.fused_attention` without RoPE) whose
    query is a `pe.rope` into a `pe.fused_attention` that rotates Q (and K,
    when the key is a `pe.rope` with the same layout, rotary dimension,
    frequencies and attention scaling) as it loads them. When the key is not
    rotated (a KV cache of rotated keys) only the query is (decode).

    Does not fire when a rope result has other users, when a rope uses an
    explicit positions tensor, when the two ropes disagree, when only the key
    is rotated, or when the attention has a bias or mask left (run
    `pe-fuse-alibi-into-attention` first for ALiBi biases).
  }];
}

def FoldAttentionScaling : Pass<"pe-fold-attention-scaling"> {
  let summary = "Fold a constant RoPE attention scaling into the softmax scale";
  let description = [{
    RoPE's attention scaling `m` multiplies cos and sin, so it scales the
    rotated query (and key) by `m` and the logits by `m^2` (`m` when only the
    query is rotated). For a `pe.fused_attention` whose scaling is a constant
    and whose rotation covers the whole head (`rotary_dim = D`), this pass
    drops the scaling operand and multiplies `scale` by `m^2` (or `m`). It
    does not fire for partial rotary, where the pass-through channels are not
    scaled, nor for a run-time scaling.
  }];
}

def FuseAbsolutePE : Pass<"pe-fuse-absolute-pe"> {
  let summary = "Fuse lowered absolute encodings into their producer and consumer";
  let description = [{
    Runs after `convert-pe-to-linalg` on the `linalg.generic`s that lower
    `pe.add_sinusoidal` and `pe.add_learned` (they carry the discardable
    attribute `pe.absolute_encoding`):

    * an elementwise producer of the encoded tensor (an embedding gather
      written as a `linalg.generic`, a scale) is fused into the encoding, so
      the gathered embeddings are never written before the position is added;
    * a contraction that consumes the encoded tensor as an input (the QKV
      projection, `linalg.matmul` or `linalg.batch_matmul`) is tiled along
      the rows of that operand (`row-tile` rows, whole columns and reduction)
      and the encoding is computed per row tile inside the loop, once per
      element: the encoded tensor is never materialised.

    Does not fire when the encoded tensor has other users (it must exist
    then), when the consumer is not a contraction, or when it is the
    contraction's accumulator.
  }];
  let options = [
    Option<"rowTile", "row-tile", "int64_t", /*default=*/"32",
           "Rows of the encoded operand per tile of the consumer">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // PE_DIALECT_PE_TRANSFORMS_PASSES_TD
