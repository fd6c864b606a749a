//===- PEInterfaces.td - pe dialect interfaces -------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEINTERFACES_TD
#define PE_DIALECT_PE_IR_PEINTERFACES_TD

include "mlir/IR/OpBase.td"

def PE_FrequencyOpInterface : OpInterface<"FrequencyOpInterface"> {
  let cppNamespace = "::mlir::pe";
  let description = [{
    A RoPE frequency op: one entry of Hugging Face's ROPE_INIT_FUNCTIONS,
    `(config, [seq_len]) -> (inv_freq, attention_scaling)`. Its table is
    computed by the op's folder (at compile time, in f64, from its
    attributes and constant operands) and, where an operand is only known at
    run time, by its lowering. Passes ask this interface instead of listing
    the frequency ops, so a new scaling is its op, its formula, its raising
    and its tests.
  }];
  let methods = [
    InterfaceMethod<"The inv_freq result, `tensor<R/2 x f32|f64>`.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getInvFreq">,
    InterfaceMethod<"The attention_scaling result (f32).",
      "::mlir::Value", "getAttentionScaling">,
    InterfaceMethod<"The rotary dimension R: twice the table's length.",
      "int64_t", "getRotaryDim">,
  ];
}

#endif // PE_DIALECT_PE_IR_PEINTERFACES_TD
