//===- NpyTest.cpp - Tests for the NumPy .npy reader/writer ---------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Npy.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using namespace pe::rt;

namespace {

//===----------------------------------------------------------------------===//
// Fixtures written by real NumPy.
//
// These are the exact bytes produced by NumPy 1.24.2 (/usr/bin/python3) when
// this test was written, with `f = io.BytesIO()` and the command shown above
// each array (the bytes of `f.getvalue()` are embedded verbatim). They cannot
// be regenerated at test time because the test must not depend on Python.
//===----------------------------------------------------------------------===//

// np.save(f, np.array([[-1.0, -0.5, 0.0], [0.5, 1.0, 1.5]], dtype=np.float32))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }"
static const unsigned char kNumpyF32_2x3[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x32, 0x2c, 0x20, 0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x00, 0x80, 0xbf,
    0x00, 0x00, 0x00, 0xbf, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3f,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0xc0, 0x3f,
};

// np.save(f, np.array([-2, -1, 0, 1, 2**40], dtype=np.int64))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False,
// 'shape': (5,), }"
static const unsigned char kNumpyI64_5[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x69, 0x38,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x35, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0xfe, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
};

// np.save(f, np.array([[True, False], [False, True]]))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False,
// 'shape': (2, 2), }"
static const unsigned char kNumpyBool_2x2[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x62, 0x31,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x32, 0x2c, 0x20, 0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x01, 0x00, 0x00, 0x01,
};

// np.save(f, np.array([1.0, 65504.0, -2.0**-24], dtype=np.float16))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False,
// 'shape': (3,), }"
static const unsigned char kNumpyF16_3[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x32,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x33, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x3c, 0xff, 0x7b,
    0x01, 0x80,
};

// np.save(f, np.array(3.141592653589793))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False,
// 'shape': (), }"
static const unsigned char kNumpyF64_0d[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x38,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x18, 0x2d, 0x44, 0x54,
    0xfb, 0x21, 0x09, 0x40,
};

// np.lib.format.write_array(f, np.array([[1, -2], [3, 2**31 - 1]],
// dtype=np.int32), version=(2, 0)) Header:
// b"\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<i4', 'fortran_order': False,
// 'shape': (2, 2), }"
static const unsigned char kNumpyI32_2x2_V2[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x02, 0x00, 0x74, 0x00, 0x00, 0x00,
    0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c,
    0x69, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61,
    0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
    0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27,
    0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20, 0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x01, 0x00, 0x00, 0x00,
    0xfe, 0xff, 0xff, 0xff, 0x03, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x7f,
};

// np.lib.format.write_array(f, np.array([-128, -1, 0, 127], dtype=np.int8),
// version=(3, 0)) Header: b"\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '|i1',
// 'fortran_order': False, 'shape': (4,), }"
static const unsigned char kNumpyI8_4_V3[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x03, 0x00, 0x74, 0x00, 0x00, 0x00,
    0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c,
    0x69, 0x31, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61,
    0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
    0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27,
    0x3a, 0x20, 0x28, 0x34, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x80, 0xff, 0x00, 0x7f,
};

// np.save(f, np.asfortranarray(np.array([[1, 2], [3, 4]], dtype=np.float32)))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': True,
// 'shape': (2, 2), }"
static const unsigned char kNumpyF32Fortran_2x2[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x54, 0x72, 0x75, 0x65,
    0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28,
    0x32, 0x2c, 0x20, 0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x00, 0x80, 0x3f,
    0x00, 0x00, 0x40, 0x40, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x80, 0x40,
};

// np.save(f, np.array([1, 2], dtype='>i4'))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '>i4', 'fortran_order': False,
// 'shape': (2,), }"
static const unsigned char kNumpyBigEndianI4_2[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3e, 0x69, 0x34,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x32, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x02,
};

// np.save(f, np.zeros(2, dtype=[('a', '<i4'), ('b', '<f4')]))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': [('a', '<i4'), ('b', '<f4')],
// 'fortran_order': False, 'shape': (2,), }"
static const unsigned char kNumpyStructured_2[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x5b, 0x28, 0x27, 0x61,
    0x27, 0x2c, 0x20, 0x27, 0x3c, 0x69, 0x34, 0x27, 0x29, 0x2c, 0x20, 0x28,
    0x27, 0x62, 0x27, 0x2c, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x29, 0x5d,
    0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f,
    0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65,
    0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28,
    0x32, 0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

// np.save(f, np.zeros((1,) * 14 + (0,), dtype=np.int8))  # header crosses a
// 64-byte boundary only with NumPy's growth-axis padding Header:
// b"\x93NUMPY\x01\x00\xb6\x00{'descr': '|i1', 'fortran_order': False, 'shape':
// (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0), }"
static const unsigned char kNumpyI8_GrowthPadding[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0xb6, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x69, 0x31,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c,
    0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c,
    0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c,
    0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x30, 0x29, 0x2c, 0x20, 0x7d,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
};

// np.save(f, np.zeros((0, 3), dtype=np.float32))
// Header: b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False,
// 'shape': (0, 3), }"
static const unsigned char kNumpyF32_0x3[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27,
    0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34,
    0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f,
    0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20,
    0x28, 0x30, 0x2c, 0x20, 0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
};

template <size_t N> llvm::StringRef bytesOf(const unsigned char (&arr)[N]) {
  return llvm::StringRef(reinterpret_cast<const char *>(arr), N);
}

/// Builds a .npy file from a raw header dict text (without the trailing
/// newline, which is added when `terminate` is set) and raw data bytes.
std::string buildNpy(llvm::StringRef dict, llvm::StringRef data,
                     unsigned major = 1, bool terminate = true) {
  std::string header = dict.str();
  if (terminate)
    header += '\n';
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  uint32_t len = header.size();
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>((len >> 8) & 0xff));
  if (major != 1) {
    out.push_back(static_cast<char>((len >> 16) & 0xff));
    out.push_back(static_cast<char>((len >> 24) & 0xff));
  }
  return out + header + data.str();
}

std::string zeros(size_t n) { return std::string(n, '\0'); }

/// Returns the error message of `result` ("" on success, consuming it).
std::string errorOf(Expected<Array> result) {
  if (result)
    return "";
  return pe::rt::toString(result.takeError());
}

#define EXPECT_NPY_ERROR(bytes, substr)                                        \
  do {                                                                         \
    std::string msg = errorOf(parseNpy((bytes), "test.npy"));                  \
    EXPECT_NE(msg.find(substr), std::string::npos)                             \
        << "error message: '" << msg << "'";                                   \
    EXPECT_EQ(msg.rfind("test.npy: ", 0), 0u) << msg;                          \
  } while (false)

#define ASSERT_OK_AND_ASSIGN(var, expr)                                        \
  auto var##OrErr = (expr);                                                    \
  ASSERT_TRUE(static_cast<bool>(var##OrErr))                                   \
      << pe::rt::toString(var##OrErr.takeError());                             \
  Array &var = *var##OrErr

template <typename T> std::vector<T> elementsOf(const Array &a) {
  EXPECT_EQ(a.data.size() % sizeof(T), 0u);
  std::vector<T> out(a.data.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), a.data.data(), a.data.size());
  return out;
}

template <typename T>
Array arrayOf(DType dtype, llvm::ArrayRef<int64_t> shape,
              const std::vector<T> &values) {
  Array a;
  a.dtype = dtype;
  a.shape.assign(shape.begin(), shape.end());
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

const DType kAllDTypes[] = {DType::F16, DType::BF16, DType::F32, DType::F64,
                            DType::I1,  DType::I8,   DType::I32, DType::I64};

uint32_t floatBits(float f) { return llvm::bit_cast<uint32_t>(f); }
float bitsFloat(uint32_t b) { return llvm::bit_cast<float>(b); }

//===----------------------------------------------------------------------===//
// DType helpers
//===----------------------------------------------------------------------===//

TEST(NpyDType, NamesSizesAndDescrs) {
  EXPECT_EQ(std::string(dtypeName(DType::F16)), "float16");
  EXPECT_EQ(std::string(dtypeName(DType::BF16)), "bfloat16");
  EXPECT_EQ(std::string(dtypeName(DType::F32)), "float32");
  EXPECT_EQ(std::string(dtypeName(DType::F64)), "float64");
  EXPECT_EQ(std::string(dtypeName(DType::I1)), "bool");
  EXPECT_EQ(std::string(dtypeName(DType::I8)), "int8");
  EXPECT_EQ(std::string(dtypeName(DType::I32)), "int32");
  EXPECT_EQ(std::string(dtypeName(DType::I64)), "int64");
  const int64_t sizes[] = {2, 2, 4, 8, 1, 1, 4, 8};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(dtypeSize(kAllDTypes[i]), sizes[i]);
    // Every descriptor we write parses back to the same type.
    Expected<DType> back = parseDescr(dtypeDescr(kAllDTypes[i]));
    ASSERT_TRUE(static_cast<bool>(back)) << pe::rt::toString(back.takeError());
    EXPECT_EQ(*back, kAllDTypes[i]);
  }
}

TEST(NpyDType, ByteOrderVariants) {
  struct Case {
    const char *descr;
    DType dtype;
  } cases[] = {
      {"<f4", DType::F32},      {"=f4", DType::F32}, {"|f4", DType::F32},
      {"<f2", DType::F16},      {"=f8", DType::F64}, {"|b1", DType::I1},
      {"<b1", DType::I1},       {"|i1", DType::I8},  {"<i1", DType::I8},
      {">i1", DType::I8},       {"=i4", DType::I32}, {"<i8", DType::I64},
      {"bfloat16", DType::BF16}};
  for (const Case &c : cases) {
    Expected<DType> d = parseDescr(c.descr);
    ASSERT_TRUE(static_cast<bool>(d))
        << c.descr << ": " << pe::rt::toString(d.takeError());
    EXPECT_EQ(*d, c.dtype) << c.descr;
  }
}

TEST(NpyDType, UnsupportedDescrs) {
  auto err = [](const char *descr) {
    Expected<DType> d = parseDescr(descr);
    EXPECT_FALSE(static_cast<bool>(d)) << descr;
    return d ? std::string() : pe::rt::toString(d.takeError());
  };
  EXPECT_NE(err(">f4").find("big-endian"), std::string::npos);
  EXPECT_NE(err("<i2").find("unsupported dtype"), std::string::npos);
  EXPECT_NE(err("<u4").find("unsigned"), std::string::npos);
  EXPECT_NE(err("<V2").find("ambiguous"), std::string::npos);
  EXPECT_NE(err("|O").find("object"), std::string::npos);
  EXPECT_NE(err("<U8").find("string"), std::string::npos);
  EXPECT_NE(err("<c8").find("complex"), std::string::npos);
  EXPECT_NE(err("<").find("invalid dtype"), std::string::npos);
  EXPECT_NE(err("<fx").find("invalid dtype"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(NpyRoundTrip, EachDType) {
  for (DType dtype : kAllDTypes) {
    ASSERT_OK_AND_ASSIGN(a, makeArray(dtype, {2, 3}));
    for (size_t i = 0; i < a.data.size(); ++i)
      a.data[i] =
          dtype == DType::I1 ? (i % 3 == 0) : static_cast<uint8_t>(i * 37 + 1);
    std::string bytes = serializeNpy(a);
    ASSERT_OK_AND_ASSIGN(b, parseNpy(bytes, "roundtrip"));
    EXPECT_EQ(b.dtype, dtype) << std::string(dtypeName(dtype));
    EXPECT_EQ(b.shape, a.shape) << std::string(dtypeName(dtype));
    EXPECT_EQ(b.data, a.data) << std::string(dtypeName(dtype));
  }
}

TEST(NpyRoundTrip, Shapes) {
  const std::vector<int64_t> shapes[] = {
      {}, {1}, {7}, {2, 3, 4}, {0}, {0, 3}, {3, 0, 2}, {1, 1, 1, 1, 1, 1}};
  for (const auto &shape : shapes) {
    ASSERT_OK_AND_ASSIGN(a, makeArray(DType::F32, shape));
    std::vector<float> values(a.numElements());
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = 0.25f * i - 3;
    if (!values.empty())
      std::memcpy(a.data.data(), values.data(), a.data.size());
    std::string bytes = serializeNpy(a);
    EXPECT_EQ(bytes.size() % 64, a.data.size() % 64);
    ASSERT_OK_AND_ASSIGN(b, parseNpy(bytes, "roundtrip"));
    EXPECT_EQ(b.shape, shape);
    EXPECT_EQ(elementsOf<float>(b), values);
  }
}

TEST(NpyRoundTrip, ZeroDAndNumElements) {
  ASSERT_OK_AND_ASSIGN(a, makeArray(DType::F64, {}));
  EXPECT_EQ(a.numElements(), 1);
  EXPECT_EQ(a.data.size(), 8u);
  ASSERT_OK_AND_ASSIGN(b, makeArray(DType::I32, {4, 0, 5}));
  EXPECT_EQ(b.numElements(), 0);
  EXPECT_TRUE(b.data.empty());
  ASSERT_OK_AND_ASSIGN(c, makeArray(DType::I64, {2, 3, 4}));
  EXPECT_EQ(c.numElements(), 24);
  EXPECT_EQ(c.numBytes(), 192);
  EXPECT_FALSE(static_cast<bool>(makeArray(DType::F32, {2, -1})));
  Expected<Array> huge = makeArray(DType::F32, {int64_t(1) << 62, 2});
  ASSERT_FALSE(static_cast<bool>(huge));
  EXPECT_NE(pe::rt::toString(huge.takeError()).find("overflow"),
            std::string::npos);
}

TEST(NpyRoundTrip, WriteAndReadFile) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("pe-npy-test", "npy", path));
  Array a = arrayOf<int32_t>(DType::I32, {2, 2, 2},
                             {1, -2, 3, -4, 5, -6, 7, 2147483647});
  Error err = writeNpy(path.str().str(), a);
  ASSERT_FALSE(static_cast<bool>(err)) << pe::rt::toString(std::move(err));
  ASSERT_OK_AND_ASSIGN(b, readNpy(path.str().str()));
  EXPECT_EQ(b.dtype, DType::I32);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.data, a.data);
  llvm::sys::fs::remove(path);
}

TEST(NpyRoundTrip, HeaderAlignmentAndLayout) {
  const std::vector<int64_t> shapes[] = {
      {},
      {5},
      {0},
      {2, 3},
      {123456789, 0},
      {1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}};
  for (const auto &shape : shapes) {
    ASSERT_OK_AND_ASSIGN(a, makeArray(DType::I8, shape));
    std::string bytes = serializeNpy(a);
    size_t headerEnd = bytes.size() - a.data.size();
    EXPECT_EQ(headerEnd % 64, 0u);
    EXPECT_EQ(bytes[headerEnd - 1], '\n');
    EXPECT_EQ(bytes[6], 1);
    EXPECT_EQ(bytes[7], 0);
    size_t hlen =
        static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    EXPECT_EQ(hlen + 10, headerEnd);
    ASSERT_OK_AND_ASSIGN(b, parseNpy(bytes, "layout"));
    EXPECT_EQ(b.shape, shape);
  }
}

TEST(NpyRoundTrip, HugeHeaderUsesVersion2) {
  // 30000 dimensions of size 1 need a header longer than 65535 bytes.
  Array a;
  a.dtype = DType::I8;
  a.shape.assign(30000, 1);
  a.data = {42};
  std::string bytes = serializeNpy(a);
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ(bytes[7], 0);
  size_t dataStart = bytes.size() - 1;
  EXPECT_EQ(dataStart % 64, 0u);
  EXPECT_EQ(bytes[dataStart - 1], '\n');
  ASSERT_OK_AND_ASSIGN(b, parseNpy(bytes, "big-header"));
  EXPECT_EQ(b.shape.size(), 30000u);
  EXPECT_EQ(b.data, a.data);
}

TEST(NpyRoundTrip, BoolsAreNormalized) {
  // Reading: any non-zero byte is True.
  std::string file =
      buildNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
               llvm::StringRef("\x00\x02\xff", 3));
  ASSERT_OK_AND_ASSIGN(a, parseNpy(file, "bools"));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 1}));
  // Writing: likewise.
  Array b = arrayOf<uint8_t>(DType::I1, {2}, {0, 7});
  std::string bytes = serializeNpy(b);
  EXPECT_EQ(bytes.substr(bytes.size() - 2), llvm::StringRef("\x00\x01", 2));
}

//===----------------------------------------------------------------------===//
// Files written by NumPy
//===----------------------------------------------------------------------===//

TEST(NpyNumpyFiles, Float32_2x3) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyF32_2x3), "f32"));
  EXPECT_EQ(a.dtype, DType::F32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elementsOf<float>(a),
            (std::vector<float>{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f}));
}

TEST(NpyNumpyFiles, Int64_5) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyI64_5), "i64"));
  EXPECT_EQ(a.dtype, DType::I64);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{5}));
  EXPECT_EQ(elementsOf<int64_t>(a),
            (std::vector<int64_t>{-2, -1, 0, 1, int64_t(1) << 40}));
}

TEST(NpyNumpyFiles, Bool_2x2) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyBool_2x2), "bool"));
  EXPECT_EQ(a.dtype, DType::I1);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(NpyNumpyFiles, Float16_3) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyF16_3), "f16"));
  EXPECT_EQ(a.dtype, DType::F16);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(elementsOf<uint16_t>(a),
            (std::vector<uint16_t>{0x3c00, 0x7bff, 0x8001}));
}

TEST(NpyNumpyFiles, Float64_0d) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyF64_0d), "f64"));
  EXPECT_EQ(a.dtype, DType::F64);
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(a.numElements(), 1);
  EXPECT_EQ(elementsOf<double>(a), (std::vector<double>{3.141592653589793}));
}

TEST(NpyNumpyFiles, Version2And3) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyI32_2x2_V2), "v2"));
  EXPECT_EQ(a.dtype, DType::I32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(elementsOf<int32_t>(a),
            (std::vector<int32_t>{1, -2, 3, 2147483647}));

  ASSERT_OK_AND_ASSIGN(b, parseNpy(bytesOf(kNumpyI8_4_V3), "v3"));
  EXPECT_EQ(b.dtype, DType::I8);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(elementsOf<int8_t>(b), (std::vector<int8_t>{-128, -1, 0, 127}));
}

TEST(NpyNumpyFiles, EmptyArray) {
  ASSERT_OK_AND_ASSIGN(a, parseNpy(bytesOf(kNumpyF32_0x3), "empty"));
  EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(a.data.empty());
}

TEST(NpyNumpyFiles, SerializeIsByteIdenticalToNumpy) {
  Array f32 = arrayOf<float>(DType::F32, {2, 3},
                             {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f});
  EXPECT_EQ(serializeNpy(f32), bytesOf(kNumpyF32_2x3).str());

  Array i64 =
      arrayOf<int64_t>(DType::I64, {5}, {-2, -1, 0, 1, int64_t(1) << 40});
  EXPECT_EQ(serializeNpy(i64), bytesOf(kNumpyI64_5).str());

  // NumPy reserves 21 - len(str(shape[0])) spare header bytes for growing
  // the first axis; here that pushes the data offset from 128 to 192.
  std::vector<int64_t> shape(14, 1);
  shape.push_back(0);
  ASSERT_OK_AND_ASSIGN(padded, makeArray(DType::I8, shape));
  EXPECT_EQ(serializeNpy(padded), bytesOf(kNumpyI8_GrowthPadding).str());
  EXPECT_EQ(serializeNpy(padded).size(), 192u);

  // Every version-1.0 fixture re-serializes to the identical bytes.
  for (llvm::StringRef fixture :
       {bytesOf(kNumpyBool_2x2), bytesOf(kNumpyF16_3), bytesOf(kNumpyF64_0d),
        bytesOf(kNumpyF32_0x3)}) {
    ASSERT_OK_AND_ASSIGN(a, parseNpy(fixture, "fixture"));
    EXPECT_EQ(serializeNpy(a), fixture.str());
  }
}

//===----------------------------------------------------------------------===//
// Header syntax
//===----------------------------------------------------------------------===//

TEST(NpyHeader, FlexibleSyntax) {
  std::string data = zeros(6 * 4);
  const char *headers[] = {
      "{'shape': (2, 3), 'descr': '<f4', 'fortran_order': False}",
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,3)}",
      "  {  'fortran_order' :False ,'shape':( 2 , 3 , ),'descr':'=f4' , }   ",
      "{'descr': '<f4',\t'fortran_order': False, 'shape': (2L, 3L), }",
  };
  for (const char *header : headers) {
    ASSERT_OK_AND_ASSIGN(a, parseNpy(buildNpy(header, data), "flex"));
    EXPECT_EQ(a.dtype, DType::F32) << header;
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3})) << header;
  }
  // 0-d and 1-d shapes, bfloat16 descriptor.
  ASSERT_OK_AND_ASSIGN(
      s, parseNpy(buildNpy("{'descr': 'bfloat16', 'fortran_order': False, "
                           "'shape': ()}",
                           zeros(2)),
                  "scalar"));
  EXPECT_EQ(s.dtype, DType::BF16);
  EXPECT_TRUE(s.shape.empty());
  ASSERT_OK_AND_ASSIGN(
      v, parseNpy(buildNpy("{'descr': '<i4', 'fortran_order': False, "
                           "'shape': (5,)}",
                           zeros(20)),
                  "vector"));
  EXPECT_EQ(v.shape, (std::vector<int64_t>{5}));
}

TEST(NpyHeader, MalformedSyntax) {
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': False", ""),
                   "malformed header");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4, 'fortran_order': False, "
                            "'shape': ()}",
                            zeros(4)),
                   "malformed header");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': ()} junk",
                            zeros(4)),
                   "after the header dict");
  EXPECT_NPY_ERROR(buildNpy("['descr', '<f4']", zeros(4)), "expected '{'");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4' 'fortran_order': False}", ""),
                   "malformed header");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': false, "
                            "'shape': ()}",
                            zeros(4)),
                   "unexpected identifier 'false'");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': 'False', "
                            "'shape': ()}",
                            zeros(4)),
                   "'fortran_order' must be True or False");
  EXPECT_NPY_ERROR(buildNpy("{'descr': 4, 'fortran_order': False, "
                            "'shape': ()}",
                            zeros(4)),
                   "'descr' must be a string");
  // Deep nesting is rejected rather than overflowing the stack.
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': " +
                                std::string(10000, '(') + "}",
                            ""),
                   "nesting too deep");
}

//===----------------------------------------------------------------------===//
// Malformed files: one test per error.
//===----------------------------------------------------------------------===//

const char kGoodF32Header[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

TEST(NpyErrors, BadMagic) {
  std::string file = buildNpy(kGoodF32Header, zeros(24));
  file[1] = 'X';
  EXPECT_NPY_ERROR(file, "bad magic");
  EXPECT_NPY_ERROR(std::string("PK\x03\x04 this is a zip"), "bad magic");
}

TEST(NpyErrors, TruncatedPreamble) {
  EXPECT_NPY_ERROR(std::string(""), "truncated");
  EXPECT_NPY_ERROR(std::string("\x93NUM"), "truncated");
  EXPECT_NPY_ERROR(std::string("\x93NUMPY"), "truncated");
  EXPECT_NPY_ERROR(std::string("\x93NUMPY\x01\x00", 8), "truncated");
  EXPECT_NPY_ERROR(std::string("\x93NUMPY\x02\x00\x10\x00", 10), "truncated");
}

TEST(NpyErrors, UnsupportedVersion) {
  std::string file = buildNpy(kGoodF32Header, zeros(24));
  file[6] = 4;
  EXPECT_NPY_ERROR(file, "unsupported .npy format version 4.0");
  file[6] = 1;
  file[7] = 1;
  EXPECT_NPY_ERROR(file, "unsupported .npy format version 1.1");
}

TEST(NpyErrors, HeaderNotTerminatedByNewline) {
  EXPECT_NPY_ERROR(buildNpy(kGoodF32Header, zeros(24), 1,
                            /*terminate=*/false),
                   "not terminated by '\\n'");
}

TEST(NpyErrors, HeaderLengthPastEndOfFile) {
  std::string file = buildNpy(kGoodF32Header, "");
  file[9] = 0x7f; // Header length now ~32K, file is much shorter.
  EXPECT_NPY_ERROR(file, "extends past the end of the file");
  // Same with a 4-byte length field.
  std::string v2 = buildNpy(kGoodF32Header, "", 2);
  v2[11] = 0x01;
  EXPECT_NPY_ERROR(v2, "extends past the end of the file");
}

TEST(NpyErrors, DataTruncated) {
  EXPECT_NPY_ERROR(buildNpy(kGoodF32Header, zeros(23)), "truncated");
  std::string numpyFile = bytesOf(kNumpyF32_2x3).drop_back(4).str();
  EXPECT_NPY_ERROR(numpyFile, "data is truncated: expected 24 bytes");
}

TEST(NpyErrors, TrailingBytes) {
  EXPECT_NPY_ERROR(buildNpy(kGoodF32Header, zeros(25)), "1 trailing bytes");
  std::string numpyFile = bytesOf(kNumpyI64_5).str() + "extra";
  EXPECT_NPY_ERROR(numpyFile, "5 trailing bytes");
}

TEST(NpyErrors, NegativeDimension) {
  EXPECT_NPY_ERROR(
      buildNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
               ""),
      "negative dimension -3");
}

TEST(NpyErrors, OverflowingDimensions) {
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (99999999999999999999,)}",
                            ""),
                   "overflows int64");
  EXPECT_NPY_ERROR(
      buildNpy("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (4611686018427387904, 4611686018427387904)}",
               ""),
      "overflows int64");
  // Element count fits, byte size does not.
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f8', 'fortran_order': False, "
                            "'shape': (4611686018427387904,)}",
                            ""),
                   "byte size overflows");
}

TEST(NpyErrors, MissingKeys) {
  EXPECT_NPY_ERROR(
      buildNpy("{'fortran_order': False, 'shape': (6,)}", zeros(24)),
      "missing key 'descr'");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'shape': (6,)}", zeros(24)),
                   "missing key 'fortran_order'");
  EXPECT_NPY_ERROR(
      buildNpy("{'descr': '<f4', 'fortran_order': False}", zeros(24)),
      "missing key 'shape'");
  EXPECT_NPY_ERROR(buildNpy("{}", ""), "missing key");
}

TEST(NpyErrors, UnknownAndDuplicateKeys) {
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (6,), 'extra': 1}",
                            zeros(24)),
                   "unknown header key 'extra'");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<f4', 'descr': '<f4', "
                            "'fortran_order': False, 'shape': (6,)}",
                            zeros(24)),
                   "duplicate header key 'descr'");
  EXPECT_NPY_ERROR(buildNpy("{1: '<f4'}", ""), "key must be a string");
}

TEST(NpyErrors, NonIntegerShapeEntries) {
  auto header = [](const std::string &shape) {
    return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + "}";
  };
  EXPECT_NPY_ERROR(buildNpy(header("(2.5,)"), ""),
                   "shape entries must be integers, got float '2.5'");
  EXPECT_NPY_ERROR(buildNpy(header("('a', 2)"), ""),
                   "shape entries must be integers, got string 'a'");
  EXPECT_NPY_ERROR(buildNpy(header("(None,)"), ""),
                   "shape entries must be integers, got None");
  EXPECT_NPY_ERROR(buildNpy(header("((2,),)"), ""),
                   "shape entries must be integers, got tuple");
  EXPECT_NPY_ERROR(buildNpy(header("(True,)"), ""),
                   "shape entries must be integers, got bool");
  // Python semantics: "(6)" is an int, not a tuple; lists are not accepted.
  EXPECT_NPY_ERROR(buildNpy(header("(6)"), zeros(24)),
                   "'shape' must be a tuple, got integer");
  EXPECT_NPY_ERROR(buildNpy(header("[2, 3]"), zeros(24)),
                   "'shape' must be a tuple, got list");
}

TEST(NpyErrors, FortranOrder) {
  EXPECT_NPY_ERROR(bytesOf(kNumpyF32Fortran_2x2).str(), "fortran_order=True");
}

TEST(NpyErrors, BigEndian) {
  EXPECT_NPY_ERROR(bytesOf(kNumpyBigEndianI4_2).str(),
                   "big-endian dtype '>i4' is not supported");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '>f8', 'fortran_order': False, "
                            "'shape': ()}",
                            zeros(8)),
                   "big-endian");
}

TEST(NpyErrors, ObjectDtype) {
  EXPECT_NPY_ERROR(buildNpy("{'descr': '|O', 'fortran_order': False, "
                            "'shape': (2,)}",
                            zeros(16)),
                   "object arrays (dtype '|O') are not supported");
}

TEST(NpyErrors, StructuredDtype) {
  EXPECT_NPY_ERROR(bytesOf(kNumpyStructured_2).str(),
                   "structured dtypes (a list 'descr') are not supported");
}

TEST(NpyErrors, AmbiguousVoidAndUnsupportedDtypes) {
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<V2', 'fortran_order': False, "
                            "'shape': (2,)}",
                            zeros(4)),
                   "ambiguous");
  EXPECT_NPY_ERROR(buildNpy("{'descr': '<i2', 'fortran_order': False, "
                            "'shape': (2,)}",
                            zeros(4)),
                   "unsupported dtype '<i2'");
}

TEST(NpyErrors, ReadNpyNamesTheFile) {
  std::string missing = "/nonexistent-dir/pe-npy-missing.npy";
  std::string msg = errorOf(readNpy(missing));
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;

  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("pe-npy-test", "npy", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << buildNpy(kGoodF32Header, zeros(20));
  }
  msg = errorOf(readNpy(path.str().str()));
  EXPECT_EQ(msg.rfind(std::string(path) + ": data is truncated", 0), 0u) << msg;
  llvm::sys::fs::remove(path);
}

TEST(NpyErrors, WriteNpyErrors) {
  Array bad;
  bad.dtype = DType::F32;
  bad.shape = {2, 3};
  bad.data.resize(23);
  Error err = writeNpy("/tmp/pe-npy-never-written.npy", bad);
  ASSERT_TRUE(static_cast<bool>(err));
  std::string msg = pe::rt::toString(std::move(err));
  EXPECT_NE(msg.find("23 bytes"), std::string::npos) << msg;
  EXPECT_FALSE(llvm::sys::fs::exists("/tmp/pe-npy-never-written.npy"));

  Array good = arrayOf<float>(DType::F32, {1}, {1.0f});
  err = writeNpy("/nonexistent-dir/out.npy", good);
  ASSERT_TRUE(static_cast<bool>(err));
  msg = pe::rt::toString(std::move(err));
  EXPECT_NE(msg.find("/nonexistent-dir/out.npy"), std::string::npos) << msg;
}

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

TEST(NpyHalf, KnownBitPatterns) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);  // Largest finite.
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bff); // Below the tie.
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);  // Tie -> even -> inf.
  EXPECT_EQ(floatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(floatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400); // Smallest normal.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // Smallest subnorm.
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.0f, -24)), 0x03ff);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // Tie -> even 0.
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // Tie -> even 2.
  EXPECT_EQ(floatToHalf(std::ldexp(5.0f, -25)), 0x0002); // Tie -> even 2.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(floatToHalf(bitsFloat(0x00000001)), 0x0000); // Float subnormal.
  // Largest subnormal + half ulp ties up into the smallest normal.
  EXPECT_EQ(floatToHalf(std::ldexp(2047.0f, -25)), 0x0400);
  // Round-to-nearest-even ties in the normal range (ulp of 1.0 is 2^-10).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3c01);
  EXPECT_EQ(floatToHalf(2048.0f + 1.0f), 0x6800); // 2049 -> 2048 (even).
  EXPECT_EQ(floatToHalf(2048.0f + 3.0f), 0x6802); // 2051 -> 2052 (even).

  // NaN stays NaN (and quiet), sign preserved.
  uint16_t nan = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  uint16_t snan = floatToHalf(bitsFloat(0x7f800001)); // Payload in low bits.
  EXPECT_EQ(snan & 0x7e00, 0x7e00);
  EXPECT_EQ(floatToHalf(bitsFloat(0xffc00000)) & 0xfe00, 0xfe00);

  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(floatBits(halfToFloat(0x8000)), 0x80000000u);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
  EXPECT_LT(halfToFloat(0xfc00), 0.0f);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7c01)));
}

TEST(NpyHalf, AllBitPatternsRoundTrip) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    bool isNan = (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
    if (isNan) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f)))) << std::hex << h;
      continue;
    }
    // halfToFloat must agree with APFloat, and round trip exactly.
    llvm::APFloat ref(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
    bool losesInfo;
    ref.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
    ASSERT_EQ(floatBits(f), floatBits(ref.convertToFloat())) << std::hex << h;
    ASSERT_EQ(floatToHalf(f), h) << std::hex << h;
  }
}

/// Checks `convert` (float -> 16-bit) against APFloat on ~1M float bit
/// patterns spread over the whole range, plus neighbourhoods of ties.
void checkAgainstAPFloat(uint16_t (*convert)(float),
                         const llvm::fltSemantics &sem) {
  auto check = [&](uint32_t bits) {
    float f = bitsFloat(bits);
    if (std::isnan(f))
      return;
    llvm::APFloat ref(f);
    bool losesInfo;
    ref.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    uint16_t expected =
        static_cast<uint16_t>(ref.bitcastToAPInt().getZExtValue());
    ASSERT_EQ(convert(f), expected) << "float bits 0x" << std::hex << bits;
  };
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4093)
    check(static_cast<uint32_t>(bits));
  // Exact ties and their neighbours for both formats (13 and 16 dropped
  // mantissa bits), across all exponents.
  for (uint32_t exp = 0; exp < 256; ++exp)
    for (uint32_t low : {0x0fffu, 0x1000u, 0x1001u, 0x2fffu, 0x3000u, 0x7fffu,
                         0x8000u, 0x8001u, 0x18000u})
      for (uint32_t sign : {0u, 0x80000000u})
        check(sign | (exp << 23) | low | (exp & 1 ? 0x400000u : 0));
}

TEST(NpyHalf, MatchesAPFloat) {
  checkAgainstAPFloat(floatToHalf, llvm::APFloat::IEEEhalf());
}

TEST(NpyBFloat16, KnownBitPatterns) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(-2.0f), 0xc000);
  EXPECT_EQ(floatToBFloat16(0.0f), 0x0000);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  // Ties to even: 0x3f808000 is halfway between 0x3f80 and 0x3f81.
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x3f808000)), 0x3f80);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x3f818000)), 0x3f82);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x3f808001)), 0x3f81);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x3f807fff)), 0x3f80);
  // Overflow rounds to infinity; infinity stays infinity.
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(floatToBFloat16(-std::numeric_limits<float>::infinity()), 0xff80);
  // NaN stays NaN even when its payload is only in the dropped low bits.
  uint16_t nan = floatToBFloat16(bitsFloat(0x7f800001));
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x007f, 0);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(
      floatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(floatToBFloat16(bitsFloat(0xffffffff)) & 0xff80, 0xff80);
  // Subnormals round like everything else.
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x00008000)), 0x0000);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x00018000)), 0x0002);

  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xc000), -2.0f);
  EXPECT_EQ(floatBits(bfloat16ToFloat(0x7f80)), 0x7f800000u);
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f))
      continue;
    ASSERT_EQ(floatToBFloat16(bfloat16ToFloat(b)), b) << std::hex << b;
  }
}

TEST(NpyBFloat16, MatchesAPFloat) {
  checkAgainstAPFloat(floatToBFloat16, llvm::APFloat::BFloat());
}

//===----------------------------------------------------------------------===//
// Array conversion
//===----------------------------------------------------------------------===//

TEST(NpyConvert, FloatToFloat) {
  Array f32 = arrayOf<float>(DType::F32, {2, 2},
                             {1.0f, 65504.0f, 1e10f, -std::ldexp(1.0f, -24)});
  ASSERT_OK_AND_ASSIGN(f16, convert(f32, DType::F16));
  EXPECT_EQ(f16.shape, f32.shape);
  EXPECT_EQ(elementsOf<uint16_t>(f16),
            (std::vector<uint16_t>{0x3c00, 0x7bff, 0x7c00, 0x8001}));

  ASSERT_OK_AND_ASSIGN(back, convert(f16, DType::F32));
  EXPECT_EQ(elementsOf<float>(back),
            (std::vector<float>{1.0f, 65504.0f,
                                std::numeric_limits<float>::infinity(),
                                -std::ldexp(1.0f, -24)}));

  ASSERT_OK_AND_ASSIGN(bf16, convert(f32, DType::BF16));
  EXPECT_EQ(elementsOf<uint16_t>(bf16)[0], 0x3f80);

  ASSERT_OK_AND_ASSIGN(f64, convert(bf16, DType::F64));
  EXPECT_EQ(elementsOf<double>(f64)[0], 1.0);

  // F16 -> BF16 goes through an exact float intermediate.
  ASSERT_OK_AND_ASSIGN(hb, convert(f16, DType::BF16));
  EXPECT_EQ(elementsOf<uint16_t>(hb)[0], 0x3f80);
  EXPECT_EQ(elementsOf<uint16_t>(hb)[1], floatToBFloat16(65504.0f));

  // 0-d arrays convert too.
  Array scalar = arrayOf<double>(DType::F64, {}, {0.1});
  ASSERT_OK_AND_ASSIGN(s32, convert(scalar, DType::F32));
  EXPECT_TRUE(s32.shape.empty());
  EXPECT_EQ(elementsOf<float>(s32)[0], 0.1f);
}

TEST(NpyConvert, F64ToHalfHasNoDoubleRounding) {
  // 1 + 2^-11 + 2^-40 is just above the half tie between 1.0 and 1 + 2^-10.
  // Going through float would drop 2^-40, hit the tie and round to 1.0.
  double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  ASSERT_EQ(floatToHalf(static_cast<float>(v)), 0x3c00);
  Array a = arrayOf<double>(DType::F64, {1}, {v});
  ASSERT_OK_AND_ASSIGN(h, convert(a, DType::F16));
  EXPECT_EQ(elementsOf<uint16_t>(h)[0], 0x3c01);

  double w = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  Array b = arrayOf<double>(DType::F64, {1}, {w});
  ASSERT_OK_AND_ASSIGN(bf, convert(b, DType::BF16));
  EXPECT_EQ(elementsOf<uint16_t>(bf)[0], 0x3f81);
}

TEST(NpyConvert, IntWideningAndNarrowing) {
  Array i8 = arrayOf<int8_t>(DType::I8, {3}, {-128, 0, 127});
  ASSERT_OK_AND_ASSIGN(i64, convert(i8, DType::I64));
  EXPECT_EQ(elementsOf<int64_t>(i64), (std::vector<int64_t>{-128, 0, 127}));
  ASSERT_OK_AND_ASSIGN(i32, convert(i64, DType::I32));
  EXPECT_EQ(elementsOf<int32_t>(i32), (std::vector<int32_t>{-128, 0, 127}));
  ASSERT_OK_AND_ASSIGN(i8back, convert(i32, DType::I8));
  EXPECT_EQ(i8back.data, i8.data);

  Array bools = arrayOf<uint8_t>(DType::I1, {2}, {1, 0});
  ASSERT_OK_AND_ASSIGN(bi32, convert(bools, DType::I32));
  EXPECT_EQ(elementsOf<int32_t>(bi32), (std::vector<int32_t>{1, 0}));
  ASSERT_OK_AND_ASSIGN(bback, convert(bi32, DType::I1));
  EXPECT_EQ(bback.data, bools.data);

  Array big = arrayOf<int64_t>(DType::I64, {3}, {1, int64_t(1) << 31, -5});
  std::string msg = errorOf(convert(big, DType::I32));
  EXPECT_NE(msg.find("value 2147483648 at flat index 1 is out of range for "
                     "int32"),
            std::string::npos)
      << msg;
  msg = errorOf(convert(i8, DType::I1));
  EXPECT_NE(msg.find("value -128 at flat index 0 is out of range for bool"),
            std::string::npos)
      << msg;
  Array two = arrayOf<int32_t>(DType::I32, {1}, {2});
  EXPECT_NE(errorOf(convert(two, DType::I1)).find("out of range"),
            std::string::npos);
}

TEST(NpyConvert, RejectsFloatIntAndMalformed) {
  Array f32 = arrayOf<float>(DType::F32, {1}, {1.0f});
  std::string msg = errorOf(convert(f32, DType::I32));
  EXPECT_NE(msg.find("cannot convert float32 to int32"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("lossy"), std::string::npos) << msg;
  Array b = arrayOf<uint8_t>(DType::I1, {1}, {1});
  EXPECT_NE(errorOf(convert(b, DType::F32))
                .find("cannot convert bool to "
                      "float32"),
            std::string::npos);
  Array i64 = arrayOf<int64_t>(DType::I64, {1}, {1});
  EXPECT_NE(errorOf(convert(i64, DType::F64)).find("lossy"), std::string::npos);

  Array bad = f32;
  bad.data.pop_back();
  EXPECT_NE(errorOf(convert(bad, DType::F16)).find("convert:"),
            std::string::npos);

  // Same type: a copy.
  ASSERT_OK_AND_ASSIGN(copy, convert(f32, DType::F32));
  EXPECT_EQ(copy.data, f32.data);
  EXPECT_EQ(copy.shape, f32.shape);
}

} // namespace
