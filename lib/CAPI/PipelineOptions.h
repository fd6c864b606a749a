//===- PipelineOptions.h - Pipeline options of the C API --------*- C++ -*-===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Parses the textual options of a pe pipeline for the C API so that every
// message of the parser reaches the host's error callback.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_CAPI_PIPELINEOPTIONS_H
#define PE_LIB_CAPI_PIPELINEOPTIONS_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
namespace pe {

/// Parses `text` into `options` with `PassOptions::parseFromString` and
/// returns the result; `message` gets every line the parser wrote.
///
/// The parser of a pass option writes a malformed value's message
/// ("'four' value invalid for integer argument") to `llvm::errs()` and not
/// to the stream it is given (llvm/llvm-project#82652), so the standard error
/// file descriptor is redirected to a temporary file while the parser runs.
/// Calls are serialized; what other threads write to standard error in that
/// time goes to `message` too, or back to standard error if the parse
/// succeeds. Where the redirection is not available (not a POSIX system, no
/// temporary file), the value's message stays on standard error and `message`
/// names the options that were rejected.
LogicalResult parsePipelineOptions(detail::PassOptions &options,
                                   llvm::StringRef text,
                                   llvm::StringRef pipelineName,
                                   std::string &message);

} // namespace pe
} // namespace mlir

#endif // PE_LIB_CAPI_PIPELINEOPTIONS_H
