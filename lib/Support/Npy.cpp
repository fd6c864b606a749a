//===- Npy.cpp - NumPy .npy file reader and writer ------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Implements reading and writing of NumPy `.npy` files and the element type
// conversions used by the runtime harness. See
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// for the format specification.
//
//===----------------------------------------------------------------------===//

#include "pe/Support/Npy.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

using namespace mlir::pe::npy;
using llvm::StringRef;
using llvm::Twine;

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
/// Data offset alignment used by NumPy (numpy.lib.format.ARRAY_ALIGN).
constexpr size_t kArrayAlign = 64;
/// Spare header space NumPy reserves for growing the first axis in place
/// (numpy.lib.format.GROWTH_AXIS_MAX_DIGITS).
constexpr int64_t kGrowthAxisMaxDigits = 21;
/// Limit on nesting in the header literal (guards against stack overflow on
/// hostile input).
constexpr unsigned kMaxNesting = 32;
} // namespace

static llvm::Error makeError(const Twine &msg) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), msg);
}

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

StringRef mlir::pe::npy::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::I1:
    return "bool";
  case DType::I8:
    return "int8";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  }
  llvm_unreachable("unknown DType");
}

int64_t mlir::pe::npy::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
    return 1;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  }
  llvm_unreachable("unknown DType");
}

bool mlir::pe::npy::isFloat(DType dtype) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
  case DType::F32:
  case DType::F64:
    return true;
  case DType::I1:
  case DType::I8:
  case DType::I32:
  case DType::I64:
    return false;
  }
  llvm_unreachable("unknown DType");
}

StringRef mlir::pe::npy::dtypeDescr(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "bfloat16";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  }
  llvm_unreachable("unknown DType");
}

llvm::Expected<DType> mlir::pe::npy::parseDescr(StringRef descr) {
  if (descr == "bfloat16")
    return DType::BF16;

  // Optional byte-order character followed by a kind character and an item
  // size, e.g. "<f4". NumPy treats a missing prefix and '|' like '='
  // (native order).
  char order = '=';
  StringRef rest = descr;
  if (!rest.empty() && StringRef("<>=|").contains(rest.front())) {
    order = rest.front();
    rest = rest.drop_front();
  }
  if (rest.empty())
    return makeError("invalid dtype descriptor '" + descr + "'");

  char kind = rest.front();
  StringRef sizeStr = rest.drop_front();
  switch (kind) {
  case 'O':
    return makeError("object arrays (dtype '" + descr + "') are not supported");
  case 'V':
    return makeError(
        "void dtype '" + descr +
        "' is not supported (it is ambiguous; exchange bfloat16 data as "
        "float32 or use the descriptor 'bfloat16')");
  case 'U':
  case 'S':
  case 'a':
    return makeError("string dtype '" + descr + "' is not supported");
  case 'M':
  case 'm':
    return makeError("datetime dtype '" + descr + "' is not supported");
  case 'c':
    return makeError("complex dtype '" + descr + "' is not supported");
  case 'u':
    return makeError("unsigned integer dtype '" + descr + "' is not supported");
  default:
    break;
  }

  unsigned itemSize = 0;
  if (sizeStr.empty() || sizeStr.getAsInteger(10, itemSize))
    return makeError("invalid dtype descriptor '" + descr + "'");

  DType dtype;
  if (kind == 'f' && itemSize == 2)
    dtype = DType::F16;
  else if (kind == 'f' && itemSize == 4)
    dtype = DType::F32;
  else if (kind == 'f' && itemSize == 8)
    dtype = DType::F64;
  else if (kind == 'b' && itemSize == 1)
    dtype = DType::I1;
  else if (kind == 'i' && itemSize == 1)
    dtype = DType::I8;
  else if (kind == 'i' && itemSize == 4)
    dtype = DType::I32;
  else if (kind == 'i' && itemSize == 8)
    dtype = DType::I64;
  else
    return makeError("unsupported dtype '" + descr +
                     "' (supported: <f2, <f4, <f8, |b1, |i1, <i4, <i8, "
                     "bfloat16)");

  // Byte order only matters for multi-byte types.
  if (itemSize > 1) {
    bool bigEndian =
        order == '>' || (order != '<' && llvm::sys::IsBigEndianHost);
    if (bigEndian)
      return makeError("big-endian dtype '" + descr +
                       "' is not supported (save the array as "
                       "little-endian, e.g. arr.astype('<" +
                       Twine(kind) + Twine(itemSize) + "'))");
  }
  return dtype;
}

//===----------------------------------------------------------------------===//
// Array
//===----------------------------------------------------------------------===//

/// Computes the element count of `shape`, checking for negative dimensions
/// and overflow (of the byte size for `itemSize`).
static llvm::Expected<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                                  int64_t itemSize) {
  for (int64_t dim : shape)
    if (dim < 0)
      return makeError("negative dimension " + Twine(dim) + " in shape");
  for (int64_t dim : shape)
    if (dim == 0)
      return 0;
  int64_t count = 1;
  for (int64_t dim : shape)
    if (llvm::MulOverflow(count, dim, count))
      return makeError("number of elements in shape overflows int64");
  int64_t bytes;
  if (llvm::MulOverflow(count, itemSize, bytes))
    return makeError("array byte size overflows int64");
  return count;
}

int64_t Array::numElements() const {
  // Wrapping arithmetic: the result is only meaningful for verified arrays,
  // but must not be undefined behaviour for malformed ones.
  uint64_t count = 1;
  for (int64_t dim : shape)
    count *= static_cast<uint64_t>(dim);
  return static_cast<int64_t>(count);
}

int64_t Array::numBytes() const {
  return static_cast<int64_t>(static_cast<uint64_t>(numElements()) *
                              static_cast<uint64_t>(dtypeSize(dtype)));
}

llvm::Expected<Array> mlir::pe::npy::makeArray(DType dtype,
                                               llvm::ArrayRef<int64_t> shape) {
  llvm::Expected<int64_t> count = checkedNumElements(shape, dtypeSize(dtype));
  if (!count)
    return count.takeError();
  Array a;
  a.dtype = dtype;
  a.shape.assign(shape.begin(), shape.end());
  a.data.assign(static_cast<size_t>(*count * dtypeSize(dtype)), 0);
  return a;
}

llvm::Error mlir::pe::npy::verify(const Array &a) {
  llvm::Expected<int64_t> count =
      checkedNumElements(a.shape, dtypeSize(a.dtype));
  if (!count)
    return count.takeError();
  uint64_t expected = static_cast<uint64_t>(*count * dtypeSize(a.dtype));
  if (a.data.size() != expected)
    return makeError("array data has " + Twine(a.data.size()) +
                     " bytes but shape and dtype " + dtypeName(a.dtype) +
                     " require " + Twine(expected));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

namespace {
/// A value of the Python literal subset that can appear in a header.
struct PyValue {
  enum Kind { Str, Bool, None, Int, Float, Tuple, List, Dict } kind = None;
  std::string text; // Str: contents; Int/Float: source spelling.
  bool boolean = false;
  int64_t integer = 0;
  bool intOverflow = false;
  std::vector<PyValue> elements;                    // Tuple, List.
  std::vector<std::pair<PyValue, PyValue>> entries; // Dict.

  StringRef kindName() const {
    switch (kind) {
    case Str:
      return "string";
    case Bool:
      return "bool";
    case None:
      return "None";
    case Int:
      return "integer";
    case Float:
      return "float";
    case Tuple:
      return "tuple";
    case List:
      return "list";
    case Dict:
      return "dict";
    }
    llvm_unreachable("unknown kind");
  }
};

/// Recursive-descent parser for the Python dict literal in a .npy header.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  llvm::Expected<PyValue> parseHeader() {
    skipSpace();
    if (peek() != '{')
      return error("expected '{' at the start of the header dict");
    llvm::Expected<PyValue> dict = parseValue(0);
    if (!dict)
      return dict.takeError();
    skipSpace();
    if (pos != text.size())
      return error("unexpected characters after the header dict");
    return dict;
  }

private:
  StringRef text;
  size_t pos = 0;

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool atEnd() const { return pos >= text.size(); }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  llvm::Error error(const Twine &msg) const {
    return makeError("malformed header: " + msg + " (at offset " + Twine(pos) +
                     ")");
  }

  static bool isIdentChar(char c) { return llvm::isAlnum(c) || c == '_'; }

  llvm::Expected<PyValue> parseValue(unsigned depth) {
    if (depth > kMaxNesting)
      return error("nesting too deep");
    skipSpace();
    if (atEnd())
      return error("unexpected end of header");
    char c = peek();
    if (c == '\'' || c == '"')
      return parseString();
    if (c == '(' || c == '[')
      return parseSequence(depth);
    if (c == '{')
      return parseDict(depth);
    if (llvm::isDigit(c) || c == '-' || c == '+' || c == '.')
      return parseNumber();
    if (llvm::isAlpha(c) || c == '_') {
      size_t start = pos;
      while (!atEnd() && isIdentChar(peek()))
        ++pos;
      StringRef ident = text.slice(start, pos);
      PyValue v;
      if (ident == "True" || ident == "False") {
        v.kind = PyValue::Bool;
        v.boolean = ident == "True";
      } else if (ident == "None") {
        v.kind = PyValue::None;
      } else {
        pos = start;
        return error("unexpected identifier '" + ident + "'");
      }
      return v;
    }
    return error(Twine("unexpected character '") + Twine(c) + "'");
  }

  llvm::Expected<PyValue> parseString() {
    char quote = text[pos++];
    PyValue v;
    v.kind = PyValue::Str;
    while (true) {
      if (atEnd() || peek() == '\n')
        return error("unterminated string");
      char c = text[pos++];
      if (c == quote)
        break;
      if (c == '\\') {
        if (atEnd())
          return error("unterminated string");
        c = text[pos++];
      }
      v.text.push_back(c);
    }
    return v;
  }

  llvm::Expected<PyValue> parseNumber() {
    size_t start = pos;
    if (peek() == '-' || peek() == '+')
      ++pos;
    size_t digitsStart = pos;
    while (llvm::isDigit(peek()))
      ++pos;
    bool isFloat = false;
    // Anything that continues like a float literal makes this a float.
    while (!atEnd() &&
           (llvm::isDigit(peek()) || peek() == '.' || peek() == 'e' ||
            peek() == 'E' || peek() == 'j' || peek() == 'J' ||
            ((peek() == '+' || peek() == '-') &&
             (text[pos - 1] == 'e' || text[pos - 1] == 'E')))) {
      isFloat = true;
      ++pos;
    }
    StringRef digits = text.slice(digitsStart, pos);
    if (digits.empty())
      return error("invalid number");
    PyValue v;
    v.text = text.slice(start, pos).str();
    // Python 2 long literals, e.g. "(3L, 4L)", appear in old files.
    if (!isFloat && (peek() == 'L' || peek() == 'l'))
      ++pos;
    if (isIdentChar(peek()))
      return error("invalid number '" + text.slice(start, pos + 1) + "'");
    if (isFloat) {
      v.kind = PyValue::Float;
      return v;
    }
    v.kind = PyValue::Int;
    bool negative = text[start] == '-';
    uint64_t magnitude = 0;
    for (char d : digits) {
      uint64_t digit = d - '0';
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
        v.intOverflow = true;
        break;
      }
      magnitude = magnitude * 10 + digit;
    }
    uint64_t limit = negative
                         ? uint64_t(std::numeric_limits<int64_t>::max()) + 1
                         : uint64_t(std::numeric_limits<int64_t>::max());
    if (v.intOverflow || magnitude > limit) {
      v.intOverflow = true;
      return v;
    }
    v.integer = negative ? static_cast<int64_t>(0 - magnitude)
                         : static_cast<int64_t>(magnitude);
    return v;
  }

  /// Parses "(...)" or "[...]". Follows Python: "(x)" without a comma is just
  /// the parenthesized value, not a tuple.
  llvm::Expected<PyValue> parseSequence(unsigned depth) {
    char open = text[pos++];
    char close = open == '(' ? ')' : ']';
    PyValue v;
    v.kind = open == '(' ? PyValue::Tuple : PyValue::List;
    bool sawComma = false;
    while (true) {
      skipSpace();
      if (atEnd())
        return error(Twine("missing '") + Twine(close) + "'");
      if (peek() == close) {
        ++pos;
        break;
      }
      llvm::Expected<PyValue> elt = parseValue(depth + 1);
      if (!elt)
        return elt.takeError();
      v.elements.push_back(std::move(*elt));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        sawComma = true;
        continue;
      }
      if (peek() != close)
        return error(Twine("expected ',' or '") + Twine(close) + "'");
    }
    if (v.kind == PyValue::Tuple && v.elements.size() == 1 && !sawComma)
      return std::move(v.elements.front());
    return v;
  }

  llvm::Expected<PyValue> parseDict(unsigned depth) {
    ++pos; // '{'
    PyValue v;
    v.kind = PyValue::Dict;
    while (true) {
      skipSpace();
      if (atEnd())
        return error("missing '}'");
      if (peek() == '}') {
        ++pos;
        break;
      }
      llvm::Expected<PyValue> key = parseValue(depth + 1);
      if (!key)
        return key.takeError();
      skipSpace();
      if (peek() != ':')
        return error("expected ':' after dict key");
      ++pos;
      llvm::Expected<PyValue> value = parseValue(depth + 1);
      if (!value)
        return value.takeError();
      v.entries.emplace_back(std::move(*key), std::move(*value));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() != '}')
        return error("expected ',' or '}' in dict");
    }
    return v;
  }
};
} // namespace

/// Interprets the parsed header dict. On success sets `dtype` and `shape`.
static llvm::Error interpretHeader(const PyValue &dict, DType &dtype,
                                   llvm::SmallVectorImpl<int64_t> &shape) {
  const PyValue *descr = nullptr, *fortran = nullptr, *shapeVal = nullptr;
  for (const auto &[key, value] : dict.entries) {
    if (key.kind != PyValue::Str)
      return makeError("header key must be a string, got " + key.kindName());
    const PyValue **slot = nullptr;
    if (key.text == "descr")
      slot = &descr;
    else if (key.text == "fortran_order")
      slot = &fortran;
    else if (key.text == "shape")
      slot = &shapeVal;
    else
      return makeError("unknown header key '" + key.text +
                       "' (expected 'descr', 'fortran_order' and 'shape')");
    if (*slot)
      return makeError("duplicate header key '" + key.text + "'");
    *slot = &value;
  }
  if (!descr)
    return makeError("header is missing key 'descr'");
  if (!fortran)
    return makeError("header is missing key 'fortran_order'");
  if (!shapeVal)
    return makeError("header is missing key 'shape'");

  // descr
  if (descr->kind == PyValue::List)
    return makeError("structured dtypes (a list 'descr') are not supported");
  if (descr->kind != PyValue::Str)
    return makeError("'descr' must be a string, got " + descr->kindName());
  llvm::Expected<DType> parsed = parseDescr(descr->text);
  if (!parsed)
    return parsed.takeError();
  dtype = *parsed;

  // fortran_order
  if (fortran->kind != PyValue::Bool)
    return makeError("'fortran_order' must be True or False, got " +
                     fortran->kindName());
  if (fortran->boolean)
    return makeError("fortran_order=True (column-major) arrays are not "
                     "supported; save a C-contiguous array, e.g. "
                     "np.ascontiguousarray(arr)");

  // shape
  if (shapeVal->kind != PyValue::Tuple)
    return makeError("'shape' must be a tuple, got " + shapeVal->kindName());
  shape.clear();
  for (const PyValue &dim : shapeVal->elements) {
    if (dim.kind != PyValue::Int) {
      std::string got = dim.kindName().str();
      if (dim.kind == PyValue::Str || dim.kind == PyValue::Float)
        got += " '" + dim.text + "'";
      return makeError("shape entries must be integers, got " + got);
    }
    if (dim.intOverflow)
      return makeError("shape dimension " + dim.text + " overflows int64");
    if (dim.integer < 0)
      return makeError("negative dimension " + Twine(dim.integer) +
                       " in shape");
    shape.push_back(dim.integer);
  }
  return llvm::Error::success();
}

static void normalizeBools(std::vector<uint8_t> &data) {
  for (uint8_t &b : data)
    b = b != 0;
}

llvm::Expected<Array> mlir::pe::npy::parseNpy(StringRef bytes,
                                              StringRef nameForErrors) {
  auto fail = [&](const Twine &msg) -> llvm::Error {
    return makeError(nameForErrors + ": " + msg);
  };
  auto failWith = [&](llvm::Error err) -> llvm::Error {
    return fail(llvm::toString(std::move(err)));
  };

  if (!bytes.starts_with(StringRef(kMagic, kMagicLen))) {
    if (bytes.size() < kMagicLen &&
        StringRef(kMagic, kMagicLen).starts_with(bytes))
      return fail("file is truncated (too short to be a .npy file)");
    return fail("not a .npy file (bad magic string)");
  }
  if (bytes.size() < kMagicLen + 2)
    return fail("file is truncated (no format version)");
  unsigned major = static_cast<uint8_t>(bytes[kMagicLen]);
  unsigned minor = static_cast<uint8_t>(bytes[kMagicLen + 1]);
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    return fail("unsupported .npy format version " + Twine(major) + "." +
                Twine(minor) + " (supported: 1.0, 2.0, 3.0)");

  size_t lenSize = major == 1 ? 2 : 4;
  size_t headerStart = kMagicLen + 2 + lenSize;
  if (bytes.size() < headerStart)
    return fail("file is truncated (incomplete header length field)");
  const char *lenPtr = bytes.data() + kMagicLen + 2;
  uint64_t headerLen = lenSize == 2 ? llvm::support::endian::read16le(lenPtr)
                                    : llvm::support::endian::read32le(lenPtr);
  if (headerLen > bytes.size() - headerStart)
    return fail("header length " + Twine(headerLen) +
                " extends past the end of the file (file size " +
                Twine(bytes.size()) + " bytes)");
  StringRef header = bytes.substr(headerStart, headerLen);
  if (header.empty() || header.back() != '\n')
    return fail("header is not terminated by '\\n'");

  llvm::Expected<PyValue> dict = HeaderParser(header.drop_back()).parseHeader();
  if (!dict)
    return failWith(dict.takeError());

  Array a;
  if (llvm::Error err = interpretHeader(*dict, a.dtype, a.shape))
    return failWith(std::move(err));

  llvm::Expected<int64_t> count =
      checkedNumElements(a.shape, dtypeSize(a.dtype));
  if (!count)
    return failWith(count.takeError());
  uint64_t expected = static_cast<uint64_t>(*count * dtypeSize(a.dtype));
  StringRef payload = bytes.drop_front(headerStart + headerLen);
  if (payload.size() < expected)
    return fail("data is truncated: expected " + Twine(expected) +
                " bytes for " + Twine(*count) + " " + dtypeName(a.dtype) +
                " elements, found " + Twine(payload.size()));
  if (payload.size() > expected)
    return fail(Twine(payload.size() - expected) +
                " trailing bytes after the array data (expected " +
                Twine(expected) + " data bytes, found " +
                Twine(payload.size()) + ")");

  a.data.assign(payload.bytes_begin(), payload.bytes_end());
  if (a.dtype == DType::I1)
    normalizeBools(a.data);
  return a;
}

llvm::Expected<Array> mlir::pe::npy::readNpy(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(
        buf.getError(),
        path + ": cannot open file: " + buf.getError().message());
  return parseNpy((*buf)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Builds the preamble + header exactly like numpy.lib.format does
/// (`_write_array_header` with version=None).
static std::string serializeHeader(const Array &a) {
  std::string dict;
  llvm::raw_string_ostream os(dict);
  os << "{'descr': '" << dtypeDescr(a.dtype)
     << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0, e = a.shape.size(); i != e; ++i) {
    if (i)
      os << ", ";
    os << a.shape[i];
  }
  if (a.shape.size() == 1)
    os << ",";
  os << "), }";
  // Spare room for growing the first axis in place.
  if (!a.shape.empty()) {
    int64_t digits = static_cast<int64_t>(std::to_string(a.shape[0]).size());
    if (digits < kGrowthAxisMaxDigits)
      os.indent(kGrowthAxisMaxDigits - digits);
  }
  os.flush();

  uint64_t hlen = dict.size() + 1; // + '\n'
  unsigned major = 1;
  size_t lenSize = 2;
  uint64_t padLen =
      kArrayAlign - ((kMagicLen + 2 + lenSize + hlen) % kArrayAlign);
  if (hlen + padLen > 0xffff) {
    major = 2;
    lenSize = 4;
    padLen = kArrayAlign - ((kMagicLen + 2 + lenSize + hlen) % kArrayAlign);
    assert(hlen + padLen <= 0xffffffffULL && "header too large");
  }

  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  char lenBytes[4];
  uint64_t total = hlen + padLen;
  if (lenSize == 2)
    llvm::support::endian::write16le(lenBytes, static_cast<uint16_t>(total));
  else
    llvm::support::endian::write32le(lenBytes, static_cast<uint32_t>(total));
  out.append(lenBytes, lenSize);
  out += dict;
  out.append(padLen, ' ');
  out.push_back('\n');
  assert(out.size() % kArrayAlign == 0 && "data must be 64-byte aligned");
  return out;
}

std::string mlir::pe::npy::serializeNpy(const Array &a) {
  assert(!llvm::errorToBool(verify(a)) && "serializeNpy: malformed Array");
  std::string out = serializeHeader(a);
  size_t dataStart = out.size();
  out.append(reinterpret_cast<const char *>(a.data.data()), a.data.size());
  if (a.dtype == DType::I1)
    for (size_t i = dataStart, e = out.size(); i != e; ++i)
      out[i] = out[i] != 0;
  return out;
}

llvm::Error mlir::pe::npy::writeNpy(StringRef path, const Array &a) {
  if (llvm::Error err = verify(a))
    return makeError(path +
                     ": cannot write array: " + llvm::toString(std::move(err)));
  std::string header = serializeHeader(a);

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(
        ec, path + ": cannot open for writing: " + ec.message());
  os << header;
  if (a.dtype == DType::I1) {
    std::vector<uint8_t> bools(a.data);
    normalizeBools(bools);
    os.write(reinterpret_cast<const char *>(bools.data()), bools.size());
  } else {
    os.write(reinterpret_cast<const char *>(a.data.data()), a.data.size());
  }
  os.close();
  if (os.has_error()) {
    ec = os.error();
    os.clear_error();
    return llvm::createStringError(ec,
                                   path + ": write failed: " + ec.message());
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

uint16_t mlir::pe::npy::floatToHalf(float value) {
  uint32_t bits = llvm::bit_cast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t abs = bits & 0x7fffffffu;

  if (abs >= 0x7f800000u) {
    if (abs == 0x7f800000u)
      return sign | 0x7c00; // Infinity.
    // NaN: keep the top payload bits and force a quiet NaN.
    return sign | 0x7e00 | static_cast<uint16_t>((abs >> 13) & 0x3ff);
  }

  int32_t exp = static_cast<int32_t>(abs >> 23) - 127;
  if (exp > 15)
    return sign | 0x7c00; // Overflow (|x| >= 2^16).

  uint32_t mant = abs & 0x7fffffu;
  if (exp >= -14) {
    // Normal half. Rounding may carry into the exponent, which correctly
    // yields the next binade or infinity.
    uint32_t h = (static_cast<uint32_t>(exp + 15) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
      ++h;
    return sign | static_cast<uint16_t>(h);
  }

  // Subnormal half (or zero). |x| < 2^-25 always rounds to zero; float
  // subnormals have exp == -127 and land here too.
  if (exp < -25)
    return sign;
  // value = M * 2^(exp - 23) with the implicit bit; half subnormal unit is
  // 2^-24, so the half mantissa is M >> (-exp - 1).
  uint32_t m = mant | 0x800000u;
  unsigned shift = static_cast<unsigned>(-exp - 1); // 14 .. 24
  uint32_t h = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1)))
    ++h; // May become 0x400, the smallest normal: still correct.
  return sign | static_cast<uint16_t>(h);
}

float mlir::pe::npy::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  uint32_t out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    out = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    out = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mant & 0x400)) {
      mant <<= 1;
      ++shift;
    }
    mant &= 0x3ff;
    out = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mant << 13);
  }
  return llvm::bit_cast<float>(out);
}

uint16_t mlir::pe::npy::floatToBFloat16(float value) {
  uint32_t bits = llvm::bit_cast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040); // Quiet NaN.
  uint32_t lsb = (bits >> 16) & 1;
  bits += 0x7fffu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

float mlir::pe::npy::bfloat16ToFloat(uint16_t bits) {
  return llvm::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

//===----------------------------------------------------------------------===//
// Array conversion
//===----------------------------------------------------------------------===//

namespace le = llvm::support::endian;

static double loadFloat(DType dtype, const uint8_t *p) {
  switch (dtype) {
  case DType::F16:
    return halfToFloat(le::read16le(p));
  case DType::BF16:
    return bfloat16ToFloat(le::read16le(p));
  case DType::F32:
    return llvm::bit_cast<float>(le::read32le(p));
  case DType::F64:
    return llvm::bit_cast<double>(le::read64le(p));
  default:
    llvm_unreachable("not a float type");
  }
}

/// Rounds a double to a 16-bit format in a single step (no double rounding
/// through float).
static uint16_t doubleTo16(double value, const llvm::fltSemantics &sem) {
  llvm::APFloat f(value);
  bool losesInfo;
  (void)f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

static void storeFloat(DType dtype, DType from, double value, uint8_t *p) {
  switch (dtype) {
  case DType::F16:
    le::write16le(p, from == DType::F64
                         ? doubleTo16(value, llvm::APFloat::IEEEhalf())
                         : floatToHalf(static_cast<float>(value)));
    return;
  case DType::BF16:
    le::write16le(p, from == DType::F64
                         ? doubleTo16(value, llvm::APFloat::BFloat())
                         : floatToBFloat16(static_cast<float>(value)));
    return;
  case DType::F32:
    le::write32le(p, llvm::bit_cast<uint32_t>(static_cast<float>(value)));
    return;
  case DType::F64:
    le::write64le(p, llvm::bit_cast<uint64_t>(value));
    return;
  default:
    llvm_unreachable("not a float type");
  }
}

static int64_t loadInt(DType dtype, const uint8_t *p) {
  switch (dtype) {
  case DType::I1:
    return *p != 0;
  case DType::I8:
    return static_cast<int8_t>(*p);
  case DType::I32:
    return static_cast<int32_t>(le::read32le(p));
  case DType::I64:
    return static_cast<int64_t>(le::read64le(p));
  default:
    llvm_unreachable("not an integer type");
  }
}

static std::pair<int64_t, int64_t> intRange(DType dtype) {
  switch (dtype) {
  case DType::I1:
    return {0, 1};
  case DType::I8:
    return {INT8_MIN, INT8_MAX};
  case DType::I32:
    return {INT32_MIN, INT32_MAX};
  case DType::I64:
    return {INT64_MIN, INT64_MAX};
  default:
    llvm_unreachable("not an integer type");
  }
}

static void storeInt(DType dtype, int64_t value, uint8_t *p) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
    *p = static_cast<uint8_t>(value);
    return;
  case DType::I32:
    le::write32le(p, static_cast<uint32_t>(value));
    return;
  case DType::I64:
    le::write64le(p, static_cast<uint64_t>(value));
    return;
  default:
    llvm_unreachable("not an integer type");
  }
}

llvm::Expected<Array> mlir::pe::npy::convert(const Array &a, DType to) {
  if (llvm::Error err = verify(a))
    return makeError("convert: " + llvm::toString(std::move(err)));
  if (a.dtype == to)
    return a;
  if (isFloat(a.dtype) != isFloat(to))
    return makeError(Twine("convert: cannot convert ") + dtypeName(a.dtype) +
                     " to " + dtypeName(to) +
                     ": conversions between floating-point and integer/bool "
                     "types are lossy by design and not supported");

  llvm::Expected<Array> result = makeArray(to, a.shape);
  if (!result)
    return result.takeError();
  int64_t n = a.numElements();
  size_t inSize = dtypeSize(a.dtype), outSize = dtypeSize(to);
  const uint8_t *in = a.data.data();
  uint8_t *out = result->data.data();

  if (isFloat(to)) {
    for (int64_t i = 0; i < n; ++i)
      storeFloat(to, a.dtype, loadFloat(a.dtype, in + i * inSize),
                 out + i * outSize);
    return result;
  }

  auto [lo, hi] = intRange(to);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = loadInt(a.dtype, in + i * inSize);
    if (v < lo || v > hi)
      return makeError("convert: value " + Twine(v) + " at flat index " +
                       Twine(i) + " is out of range for " + dtypeName(to) +
                       " [" + Twine(lo) + ", " + Twine(hi) + "]");
    storeInt(to, v, out + i * outSize);
  }
  return result;
}
