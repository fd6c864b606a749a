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

    Where the bias has dynamic sizes, which could be 1 at run time and
    broadcast, a `cf.assert` checks before the op that they are the query
    and key lengths (the fused op computes every row's own bias).

    Does not fire (and reports a missed-optimization remark in category
    `pe-fuse-alibi-into-attention` saying why) when the bias has other
    users, has a head count other than the attention's or broadcasts over
    the queries or the keys.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FuseRopeIntoAttention : Pass<"pe-fuse-rope-into-attention"> {
  let summary = "Rotate queries and keys inside attention";
  let description = [{
    Moves the `pe.rope` that produces the query of a `pe.attention` (and the
    one that produces its key, when it has the same layout, rotary
    dimension, frequencies and attention scaling) into the attention's
    `rope` encoding, which rotates Q and K tiles as they are loaded. The
    frequency, table and scaling operands are compared by value: the same
    SSA value, or results of equivalent side-effect-free ops with equal
    operands (so the one table slice or frequency op `pe-raise` builds per
    rotated tensor needs no CSE first). When the
    key is not rotated (a KV cache of rotated keys) the encoding is
    `query_only` (decode). Each rope brings its own positions: an offset, or
    a `[T]` / `[B, T]` positions tensor, which becomes the encoding's
    `query_positions` / `key_positions`. A bias, a mask, an alibi encoding,
    softcap and the causal flag stay as they are.

    Does not fire (and reports a missed-optimization remark in category
    `pe-fuse-rope-into-attention` saying why) when a rope result has other
    users, when a rope takes per-token caches, when the two ropes differ, or
    when only the key is rotated.
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
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::tensor::TensorDialect",
  ];
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

def FoldAttentionLayout : Pass<"pe-fold-attention-layout"> {
  let summary = "Fold head/sequence transposes of attention operands into its layout";
  let description = [{
    Frontends hold Q, K and V as `[B, S, heads, D]` (the projections'
    output, viewed per head) and transpose them to `[B, heads, S, D]` for
    the attention, then transpose the result back (Hugging Face's
    `transpose(1, 2)` before and after `scaled_dot_product_attention`). A
    `pe.attention` in `bhsd` layout whose query, key and value are all
    transposes by the permutation `[0, 2, 1, 3]` (`linalg.transpose`, or a
    `linalg.generic` that is one) becomes the same attention in `bshd`
    layout on the transposes' sources, so that the kernels read the operands
    where they are. The result, now `[B, S, heads, Dv]`, replaces the uses
    of the old result that transpose it back by `[0, 2, 1, 3]`; any other use
    reads a `linalg.transpose` of it. The mask, the bias, the encodings and
    lse are independent of the layout and stay as they are.

    It does not fire when one or two of query, key and value are such
    transposes (the op has one layout for all three; a missed remark names
    the operands that are not), nor on a `bshd` attention.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FuseAbsolutePE : Pass<"pe-fuse-absolute-pe"> {
  let summary = "Fuse absolute encodings with their producer and consumer by tiling";
  let description = [{
    Runs on `pe.add_sinusoidal` and `pe.add_learned`, before any lowering,
    through their TilingInterface (a row tile is the same op with its
    position offset grown by the tile's first row) and the upstream
    tile-and-fuse driver (`scf::tileConsumerAndFuseProducersUsingSCF`):

    * a contraction that consumes the encoded tensor as an input (the QKV
      projection, `linalg.matmul` or `linalg.batch_matmul`) is tiled along
      the rows of that operand (`row-tile` rows, the outer row loops by 1,
      whole columns and reduction) with the encoding's row tile, and the
      encoding's elementwise producer if any, fused into the loop: the
      encoded tensor is never materialised and each element is computed
      once;
    * otherwise, an encoding whose input comes from an elementwise producer
      (an embedding gather written as a `linalg.generic`, a scale: parallel
      loops only, no other user) is tiled along its rows with the producer
      fused, so the gathered embeddings exist one row tile at a time.

    The fused encodings are `pe` op tiles, lowered later like any other.
    Does not fire, and says why in a missed-optimization remark, when the
    encoded tensor has users besides the contraction (it must exist then),
    when it is the contraction's accumulator, or when the producer has
    other users or reduction loops.
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

def InsertRuntimeChecks : Pass<"pe-insert-runtime-checks"> {
  let summary = "Check at run time the size relations the verifier cannot see";
  let description = [{
    Every `pe` op requires relations between the sizes of its operands (key
    and value of one sequence length, positions as long as the sequence, a
    cache with at least one row, a bias that broadcasts to the scores, ...).
    The verifiers prove them when both sizes are static. For each relation
    with a dynamic side, this pass inserts before the op a `cf.assert` that
    checks it, so that no input shape can make the lowered code read or
    write out of bounds; relations between static sizes produce nothing, so
    a statically shaped program is unchanged. The message names the op, its
    location and the relation. `pe-reference-pipeline` and
    `pe-cpu-pipeline` run this pass unless `runtime-checks=false`.

    The lowering of `cf.assert` decides what a failure does: upstream's
    `convert-cf-to-llvm` prints the message and calls `abort`; `pe-run`
    reports it as one `pe-run: error:` line and exits with status 1.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
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
    category `pe-raise`); the raised program then checks at run time, before
    the `pe.rope`, that the entries the two channels of each pair read are
    equal in every row of the tables, and stops with a `cf.assert` naming the
    table otherwise. Constant tables are compared at compile time (with or
    without the option): raised with no check when their halves agree, not
    raised when they differ.

    The tracer follows elementwise computations inside linalg ops; arith and
    math ops on whole tensors end a trace (a missed remark names each).
    `pe-raise-pipeline` runs `convert-elementwise-to-linalg` first, then
    `pe-raise`, `canonicalize` and `cse`.
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
    "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ShardUnfoldConstants : Pass<"pe-shard-unfold-constants"> {
  let summary = "Give non-splat tensor constants a form shard-partition accepts";
  let description = [{
    MLIR 22's `shard-partition` fails, without a diagnostic, on an
    `arith.constant` with a non-splat tensor value (a folded frequency table,
    an ALiBi slope table, a learned table), whatever its sharding. Run
    between `sharding-propagation` and `shard-partition`, this pass rewrites
    each such constant into a `tensor.from_elements` of scalar constants that
    every process computes whole (partitioning clones it), annotated as
    replicated, followed by a reshard to the constant's own sharding when
    that is split (partitioning turns it into the process's slice).
    Canonicalization folds the elements back into a constant afterwards.
    Constants of more than `max-elements` elements are reported as errors
    instead.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1048576",
           "The largest constant (in elements) that is unfolded">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ShardCheckSplits : Pass<"pe-shard-check-splits"> {
  let summary = "Report splits that shard-partition would partition wrongly";
  let description = [{
    MLIR 22's `shard-partition` does not check a sharding against its grid
    and the annotated tensor: a dimension split over a grid axis the grid
    does not have gets a block of size 0 on every process, and a static
    dimension that its number of shards does not divide (12 tokens on 5
    processes) gets blocks of `size / count` elements, silently dropping the
    rest (or, where the blocks meet a pe op's model, an upstream
    `tensor.cast` or verifier error far from the cause). This pass reports
    each as an error at the annotation:

    * a `shard.sharding` that splits a dimension over an axis its grid does
      not have, or refers to a grid that does not exist;
    * a `shard.shard` whose sharding splits more dimensions than the tensor
      has, or splits a static dimension over a number of processes that
      does not divide it.

    Dynamic dimensions and shardings with explicit `sharded_dims_offsets`
    (which state the block sizes) are not checked. `pe-shard-pipeline` runs
    it before and after `sharding-propagation`.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def ShardReplicateUnusedArguments
    : Pass<"pe-shard-replicate-unused-arguments"> {
  let summary = "Annotate unused tensor arguments as replicated";
  let description = [{
    MLIR 22's `shard-partition` reads each tensor argument's sharding from its
    single `shard.shard` user and crashes (dereferences the user of an
    argument without one) on a function with an unused tensor argument.
    For each block of a function that takes part in partitioning (one that
    contains a `shard.shard`), this pass gives every unused ranked tensor argument of
    rank 1 or more a `shard.shard` annotation replicating it on the grid of
    the block's first annotation: the argument stays in the partitioned
    function's signature, whole on every process, as an argument without an
    annotation of its own would be. Run between `sharding-propagation` and
    `shard-partition`.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

#endif // PE_DIALECT_PE_TRANSFORMS_PASSES_TD
