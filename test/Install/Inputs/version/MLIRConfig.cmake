# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A fake MLIRConfig.cmake: the real one (REAL_MLIR_DIR), then another
# LLVM_PACKAGE_VERSION: FAKE=patch gives the same major.minor with patch
# release 99 and 0, FAKE=minor the next minor, FAKE=major the next major.
include("${REAL_MLIR_DIR}/MLIRConfig.cmake")
set(_major ${LLVM_VERSION_MAJOR})
set(_minor ${LLVM_VERSION_MINOR})
if(FAKE STREQUAL "patch99")
  set(LLVM_PACKAGE_VERSION "${_major}.${_minor}.99")
elseif(FAKE STREQUAL "patch0")
  set(LLVM_PACKAGE_VERSION "${_major}.${_minor}.0")
elseif(FAKE STREQUAL "minor")
  math(EXPR _minor "${_minor} + 1")
  set(LLVM_PACKAGE_VERSION "${_major}.${_minor}.0")
elseif(FAKE STREQUAL "major")
  math(EXPR _major "${_major} + 1")
  set(LLVM_PACKAGE_VERSION "${_major}.${_minor}.0")
elseif(FAKE STREQUAL "older")
  math(EXPR _major "${_major} - 1")
  set(LLVM_PACKAGE_VERSION "${_major}.${_minor}.8")
else()
  message(FATAL_ERROR "FAKE must be patch99, patch0, minor, major or older")
endif()
