//===- NumberParser.h - pe-run's numeric command-line options -------------===//
//
// Part of the pe-mlir project.
//
// llvm::cl's parsers report a value that is not a number of the option's
// type ("--repeat=abc", "--seed=-1") as "pe-run: for the --repeat option:
// 'abc' value invalid for integer argument!", without an `error:`. This
// parser reports it as pe-run's other errors are, with the option's range:
// "pe-run: error: --repeat must be an integer in [-2147483648, 2147483647],
// not 'abc'", and the command line fails (exit code 1).
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_NUMBERPARSER_H
#define PE_TOOLS_PE_RUN_NUMBERPARSER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <type_traits>

namespace pe_run {

/// llvm::cl::parser<T> is final: this one is a basic_parser of its own.
template <typename T> class NumberParser : public llvm::cl::basic_parser<T> {
public:
  explicit NumberParser(llvm::cl::Option &option)
      : llvm::cl::basic_parser<T>(option), printer(option) {}

  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, T &value) {
    llvm::StringRef name = argName.empty() ? option.ArgStr : argName;
    if constexpr (std::is_floating_point_v<T>) {
      double parsed;
      if (!arg.getAsDouble(parsed)) {
        value = static_cast<T>(parsed);
        return false;
      }
      llvm::errs() << "pe-run: error: --" << name << " must be a number, not '"
                   << arg << "'\n";
    } else {
      // Radix 0: decimal, or 0x/0b/0o-prefixed, as llvm::cl reads integers.
      if (!arg.getAsInteger(0, value))
        return false;
      llvm::errs() << "pe-run: error: --" << name << " must be an integer in ["
                   << std::numeric_limits<T>::min() << ", "
                   << std::numeric_limits<T>::max() << "], not '" << arg
                   << "'\n";
    }
    return true;
  }

  llvm::StringRef getValueName() const override {
    return std::is_floating_point_v<T> ? "number" : "int";
  }

  /// For --print-options (llvm::cl prints option values through
  /// parser<T>).
  operator const llvm::cl::parser<T> &() const { return printer; }

private:
  llvm::cl::parser<T> printer;
};

} // namespace pe_run

#endif // PE_TOOLS_PE_RUN_NUMBERPARSER_H
