//===- Dialects.cpp - C API for the pe dialect ----------------------------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "pe-c/Dialects.h"

#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::pe;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(PE, pe, PEDialect)

void mlirPERegisterPipelineDialects(MlirDialectRegistry registry) {
  registerPipelineDialects(*unwrap(registry));
}

void mlirPERegisterGPUPipelineDialects(MlirDialectRegistry registry) {
  registerGPUPipelineDialects(*unwrap(registry));
}

// The C enums have the C++ enums' values; keep them in step.
static_assert(static_cast<int>(SinusoidalLayout::Concat) ==
                  MlirPESinusoidalLayoutConcat,
              "C and C++ enums differ");
static_assert(static_cast<int>(RopeLayout::Half) == MlirPERopeLayoutHalf,
              "C and C++ enums differ");
static_assert(static_cast<int>(AlibiDistance::Key) == MlirPEAlibiDistanceKey,
              "C and C++ enums differ");
static_assert(static_cast<int>(SoftcapOrder::AfterBias) ==
                  MlirPESoftcapOrderAfterBias,
              "C and C++ enums differ");
static_assert(static_cast<int>(CausalAlignment::TopLeft) ==
                  MlirPECausalAlignmentTopLeft,
              "C and C++ enums differ");

/// The attribute constructors load the pe dialect (its attribute storage must
/// exist before an attribute is made; the registry alone loads it lazily).
static MLIRContext *loadPE(MlirContext ctx) {
  MLIRContext *context = unwrap(ctx);
  context->getOrLoadDialect<PEDialect>();
  return context;
}

#define PE_DEFINE_ENUM_ATTR(Name)                                              \
  MlirAttribute mlirPE##Name##AttrGet(MlirContext ctx, MlirPE##Name value) {   \
    return wrap(Name##Attr::get(loadPE(ctx), static_cast<Name>(value)));       \
  }                                                                            \
  bool mlirAttributeIsAPE##Name(MlirAttribute attr) {                          \
    return isa<Name##Attr>(unwrap(attr));                                      \
  }                                                                            \
  MlirPE##Name mlirPE##Name##AttrGetValue(MlirAttribute attr) {                \
    return static_cast<MlirPE##Name>(                                          \
        cast<Name##Attr>(unwrap(attr)).getValue());                            \
  }

PE_DEFINE_ENUM_ATTR(SinusoidalLayout)
PE_DEFINE_ENUM_ATTR(RopeLayout)
PE_DEFINE_ENUM_ATTR(AlibiDistance)
PE_DEFINE_ENUM_ATTR(SoftcapOrder)
PE_DEFINE_ENUM_ATTR(CausalAlignment)

#undef PE_DEFINE_ENUM_ATTR

MlirAttribute mlirPERopeEncodingAttrGet(MlirContext ctx,
                                        MlirPERopeLayout layout,
                                        int64_t rotaryDim, bool rotateKey,
                                        int64_t queryOffset,
                                        int64_t keyOffset) {
  MLIRContext *context = loadPE(ctx);
  std::optional<int64_t> dim;
  if (rotaryDim >= 0)
    dim = rotaryDim;
  return wrap(RopeEncodingAttr::getChecked(
      mlir::detail::getDefaultDiagnosticEmitFn(context), context,
      static_cast<RopeLayout>(layout), dim, rotateKey, queryOffset, keyOffset));
}

bool mlirAttributeIsAPERopeEncoding(MlirAttribute attr) {
  return isa<RopeEncodingAttr>(unwrap(attr));
}

MlirPERopeLayout mlirPERopeEncodingAttrGetLayout(MlirAttribute attr) {
  return static_cast<MlirPERopeLayout>(
      cast<RopeEncodingAttr>(unwrap(attr)).getLayout());
}

int64_t mlirPERopeEncodingAttrGetRotaryDim(MlirAttribute attr) {
  return cast<RopeEncodingAttr>(unwrap(attr)).getRotaryDim().value_or(-1);
}

bool mlirPERopeEncodingAttrGetRotateKey(MlirAttribute attr) {
  return cast<RopeEncodingAttr>(unwrap(attr)).getRotateKey();
}

int64_t mlirPERopeEncodingAttrGetQueryOffset(MlirAttribute attr) {
  return cast<RopeEncodingAttr>(unwrap(attr)).getQueryOffset();
}

int64_t mlirPERopeEncodingAttrGetKeyOffset(MlirAttribute attr) {
  return cast<RopeEncodingAttr>(unwrap(attr)).getKeyOffset();
}

MlirAttribute mlirPEAlibiEncodingAttrGet(MlirContext ctx,
                                         MlirPEAlibiDistance distance,
                                         double maxBias, int64_t queryOffset) {
  MLIRContext *context = loadPE(ctx);
  return wrap(AlibiEncodingAttr::getChecked(
      mlir::detail::getDefaultDiagnosticEmitFn(context), context,
      static_cast<AlibiDistance>(distance), llvm::APFloat(maxBias),
      queryOffset));
}

bool mlirAttributeIsAPEAlibiEncoding(MlirAttribute attr) {
  return isa<AlibiEncodingAttr>(unwrap(attr));
}

MlirPEAlibiDistance mlirPEAlibiEncodingAttrGetDistance(MlirAttribute attr) {
  return static_cast<MlirPEAlibiDistance>(
      cast<AlibiEncodingAttr>(unwrap(attr)).getDistance());
}

double mlirPEAlibiEncodingAttrGetMaxBias(MlirAttribute attr) {
  return cast<AlibiEncodingAttr>(unwrap(attr)).getMaxBias().convertToDouble();
}

int64_t mlirPEAlibiEncodingAttrGetQueryOffset(MlirAttribute attr) {
  return cast<AlibiEncodingAttr>(unwrap(attr)).getQueryOffset();
}
