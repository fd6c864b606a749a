//===- PEAttrs.td - pe dialect enums and attributes --------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEATTRS_TD
#define PE_DIALECT_PE_IR_PEATTRS_TD

include "pe/Dialect/PE/IR/PEDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Sinusoidal layout
//===----------------------------------------------------------------------===//

def PE_SinusoidalLayoutInterleaved : I32EnumAttrCase<"Interleaved", 0, "interleaved">;
def PE_SinusoidalLayoutConcat : I32EnumAttrCase<"Concat", 1, "concat">;
def PE_SinusoidalLayout : I32EnumAttr<"SinusoidalLayout",
    "channel layout of a sinusoidal position encoding",
    [PE_SinusoidalLayoutInterleaved, PE_SinusoidalLayoutConcat]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pe";
}
def PE_SinusoidalLayoutAttr
    : EnumAttr<PE_Dialect, PE_SinusoidalLayout, "sinusoidal_layout">;

//===----------------------------------------------------------------------===//
// RoPE pairing layout
//===----------------------------------------------------------------------===//

def PE_RopeLayoutInterleaved : I32EnumAttrCase<"Interleaved", 0, "interleaved">;
def PE_RopeLayoutHalf : I32EnumAttrCase<"Half", 1, "half">;
def PE_RopeLayout : I32EnumAttr<"RopeLayout",
    "which channels of a head RoPE rotates together",
    [PE_RopeLayoutInterleaved, PE_RopeLayoutHalf]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pe";
}
def PE_RopeLayoutAttr : EnumAttr<PE_Dialect, PE_RopeLayout, "rope_layout">;

//===----------------------------------------------------------------------===//
// ALiBi distance term
//===----------------------------------------------------------------------===//

def PE_AlibiDistanceSymmetric : I32EnumAttrCase<"Symmetric", 0, "symmetric">;
def PE_AlibiDistanceSigned : I32EnumAttrCase<"Signed", 1, "signed">;
def PE_AlibiDistanceKey : I32EnumAttrCase<"Key", 2, "key">;
def PE_AlibiDistance : I32EnumAttr<"AlibiDistance",
    "distance term b(i, j) that ALiBi multiplies by the head slope",
    [PE_AlibiDistanceSymmetric, PE_AlibiDistanceSigned, PE_AlibiDistanceKey]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pe";
}
def PE_AlibiDistanceAttr
    : EnumAttr<PE_Dialect, PE_AlibiDistance, "alibi_distance">;

//===----------------------------------------------------------------------===//
// Softcap order
//===----------------------------------------------------------------------===//

def PE_SoftcapBeforeBias : I32EnumAttrCase<"BeforeBias", 0, "before_bias">;
def PE_SoftcapAfterBias : I32EnumAttrCase<"AfterBias", 1, "after_bias">;
def PE_SoftcapOrder : I32EnumAttr<"SoftcapOrder",
    "whether the logit softcap is applied before or after the additive bias",
    [PE_SoftcapBeforeBias, PE_SoftcapAfterBias]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pe";
}
def PE_SoftcapOrderAttr
    : EnumAttr<PE_Dialect, PE_SoftcapOrder, "softcap_order">;

//===----------------------------------------------------------------------===//
// Attention tensor layout
//===----------------------------------------------------------------------===//

def PE_AttentionLayoutBHSD : I32EnumAttrCase<"BHSD", 0, "bhsd">;
def PE_AttentionLayoutBSHD : I32EnumAttrCase<"BSHD", 1, "bshd">;
def PE_AttentionLayout : I32EnumAttr<"AttentionLayout",
    "order of the head and sequence dimensions of attention operands",
    [PE_AttentionLayoutBHSD, PE_AttentionLayoutBSHD]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pe";
}
def PE_AttentionLayoutAttr
    : EnumAttr<PE_Dialect, PE_AttentionLayout, "attention_layout">;

//===----------------------------------------------------------------------===//
// Causal alignment
//===----------------------------------------------------------------------===//

def PE_CausalBottomRight : I32EnumAttrCase<"BottomRight", 0, "bottom_right">;
def PE_CausalTopLeft : I32EnumAttrCase<"TopLeft", 1, "top_left">;
def PE_CausalAlignment : I32EnumAttr<"CausalAlignment",
    "how the causal mask aligns query rows with key columns",
    [PE_CausalBottomRight, PE_CausalTopLeft]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::pe";
}
def PE_CausalAlignmentAttr
    : EnumAttr<PE_Dialect, PE_CausalAlignment, "causal_alignment">;

//===----------------------------------------------------------------------===//
// Encodings of pe.attention
//===----------------------------------------------------------------------===//

class PE_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<PE_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def PE_RopeEncodingAttr : PE_Attr<"RopeEncoding", "rope"> {
  let summary = "the rotary embedding that a pe.attention applies";
  let description = [{
    The static part of a rotary embedding applied inside `pe.attention`:
    the channel pairing `layout` (as for `pe.rope`), the rotary dimension
    `rotary_dim` (default: the head dimension), whether the keys are rotated
    as well as the queries (`query_only` leaves the keys as given: a decode
    step whose KV cache already holds rotated keys), and the static parts of
    the query and key position offsets. The frequency source, the attention
    scaling and the dynamic offsets are operands of the attention op.

    Syntax: `#pe.rope<half>`,
    `#pe.rope<interleaved, rotary_dim = 32, query_only, query_offset = 7>`.
  }];
  let parameters = (ins
    EnumParameter<PE_RopeLayout>:$layout,
    OptionalParameter<"std::optional<int64_t>">:$rotaryDim,
    DefaultValuedParameter<"bool", "true">:$rotateKey,
    DefaultValuedParameter<"int64_t", "0">:$queryOffset,
    DefaultValuedParameter<"int64_t", "0">:$keyOffset);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def PE_AlibiEncodingAttr : PE_Attr<"AlibiEncoding", "alibi"> {
  let summary = "the ALiBi bias that a pe.attention adds to its scores";
  let description = [{
    The static part of an ALiBi bias computed inside `pe.attention`: the
    distance term (as for `pe.alibi_bias`), `max_bias` (default 8, the
    paper's slopes) and the static part of the query position offset. The
    dynamic offset is an operand of the attention op.

    Syntax: `#pe.alibi<symmetric>`, `#pe.alibi<key, max_bias = 4.0,
    query_offset = 3>`.
  }];
  let parameters = (ins
    EnumParameter<PE_AlibiDistance>:$distance,
    DefaultValuedParameter<"::llvm::APFloat", "::llvm::APFloat(8.0)">:$maxBias,
    DefaultValuedParameter<"int64_t", "0">:$queryOffset);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // PE_DIALECT_PE_IR_PEATTRS_TD
