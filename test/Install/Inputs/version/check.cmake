# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# cmake -DCHECK=<PEMLIRVersionCheck.cmake> -P check.cmake: the installed
# version check on fake LLVM/MLIR versions, for a pe-mlir built with 22.1.8.
include("${CHECK}")
foreach(found 22.1.0 22.1.8 22.1.9 22.1.10 22.1.8git 21.1.8 23.1.0 22.0.0
        22.2.0 2.1.8 22 garbage)
  pe_mlir_check_llvm_version("${found}" 22.1.8 ok)
  message(STATUS "${found}: ${ok} ${ok_REASON}")
endforeach()
