//===- OptionRanges.h - integer pass/pipeline options and their ranges ----===//
//
// Part of the pe-mlir project.
//
// The integer options of pe's passes and pipelines have ranges. LLVM's option
// parser reports a value its type cannot hold (`threads=2^63-1` for an
// unsigned, `block-rows=abc`) on stderr without an `error:` line and without
// the range; these helpers check the option text first, so that the pass or
// pipeline reports such a value, and one outside its range, through MLIR's
// error handler: `error: <pass>: <option> must be an integer in [lo, hi]`.
//
//===----------------------------------------------------------------------===//

#ifndef PE_SUPPORT_OPTIONRANGES_H
#define PE_SUPPORT_OPTIONRANGES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace pe {

/// An integer option (by its argument name) and the values it takes.
struct IntegerOptionRange {
  llvm::StringRef name;
  int64_t lo, hi;
  /// Said after the range, e.g. " (0: no split)"; may be empty.
  llvm::StringRef note = "";
};

/// The error for `value` of `range`'s option of `owner` (a pass or pipeline
/// argument), or std::nullopt when `value` is in range.
std::optional<std::string> checkIntegerOption(llvm::StringRef owner,
                                              const IntegerOptionRange &range,
                                              int64_t value);

/// Checks each `key=value` of the option string `options` (as a pass or
/// pipeline takes it: `key=value` items separated by spaces, values possibly
/// in braces or quotes) whose key is one of `ranges`: returns the error for
/// the first value that is not an integer (in LLVM's syntax: decimal, or
/// 0x/0b/0o-prefixed) in the option's range, std::nullopt when all are.
std::optional<std::string>
checkIntegerOptionText(llvm::StringRef owner, llvm::StringRef options,
                       llvm::ArrayRef<IntegerOptionRange> ranges);

} // namespace pe
} // namespace mlir

#endif // PE_SUPPORT_OPTIONRANGES_H
