//===- Npy.cpp - NumPy .npy file reader and writer ------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Npy.h"

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

using namespace pe::rt;

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

static Error makeError(const std::string &msg) { return Error(msg); }

static bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static std::string str(std::string_view s) { return std::string(s); }

static bool isLittleEndianHost() {
  uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

const char *pe::rt::dtypeName(DType dtype) {
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
  return {};
}

int64_t pe::rt::dtypeSize(DType dtype) {
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
  return {};
}

bool pe::rt::isFloat(DType dtype) {
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
  return {};
}

const char *pe::rt::dtypeDescr(DType dtype) {
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
  return {};
}

Expected<DType> pe::rt::parseDescr(std::string_view descr) {
  std::string d(descr);
  if (descr == "bfloat16")
    return DType::BF16;

  // Optional byte-order character followed by a kind character and an item
  // size, e.g. "<f4". NumPy treats a missing prefix and '|' like '='
  // (native order).
  char order = '=';
  std::string_view rest = descr;
  if (!rest.empty() &&
      std::string_view("<>=|").find(rest.front()) != std::string_view::npos) {
    order = rest.front();
    rest = rest.substr(1);
  }
  if (rest.empty())
    return makeError("invalid dtype descriptor '" + d + "'");

  char kind = rest.front();
  std::string_view sizeStr = rest.substr(1);
  switch (kind) {
  case 'O':
    return makeError("object arrays (dtype '" + d + "') are not supported");
  case 'V':
    return makeError(
        "void dtype '" + d +
        "' is not supported (it is ambiguous; exchange bfloat16 data as "
        "float32 or use the descriptor 'bfloat16')");
  case 'U':
  case 'S':
  case 'a':
    return makeError("string dtype '" + d + "' is not supported");
  case 'M':
  case 'm':
    return makeError("datetime dtype '" + d + "' is not supported");
  case 'c':
    return makeError("complex dtype '" + d + "' is not supported");
  case 'u':
    return makeError("unsigned integer dtype '" + d + "' is not supported");
  default:
    break;
  }

  unsigned itemSize = 0;
  bool sizeOk = !sizeStr.empty() && sizeStr.size() < 9;
  for (char c : sizeStr)
    sizeOk = sizeOk && isDigit(c);
  if (sizeOk)
    itemSize = unsigned(std::stoul(std::string(sizeStr)));
  if (!sizeOk)
    return makeError("invalid dtype descriptor '" + d + "'");

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
    return makeError("unsupported dtype '" + d +
                     "' (supported: <f2, <f4, <f8, |b1, |i1, <i4, <i8, "
                     "bfloat16)");

  // Byte order only matters for multi-byte types.
  if (itemSize > 1) {
    bool bigEndian = order == '>' || (order != '<' && !isLittleEndianHost());
    if (bigEndian)
      return makeError("big-endian dtype '" + d +
                       "' is not supported (save the array as "
                       "little-endian, e.g. arr.astype('<" +
                       kind + std::to_string(itemSize) + "'))");
  }
  return dtype;
}

//===----------------------------------------------------------------------===//
// Array
//===----------------------------------------------------------------------===//

/// Computes the element count of `shape`, checking for negative dimensions
/// and overflow (of the byte size for `itemSize`).
static Expected<int64_t> checkedNumElements(const std::vector<int64_t> &shape,
                                            int64_t itemSize) {
  for (int64_t dim : shape)
    if (dim < 0)
      return makeError("negative dimension " + std::to_string(dim) +
                       " in shape");
  for (int64_t dim : shape)
    if (dim == 0)
      return 0;
  int64_t count = 1;
  for (int64_t dim : shape)
    if (__builtin_mul_overflow(count, dim, &count))
      return makeError("number of elements in shape overflows int64");
  int64_t bytes;
  if (__builtin_mul_overflow(count, itemSize, &bytes))
    return makeError("array byte size overflows int64");
  return count;
}

std::string pe::rt::shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
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

Expected<Array> pe::rt::makeArray(DType dtype,
                                  const std::vector<int64_t> &shape) {
  Expected<int64_t> count = checkedNumElements(shape, dtypeSize(dtype));
  if (!count)
    return count.takeError();
  Array a;
  a.dtype = dtype;
  a.shape.assign(shape.begin(), shape.end());
  a.data.assign(static_cast<size_t>(*count * dtypeSize(dtype)), 0);
  return a;
}

Error pe::rt::verify(const Array &a) {
  Expected<int64_t> count = checkedNumElements(a.shape, dtypeSize(a.dtype));
  if (!count)
    return count.takeError();
  uint64_t expected = static_cast<uint64_t>(*count * dtypeSize(a.dtype));
  if (a.data.size() != expected)
    return makeError("array data has " + std::to_string(a.data.size()) +
                     " bytes but shape and dtype " + dtypeName(a.dtype) +
                     " require " + std::to_string(expected));
  return Error::success();
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

  std::string kindName() const {
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
    return "?";
  }
};

/// Recursive-descent parser for the Python dict literal in a .npy header.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  Expected<PyValue> parseHeader() {
    skipSpace();
    if (peek() != '{')
      return error("expected '{' at the start of the header dict");
    Expected<PyValue> dict = parseValue(0);
    if (!dict)
      return dict.takeError();
    skipSpace();
    if (pos != text.size())
      return error("unexpected characters after the header dict");
    return dict;
  }

private:
  std::string_view text;
  size_t pos = 0;

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool atEnd() const { return pos >= text.size(); }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  Error error(const std::string &msg) const {
    return makeError("malformed header: " + msg + " (at offset " +
                     std::to_string(pos) + ")");
  }

  static bool isIdentChar(char c) {
    return (isDigit(c) || isAlpha(c)) || c == '_';
  }

  Expected<PyValue> parseValue(unsigned depth) {
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
    if (isDigit(c) || c == '-' || c == '+' || c == '.')
      return parseNumber();
    if (isAlpha(c) || c == '_') {
      size_t start = pos;
      while (!atEnd() && isIdentChar(peek()))
        ++pos;
      std::string_view ident = text.substr(start, pos - start);
      PyValue v;
      if (ident == "True" || ident == "False") {
        v.kind = PyValue::Bool;
        v.boolean = ident == "True";
      } else if (ident == "None") {
        v.kind = PyValue::None;
      } else {
        pos = start;
        return error("unexpected identifier '" + str(ident) + "'");
      }
      return v;
    }
    return error(std::string("unexpected character '") + c + "'");
  }

  Expected<PyValue> parseString() {
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

  Expected<PyValue> parseNumber() {
    size_t start = pos;
    if (peek() == '-' || peek() == '+')
      ++pos;
    size_t digitsStart = pos;
    while (isDigit(peek()))
      ++pos;
    bool isFloat = false;
    // Anything that continues like a float literal makes this a float.
    while (!atEnd() && (isDigit(peek()) || peek() == '.' || peek() == 'e' ||
                        peek() == 'E' || peek() == 'j' || peek() == 'J' ||
                        ((peek() == '+' || peek() == '-') &&
                         (text[pos - 1] == 'e' || text[pos - 1] == 'E')))) {
      isFloat = true;
      ++pos;
    }
    std::string_view digits = text.substr(digitsStart, pos - digitsStart);
    if (digits.empty())
      return error("invalid number");
    PyValue v;
    v.text = str(text.substr(start, pos - start));
    // Python 2 long literals, e.g. "(3L, 4L)", appear in old files.
    if (!isFloat && (peek() == 'L' || peek() == 'l'))
      ++pos;
    if (isIdentChar(peek()))
      return error("invalid number '" +
                   str(text.substr(start, pos + 1 - start)) + "'");
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
  Expected<PyValue> parseSequence(unsigned depth) {
    char open = text[pos++];
    char close = open == '(' ? ')' : ']';
    PyValue v;
    v.kind = open == '(' ? PyValue::Tuple : PyValue::List;
    bool sawComma = false;
    while (true) {
      skipSpace();
      if (atEnd())
        return error(std::string("missing '") + close + "'");
      if (peek() == close) {
        ++pos;
        break;
      }
      Expected<PyValue> elt = parseValue(depth + 1);
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
        return error(std::string("expected ',' or '") + close + "'");
    }
    if (v.kind == PyValue::Tuple && v.elements.size() == 1 && !sawComma)
      return std::move(v.elements.front());
    return v;
  }

  Expected<PyValue> parseDict(unsigned depth) {
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
      Expected<PyValue> key = parseValue(depth + 1);
      if (!key)
        return key.takeError();
      skipSpace();
      if (peek() != ':')
        return error("expected ':' after dict key");
      ++pos;
      Expected<PyValue> value = parseValue(depth + 1);
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
static Error interpretHeader(const PyValue &dict, DType &dtype,
                             std::vector<int64_t> &shape) {
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
  Expected<DType> parsed = parseDescr(descr->text);
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
      std::string got = dim.kindName();
      if (dim.kind == PyValue::Str || dim.kind == PyValue::Float)
        got += " '" + dim.text + "'";
      return makeError("shape entries must be integers, got " + got);
    }
    if (dim.intOverflow)
      return makeError("shape dimension " + dim.text + " overflows int64");
    if (dim.integer < 0)
      return makeError("negative dimension " + std::to_string(dim.integer) +
                       " in shape");
    shape.push_back(dim.integer);
  }
  return Error::success();
}

static void normalizeBools(std::vector<uint8_t> &data) {
  for (uint8_t &b : data)
    b = b != 0;
}

Expected<Array> pe::rt::parseNpy(std::string_view bytes,
                                 std::string_view nameForErrors) {
  auto fail = [&](const std::string &msg) -> Error {
    return makeError(str(nameForErrors) + ": " + msg);
  };
  auto failWith = [&](Error err) -> Error { return fail(err.message()); };

  std::string_view magic(kMagic, kMagicLen);
  if (!startsWith(bytes, magic)) {
    if (bytes.size() < kMagicLen && startsWith(magic, bytes))
      return fail("file is truncated (too short to be a .npy file)");
    return fail("not a .npy file (bad magic string)");
  }
  if (bytes.size() < kMagicLen + 2)
    return fail("file is truncated (no format version)");
  unsigned major = static_cast<uint8_t>(bytes[kMagicLen]);
  unsigned minor = static_cast<uint8_t>(bytes[kMagicLen + 1]);
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");

  size_t lenSize = major == 1 ? 2 : 4;
  size_t headerStart = kMagicLen + 2 + lenSize;
  if (bytes.size() < headerStart)
    return fail("file is truncated (incomplete header length field)");
  const uint8_t *lenPtr =
      reinterpret_cast<const uint8_t *>(bytes.data()) + kMagicLen + 2;
  uint64_t headerLen = 0;
  for (size_t i = 0; i < lenSize; ++i)
    headerLen |= uint64_t(lenPtr[i]) << (8 * i);
  if (headerLen > bytes.size() - headerStart)
    return fail("header length " + std::to_string(headerLen) +
                " extends past the end of the file (file size " +
                std::to_string(bytes.size()) + " bytes)");
  std::string_view header = bytes.substr(headerStart, headerLen);
  if (header.empty() || header.back() != '\n')
    return fail("header is not terminated by '\\n'");

  Expected<PyValue> dict =
      HeaderParser(header.substr(0, header.size() - 1)).parseHeader();
  if (!dict)
    return failWith(dict.takeError());

  Array a;
  if (Error err = interpretHeader(*dict, a.dtype, a.shape))
    return failWith(std::move(err));

  Expected<int64_t> count = checkedNumElements(a.shape, dtypeSize(a.dtype));
  if (!count)
    return failWith(count.takeError());
  uint64_t expected = static_cast<uint64_t>(*count * dtypeSize(a.dtype));
  std::string_view payload = bytes.substr(headerStart + headerLen);
  if (payload.size() < expected)
    return fail("data is truncated: expected " + std::to_string(expected) +
                " bytes for " + std::to_string(*count) + " " +
                dtypeName(a.dtype) + " elements, found " +
                std::to_string(payload.size()));
  if (payload.size() > expected)
    return fail(std::to_string(payload.size() - expected) +
                " trailing bytes after the array data (expected " +
                std::to_string(expected) + " data bytes, found " +
                std::to_string(payload.size()) + ")");

  a.data.assign(reinterpret_cast<const uint8_t *>(payload.data()),
                reinterpret_cast<const uint8_t *>(payload.data()) +
                    payload.size());
  if (a.dtype == DType::I1)
    normalizeBools(a.data);
  return a;
}

namespace {
/// Closes a FILE when it goes out of scope.
struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;
} // namespace

Expected<Array> pe::rt::readNpy(const std::string &path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f)
    return makeError(path + ": cannot open file: " + std::strerror(errno));
  std::string bytes;
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof(chunk), f.get())) > 0)
    bytes.append(chunk, got);
  if (std::ferror(f.get()))
    return makeError(path + ": cannot open file: " + std::strerror(errno));
  return parseNpy(bytes, path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Builds the preamble + header exactly like numpy.lib.format does
/// (`_write_array_header` with version=None).
static std::string serializeHeader(const Array &a) {
  std::string dict = "{'descr': '" + std::string(dtypeDescr(a.dtype)) +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0, e = a.shape.size(); i != e; ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(a.shape[i]);
  }
  if (a.shape.size() == 1)
    dict += ",";
  dict += "), }";
  // Spare room for growing the first axis in place.
  if (!a.shape.empty()) {
    int64_t digits = static_cast<int64_t>(std::to_string(a.shape[0]).size());
    if (digits < kGrowthAxisMaxDigits)
      dict.append(size_t(kGrowthAxisMaxDigits - digits), ' ');
  }

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
  uint64_t total = hlen + padLen;
  for (size_t i = 0; i < lenSize; ++i)
    out.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
  out += dict;
  out.append(padLen, ' ');
  out.push_back('\n');
  assert(out.size() % kArrayAlign == 0 && "data must be 64-byte aligned");
  return out;
}

std::string pe::rt::serializeNpy(const Array &a) {
  assert(!verify(a) && "serializeNpy: malformed Array");
  std::string out = serializeHeader(a);
  size_t dataStart = out.size();
  out.append(reinterpret_cast<const char *>(a.data.data()), a.data.size());
  if (a.dtype == DType::I1)
    for (size_t i = dataStart, e = out.size(); i != e; ++i)
      out[i] = out[i] != 0;
  return out;
}

Error pe::rt::writeNpy(const std::string &path, const Array &a) {
  if (Error err = verify(a))
    return makeError(path + ": cannot write array: " + err.message());
  std::string bytes = serializeNpy(a);
  File f(std::fopen(path.c_str(), "wb"));
  if (!f)
    return makeError(path +
                     ": cannot open for writing: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f.get()) == bytes.size();
  int err = errno;
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok)
    return makeError(path +
                     ": write failed: " + std::strerror(err ? err : errno));
  return Error::success();
}
