#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# build.sh PREFIX CC OUT: builds the two C hosts against the pe-mlir installed
# in PREFIX with plain compiler command lines (no CMake), as a user would,
# printing each command line. shared-library.test runs them.
set -eu
prefix=$1 cc=$2 out=$3
here=$(dirname "$0")
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
run() {
  echo "+ $*"
  "$@"
}
# One -l: the host needs nothing but libPEMLIR.so (and finds it by rpath).
run "$cc" -std=c11 -Wall -Werror "$here/host.c" -o "$out/host" \
  $(pkg-config --cflags --libs pe-mlir) \
  -Wl,-rpath,"$(pkg-config --variable=libdir pe-mlir)"
# Not linked with pe-mlir at all: the headers only, and dlopen.
run "$cc" -std=gnu11 -Wall -Werror "$here/dlopen.c" -o "$out/dlopen-host" \
  $(pkg-config --cflags pe-mlir) -ldl
