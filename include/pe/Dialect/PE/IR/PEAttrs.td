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

#endif // PE_DIALECT_PE_IR_PEATTRS_TD
