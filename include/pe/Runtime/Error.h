//===- Error.h - Errors of the host runtime ---------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The host runtime (include/pe/Runtime, lib/Runtime/Host) is plain C++17: it
// is linked into pe-run and into the executables of `pe-run
// --emit-executable`, which run where only the C++ library is installed and
// may be cross-compiled (lib/Runtime/CMakeLists.txt). Its functions report
// failures as an `Error` (a message) or an `Expected<T>` (a value or an
// error), shaped like llvm::Error and llvm::Expected so that LLVM-based
// callers read the same, but without their checking.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_ERROR_H
#define PE_RUNTIME_ERROR_H

#include <optional>
#include <string>
#include <utility>

namespace pe::rt {

/// Success, or a failure with a message (one line, no "error:" prefix).
class [[nodiscard]] Error {
public:
  Error() = default;
  explicit Error(std::string message) : msg(std::move(message)), failed(true) {}
  static Error success() { return Error(); }

  /// True for a failure.
  explicit operator bool() const { return failed; }
  const std::string &message() const { return msg; }

private:
  std::string msg;
  bool failed = false;
};

/// A value, or the error that kept it from being made.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value(std::move(value)) {}
  /// `error` must be a failure.
  Expected(Error error) : err(std::move(error)) {}

  /// True when there is a value.
  explicit operator bool() const { return value.has_value(); }
  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  Error takeError() { return std::move(err); }
  const std::string &errorMessage() const { return err.message(); }

private:
  std::optional<T> value;
  Error err;
};

/// The message of `error` (empty for success).
inline std::string toString(Error error) { return error.message(); }

} // namespace pe::rt

#endif // PE_RUNTIME_ERROR_H
