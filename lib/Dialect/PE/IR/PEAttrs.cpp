//===- PEAttrs.cpp - pe attributes ----------------------------------------===//
//
// Part of the pe-mlir project.
//
// The custom assembly format and the verifiers of the encoding attributes
// of pe.attention (#pe.rope_encoding, #pe.alibi_encoding); the attribute
// classes themselves are generated into PEDialect.cpp.
//
//===----------------------------------------------------------------------===//

#include "PEOpsUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::detail;

//===----------------------------------------------------------------------===//
// Encoding attributes
//===----------------------------------------------------------------------===//

/// Parses `, key = <value>` and `, flag` items after an enum keyword until
/// `>`; `item` parses what follows a key. A key given twice is an error
/// (naming `what`, e.g. "rope encoding"), not "the last value wins".
static ParseResult
parseEncodingItems(AsmParser &parser, StringRef what,
                   llvm::function_ref<ParseResult(StringRef, SMLoc)> item) {
  llvm::SmallDenseSet<StringRef, 4> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc, "duplicate ")
             << what << " parameter '" << key << "'";
    if (item(key, loc))
      return failure();
  }
  return parser.parseGreater();
}

Attribute RopeEncodingAttr::parse(AsmParser &parser, Type) {
  StringRef layoutName;
  SMLoc layoutLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&layoutName))
    return {};
  std::optional<RopeLayout> layout = symbolizeRopeLayout(layoutName);
  if (!layout) {
    parser.emitError(layoutLoc, "expected 'interleaved' or 'half', got '")
        << layoutName << "'";
    return {};
  }
  std::optional<int64_t> rotaryDim;
  bool rotateKey = true;
  int64_t queryOffset = 0, keyOffset = 0;
  auto integer = [&](int64_t &v) -> ParseResult {
    return failure(failed(parser.parseEqual()) ||
                   failed(parser.parseInteger(v)));
  };
  if (parseEncodingItems(
          parser, "rope encoding",
          [&](StringRef key, SMLoc loc) -> ParseResult {
            if (key == "rotary_dim") {
              int64_t v;
              if (failed(integer(v)))
                return failure();
              rotaryDim = v;
              return success();
            }
            if (key == "query_only") {
              rotateKey = false;
              return success();
            }
            if (key == "query_offset")
              return integer(queryOffset);
            if (key == "key_offset")
              return integer(keyOffset);
            return parser.emitError(loc, "unknown rope encoding parameter '")
                   << key << "'";
          }))
    return {};
  return getChecked([&] { return parser.emitError(layoutLoc); },
                    parser.getContext(), *layout, rotaryDim, rotateKey,
                    queryOffset, keyOffset);
}

void RopeEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyRopeLayout(getLayout());
  if (getRotaryDim())
    printer << ", rotary_dim = " << *getRotaryDim();
  if (!getRotateKey())
    printer << ", query_only";
  if (getQueryOffset() != 0)
    printer << ", query_offset = " << getQueryOffset();
  if (getKeyOffset() != 0)
    printer << ", key_offset = " << getKeyOffset();
  printer << ">";
}

LogicalResult
RopeEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         RopeLayout, std::optional<int64_t> rotaryDim,
                         bool rotateKey, int64_t queryOffset,
                         int64_t keyOffset) {
  if (rotaryDim && (*rotaryDim <= 0 || *rotaryDim % 2 != 0))
    return emitError() << "expects an even, positive rotary_dim, got "
                       << *rotaryDim;
  if (queryOffset < 0 || keyOffset < 0)
    return emitError() << "expects non-negative rope offsets, got "
                       << queryOffset << " and " << keyOffset;
  if (!rotateKey && keyOffset != 0)
    return emitError() << "expects no key_offset with query_only";
  return success();
}

Attribute AlibiEncodingAttr::parse(AsmParser &parser, Type) {
  StringRef distanceName;
  SMLoc distanceLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&distanceName))
    return {};
  std::optional<AlibiDistance> distance = symbolizeAlibiDistance(distanceName);
  if (!distance) {
    parser.emitError(distanceLoc,
                     "expected 'symmetric', 'signed' or 'key', got '")
        << distanceName << "'";
    return {};
  }
  double maxBias = 8.0;
  int64_t queryOffset = 0;
  if (parseEncodingItems(
          parser, "alibi encoding",
          [&](StringRef key, SMLoc loc) -> ParseResult {
            if (key == "max_bias")
              return failure(failed(parser.parseEqual()) ||
                             failed(parser.parseFloat(maxBias)));
            if (key == "query_offset")
              return failure(failed(parser.parseEqual()) ||
                             failed(parser.parseInteger(queryOffset)));
            return parser.emitError(loc, "unknown alibi encoding parameter '")
                   << key << "'";
          }))
    return {};
  return getChecked([&] { return parser.emitError(distanceLoc); },
                    parser.getContext(), *distance, APFloat(maxBias),
                    queryOffset);
}

void AlibiEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyAlibiDistance(getDistance());
  if (!getMaxBias().isExactlyValue(8.0)) {
    printer << ", max_bias = ";
    printer.printFloat(getMaxBias());
  }
  if (getQueryOffset() != 0)
    printer << ", query_offset = " << getQueryOffset();
  printer << ">";
}

LogicalResult
AlibiEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          AlibiDistance, APFloat maxBiasAttr,
                          int64_t queryOffset) {
  double maxBias = maxBiasAttr.convertToDouble();
  if (!(maxBias > 0.0) || !std::isfinite(maxBias))
    return emitError() << "expects max_bias to be positive and finite, got "
                       << fmt(maxBias);
  if (queryOffset < 0)
    return emitError() << "expects a non-negative query_offset, got "
                       << queryOffset;
  return success();
}
