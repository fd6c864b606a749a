//===- OptionRanges.cpp - integer pass/pipeline options and their ranges --===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Support/OptionRanges.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

using namespace mlir::pe;
using llvm::StringRef;

static std::string rangeError(StringRef owner, const IntegerOptionRange &range,
                              const llvm::Twine &got) {
  return (owner + ": " + range.name + " must be an integer in [" +
          llvm::Twine(range.lo) + ", " + llvm::Twine(range.hi) + "]" +
          range.note + ", not " + got)
      .str();
}

std::optional<std::string>
mlir::pe::checkIntegerOption(StringRef owner, const IntegerOptionRange &range,
                             int64_t value) {
  if (value >= range.lo && value <= range.hi)
    return std::nullopt;
  return rangeError(owner, range, llvm::Twine(value));
}

/// Splits the next `key[=value]` item off `text` (leading spaces skipped).
/// A value that starts with `{` runs to its matching `}`, one that starts
/// with a quote to the next such quote, any other to the next space.
static std::pair<StringRef, StringRef> nextItem(StringRef &text) {
  text = text.ltrim();
  size_t keyEnd = text.find_first_of("= ");
  StringRef key = text.substr(0, keyEnd);
  if (keyEnd == StringRef::npos || text[keyEnd] != '=') {
    text = text.substr(key.size());
    return {key, StringRef()};
  }
  StringRef rest = text.substr(keyEnd + 1);
  size_t valueEnd = rest.find(' ');
  if (rest.starts_with("{")) {
    int depth = 0;
    valueEnd = rest.size();
    for (size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == '{')
        ++depth;
      else if (rest[i] == '}' && --depth == 0) {
        valueEnd = i + 1;
        break;
      }
    }
  } else if (rest.starts_with("'") || rest.starts_with("\"")) {
    size_t close = rest.find(rest[0], 1);
    valueEnd = close == StringRef::npos ? rest.size() : close + 1;
  }
  StringRef value = rest.substr(0, valueEnd);
  text = rest.substr(value.size());
  return {key, value};
}

std::optional<std::string>
mlir::pe::checkIntegerOptionText(StringRef owner, StringRef options,
                                 llvm::ArrayRef<IntegerOptionRange> ranges) {
  while (!options.ltrim().empty()) {
    auto [key, value] = nextItem(options);
    const IntegerOptionRange *range = llvm::find_if(
        ranges, [&](const IntegerOptionRange &r) { return r.name == key; });
    if (range == ranges.end())
      continue;
    int64_t parsed;
    // (getAsInteger with radix 0 reads what LLVM's option parser reads.)
    if (value.getAsInteger(0, parsed))
      return rangeError(owner, *range, "'" + value + "'");
    if (std::optional<std::string> error =
            checkIntegerOption(owner, *range, parsed))
      return error;
  }
  return std::nullopt;
}
