//===- PEDialect.td - Positional-encoding dialect ----------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEDIALECT_TD
#define PE_DIALECT_PE_IR_PEDIALECT_TD

include "mlir/IR/OpBase.td"

def PE_Dialect : Dialect {
  let name = "pe";
  let cppNamespace = "::mlir::pe";
  let summary = "Positional encodings of transformer models as first-class IR";
  let description = [{
    The `pe` dialect states the positional encodings (PE) of transformer
    models exactly: sinusoidal and learned absolute encodings added to
    embeddings, rotary embedding (RoPE) of queries and keys, ALiBi biases of
    attention scores, and the RoPE context-extension scalings (position
    interpolation, NTK, dynamic NTK, YaRN, Llama-3.1 `llama3`, LongRoPE). An
    attention op is the target that later passes fuse the encodings into.

    All ops work on ranked tensors with value semantics. Each op names the
    formula it implements (see `docs/PE-FORMULAS.md` in the source tree);
    where the public references disagree (sinusoidal layout, RoPE pairing,
    ALiBi distance, softcap order) the op carries an attribute that makes
    the choice explicit.
  }];
  // Tiling and decomposition create affine.apply, tensor slices and
  // linalg.transpose.
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

class PE_Op<string mnemonic, list<Trait> traits = []>
    : Op<PE_Dialect, mnemonic, traits>;

#endif // PE_DIALECT_PE_IR_PEDIALECT_TD
