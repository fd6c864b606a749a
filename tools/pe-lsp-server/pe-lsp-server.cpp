//===- pe-lsp-server.cpp - MLIR language server with the pe dialect -------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-lsp-server with the pe dialect on top of every upstream dialect and
// extension, so that editors show diagnostics, hovers, definitions and
// completion for .mlir files with pe ops (as CIRCT's circt-lsp-server).
//
//===----------------------------------------------------------------------===//

#include "pe/InitAllPE.h"
#include "pe/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::pe::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "pe-mlir version " PE_VERSION_STRING "\n";
  });
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
