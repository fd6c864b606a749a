//===- PEOps.td - pe dialect operations --------------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEOPS_TD
#define PE_DIALECT_PE_IR_PEOPS_TD

include "pe/Dialect/PE/IR/PEDialect.td"
include "pe/Dialect/PE/IR/PEAttrs.td"
include "pe/Dialect/PE/IR/PEInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Dialect/Linalg/IR/LinalgInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/TilingInterface.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def PE_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def PE_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def PE_FreqTensor : 1DTensorOf<[F32, F64]>;
def PE_PositionTensor : RankedTensorOf<[I32, I64]>;
def PE_MaskTensor : RankedTensorOf<[I1]>;
def PE_IndexLike : AnyTypeOf<[Index, I32, I64]>;

// Positions of the tokens of a [..., T, C] tensor. Token t sits at
//   positions[t]                        (1-D positions [T]), or
//   positions[b, t]                     (2-D positions [B, T], b = dim 0), or
//   static_offset + offset + t          (no positions operand).
def PE_PositionArgs {
  dag args = (ins Optional<PE_IndexLike>:$offset,
                  Optional<PE_PositionTensor>:$positions,
                  DefaultValuedAttr<I64Attr, "0">:$static_offset);
  string format = [{
    (`offset` `(` $offset^ `:` type($offset) `)`)?
    (`positions` `(` $positions^ `:` type($positions) `)`)?
  }];
}

//===----------------------------------------------------------------------===//
// Absolute encodings
//===----------------------------------------------------------------------===//

def PE_AddSinusoidalOp : PE_Op<"add_sinusoidal",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
     DeclareOpInterfaceMethods<TilingInterface,
         ["getIterationDomain", "getLoopIteratorTypes", "getTiledImplementation",
          "getResultTilePosition", "generateResultTileValue"]>,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
         ["reifyResultShapes"]>]> {
  let summary = "adds the sinusoidal position encoding to embeddings";
  let description = [{
    Computes `result[..., t, c] = s * input[..., t, c] + PE(p(t), c)` for an
    input of shape `[..., T, C]`, where `s = sqrt(C)` when `scale_input` is
    set (Vaswani et al., section 3.4: embeddings are multiplied by
    `sqrt(d_model)`) and `1` otherwise, and `p(t)` is the position of token
    `t` (formula sheet A1):

    * `interleaved` (Vaswani et al.; Hugging Face DistilBERT
      `create_sinusoidal_embeddings`):
      `PE(p, 2k) = sin(p * base^(-2k/C))`, `PE(p, 2k+1) = cos(p * base^(-2k/C))`.
    * `concat` (tensor2tensor; fairseq `SinusoidalPositionalEmbedding`):
      with `h = C / 2` and `w_k = exp(-k * ln(base) / (h - 1))`,
      `PE(p) = [sin(p * w) | cos(p * w)]`; an odd `C` leaves the last
      channel 0; `h = 1` uses `w_0 = 1` (fairseq divides by zero there).
      Note the exponent denominator `h - 1`, not `h`.

    Positions: token `t` is at `static_offset + offset + t`, or at
    `positions[t]` (`positions : tensor<T x iN>`) or `positions[b, t]`
    (`positions : tensor<B x T x iN>`, `b` indexing dimension 0 of the input).
    The encoding is evaluated in f64 and the sum rounded once to the element
    type. `C` must be static, from 1 to 2^20 (the channel frequencies are
    computed at compile time).

    Example:

    ```mlir
    %0 = pe.add_sinusoidal interleaved %x offset(%pos0 : index)
           {base = 10000.0 : f64} : tensor<2x?x512xf32>
    %1 = pe.add_sinusoidal concat %x positions(%p : tensor<2x16xi64>)
           {scale_input} : tensor<2x16x512xf32>
    ```
  }];
  let arguments = !con((ins PE_FloatTensor:$input,
                            PE_SinusoidalLayoutAttr:$layout,
                            DefaultValuedAttr<F64Attr, "10000.0">:$base,
                            UnitAttr:$scale_input),
                       PE_PositionArgs.args);
  let results = (outs PE_FloatTensor:$result);
  let assemblyFormat = !strconcat("$layout $input ", PE_PositionArgs.format,
                                  "attr-dict `:` type($input)");
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def PE_AddLearnedOp : PE_Op<"add_learned",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
     DeclareOpInterfaceMethods<TilingInterface,
         ["getIterationDomain", "getLoopIteratorTypes", "getTiledImplementation",
          "getResultTilePosition", "generateResultTileValue"]>,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
         ["reifyResultShapes"]>]> {
  let summary = "adds rows of a learned position table to embeddings";
  let description = [{
    Computes `result[..., t, c] = input[..., t, c] + table[p(t), c]` for an
    input of shape `[..., T, C]` and a table of shape `[P, C]` (formula sheet
    A2: GPT-2/BERT `tok_emb[ids] + pos_emb[positions]`). Positions are given
    as for `pe.add_sinusoidal`. Positions outside `[0, P)` are clamped into
    that range at run time (a deterministic result instead of an
    out-of-bounds read); when every position is known statically, an
    out-of-range position is a verification error.

    Example:

    ```mlir
    %0 = pe.add_learned %x, %wpe offset(%past : index)
           : tensor<1x?x768xf32>, tensor<1024x768xf32>
    ```
  }];
  let arguments = !con((ins PE_FloatTensor:$input, PE_FloatTensor:$table),
                       PE_PositionArgs.args);
  let results = (outs PE_FloatTensor:$result);
  let assemblyFormat = !strconcat("$input `,` $table ", PE_PositionArgs.format,
      "attr-dict `:` type($input) `,` type($table)");
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Rotary embedding
//===----------------------------------------------------------------------===//

def PE_RopeOp : PE_Op<"rope",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
     DeclareOpInterfaceMethods<TilingInterface,
         ["getIterationDomain", "getLoopIteratorTypes", "getTiledImplementation",
          "getResultTilePosition", "generateResultTileValue"]>,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
         ["reifyResultShapes"]>]> {
  let summary = "rotary position embedding (RoPE) of queries or keys";
  let description = [{
    Rotates the channels of `input : tensor<..., T, D>` pairwise by angles
    proportional to each token's position (formula sheet A3). With rotary
    dimension `R = rotary_dim` (default `D`; even, at most `D`), pair `i`
    (`0 <= i < R/2`) is

    * `(x[2i], x[2i+1])` for layout `interleaved` (GPT-J, ggml NORMAL, ONNX
      `interleaved=1`, vLLM `is_neox_style=False`), or
    * `(x[i], x[i + R/2])` for layout `half` (GPT-NeoX, Hugging Face Llama
      `rotate_half`, ggml NEOX, ONNX `interleaved=0`),

    and `(a, b)` becomes `(a*c - b*s, a*s + b*c)`. Channels `R <= c < D`
    pass through unchanged (partial rotary).

    The tokens are along dimension `sequence_dim` (default `rank - 2`, the
    `[..., T, D]` of `[B, H, T, D]`); `sequence_dim = 1` rotates
    `[B, S, H, D]` tensors (Hugging Face, vLLM) in place. It is never the
    channel dimension, and not 0 with `[B, T]` positions (whose first
    dimension is the batch, dimension 0).

    The cosine and sine come from one of two frequency sources:

    * `inv_freq(%f : tensor<R/2 x f32|f64>)`: `c = cos(p * f[i])`,
      `s = sin(p * f[i])`. The angle `p * f[i]` is formed in f64. When `%f`
      is a result of a frequency op, `f[i]` is that op's exact value (its
      formula in f64), not the value rounded to its result type; any other
      table (a function argument, a constant) is used as given. So positions
      up to 2^20 and beyond keep full f32 accuracy of the rotated values with
      a frequency op's table, f32 or f64 (Hugging Face forms the angle in f32,
      which loses up to `p * 2^-24` radians; an f32 table from elsewhere
      carries its rounding error `p * |f - f32(f)|`, about 1e-2 at 2^20).
    * `cache(%cos, %sin : tensor<P x R/2 x ...>, ...)`: `c = cos[p, i]`,
      `s = sin[p, i]`, the precomputed tables of ONNX RotaryEmbedding, vLLM
      and exported models; they may hold any values. Positions outside
      `[0, P)` are clamped.
    * per-token `cache(%cos, %sin : tensor<B x T x R/2 x ...>, ...)`:
      `c = cos[b, t, i]` for token `t` of batch `b` (dimension 0 of the
      input), the form ONNX RotaryEmbedding takes without `position_ids`
      (the frontend has gathered one row per token); no positions or
      offsets then.

    An optional `attention_scaling(%m)` (an `f32`, the YaRN / LongRoPE
    `mscale`, the second result of the frequency ops) multiplies both `c`
    and `s`, as Hugging Face, vLLM and ggml do. Because queries and keys are
    both rotated with it, attention logits grow by its square.

    Positions are given as for `pe.add_sinusoidal` (`static_offset +
    offset + t` or an explicit positions tensor); decoding with a KV cache
    uses `offset = cache length`. f16 and bf16 inputs are computed in f32
    and rounded once.

    Example (Llama 3.1: half layout, llama3 scaling, decode step):

    ```mlir
    %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
               low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
               original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
    %q1 = pe.rope half %q inv_freq(%f : tensor<64xf32>) attention_scaling(%m)
            offset(%past : index) : tensor<1x32x1x128xf32>
    ```
  }];
  let arguments = !con((ins PE_FloatTensor:$input,
                            Optional<PE_FreqTensor>:$inv_freq,
                            Optional<PE_FloatTensor>:$cos_cache,
                            Optional<PE_FloatTensor>:$sin_cache,
                            Optional<F32>:$attention_scaling,
                            PE_RopeLayoutAttr:$layout,
                            OptionalAttr<I64Attr>:$rotary_dim,
                            OptionalAttr<I64Attr>:$sequence_dim),
                       PE_PositionArgs.args);
  let results = (outs PE_FloatTensor:$result);
  let assemblyFormat = [{
    $layout $input
    (`inv_freq` `(` $inv_freq^ `:` type($inv_freq) `)`)?
    (`cache` `(` $cos_cache^ `,` $sin_cache `:` type($cos_cache) `,`
      type($sin_cache) `)`)?
    (`attention_scaling` `(` $attention_scaling^ `)`)?
  }] # !strconcat(PE_PositionArgs.format, "attr-dict `:` type($input)");
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The number of rotated channels R (rotary_dim, or the head dim).
    int64_t getRotaryDimOrHeadDim();
    /// The rotation this op applies.
    Rotation getRotation();
    /// The dimension of the tokens: sequence_dim, or rank - 2.
    int64_t getSequenceDimOrDefault() {
      if (std::optional<uint64_t> d = getSequenceDim())
        return static_cast<int64_t>(*d);
      return getInput().getType().getRank() - 2;
    }
    /// True with [B, T, R/2] caches: one cos/sin row per token.
    bool hasPerTokenCaches() {
      return getCosCache() &&
             cast<RankedTensorType>(getCosCache().getType()).getRank() == 3;
    }
  }];
}

//===----------------------------------------------------------------------===//
// RoPE frequencies and context-extension scalings
//===----------------------------------------------------------------------===//

class PE_FrequencyOp<string mnemonic, list<Trait> traits = []>
    : PE_Op<mnemonic, !listconcat([Pure, PE_FrequencyOpInterface], traits)> {
  let results = (outs PE_FreqTensor:$inv_freq, F32:$attention_scaling);
  let hasFolder = 1;
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The rotary dimension R: twice the length of the inv_freq result.
    int64_t getRotaryDim() {
      return 2 * getInvFreq().getType().getDimSize(0);
    }
  }];
  // The one canonicalization of every frequency op (FrequencyWidening.cpp).
  let extraClassDefinition = [{
    void $cppClass::getCanonicalizationPatterns(
        ::mlir::RewritePatternSet &results, ::mlir::MLIRContext *) {
      ::mlir::pe::addWidenRopeFrequencyTablePattern(results);
    }
  }];
  // Every frequency op is one entry of Hugging Face's ROPE_INIT_FUNCTIONS:
  // (config, [seq_len]) -> (inv_freq, attention_scaling).
  string commonDescription = [{
    Results: `inv_freq : tensor<R/2 x f32|f64>`, whose length fixes the
    rotary dimension `R`, and `attention_scaling : f32`, the factor that
    `pe.rope` multiplies cos and sin by. Values are computed in f64 and
    rounded once to the result type; but a `pe.rope` or `pe.attention` rope
    encoding that takes `inv_freq` forms its angles from the exact f64 values
    whatever the result type (canonicalization turns an `f32` table whose
    only uses are such operands into an `f64` one). The op folds to constants
    when all its operands are constants. The table has at most 65536 entries
    (it is computed at compile time).
  }];
}

def PE_RopeFrequenciesOp : PE_FrequencyOp<"rope_frequencies"> {
  let summary = "default RoPE inverse frequencies base^(-2i/R)";
  let description = [{
    `inv_freq[i] = base^(-2i/R)`, `attention_scaling = 1` (formula sheet
    A3; Hugging Face `_compute_default_rope_parameters`, ggml
    `theta_scale = powf(freq_base, -2.0f/n_dims)`).
  }] # commonDescription # [{
    Example:

    ```mlir
    %inv, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "10000.0">:$base);
  let assemblyFormat = "attr-dict `:` type($inv_freq)";
}

def PE_LinearScaleOp : PE_FrequencyOp<"linear_scale"> {
  let summary = "RoPE position interpolation (linear scaling)";
  let description = [{
    `inv_freq[i] = base^(-2i/R) / factor`, `attention_scaling = 1`
    (formula sheet A4.1; equivalent to dividing positions by `factor`).
    `factor >= 1`.
  }] # commonDescription # [{
    Example:

    ```mlir
    %inv, %one = pe.linear_scale {factor = 4.0 : f64} : tensor<64xf32>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       F64Attr:$factor);
  let assemblyFormat = "attr-dict `:` type($inv_freq)";
}

def PE_NtkScaleOp : PE_FrequencyOp<"ntk_scale"> {
  let summary = "static NTK-aware RoPE scaling";
  let description = [{
    `base' = base * factor^(R/(R-2))`, `inv_freq[i] = base'^(-2i/R)`,
    `attention_scaling = 1` (formula sheet A4.2; older Hugging Face
    `_compute_ntk_parameters`, vLLM `rope_type="ntk"`). `factor >= 1`,
    `R > 2`.
  }] # commonDescription # [{
    Example:

    ```mlir
    %inv, %one = pe.ntk_scale {factor = 2.0 : f64} : tensor<64xf32>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       F64Attr:$factor);
  let assemblyFormat = "attr-dict `:` type($inv_freq)";
}

def PE_DynamicNtkScaleOp : PE_FrequencyOp<"dynamic_ntk_scale"> {
  let summary = "dynamic NTK RoPE scaling, driven by the sequence length";
  let description = [{
    With `L = max_position_embeddings` and the current sequence length
    `seq_len` (a run-time operand; Hugging Face uses `max(position_ids) + 1`):
    `s = max(seq_len, L)`,
    `base' = base * ((factor * s / L) - (factor - 1))^(R/(R-2))`,
    `inv_freq[i] = base'^(-2i/R)`, `attention_scaling = 1` (formula sheet
    A4.3, Hugging Face form). For `seq_len <= L` this is the default table.
  }] # commonDescription # [{
    Example:

    ```mlir
    %inv, %one = pe.dynamic_ntk_scale %len : index
                   {factor = 2.0 : f64, max_position_embeddings = 4096 : i64}
                   : tensor<64xf32>
    ```
  }];
  let arguments = (ins PE_IndexLike:$seq_len,
                       DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       F64Attr:$factor,
                       I64Attr:$max_position_embeddings);
  let assemblyFormat =
      "$seq_len `:` type($seq_len) attr-dict `:` type($inv_freq)";
}

def PE_YarnScaleOp : PE_FrequencyOp<"yarn_scale"> {
  let summary = "YaRN RoPE scaling (NTK-by-parts with attention scaling)";
  let description = [{
    The newest Hugging Face `_compute_yarn_parameters` (formula sheet A4.4),
    with `L = original_max_position_embeddings`:

    * `fcd(n) = R * ln(L / (2*pi*n)) / (2 * ln(base))`;
      `low = fcd(beta_fast)`, `high = fcd(beta_slow)`; if `truncate`:
      `low = floor(low)`, `high = ceil(high)`; then `low = max(low, 0)`,
      `high = min(high, R - 1)`.
    * `ramp[i] = clamp((i - low) / (high - low), 0, 1)` (`high += 0.001`
      when `low == high`); `w = 1 - ramp[i]`.
    * `inv_freq[i] = base^(-2i/R) / factor * (1 - w) + base^(-2i/R) * w`.
    * `attention_scaling = attention_factor` if given; else, when both
      `mscale` and `mscale_all_dim` are given and non-zero (Python
      truthiness, as in Hugging Face),
      `get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)`;
      else `get_mscale(factor) = 0.1 * ln(factor) + 1`, where
      `get_mscale(s, m) = s <= 1 ? 1 : 0.1 * m * ln(s) + 1`.

    `factor >= 1`, `base > 0` and `base != 1`, `beta_fast, beta_slow > 0`,
    `L > 0`.
  }] # commonDescription # [{
    Example (Qwen2-style YaRN, factor 4 over 32k):

    ```mlir
    %inv, %m = pe.yarn_scale {base = 1000000.0 : f64, factor = 4.0 : f64,
                 original_max_position_embeddings = 32768 : i64}
                 : tensor<64xf32>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       F64Attr:$factor,
                       I64Attr:$original_max_position_embeddings,
                       DefaultValuedAttr<F64Attr, "32.0">:$beta_fast,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta_slow,
                       OptionalAttr<F64Attr>:$mscale,
                       OptionalAttr<F64Attr>:$mscale_all_dim,
                       OptionalAttr<F64Attr>:$attention_factor,
                       DefaultValuedAttr<BoolAttr, "true">:$truncate);
  let assemblyFormat = "attr-dict `:` type($inv_freq)";
}

def PE_Llama3ScaleOp : PE_FrequencyOp<"llama3_scale"> {
  let summary = "Llama 3.1 RoPE scaling";
  let description = [{
    Hugging Face `_compute_llama3_parameters` (formula sheet A4.6), with
    `L = original_max_position_embeddings`, `inv = base^(-2i/R)` and
    `wavelen = 2*pi / inv`:

    * `wavelen < L / high_freq_factor` (high frequency): `inv` unchanged;
    * `wavelen > L / low_freq_factor` (low frequency): `inv / factor`;
    * otherwise, with `smooth = (L / wavelen - low_freq_factor) /
      (high_freq_factor - low_freq_factor)`:
      `(1 - smooth) * inv / factor + smooth * inv`.

    `attention_scaling = 1`. When `low_freq_factor == high_freq_factor` the
    medium band is empty (vLLM's special case), so no division by zero
    occurs. `factor >= 1`, `0 < low_freq_factor <= high_freq_factor`,
    `L > 0`.
  }] # commonDescription # [{
    Example (Llama 3.1 defaults):

    ```mlir
    %inv, %one = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
                   low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
                   original_max_position_embeddings = 8192 : i64}
                   : tensor<64xf32>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       F64Attr:$factor,
                       F64Attr:$low_freq_factor,
                       F64Attr:$high_freq_factor,
                       I64Attr:$original_max_position_embeddings);
  let assemblyFormat = "attr-dict `:` type($inv_freq)";
}

def PE_LongRopeScaleOp : PE_FrequencyOp<"longrope_scale"> {
  let summary = "LongRoPE (Phi-3) RoPE scaling with short and long factors";
  let description = [{
    Hugging Face `_compute_longrope_parameters` (formula sheet A4.5), with
    `L = original_max_position_embeddings`:

    * `ext = long_factor` if `seq_len` is given and `seq_len > L`, else
      `short_factor` (both of length `R/2`, positive);
    * `inv_freq[i] = 1 / (ext[i] * base^(2i/R))`;
    * `f = factor`, or `max_position_embeddings / L` when absent;
      `attention_scaling = attention_factor` if given, else
      `f <= 1 ? 1 : sqrt(1 + ln(f) / ln(L))`.

    `seq_len` is the current sequence length, a run-time operand (Hugging
    Face switches at `max(position_ids) + 1 > L`); without it the short
    factors are used.
  }] # commonDescription # [{
    Example:

    ```mlir
    %inv, %m = pe.longrope_scale %len : index {
                 short_factor = array<f64: 1.0, 1.0>,
                 long_factor = array<f64: 1.5, 4.0>,
                 original_max_position_embeddings = 4096 : i64,
                 max_position_embeddings = 131072 : i64} : tensor<2xf32>
    ```
  }];
  let arguments = (ins Optional<PE_IndexLike>:$seq_len,
                       DefaultValuedAttr<F64Attr, "10000.0">:$base,
                       DenseF64ArrayAttr:$short_factor,
                       DenseF64ArrayAttr:$long_factor,
                       I64Attr:$original_max_position_embeddings,
                       I64Attr:$max_position_embeddings,
                       OptionalAttr<F64Attr>:$factor,
                       OptionalAttr<F64Attr>:$attention_factor);
  let assemblyFormat = [{
    ($seq_len^ `:` type($seq_len))? attr-dict `:` type($inv_freq)
  }];
}

//===----------------------------------------------------------------------===//
// ALiBi
//===----------------------------------------------------------------------===//

def PE_AlibiBiasOp : PE_Op<"alibi_bias",
    [Pure, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<TilingInterface,
         ["getIterationDomain", "getLoopIteratorTypes", "getTiledImplementation",
          "getResultTilePosition", "generateResultTileValue"]>,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
         ["reifyResultShapes"]>]> {
  let summary = "the ALiBi attention bias of every head";
  let description = [{
    Produces `bias : tensor<H x Tq x Tk>` with `bias[h, i, j] = m_h * b(i, j)`
    (formula sheet A5), where query `i` is at position `q = static_offset +
    offset + i` and key `j` at position `j`, and the distance term is

    * `symmetric`: `b = -|q - j|` (llama.cpp);
    * `signed`: `b = j - q` (FlashInfer, attention-gym);
    * `key`: `b = j` (BLOOM, the ALiBi paper's fairseq code).

    The three agree under a causal mask (softmax is invariant to a per-row
    shift) and differ otherwise. The slopes `m_h` are the ALiBi paper's
    (`get_slopes`, any head count), generalised by `max_bias` as in ggml:
    `n = 2^floor(log2 H)`, `m_h = 2^(-max_bias (h+1) / n)` for `h < n`, else
    `2^(-max_bias (2(h-n)+1) / (2n))`; `max_bias = 8` is the paper. An
    explicit `slopes(%s : tensor<H x f32>)` operand replaces them. `H` must
    be static, and at most 65536 without `slopes` (the slopes are computed
    at compile time); dynamic `Tq`/`Tk` take their sizes from the bracketed index
    operands, in order.

    Example:

    ```mlir
    %b = pe.alibi_bias symmetric [%tq, %tk] : tensor<12x?x?xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes,
                       Optional<PE_FreqTensor>:$slopes,
                       Optional<PE_IndexLike>:$offset,
                       PE_AlibiDistanceAttr:$distance,
                       DefaultValuedAttr<F64Attr, "8.0">:$max_bias,
                       DefaultValuedAttr<I64Attr, "0">:$static_offset);
  let results = (outs PE_FloatTensor:$result);
  let assemblyFormat = [{
    $distance (`[` $dynamic_sizes^ `]`)?
    (`slopes` `(` $slopes^ `:` type($slopes) `)`)?
    (`offset` `(` $offset^ `:` type($offset) `)`)?
    attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def PE_AttentionOp : PE_Op<"attention",
    [Pure, AttrSizedOperandSegments, DestinationStyleOpInterface,
     DeclareOpInterfaceMethods<AggregatedOpInterface, ["decomposeOperation"]>,
     DeclareOpInterfaceMethods<TilingInterface,
         ["getIterationDomain", "getLoopIteratorTypes", "getTiledImplementation",
          "getResultTilePosition", "generateResultTileValue"]>,
     DeclareOpInterfaceMethods<PartialReductionOpInterface,
         ["generateInitialTensorForPartialReduction", "tileToPartialReduction",
          "mergeReductions", "getPartialResultTilePosition"]>,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
         ["reifyResultShapes"]>]> {
  let summary = "scaled dot-product attention with its positional encodings";
  let description = [{
    For `query : [B, H, Tq, D]`, `key : [B, Hkv, Tk, D]` and
    `value : [B, Hkv, Tk, Dv]` with `H % Hkv == 0` (multi-head, grouped-query
    and multi-query attention; head `h` reads KV head `h / (H / Hkv)`):

    ```
    q' = RoPE(query) at positions Pq(b, i)     if rope
    k' = RoPE(key)   at positions Pk(b, j)     if rope and not query_only
    s[b,h,i,j] = scale * sum_d q'[b,h,i,d] * k'[b,h/g,j,d]
    s = softcap * tanh(s / softcap)       if softcap and softcap_order = before_bias
    s = s + bias[b,h,i,j]                 if bias
    s = s + m_h * dist(ao + i, j)         if alibi
    s = softcap * tanh(s / softcap)       if softcap and softcap_order = after_bias
    allowed(b,h,i,j) = mask[b,h,i,j]      if mask
                   and j < L[b]           L[b] = kv_lengths[b] clamped to [0, Tk], or Tk
                   and j <= i + o[b]      if causal
                   and j > i + o[b] - W   if window = W
    result[b,h,i,:] = sum_j softmax_j(s over allowed j) * value[b,h/g,j,:]
    ```

    * `H`, `Hkv` and `D` are at least 1; with an `alibi` encoding and no
      explicit slopes, `H` is at most 65536 (the slopes are computed at
      compile time).
    * `scale` defaults to `1 / sqrt(D)`.
    * **Causal alignment** `o[b]`, the key column of query row 0's own
      position, is the alignment's base plus the optional `causal_offset(%c)`
      operand (default 0): `causal_alignment = bottom_right` (the default)
      has base `L[b] - Tq`, the ONNX `is_causal` convention with a KV cache:
      the last query sees every valid key, and with `Tq < Tk` the queries
      are the last `Tq` tokens of the sequence; `top_left` has base 0
      (PyTorch `is_causal`, ONNX without a cache), so `top_left` with
      `causal_offset(%past)` states "query `i` is token `past + i`" for a
      cache whose entries beyond the current tokens are padding. A tile of
      query rows `[r, r + t)` of the op is the op on that tile with
      `causal_offset` increased by `r` (top-left) or `r + t - Tq`
      (bottom-right), which is how the tiling interface expresses it.
    * **Valid KV length** `kv_lengths(%l : tensor<B x i32|i64>)`: keys
      `j >= L[b]` of batch `b` are padding (ONNX `nonpad_kv_seqlen`,
      FlashAttention `seqlens_k`); values outside `[0, Tk]` are clamped.
    * **Sliding window** `window = W` (requires `causal`): a query sees
      only the `W` most recent keys up to its own position, itself included
      (Mistral and Gemma-2 `sliding_window`; FlashAttention's left window
      `W - 1`).
    * No mask tensor is needed for any of these; kernels compute them from
      indices.
    * **Log-sum-exp** (optional second result `lse : tensor<B x H x Tq x
      f32>`, f64 for f64 inputs, `[B, H, Tq]` in either layout): the
      natural logarithm of each row's softmax denominator over its allowed
      keys, `log sum_j exp(s[b,h,i,j])` (`-inf` for a row with no allowed
      key), FlashAttention's `softmax_lse`. Two attentions over disjoint key
      sets combine into the attention over their union as
      `lse = log(exp(lse1) + exp(lse2))`,
      `result = exp(lse1 - lse) * result1 + exp(lse2 - lse) * result2`:
      split-KV decoding and key-sequence sharding.
    * **Destinations** (DestinationStyleOpInterface, like `linalg` ops and
      `iree_linalg_ext.attention`): `outs(%init : T)`, or `outs(%init,
      %lse_init : T, Tlse)` with the lse result, one per result and of the
      result's type. The op overwrites every element and never reads them;
      a tile of the op writes the tile of its destinations, and a lowering
      may write into them or into a buffer of its own. The builder without
      destinations creates `tensor.empty`s of the result types.
    * **Tiling** (TilingInterface, PartialReductionOpInterface): the loops
      are the result's dimensions in its layout's order (parallel), then the
      keys (a reduction). A tile of keys `[j0, j0 + n)` is this op on those
      keys with key positions shifted by `j0` (rope `key_offset + j0` or
      the tile's slice of `key_positions`, ALiBi query offset `- j0`, causal
      offset `- j0`, `kv_lengths` `max(L, 0) - j0`; a tile of query rows
      takes its slice of `query_positions`), and key tiles combine through
      their lse as above
      (`transform.structured.tile_reduction_using_for`; docs/PE.md).
    * **Layout** `layout = bshd` takes query, key, value and result as
      `[B, S, heads, D]` (Hugging Face, vLLM and FlashAttention hold them so)
      instead of `[B, heads, S, D]`; everything above is unchanged (the bias
      and the mask still broadcast to `[B, H, Tq, Tk]`), and the generated
      kernels read the operands where they are, without transposing them.
    * `bias` (any float type) and `mask` (`i1`, true = may attend, as
      PyTorch `scaled_dot_product_attention`) broadcast numpy-style to
      `[B, H, Tq, Tk]`: rank 2 to 4, each dimension equal or 1.
    * `softcap_order` makes explicit the choice the references disagree on:
      ggml and ONNX cap before the bias (`before_bias`, the default),
      FlashInfer after it.
    * A row whose keys are all disallowed produces 0 (ONNX opset 24), not
      NaN.
    * **NaN and infinities** follow IEEE arithmetic into the rows that see
      them and no further, in every lowering: a NaN or `+inf` score (from
      `query`, `key`, `bias` or the encodings) makes its row NaN; a `-inf`
      score (a bias used as an additive mask) disallows its key; a NaN or
      infinity in the value row of key `j` reaches exactly the rows that
      see `j` (a disallowed key adds nothing, not `0 * v`). Other rows,
      heads and batches are unaffected.

    **Encodings.** The positional encodings that act on attention are
    structured parts of the op, so that a lowering computes them where it
    loads Q and K tiles and never writes rotated queries and keys or an
    `[H, Tq, Tk]` bias to memory:

    * `rope #pe.rope<...>` with a frequency source (`inv_freq(...)` or
      `cache(...)`), an optional `attention_scaling(...)` and the positions
      of the query rows and of the keys. It means exactly `pe.rope` of the
      query (and, unless `query_only`, of the key) with that layout, rotary
      dimension and frequencies, at positions `Pq(b, i)` and `Pk(b, j)`:
      * by default, offsets: `Pq(b, i) = qo + i` with
        `qo = query_offset (static) + query_offset (operand)`, and likewise
        `Pk(b, j) = ko + j`;
      * with a positions tensor `query_positions(%p : tensor<Tq x iN>)`
        (`Pq(b, i) = p[i]`) or `query_positions(%p : tensor<B x Tq x iN>)`
        (`Pq(b, i) = p[b, i]`), `iN` = i32 or i64, as `pe.rope`'s
        `positions` operand (Hugging Face `position_ids`, vLLM's positions
        under continuous batching); `key_positions(...)` with `Tk` likewise
        (not with `query_only`). A positions tensor excludes both offsets
        of its side (the static and the dynamic one); a cache clamps its
        positions to the table, as `pe.rope` does.

      The positions tensors move the rotation only: the causal mask, the
      sliding window and ALiBi stay defined by the row and key indices `i`
      and `j` (and their offsets) as above.
    * `alibi #pe.alibi<...>` with an optional dynamic `alibi_offset(...)`
      and optional explicit `alibi_slopes(%s : tensor<H x f32|f64>)`
      (replacing the paper's slopes from `max_bias`, as for
      `pe.alibi_bias`; a tile of heads carries its slice of the table):
      exactly the `pe.alibi_bias` with that distance term and `max_bias`, at
      query offset `ao = query_offset (static) + alibi_offset (operand)`,
      added in the place of `bias` (the two are exclusive).

    The op with encodings and the composition of the separate `pe.rope`,
    `pe.alibi_bias` and an encoding-free `pe.attention` are the same
    function; `decomposeOperation` (AggregatedOpInterface) builds that
    composition and the reference lowering lowers through it. One difference
    is allowed: for f16 and bf16 inputs the rotated queries and keys may stay
    in f32 instead of being rounded to the element type before the dot
    products, so results may differ from the composition by about one unit
    in the last place of the element type. The math runs in f32 (f64 for
    f64 inputs); the result has the element type of `query`, or f32 for f16
    and bf16 inputs (the f32 result, not rounded to the input type). `key` and
    `value` have the query's element type, or, under an f32 query, both f16
    or both bf16: a half-precision KV cache read by f32 attention (the
    llama.cpp default), whose values are widened exactly to f32.

    **bf16 dot products.** With bf16 `query`, `key` and `value` (bf16 or f32
    result), a lowering may form both products from bf16 pairs with f32
    accumulation, as AVX512-BF16 `vdpbf16ps` does (the generated CPU kernel
    on targets that have it). What is rounded to bf16 then:

    * the queries and keys entering `Q K^T`: the inputs as given, or, with
      `rope`, the rotated values (as the composition's bf16 `pe.rope` rounds
      them); `scale` multiplies the f32 scores, not the queries;
    * the softmax weights `P = exp(s - max)` (computed in f32) before
      `P V`; the row sum `sum_j P` that divides the result is the f32 sum of
      the unrounded weights.

    Values are not rounded (they are bf16). Rounding `P` moves each weight
    by at most `2^-9` of itself, so the result may differ from the f32 math
    on the same inputs by up to `2^-9 max_j |value[j]|` over the keys its row
    sees (plus f32 rounding, and the final rounding for a bf16 result);
    bf16 subnormals may be flushed to zero. The reference lowering rounds
    neither; a NaN or infinity still reaches exactly the rows that see it.

    The fusion patterns (`pe-fuse-encodings-into-attention`) move separate
    `pe.rope` and `pe.alibi_bias` producers into the op.

    Example (GQA with a causal mask and an ALiBi bias, and a Llama prefill
    with RoPE on Q and K):

    ```mlir
    %init = tensor.empty(%tq) : tensor<1x32x?x128xf16>
    %o = pe.attention %q, %k, %v bias(%b : tensor<32x?x?xf32>)
           outs(%init : tensor<1x32x?x128xf16>) {causal}
           : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>,
             tensor<1x8x?x128xf16> -> tensor<1x32x?x128xf16>
    %r, %lse = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<64xf64>)
           outs(%init32, %lse_init : tensor<1x32x?x128xf32>, tensor<1x32x?xf32>)
           {causal}
           : tensor<1x32x?x128xf32>, tensor<1x8x?x128xf32>,
             tensor<1x8x?x128xf32> -> tensor<1x32x?x128xf32>, tensor<1x32x?xf32>
    ```
  }];
  let arguments = (ins PE_FloatTensor:$query,
                       PE_FloatTensor:$key,
                       PE_FloatTensor:$value,
                       Optional<PE_FloatTensor>:$bias,
                       Optional<PE_MaskTensor>:$mask,
                       Optional<1DTensorOf<[I32, I64]>>:$kv_lengths,
                       Optional<PE_IndexLike>:$causal_offset,
                       Optional<PE_FreqTensor>:$inv_freq,
                       Optional<PE_FloatTensor>:$cos_cache,
                       Optional<PE_FloatTensor>:$sin_cache,
                       Optional<F32>:$attention_scaling,
                       Optional<PE_IndexLike>:$query_offset,
                       Optional<PE_IndexLike>:$key_offset,
                       Optional<PE_PositionTensor>:$query_positions,
                       Optional<PE_PositionTensor>:$key_positions,
                       Optional<PE_IndexLike>:$alibi_offset,
                       Optional<PE_FreqTensor>:$alibi_slopes,
                       Variadic<AnyRankedTensor>:$outs,
                       OptionalAttr<PE_RopeEncodingAttr>:$rope,
                       OptionalAttr<PE_AlibiEncodingAttr>:$alibi,
                       OptionalAttr<F64Attr>:$scale,
                       UnitAttr:$causal,
                       DefaultValuedAttr<PE_CausalAlignmentAttr,
                           "::mlir::pe::CausalAlignment::BottomRight">
                           :$causal_alignment,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<PE_AttentionLayoutAttr,
                           "::mlir::pe::AttentionLayout::BHSD">:$layout,
                       OptionalAttr<F64Attr>:$softcap,
                       DefaultValuedAttr<PE_SoftcapOrderAttr,
                           "::mlir::pe::SoftcapOrder::BeforeBias">
                           :$softcap_order);
  let results = (outs PE_FloatTensor:$result,
                      Optional<RankedTensorOf<[F32, F64]>>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`kv_lengths` `(` $kv_lengths^ `:` type($kv_lengths) `)`)?
    (`causal_offset` `(` $causal_offset^ `:` type($causal_offset) `)`)?
    (`rope` $rope^)?
    (`inv_freq` `(` $inv_freq^ `:` type($inv_freq) `)`)?
    (`cache` `(` $cos_cache^ `,` $sin_cache `:` type($cos_cache) `,`
      type($sin_cache) `)`)?
    (`attention_scaling` `(` $attention_scaling^ `)`)?
    (`query_offset` `(` $query_offset^ `:` type($query_offset) `)`)?
    (`key_offset` `(` $key_offset^ `:` type($key_offset) `)`)?
    (`query_positions` `(` $query_positions^ `:` type($query_positions) `)`)?
    (`key_positions` `(` $key_positions^ `:` type($key_positions) `)`)?
    (`alibi` $alibi^)?
    (`alibi_offset` `(` $alibi_offset^ `:` type($alibi_offset) `)`)?
    (`alibi_slopes` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    `outs` `(` $outs `:` type($outs) `)`
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->`
    type($result) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let builders = [
    // The plain attention of `query`, `key` and `value` in `layout` into
    // `tensor.empty` destinations of the result types (buildInits);
    // `lseType` null for no lse. Set the other operands and attributes on
    // the op afterwards.
    OpBuilder<(ins "Type":$resultType, "Type":$lseType, "Value":$query,
      "Value":$key, "Value":$value,
      CArg<"AttentionLayout", "AttentionLayout::BHSD">:$layout)>
  ];
  let extraClassDeclaration = [{
    /// The tensor.empty destinations for results of types `resultType` and
    /// (when non-null) `lseType` of an attention on `query` and `value` in
    /// `layout`: the query's sizes with the value's channel count, and the
    /// query's batch, heads and rows for lse.
    static SmallVector<Value> buildInits(OpBuilder &b, Location loc,
                                         Type resultType, Type lseType,
                                         Value query, Value value,
                                         AttentionLayout layout);
    /// DestinationStyleOpInterface: `outs`, one destination per result
    /// (the result's, then lse's).
    MutableOperandRange getDpsInitsMutable() { return getOutsMutable(); }
    /// The result's destination (null only in IR that fails to verify).
    Value getOutInit() {
      return getOuts().empty() ? Value() : getOuts().front();
    }
    /// lse's destination, null without lse.
    Value getLseInit() {
      return getOuts().size() > 1 ? getOuts()[1] : Value();
    }
    MutableOperandRange getOutInitMutable() {
      return getOutsMutable().slice(0, getOuts().empty() ? 0 : 1);
    }
    MutableOperandRange getLseInitMutable() {
      return getOutsMutable().slice(getOuts().empty() ? 0 : 1,
                                    getOuts().size() > 1 ? 1 : 0);
    }
    /// Sets the destinations: `out` and, when non-null, `lse` (the op then
    /// needs an lse result of its type).
    void setInits(Value out, Value lse) {
      SmallVector<Value, 2> inits = {out};
      if (lse)
        inits.push_back(lse);
      getOutsMutable().assign(inits);
    }
    /// The softmax scale: the attribute, or 1/sqrt(D).
    double getScaleOrDefault();
    /// The axes of the heads and of the sequence in query, key, value and
    /// result: 1 and 2 for bhsd, 2 and 1 for bshd.
    int64_t getHeadsAxis() {
      return getLayout() == AttentionLayout::BSHD ? 2 : 1;
    }
    int64_t getSequenceAxis() { return 3 - getHeadsAxis(); }
    /// The position of a (batch, head, token, channel) index in an operand
    /// of this layout.
    SmallVector<int64_t> getOperandPermutation() {
      if (getLayout() == AttentionLayout::BSHD)
        return {0, 2, 1, 3};
      return {0, 1, 2, 3};
    }
    /// True when the op applies RoPE or ALiBi itself.
    bool hasEncodings() { return getRopeAttr() || getAlibiAttr(); }
    /// The rotation of the rope encoding (std::nullopt without one).
    std::optional<Rotation> getRotation();
    /// True when the rope encoding rotates the keys as well.
    bool rotatesKey() { return getRopeAttr() && getRopeAttr().getRotateKey(); }
    /// Positions of the first query / key token for RoPE, and of the first
    /// query token for ALiBi. The RoPE offsets are meaningless (zero) where
    /// query_positions / key_positions give the positions instead.
    PositionOffset getRopeQueryOffset();
    PositionOffset getRopeKeyOffset();
    PositionOffset getAlibiQueryOffset();
    /// Builds, on scalars or vectors alike, what the op does to a raw score
    /// `score` (scale already applied) of the query at position `queryPos`
    /// and the key at position `keyPos` (floats of the score's type): the
    /// softcap in its order around the ALiBi term `slope * distance`. The
    /// positions and the slope may be null without an alibi encoding. The
    /// generated kernels share it, so the order is stated once.
    Value buildScoreModifiers(OpBuilder &b, Location loc, Value score,
                              Value queryPos, Value keyPos, Value slope);
  }];
}

#endif // PE_DIALECT_PE_IR_PEOPS_TD
