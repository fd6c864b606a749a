# pe_mlir_check_llvm_version(<found> <built> <out-var>): whether a pe-mlir
# built with LLVM/MLIR <built> can be used with the LLVM/MLIR <found>.
# <out-var> is set to TRUE, or to FALSE with <out-var>_REASON saying why.
#
# LLVM and MLIR keep their ABI within one release series: the patch releases
# of major.minor (22.1.0, 22.1.1, ...) are ABI compatible, as the shared
# libraries' sonames say (libMLIR.so.22.1, libLLVM.so.22.1). Another
# major.minor changes the C++ ABI and API that pe-mlir's libraries are built
# against, so it is refused.
#
# PEMLIRConfig.cmake includes this file; test/Install/version-check.test
# tests the function with fake versions.
function(pe_mlir_check_llvm_version found built out)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" found_series "${found}")
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" built_series "${built}")
  if(found_series STREQUAL "" OR built_series STREQUAL "")
    set(${out} FALSE PARENT_SCOPE)
    set(${out}_REASON
      "cannot compare LLVM/MLIR versions '${found}' and '${built}'"
      PARENT_SCOPE)
  elseif(NOT found_series VERSION_EQUAL built_series)
    set(${out} FALSE PARENT_SCOPE)
    set(${out}_REASON
      "needs LLVM/MLIR ${built_series}.x (built with ${built}; other release series change the C++ ABI), found ${found}"
      PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
    set(${out}_REASON "" PARENT_SCOPE)
  endif()
endfunction()
