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
    computed by the ops' folders. First, a frequency op whose `f32`
    inv_freq result is used only as inv_freq operands of `pe.rope` or
    `pe.attention` gets an `f64` result (`populateWidenRopeFrequenciesPatterns`),
    since those angles use its exact value: such tables fold to `f64`
    constants. Ops with a run-time sequence length are not folded (but are
    widened). Unlike `--canonicalize`, this touches nothing else.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FuseAlibiIntoAttention : Pass<"pe-fuse-alibi-into-attention"> {
  let summary = "Compute ALiBi biases inside attention instead of in memory";
  let description = [{
    Moves a `pe.alibi_bias` that is the bias of a `pe.attention` into the
    attention's `alibi` encoding (distance, `max_bias`, query offset), so
    that no `[H, Tq, Tk]` tensor is materialised. The attention's mask,
    rope encoding, softcap and causal flag stay as they are.

    Does not fire (and reports a missed-optimization remark in category
    `pe-fuse-alibi-into-attention` saying why) when the bias has explicit
    slopes, has other users, has a head count other than the attention's or
    broadcasts over the queries.
  }];
}

def FuseRopeIntoAttention : Pass<"pe-fuse-rope-into-attention"> {
  let summary = "Rotate queries and keys inside attention";
  let description = [{
    Moves the `pe.rope` that produces the query of a `pe.attention` (and the
    one that produces its key, when it has the same layout, rotary
    dimension, frequencies and attention scaling) into the attention's
    `rope` encoding, which rotates Q and K tiles as they are loaded. When the
    key is not rotated (a KV cache of rotated keys) the encoding is
    `query_only` (decode). A bias, a mask, an alibi encoding, softcap and the
    causal flag stay as they are.

    Does not fire (and reports a missed-optimization remark in category
    `pe-fuse-rope-into-attention` saying why) when a rope result has other
    users, when a rope takes an explicit positions tensor, when the two ropes
    differ, or when only the key is rotated.
  }];
}

def FuseEncodingsIntoAttention : Pass<"pe-fuse-encodings-into-attention"> {
  let summary = "Move RoPE and ALiBi producers into attention";
  let description = [{
    The patterns of `pe-fuse-rope-into-attention` and
    `pe-fuse-alibi-into-attention` applied by one greedy driver: any
    combination of the encodings fuses, whatever order the producers appear
    in. Missed fusions are reported as remarks in category
    `pe-fuse-encodings-into-attention`. Hosts get the same patterns from
    `populateFuseEncodingsIntoAttentionPatterns`.
  }];
}

def FoldAttentionScaling : Pass<"pe-fold-attention-scaling"> {
  let summary = "Fold a constant RoPE attention scaling into the softmax scale";
  let description = [{
    RoPE's attention scaling `m` multiplies cos and sin, so it scales the
    rotated query (and key) by `m` and the logits by `m^2` (`m` when only the
    query is rotated). For a `pe.attention` whose rope encoding's scaling is a constant
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

def Raise : Pass<"pe-raise"> {
  let summary = "Raise frontend linalg IR to pe ops";
  let description = [{
    Recognises, in linalg-on-tensors IR with tensor, arith and math ops (what
    torch-mlir's TorchToLinalg and upstream `tosa-to-linalg-pipeline` emit),
    the computations the pe ops name, and replaces them by those ops:

    * rotary embeddings, `x * cos + rotate(x) * sin` with the split-half or
      interleaved pairing, full or partial (pass-through channels), with the
      tables computed in the IR from positions and frequencies
      (`pe.rope ... inv_freq(...)`) or read from tensors (`pe.rope ...
      cache(...)`); a constant frequency table is recognised as the frequency
      op (default, linear, llama3 or YaRN scaling) that computes it, within
      `tolerance`;
    * ALiBi, `slope[h] * distance` added to attention scores →
      `pe.alibi_bias` (the paper's slopes recognised as `max_bias`);
    * embeddings plus rows of a position table → `pe.add_learned`, or
      `pe.add_sinusoidal` when a constant table holds the sinusoidal
      encoding;
    * scaled dot-product attention: `softmax(scale * Q K^T + bias) V`, with
      the softmax as `linalg.softmax` or decomposed (max, subtract, exp, sum,
      divide), over grouped-query keys and values expanded per head
      (`repeat_kv`) → `pe.attention`.

    The patterns match what the IR computes, element by element, not how it
    is spelled: named ops and generics, broadcasts, transposes, reshapes,
    slices and concats, commuted operands and float casts all give the same
    result. They do not fire on near misses (a wrong sign, swapped halves,
    cosine and sine of different angles, a softmax over another dimension).

    Run `pe-raise` before `pe-cpu-pipeline`; hosts get the patterns from
    `populateRaiseRopePatterns`, `populateRaiseAbsoluteEncodingPatterns` and
    `populateRaiseAttentionPatterns`. When a
    rotary embedding reads its cos/sin tables from function arguments, whose
    two halves the pass cannot see, it raises only with
    `assume-duplicated-tables` (and otherwise reports a missed remark in
    category `pe-raise`).
  }];
  let options = [
    Option<"assumeDuplicatedTables", "assume-duplicated-tables", "bool",
           /*default=*/"false",
           "Assume that cos/sin tables the pass cannot see hold the same "
           "values for both channels of a rotated pair (Hugging Face's "
           "cat(freqs, freqs))">,
    Option<"recoverScaling", "recover-scaling", "bool", /*default=*/"true",
           "Replace a constant frequency table by the frequency op that "
           "computes it, when one matches">,
    Option<"tolerance", "tolerance", "double", /*default=*/"1e-5",
           "Relative tolerance of a constant frequency table against a "
           "frequency op">,
  ];
  let dependentDialects = [
    "::mlir::pe::PEDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // PE_DIALECT_PE_TRANSFORMS_PASSES_TD
