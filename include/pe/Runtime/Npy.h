//===- Npy.h - NumPy .npy file reader and writer ----------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// A reader and writer for the NumPy `.npy` format (versions 1.0, 2.0 and
// 3.0), used by pe-run and by the executables of `pe-run --emit-executable`
// to load inputs and save outputs. Plain C++17 (see Error.h).
//
// Supported element types are listed in `DType`. Data is always held in
// memory as packed, little-endian, C-order (row-major) bytes.
//
// Notes for users:
//   * Booleans (`DType::I1`) use NumPy's `'|b1'` layout: one byte per
//     element. Bytes read from a file are normalized to 0/1 (any non-zero
//     byte is `True`), and the writer likewise emits only 0/1 bytes.
//   * bfloat16 has no standard NumPy descriptor (ml_dtypes writes the
//     ambiguous `'<V2'`, which is rejected). bfloat16 data is normally
//     exchanged as float32 and converted with `convert()`. For round trips
//     within pe-mlir the reader also accepts, and the writer emits, the
//     non-standard descriptor `'bfloat16'`; plain NumPy cannot load such
//     files.
//   * Fortran-order arrays, big-endian data, object/string/void and
//     structured dtypes are rejected with a descriptive error.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_NPY_H
#define PE_RUNTIME_NPY_H

#include "pe/Runtime/Error.h"
#include "pe/Runtime/HalfFloat.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pe::rt {

/// Element types supported by the reader/writer. `I1` is NumPy `bool`
/// (`'|b1'`, one byte per element holding 0 or 1).
enum class DType { F16, BF16, F32, F64, I1, I8, I32, I64 };

/// NumPy-style name of the type: "float16", "bfloat16", "float32",
/// "float64", "bool", "int8", "int32", "int64".
const char *dtypeName(DType dtype);

/// Size of one element in bytes (I1 is one byte).
int64_t dtypeSize(DType dtype);

/// True for F16, BF16, F32 and F64.
bool isFloat(DType dtype);

/// The `.npy` descriptor written for `dtype`, e.g. "<f4", "|b1", "bfloat16".
const char *dtypeDescr(DType dtype);

/// Parses a `.npy` descriptor string (e.g. "<f4", "=i8", "|b1",
/// "bfloat16"). Errors explain why a descriptor is unsupported.
Expected<DType> parseDescr(std::string_view descr);

/// NumPy-style shape: "(2, 3)", "(6,)", "()"; negative (dynamic)
/// dimensions print as "?".
std::string shapeString(const std::vector<int64_t> &shape);

/// An n-dimensional array. `data` is little-endian, C order and packed, and
/// must hold exactly `numElements() * dtypeSize(dtype)` bytes. An empty
/// `shape` denotes a 0-d (scalar) array with one element.
struct Array {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  /// Product of `shape` (1 for a 0-d array, 0 if any dimension is 0).
  /// Only meaningful for arrays that pass `verify()`.
  int64_t numElements() const;

  /// Expected size of `data` in bytes: numElements() * dtypeSize(dtype).
  int64_t numBytes() const;
};

/// Creates a zero-filled array of the given type and shape. Returns an error
/// for negative dimensions or if the byte size overflows int64_t.
Expected<Array> makeArray(DType dtype, const std::vector<int64_t> &shape);

/// Checks that `a` is well formed: no negative dimensions, no overflow of
/// the element/byte count, and `data.size()` equal to `numBytes()`.
Error verify(const Array &a);

/// Reads and parses the `.npy` file at `path`. Error messages start with the
/// file name and name the problem.
Expected<Array> readNpy(const std::string &path);

/// Parses the contents of a `.npy` file. `nameForErrors` prefixes error
/// messages (typically the file name).
Expected<Array> parseNpy(std::string_view bytes,
                         std::string_view nameForErrors);

/// Writes `a` to `path` using `serializeNpy`. Fails (without writing) if
/// `verify(a)` fails, and on I/O errors.
Error writeNpy(const std::string &path, const Array &a);

/// Returns the `.npy` file contents for `a`, byte-identical to what
/// `numpy.save` writes for the same array: format version 1.0 when the
/// header fits (else 2.0), header padded with spaces and terminated by '\n'
/// so that the data starts at a multiple of 64 bytes. Precondition:
/// `verify(a)` succeeds (asserted).
std::string serializeNpy(const Array &a);

/// Converts `a` to element type `to`:
///   * float <-> float (F16, BF16, F32, F64): IEEE semantics, a single
///     round-to-nearest-even step (no double rounding). As with NumPy's
///     `astype`, finite values out of the target range become +-inf.
///   * int <-> int (I1, I8, I32, I64): widening always succeeds; narrowing
///     fails if any value is out of range of the target (I1 accepts only 0
///     and 1). The error names the first offending element.
///   * float <-> int (including bool) is rejected: it is lossy by design.
///   * Converting to the same type returns a copy.
Expected<Array> convert(const Array &a, DType to);

/// Element `i` of a float array as a double (exact), and of an integer or
/// bool array as an int64.
double loadFloat(DType dtype, const uint8_t *p);
int64_t loadInt(DType dtype, const uint8_t *p);

} // namespace pe::rt

#endif // PE_RUNTIME_NPY_H
