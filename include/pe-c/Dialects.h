/*===- pe-c/Dialects.h - C API for the pe dialect -----------------*- C -*-===*\
|*                                                                            *|
|* Part of the pe-mlir project.                                               *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|* The pe dialect handle, the dialects and interfaces its pipelines need, and *|
|* constructors and accessors of its attributes, for frontends that build pe  *|
|* IR through MLIR's C API (ops themselves are built with                     *|
|* mlirOperationCreate, as for every dialect).                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PE_C_DIALECTS_H
#define PE_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(PE, pe);

/// Inserts into `registry` the pe dialect and every dialect and external
/// interface model (bufferization, buffer deallocation, tiling) that
/// pe-cpu-pipeline and pe-reference-pipeline need, for hosts that do not
/// register all of MLIR.
MLIR_CAPI_EXPORTED void
mlirPERegisterPipelineDialects(MlirDialectRegistry registry);

/// mlirPERegisterPipelineDialects plus what pe-gpu-pipeline needs (the gpu,
/// nvvm and spirv dialects, the GPU target models, the conversion
/// interfaces and LLVM IR translations of gpu-module-to-binary).
MLIR_CAPI_EXPORTED void
mlirPERegisterGPUPipelineDialects(MlirDialectRegistry registry);

// The attribute constructors below load the pe dialect into the context if
// it is not loaded yet (it must be registered or loadable: see
// mlirDialectHandleInsertDialect / mlirPERegisterPipelineDialects).

//===----------------------------------------------------------------------===//
// Enums (the values of the C++ enums in pe/Dialect/PE/IR/PEEnums.h.inc)
//===----------------------------------------------------------------------===//

typedef enum MlirPESinusoidalLayout {
  MlirPESinusoidalLayoutInterleaved = 0,
  MlirPESinusoidalLayoutConcat = 1,
} MlirPESinusoidalLayout;

typedef enum MlirPERopeLayout {
  MlirPERopeLayoutInterleaved = 0,
  MlirPERopeLayoutHalf = 1,
} MlirPERopeLayout;

typedef enum MlirPEAlibiDistance {
  MlirPEAlibiDistanceSymmetric = 0,
  MlirPEAlibiDistanceSigned = 1,
  MlirPEAlibiDistanceKey = 2,
} MlirPEAlibiDistance;

typedef enum MlirPESoftcapOrder {
  MlirPESoftcapOrderBeforeBias = 0,
  MlirPESoftcapOrderAfterBias = 1,
} MlirPESoftcapOrder;

typedef enum MlirPECausalAlignment {
  MlirPECausalAlignmentBottomRight = 0,
  MlirPECausalAlignmentTopLeft = 1,
} MlirPECausalAlignment;

/// Enum attributes: `#pe<sinusoidal_layout concat>`, `#pe<rope_layout half>`,
/// `#pe<alibi_distance key>`, `#pe<softcap_order after_bias>`,
/// `#pe<causal_alignment top_left>`. The getters return the enum value of an
/// attribute of that kind (check with the mlirAttributeIsAPE* functions).
MLIR_CAPI_EXPORTED MlirAttribute
mlirPESinusoidalLayoutAttrGet(MlirContext ctx, MlirPESinusoidalLayout value);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPESinusoidalLayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPESinusoidalLayout
mlirPESinusoidalLayoutAttrGetValue(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute
mlirPERopeLayoutAttrGet(MlirContext ctx, MlirPERopeLayout value);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPERopeLayout(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPERopeLayout
mlirPERopeLayoutAttrGetValue(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute
mlirPEAlibiDistanceAttrGet(MlirContext ctx, MlirPEAlibiDistance value);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPEAlibiDistance(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPEAlibiDistance
mlirPEAlibiDistanceAttrGetValue(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute
mlirPESoftcapOrderAttrGet(MlirContext ctx, MlirPESoftcapOrder value);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPESoftcapOrder(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPESoftcapOrder
mlirPESoftcapOrderAttrGetValue(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute
mlirPECausalAlignmentAttrGet(MlirContext ctx, MlirPECausalAlignment value);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPECausalAlignment(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPECausalAlignment
mlirPECausalAlignmentAttrGetValue(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// Encodings of pe.attention
//===----------------------------------------------------------------------===//

/// `#pe.rope<layout, rotary_dim = ..., query_only, query_offset = ...,
/// key_offset = ...>`, the `rope` attribute of pe.attention. `rotaryDim` < 0
/// means the whole head. Returns a null attribute (and emits a diagnostic on
/// the context) when the parameters are invalid.
MLIR_CAPI_EXPORTED MlirAttribute mlirPERopeEncodingAttrGet(
    MlirContext ctx, MlirPERopeLayout layout, int64_t rotaryDim, bool rotateKey,
    int64_t queryOffset, int64_t keyOffset);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPERopeEncoding(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPERopeLayout
mlirPERopeEncodingAttrGetLayout(MlirAttribute attr);
/// The rotary dimension, or -1 when it is the whole head.
MLIR_CAPI_EXPORTED int64_t
mlirPERopeEncodingAttrGetRotaryDim(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool mlirPERopeEncodingAttrGetRotateKey(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
mlirPERopeEncodingAttrGetQueryOffset(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
mlirPERopeEncodingAttrGetKeyOffset(MlirAttribute attr);

/// `#pe.alibi<distance, max_bias = ..., query_offset = ...>`, the `alibi`
/// attribute of pe.attention (`maxBias` 8 gives the paper's slopes). Returns
/// a null attribute (and emits a diagnostic) when the parameters are invalid.
MLIR_CAPI_EXPORTED MlirAttribute
mlirPEAlibiEncodingAttrGet(MlirContext ctx, MlirPEAlibiDistance distance,
                           double maxBias, int64_t queryOffset);
MLIR_CAPI_EXPORTED bool mlirAttributeIsAPEAlibiEncoding(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirPEAlibiDistance
mlirPEAlibiEncodingAttrGetDistance(MlirAttribute attr);
MLIR_CAPI_EXPORTED double mlirPEAlibiEncodingAttrGetMaxBias(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
mlirPEAlibiEncodingAttrGetQueryOffset(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // PE_C_DIALECTS_H
