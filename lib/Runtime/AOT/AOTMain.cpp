//===- AOTMain.cpp - main() of executables from pe-run --emit-executable --===//
//
// Part of the pe-mlir project.
//
// `pe-run FILE -e FUNC --pipeline=P --emit-executable=EXE` compiles the
// lowered function to an object and links it with this file (libpe_aot_main.a)
// and, for the GPU pipelines, a static copy of pe's CUDA or Vulkan runtime.
// The object provides:
//
//   pe_aot_signature  text: the function's name, pipeline, arguments and
//                     results (one line each; see parseSignature)
//   pe_aot_entry      the packed interface: void(void **args), one pointer per
//                     LLVM parameter, then one to the result slots
//   pe_aot_init/fini  the module's global constructors and destructors (GPU
//                     module loading), called here after the inputs are read
//
// and calls pe_aot_puts/abort/malloc/aligned_alloc where the lowered code
// calls puts/abort/malloc/aligned_alloc, so that a failed run-time check or
// an allocation failure ends the run with one error line, as in pe-run.
//
// This file depends only on the C++ standard library and glibc (no LLVM or
// MLIR: the executable must run where only a driver is installed), so it has
// its own .npy reader and writer: the subset of pe/Support/Npy.h (which is
// built on LLVM Support) that pe-run's --input/--output use, with the same
// checks and messages.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
extern const char pe_aot_signature[];
void pe_aot_entry(void **args);
void pe_aot_init();
void pe_aot_fini();
}

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

[[noreturn]] void fail(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "pe-aot: error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

//===----------------------------------------------------------------------===//
// Element types and .npy arrays
//===----------------------------------------------------------------------===//

enum class DType { F16, BF16, F32, F64, I1, I8, I32, I64 };

const char *dtypeName(DType d) {
  switch (d) {
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
  return "?";
}

int64_t dtypeSize(DType d) {
  switch (d) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::I1:
  case DType::I8:
    return 1;
  }
  return 1;
}

const char *dtypeDescr(DType d) {
  switch (d) {
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
  return "?";
}

bool isFloat(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F32 ||
         d == DType::F64;
}

struct Array {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

/// NumPy-style shape: "(2, 3)", "(6,)", "()"; -1 (dynamic) prints as "?".
std::string shapeString(const std::vector<int64_t> &shape) {
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

uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t man = x & 0x7fffff;
  if (exp == 0xff) // inf, NaN (quiet)
    return uint16_t(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
  int32_t e = int32_t(exp) - 127 + 15;
  if (e >= 0x1f)
    return uint16_t(sign | 0x7c00);
  if (e <= 0) { // subnormal or zero
    if (e < -10)
      return uint16_t(sign);
    man |= 0x800000;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(e) << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent: correct, up to inf
  return uint16_t(sign | half);
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  uint32_t x;
  if (exp == 0x1f) {
    x = sign | 0x7f800000 | (man << 13);
  } else if (exp == 0) {
    float f = std::ldexp(float(man), -24);
    return sign ? -f : f;
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t floatToBFloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if (std::isnan(value))
    return uint16_t((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double loadFloat(DType d, const uint8_t *p) {
  switch (d) {
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
  }
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bfloat16ToFloat(h);
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case DType::F64: {
    double f;
    std::memcpy(&f, p, 8);
    return f;
  }
  default:
    return 0;
  }
}

int64_t loadInt(DType d, const uint8_t *p) {
  switch (d) {
  case DType::I1:
    return p[0] ? 1 : 0;
  case DType::I8:
    return int8_t(p[0]);
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  default:
    return 0;
  }
}

std::string readFile(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    fail(path + ": cannot open file: " + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.append(buf, n);
  bool bad = std::ferror(f);
  std::fclose(f);
  if (bad)
    fail(path + ": read error");
  return bytes;
}

/// A minimal parser of the header dict numpy writes:
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &file)
      : s(text), file(file) {}

  void parse(Array &a) {
    std::string descr;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skip();
    expect('{');
    while (true) {
      skip();
      if (peek() == '}') {
        ++pos;
        break;
      }
      std::string key = string();
      skip();
      expect(':');
      skip();
      if (key == "descr") {
        if (peek() == '[')
          error("structured dtypes (a list 'descr') are not supported");
        descr = string();
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (s.compare(pos, 4, "True") == 0)
          error("fortran_order=True (column-major) arrays are not "
                "supported");
        if (s.compare(pos, 5, "False") != 0)
          error("'fortran_order' must be True or False");
        pos += 5;
        haveOrder = true;
      } else if (key == "shape") {
        a.shape = tuple();
        haveShape = true;
      } else {
        error("unknown header key '" + key + "'");
      }
      skip();
      if (peek() == ',')
        ++pos;
      else if (peek() != '}')
        error("expected ',' or '}' in the header");
    }
    if (!haveDescr || !haveOrder || !haveShape)
      error(std::string("header is missing key '") +
            (!haveDescr   ? "descr"
             : !haveOrder ? "fortran_order"
                          : "shape") +
            "'");
    a.dtype = parseDescr(descr);
  }

private:
  [[noreturn]] void error(const std::string &msg) { fail(file + ": " + msg); }
  char peek() const { return pos < s.size() ? s[pos] : '\0'; }
  void skip() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t'))
      ++pos;
  }
  void expect(char c) {
    if (peek() != c)
      error(std::string("malformed header: expected '") + c + "' at offset " +
            std::to_string(pos));
    ++pos;
  }
  std::string string() {
    char q = peek();
    if (q != '\'' && q != '"')
      error("malformed header: expected a string at offset " +
            std::to_string(pos));
    size_t end = s.find(q, pos + 1);
    if (end == std::string::npos)
      error("malformed header: unterminated string");
    std::string out = s.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return out;
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (true) {
      skip();
      if (peek() == ')') {
        ++pos;
        return dims;
      }
      size_t start = pos;
      if (peek() == '-')
        ++pos;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
        ++pos;
      if (pos == start)
        error("shape entries must be integers");
      errno = 0;
      long long v =
          std::strtoll(s.substr(start, pos - start).c_str(), nullptr, 10);
      if (errno == ERANGE)
        error("shape dimension " + s.substr(start, pos - start) +
              " overflows int64");
      if (v < 0)
        error("negative dimension " + std::to_string(v) + " in shape");
      dims.push_back(v);
      skip();
      if (peek() == ',')
        ++pos;
      else if (peek() != ')')
        error("malformed header: expected ',' or ')' in 'shape'");
    }
  }
  DType parseDescr(const std::string &d) {
    if (d == "bfloat16")
      return DType::BF16;
    if (d.size() >= 2) {
      char order = d[0];
      std::string code = d.substr(1);
      bool itemOne = code == "b1" || code == "i1";
      if (order == '>' && !itemOne)
        error("big-endian data ('" + d + "') is not supported");
      if (order == '<' || order == '=' || order == '|' ||
          (order == '>' && itemOne)) {
        if (code == "f2")
          return DType::F16;
        if (code == "f4")
          return DType::F32;
        if (code == "f8")
          return DType::F64;
        if (code == "b1")
          return DType::I1;
        if (code == "i1")
          return DType::I8;
        if (code == "i4")
          return DType::I32;
        if (code == "i8")
          return DType::I64;
      }
    }
    error("unsupported dtype '" + d +
          "' (supported: float16, bfloat16, float32, float64, bool, int8, "
          "int32, int64)");
  }

  const std::string &s;
  const std::string &file;
  size_t pos = 0;
};

Array readNpy(const std::string &path) {
  std::string bytes = readFile(path);
  static const char kMagic[] = "\x93NUMPY";
  const size_t magicLen = 6;
  auto error = [&](const std::string &msg) { fail(path + ": " + msg); };
  if (bytes.compare(0, magicLen, kMagic, std::min(bytes.size(), magicLen)) !=
          0 ||
      bytes.size() < magicLen) {
    if (bytes.size() < magicLen &&
        std::string(kMagic, magicLen).compare(0, bytes.size(), bytes) == 0)
      error("file is truncated (too short to be a .npy file)");
    error("not a .npy file (bad magic string)");
  }
  if (bytes.size() < magicLen + 2)
    error("file is truncated (no format version)");
  unsigned major = uint8_t(bytes[magicLen]), minor = uint8_t(bytes[7]);
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    error("unsupported .npy format version " + std::to_string(major) + "." +
          std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  size_t lenSize = major == 1 ? 2 : 4;
  size_t headerStart = magicLen + 2 + lenSize;
  if (bytes.size() < headerStart)
    error("file is truncated (incomplete header length field)");
  uint64_t headerLen = 0;
  for (size_t i = 0; i < lenSize; ++i)
    headerLen |= uint64_t(uint8_t(bytes[magicLen + 2 + i])) << (8 * i);
  if (headerLen > bytes.size() - headerStart)
    error("header length " + std::to_string(headerLen) +
          " extends past the end of the file (file size " +
          std::to_string(bytes.size()) + " bytes)");
  std::string header = bytes.substr(headerStart, headerLen);
  if (header.empty() || header.back() != '\n')
    error("header is not terminated by '\\n'");
  header.pop_back();
  Array a;
  HeaderParser(header, path).parse(a);
  int64_t count = 1;
  for (int64_t d : a.shape)
    if (__builtin_mul_overflow(count, d, &count))
      error("the element count of shape " + shapeString(a.shape) +
            " overflows int64");
  int64_t expected;
  if (__builtin_mul_overflow(count, dtypeSize(a.dtype), &expected))
    error("the byte size of shape " + shapeString(a.shape) +
          " overflows int64");
  uint64_t payload = bytes.size() - headerStart - headerLen;
  if (payload < uint64_t(expected))
    error("data is truncated: expected " + std::to_string(expected) +
          " bytes for " + std::to_string(count) + " " + dtypeName(a.dtype) +
          " elements, found " + std::to_string(payload));
  if (payload > uint64_t(expected))
    error(std::to_string(payload - expected) +
          " trailing bytes after the array data (expected " +
          std::to_string(expected) + " data bytes, found " +
          std::to_string(payload) + ")");
  a.data.assign(bytes.begin() + headerStart + headerLen, bytes.end());
  if (a.dtype == DType::I1)
    for (uint8_t &b : a.data)
      b = b ? 1 : 0;
  return a;
}

void writeNpy(const std::string &path, const Array &a) {
  std::string dict =
      std::string("{'descr': '") + dtypeDescr(a.dtype) +
      "', 'fortran_order': False, 'shape': " + shapeString(a.shape) + ", }";
  size_t lenSize = 2;
  size_t total = 10 + dict.size() + 1;
  if ((total + 63) / 64 * 64 - 10 > 65535) {
    lenSize = 4;
    total = 12 + dict.size() + 1;
  }
  size_t padded = (total + 63) / 64 * 64;
  std::string header = dict + std::string(padded - total, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += char(lenSize == 2 ? 1 : 2);
  out += char(0);
  for (size_t i = 0; i < lenSize; ++i)
    out += char((header.size() >> (8 * i)) & 0xff);
  out += header;
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    fail(path + ": cannot open for writing: " + std::strerror(errno));
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size() &&
            (a.data.empty() ||
             std::fwrite(a.data.data(), 1, a.data.size(), f) == a.data.size());
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    fail(path + ": write error: " + std::strerror(errno));
}

//===----------------------------------------------------------------------===//
// Signature (written by pe-run --emit-executable)
//===----------------------------------------------------------------------===//

enum class Elem { F16, BF16, F32, F64, I1, I8, I32, I64, Index };

struct ElemInfo {
  const char *name;
  Elem elem;
  DType storage;
};
const ElemInfo kElems[] = {
    {"f16", Elem::F16, DType::F16},     {"bf16", Elem::BF16, DType::BF16},
    {"f32", Elem::F32, DType::F32},     {"f64", Elem::F64, DType::F64},
    {"i1", Elem::I1, DType::I1},        {"i8", Elem::I8, DType::I8},
    {"i32", Elem::I32, DType::I32},     {"i64", Elem::I64, DType::I64},
    {"index", Elem::Index, DType::I64},
};

const ElemInfo &elemInfo(Elem e) {
  for (const ElemInfo &info : kElems)
    if (info.elem == e)
      return info;
  return kElems[0];
}

struct ValueSpec {
  bool isTensor = true;
  Elem elem = Elem::F32;
  std::vector<int64_t> shape; // -1: dynamic
  std::string type;           // the MLIR type, for messages
};

struct Signature {
  std::string function, pipeline;
  std::vector<ValueSpec> args, results;
  /// The CPU the code was compiled for (CPU pipelines only) and its LLVM
  /// features ("+avx2,-amx-tile,...").
  std::string cpu, features;
};

std::string mlirType(const ValueSpec &v) {
  if (!v.isTensor)
    return elemInfo(v.elem).name;
  std::string s = "tensor<";
  for (int64_t d : v.shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + elemInfo(v.elem).name + ">";
}

/// Lines: "function NAME", "pipeline NAME", "arg tensor ELEM RANK DIMS...",
/// "arg scalar ELEM", "result tensor ELEM RANK DIMS..."; dynamic dims are -1.
Signature parseSignature(const char *text) {
  Signature sig;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string what;
    in >> what;
    if (what == "function") {
      in >> sig.function;
    } else if (what == "pipeline") {
      in >> sig.pipeline;
    } else if (what == "cpu") {
      in >> sig.cpu;
    } else if (what == "features") {
      in >> sig.features;
    } else if (what == "arg" || what == "result") {
      ValueSpec v;
      std::string kind, elem;
      in >> kind >> elem;
      v.isTensor = kind == "tensor";
      bool known = false;
      for (const ElemInfo &info : kElems)
        if (elem == info.name) {
          v.elem = info.elem;
          known = true;
        }
      if (!known)
        fail("corrupt embedded signature: '" + line + "'");
      if (v.isTensor) {
        int64_t rank = -1;
        in >> rank;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t size;
          in >> size;
          v.shape.push_back(size);
        }
      }
      if (!in)
        fail("corrupt embedded signature: '" + line + "'");
      v.type = mlirType(v);
      (what == "arg" ? sig.args : sig.results).push_back(v);
    }
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Converts the array read for argument `index` to the argument's storage
/// type, with pe-run's checks and messages.
Array adaptInput(const ValueSpec &arg, size_t index, const std::string &file,
                 Array a) {
  std::string where = "argument " + std::to_string(index) + " (" + arg.type +
                      ") from '" + file + "'";
  DType want = elemInfo(arg.elem).storage;
  if (arg.isTensor) {
    bool bf16FromF32 = arg.elem == Elem::BF16 && a.dtype == DType::F32;
    if (a.dtype != want && !bf16FromF32)
      fail(where + ": expected dtype " +
           (arg.elem == Elem::BF16 ? std::string("float32 or bfloat16")
                                   : std::string(dtypeName(want))) +
           ", got " + dtypeName(a.dtype));
    bool shapeOk = a.shape.size() == arg.shape.size();
    for (size_t d = 0; shapeOk && d < arg.shape.size(); ++d)
      if (arg.shape[d] >= 0 && arg.shape[d] != a.shape[d])
        shapeOk = false;
    if (!shapeOk)
      fail(where + ": expected shape " + shapeString(arg.shape) + ", got " +
           shapeString(a.shape));
    if (bf16FromF32) {
      int64_t n = a.numElements();
      std::vector<uint8_t> out(2 * n);
      for (int64_t i = 0; i < n; ++i) {
        uint16_t b =
            floatToBFloat16(float(loadFloat(DType::F32, &a.data[4 * i])));
        std::memcpy(&out[2 * i], &b, 2);
      }
      a.data = std::move(out);
      a.dtype = DType::BF16;
    }
    return a;
  }
  if (!(a.shape.empty() || (a.shape.size() == 1 && a.shape[0] == 1)))
    fail(where +
         ": expected a scalar (0-d or 1-element 1-d array), got shape " +
         shapeString(a.shape));
  bool wantFloat = isFloat(want);
  bool isInt = !isFloat(a.dtype) && a.dtype != DType::I1;
  if (wantFloat ? !isFloat(a.dtype) : !isInt)
    fail(where + ": expected " +
         (wantFloat ? std::string("a float dtype")
                    : std::string("an integer dtype")) +
         ", got " + dtypeName(a.dtype));
  Array out;
  out.dtype = want;
  out.data.resize(dtypeSize(want));
  if (wantFloat) {
    double v = loadFloat(a.dtype, a.data.data());
    if (want == DType::F32) {
      float f = float(v);
      std::memcpy(out.data.data(), &f, 4);
    } else {
      std::memcpy(out.data.data(), &v, 8);
    }
  } else {
    int64_t v = loadInt(a.dtype, a.data.data());
    if (want == DType::I32) {
      if (v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max())
        fail(where + ": element 0 (value " + std::to_string(v) +
             ") is out of range for int32");
      int32_t i = int32_t(v);
      std::memcpy(out.data.data(), &i, 4);
    } else {
      std::memcpy(out.data.data(), &v, 8);
    }
  }
  return out;
}

/// splitmix64 (Steele, Lea, Flood 2014), as pe-run --random-inputs.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// The same data as `pe-run --random-inputs --seed=SEED` for argument
/// `index`: floats k * 2^-(b-1) - 1 (exact in the type), small integers.
Array randomInput(const ValueSpec &arg, size_t index, uint64_t seed) {
  Array a;
  a.dtype = elemInfo(arg.elem).storage;
  if (!arg.isTensor) {
    a.data.assign(dtypeSize(a.dtype), 0); // scalars are 0
    return a;
  }
  for (int64_t d : arg.shape)
    if (d < 0)
      fail("--random-inputs: argument " + std::to_string(index) + " has type " +
           arg.type + " with dynamic dimensions; give it an --input file");
  a.shape = arg.shape;
  int64_t n = a.numElements();
  a.data.assign(size_t(n * dtypeSize(a.dtype)), 0);
  SplitMix64 rng{seed ^ (0xD1B54A32D192ED03ull * (uint64_t(index) + 1))};
  rng.next();
  uint8_t *p = a.data.data();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = rng.next();
    switch (arg.elem) {
    case Elem::F32: {
      float v = float((double(r >> 40) - 8388608.0) * 0x1p-23);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case Elem::F64: {
      double v = (double(r >> 11) - 4503599627370496.0) * 0x1p-52;
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case Elem::F16: {
      uint16_t v = floatToHalf(float((double(r >> 53) - 1024.0) * 0x1p-10));
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case Elem::BF16: {
      uint16_t v = floatToBFloat16(float((double(r >> 56) - 128.0) * 0x1p-7));
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case Elem::I1:
      p[i] = uint8_t(r >> 63);
      break;
    case Elem::I8:
      p[i] = uint8_t(r >> 61);
      break;
    case Elem::I32: {
      int32_t v = int32_t(r >> 61);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case Elem::I64:
    case Elem::Index: {
      int64_t v = int64_t(r >> 61);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    }
  }
  return a;
}

//===----------------------------------------------------------------------===//
// Calls (the layout pe-run's Invocation uses)
//===----------------------------------------------------------------------===//

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

struct ArgSlot {
  std::unique_ptr<void, FreeDeleter> buffer;
  size_t bytes = 0;
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  union {
    int64_t i64;
    int32_t i32;
    float f32;
    double f64;
  } scalar = {0};
};

class Invocation {
public:
  Invocation(const Signature &sig, const std::vector<Array> &inputs)
      : sig(sig), inputs(inputs) {
    for (size_t i = 0; i < sig.args.size(); ++i) {
      auto slot = std::make_unique<ArgSlot>();
      const Array &data = inputs[i];
      if (sig.args[i].isTensor) {
        size_t bytes = data.data.size();
        size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
        void *buffer = std::aligned_alloc(64, rounded);
        if (!buffer)
          fail("out of memory allocating argument " + std::to_string(i) + " (" +
               std::to_string(bytes) + " bytes)");
        slot->buffer.reset(buffer);
        slot->bytes = bytes;
        slot->allocated = slot->aligned = buffer;
        slot->sizes = data.shape;
        slot->strides.resize(data.shape.size());
        int64_t stride = 1;
        for (int64_t d = int64_t(data.shape.size()) - 1; d >= 0; --d) {
          slot->strides[d] = stride;
          stride *= data.shape[d];
        }
        packed.push_back(&slot->allocated);
        packed.push_back(&slot->aligned);
        packed.push_back(&slot->offset);
        for (int64_t &s : slot->sizes)
          packed.push_back(&s);
        for (int64_t &s : slot->strides)
          packed.push_back(&s);
      } else {
        std::memcpy(&slot->scalar, data.data.data(), data.data.size());
        packed.push_back(&slot->scalar);
      }
      slots.push_back(std::move(slot));
    }
    size_t total = 0;
    for (const ValueSpec &r : sig.results)
      total += 3 + 2 * r.shape.size();
    resultBuffer.assign(total, 0);
    if (total)
      packed.push_back(resultBuffer.data());
  }

  /// Calls the function once; copies the results to `outputs` if given and
  /// frees them. `ms` receives the duration of the call alone.
  void call(std::vector<Array> *outputs, double *ms) {
    for (size_t i = 0; i < slots.size(); ++i)
      if (slots[i]->buffer && slots[i]->bytes)
        std::memcpy(slots[i]->buffer.get(), inputs[i].data.data(),
                    slots[i]->bytes);
    std::fill(resultBuffer.begin(), resultBuffer.end(), 0);
    auto start = std::chrono::steady_clock::now();
    pe_aot_entry(packed.data());
    auto stop = std::chrono::steady_clock::now();
    if (ms)
      *ms = std::chrono::duration<double, std::milli>(stop - start).count();

    std::set<void *> keep;
    for (const auto &slot : slots)
      if (slot->allocated)
        keep.insert(slot->allocated);
    // memref.get_global lowers to this dummy allocated pointer.
    keep.insert(reinterpret_cast<void *>(uintptr_t(0xdeadbeef)));
    size_t pos = 0;
    for (size_t i = 0; i < sig.results.size(); ++i) {
      const ValueSpec &r = sig.results[i];
      size_t rank = r.shape.size();
      const int64_t *d = resultBuffer.data() + pos;
      pos += 3 + 2 * rank;
      void *allocated, *aligned;
      std::memcpy(&allocated, &d[0], 8);
      std::memcpy(&aligned, &d[1], 8);
      if (outputs)
        outputs->push_back(copyOut(
            r, i, aligned, d[2], std::vector<int64_t>(d + 3, d + 3 + rank),
            std::vector<int64_t>(d + 3 + rank, d + 3 + 2 * rank)));
      if (allocated && keep.insert(allocated).second)
        std::free(allocated);
    }
  }

private:
  static Array copyOut(const ValueSpec &r, size_t index, void *aligned,
                       int64_t offset, const std::vector<int64_t> &sizes,
                       const std::vector<int64_t> &strides) {
    Array a;
    a.dtype = elemInfo(r.elem).storage;
    a.shape = sizes;
    for (int64_t s : sizes)
      if (s < 0)
        fail("result " + std::to_string(index) + ": bad sizes " +
             shapeString(sizes));
    int64_t n = a.numElements();
    int64_t es = dtypeSize(a.dtype);
    a.data.assign(size_t(n * es), 0);
    if (n > 0) {
      if (!aligned)
        fail("result " + std::to_string(index) + " has a null data pointer");
      const uint8_t *base = static_cast<const uint8_t *>(aligned);
      bool contiguous = true;
      int64_t expect = 1;
      for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
        if (sizes[d] != 1 && strides[d] != expect)
          contiguous = false;
        expect *= sizes[d];
      }
      if (contiguous) {
        std::memcpy(a.data.data(), base + offset * es, size_t(n * es));
      } else {
        std::vector<int64_t> idx(sizes.size(), 0);
        for (int64_t e = 0; e < n; ++e) {
          int64_t lin = offset;
          for (size_t d = 0; d < sizes.size(); ++d)
            lin += idx[d] * strides[d];
          std::memcpy(a.data.data() + e * es, base + lin * es, size_t(es));
          for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
            if (++idx[d] < sizes[d])
              break;
            idx[d] = 0;
          }
        }
      }
    }
    if (r.elem == Elem::I1)
      for (uint8_t &b : a.data)
        b &= 1;                 // LLVM stores i1 as a zero-extended byte
    if (r.elem == Elem::BF16) { // written as float32, like pe-run
      std::vector<uint8_t> wide(size_t(4 * n));
      for (int64_t i = 0; i < n; ++i) {
        float f = float(loadFloat(DType::BF16, &a.data[2 * i]));
        std::memcpy(&wide[4 * i], &f, 4);
      }
      a.data = std::move(wide);
      a.dtype = DType::F32;
    }
    return a;
  }

  const Signature &sig;
  const std::vector<Array> &inputs;
  std::vector<std::unique_ptr<ArgSlot>> slots;
  std::vector<int64_t> resultBuffer;
  std::vector<void *> packed;
};

//===----------------------------------------------------------------------===//
// CPU features
//===----------------------------------------------------------------------===//

/// Whether this CPU has the x86 feature `name` (LLVM's name): 1 or 0, or -1
/// if it is not one that can be queried here. __builtin_cpu_supports needs
/// literal names, hence the table.
int cpuSupports(const std::string &name) {
#if defined(__x86_64__)
  __builtin_cpu_init();
#define PE_AOT_FEATURE(x)                                                      \
  if (name == x)                                                               \
    return __builtin_cpu_supports(x) ? 1 : 0;
  PE_AOT_FEATURE("sse4.1")
  PE_AOT_FEATURE("sse4.2")
  PE_AOT_FEATURE("popcnt")
  PE_AOT_FEATURE("avx")
  PE_AOT_FEATURE("avx2")
  PE_AOT_FEATURE("fma")
  PE_AOT_FEATURE("f16c")
  PE_AOT_FEATURE("bmi")
  PE_AOT_FEATURE("bmi2")
  PE_AOT_FEATURE("avx512f")
  PE_AOT_FEATURE("avx512bw")
  PE_AOT_FEATURE("avx512vl")
  PE_AOT_FEATURE("avx512dq")
  PE_AOT_FEATURE("avx512cd")
  PE_AOT_FEATURE("avx512bf16")
  PE_AOT_FEATURE("avx512fp16")
  PE_AOT_FEATURE("avx512vnni")
  PE_AOT_FEATURE("avx512vbmi")
  PE_AOT_FEATURE("avx512vbmi2")
  PE_AOT_FEATURE("avx512ifma")
  PE_AOT_FEATURE("avx512bitalg")
  PE_AOT_FEATURE("avx512vpopcntdq")
#undef PE_AOT_FEATURE
#endif
  return -1;
}

/// Fails if the code was compiled for CPU features this CPU lacks.
/// PE_AOT_ASSUME_MISSING (comma-separated feature names) makes features
/// count as missing, for testing this check.
void checkCPU(const Signature &sig) {
  std::string assumeMissing;
  if (const char *env = std::getenv("PE_AOT_ASSUME_MISSING"))
    assumeMissing = "," + std::string(env) + ",";
  std::string missing;
  std::istringstream features(sig.features);
  std::string feature;
  while (std::getline(features, feature, ',')) {
    if (feature.size() < 2 || feature[0] != '+')
      continue;
    std::string name = feature.substr(1);
    bool forced = assumeMissing.find("," + name + ",") != std::string::npos;
    if (forced || cpuSupports(name) == 0)
      missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty())
    fail("this executable was compiled for the CPU of the machine that ran "
         "pe-run (" +
         sig.cpu + "); this CPU lacks " + missing);
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

void printUsage(const char *argv0, const Signature &sig) {
  std::printf("OVERVIEW: runs '%s', compiled ahead of time by pe-run "
              "--emit-executable\n(pipeline %s), on .npy data\n\n"
              "USAGE: %s [--input=FILE.npy]... [--output=FILE.npy]... "
              "[--random-inputs [--seed=S]] [--repeat=N]\n\n",
              sig.function.c_str(), sig.pipeline.c_str(), argv0);
  if (!sig.cpu.empty())
    std::printf("Compiled for this CPU: %s (pe-run's host).\n\n",
                sig.cpu.c_str());
  std::printf("SIGNATURE:\n");
  for (size_t i = 0; i < sig.args.size(); ++i)
    std::printf("  argument %zu: %s\n", i, sig.args[i].type.c_str());
  for (size_t i = 0; i < sig.results.size(); ++i)
    std::printf("  result %zu: %s\n", i, sig.results[i].type.c_str());
  std::printf(
      "\nOPTIONS (as pe-run's):\n"
      "  --input=FILE.npy   argument data, one per argument, in order\n"
      "  --output=FILE.npy  where to write the results, one per result\n"
      "                     (optional with --repeat)\n"
      "  --random-inputs    fill the arguments without an --input with "
      "pe-run's\n"
      "                     deterministic data (the same as pe-run "
      "--random-inputs)\n"
      "  --seed=S           seed of --random-inputs (default 0)\n"
      "  --repeat=N         time N calls after one warm-up call; prints\n"
      "                     'pe-aot: time pipeline=P runs=N min_ms=... "
      "median_ms=...'\n"
      "  --help             this text\n\n"
      "Errors print one 'pe-aot: error: ...' line on stderr and exit with "
      "status 1.\n");
}

bool parseUnsigned(const std::string &text, unsigned long long &out) {
  if (text.empty() || text[0] == '-' || text[0] == '+')
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && end && *end == '\0';
}

} // namespace

//===----------------------------------------------------------------------===//
// What the lowered code calls
//===----------------------------------------------------------------------===//

static std::mutex messageMutex;
static std::string message;

extern "C" int pe_aot_puts(const char *m) {
  std::lock_guard<std::mutex> lock(messageMutex);
  message = m ? m : "";
  return 0;
}

extern "C" [[noreturn]] void pe_aot_abort() {
  std::string m;
  {
    std::lock_guard<std::mutex> lock(messageMutex);
    m = message;
  }
  if (m.empty())
    fail("the compiled code aborted");
  fail("run-time check failed: " + m);
}

extern "C" void *pe_aot_malloc(size_t bytes) {
  void *p = std::malloc(bytes);
  if (!p && bytes != 0)
    fail("out of memory: the compiled code allocates " + std::to_string(bytes) +
         " bytes");
  return p;
}

extern "C" void *pe_aot_aligned_alloc(size_t alignment, size_t bytes) {
  void *p = std::aligned_alloc(alignment, bytes);
  if (!p && bytes != 0)
    fail("out of memory: the compiled code allocates " + std::to_string(bytes) +
         " bytes aligned to " + std::to_string(alignment));
  return p;
}

/// The float -> bfloat16 conversions LLVM calls for `arith.truncf` to bf16
/// on the host (compiler-rt builtins; GCC 12's libgcc, which clang++ links,
/// has neither). Round to nearest even; double goes through float with
/// round-to-odd, so that it is rounded once.
extern "C" __bf16 __truncsfbf2(float value) {
  uint16_t bits = floatToBFloat16(value);
  __bf16 out;
  std::memcpy(&out, &bits, 2);
  return out;
}

extern "C" __bf16 __truncdfbf2(double value) {
  float f = float(value);
  if (std::isfinite(f) && double(f) != value) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (!(bits & 1)) // round to odd: step towards `value`
      f = std::nextafter(f, value > double(f) ? HUGE_VALF : -HUGE_VALF);
  }
  return __truncsfbf2(f);
}

/// memref.copy of non-contiguous memrefs (what libmlir_c_runner_utils.so
/// provides to pe-run's JIT): an unranked memref is (rank, descriptor), the
/// descriptor (allocated, aligned, offset, sizes[rank], strides[rank]).
namespace {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elemSize, UnrankedMemRef *src,
                           UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  auto fields = [](UnrankedMemRef *m) {
    return reinterpret_cast<int64_t *>(m->descriptor);
  };
  int64_t *s = fields(src), *d = fields(dst);
  char *sBase, *dBase;
  std::memcpy(&sBase, &s[1], 8);
  std::memcpy(&dBase, &d[1], 8);
  const int64_t *sizes = s + 3, *sStrides = s + 3 + rank,
                *dStrides = d + 3 + rank;
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i)
    n *= sizes[i];
  if (n == 0)
    return;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t so = s[2], dof = d[2];
    for (int64_t i = 0; i < rank; ++i) {
      so += idx[i] * sStrides[i];
      dof += idx[i] * dStrides[i];
    }
    std::memcpy(dBase + dof * elemSize, sBase + so * elemSize,
                size_t(elemSize));
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < sizes[i])
        break;
      idx[i] = 0;
    }
  }
}

// AOTShardMain.cpp includes this file for everything above and has its own
// main().
#ifndef PE_AOT_SHARD_MAIN
int main(int argc, char **argv) {
  // As pe-run: keep freed memory in the process (no page faults per call on
  // large results in --repeat).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());

  Signature sig = parseSignature(pe_aot_signature);
  std::vector<std::string> inputs, outputs;
  bool randomInputs = false, timing = false;
  unsigned long long seed = 0, repeat = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // Accept both --flag=value and --flag value.
    auto value = [&](const std::string &flag, std::string &out) {
      if (a.compare(0, flag.size() + 1, flag + "=") == 0) {
        out = a.substr(flag.size() + 1);
        return true;
      }
      if (a == flag) {
        if (i + 1 >= argc)
          fail("option '" + flag + "' needs a value");
        out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      printUsage(argv[0], sig);
      return 0;
    } else if (value("--input", v)) {
      inputs.push_back(v);
    } else if (value("--output", v)) {
      outputs.push_back(v);
    } else if (a == "--random-inputs") {
      randomInputs = true;
    } else if (value("--seed", v)) {
      if (!parseUnsigned(v, seed))
        fail("--seed: expected an unsigned integer, got '" + v + "'");
    } else if (value("--repeat", v)) {
      if (!parseUnsigned(v, repeat) || repeat < 1 || repeat > 1000000000)
        fail("--repeat must be an integer of at least 1, got '" + v + "'");
      timing = true;
    } else {
      fail("unknown argument '" + a + "' (see --help)");
    }
  }

  checkCPU(sig);
  size_t numArgs = sig.args.size(), numResults = sig.results.size();
  std::string plural = numArgs == 1 ? "" : "s";
  if (inputs.size() > numArgs)
    fail(std::to_string(inputs.size()) + " --input files given but function '" +
         sig.function + "' takes " + std::to_string(numArgs) + " argument" +
         plural);
  if (inputs.size() < numArgs && !randomInputs)
    fail("function '" + sig.function + "' takes " + std::to_string(numArgs) +
         " argument" + plural + " but " + std::to_string(inputs.size()) +
         " --input files were given (--random-inputs fills the rest)");
  if (outputs.size() != numResults && !(timing && outputs.empty()))
    fail("function '" + sig.function + "' has " + std::to_string(numResults) +
         " result" + (numResults == 1 ? "" : "s") + " but " +
         std::to_string(outputs.size()) + " --output files were given");

  std::vector<Array> args;
  for (size_t i = 0; i < numArgs; ++i)
    args.push_back(i < inputs.size() ? adaptInput(sig.args[i], i, inputs[i],
                                                  readNpy(inputs[i]))
                                     : randomInput(sig.args[i], i, seed));

  // GPU module loading (the driver) only now, after the inputs are checked.
  pe_aot_init();
  Invocation inv(sig, args);
  std::vector<Array> results;
  inv.call(&results, nullptr);
  for (size_t i = 0; i < outputs.size(); ++i)
    writeNpy(outputs[i], results[i]);

  if (timing) {
    inv.call(nullptr, nullptr); // warm-up
    std::vector<double> ms(repeat);
    for (double &m : ms)
      inv.call(nullptr, &m);
    std::sort(ms.begin(), ms.end());
    size_t n = ms.size();
    double median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    std::printf("pe-aot: time pipeline=%s runs=%zu min_ms=%.6f "
                "median_ms=%.6f\n",
                sig.pipeline.c_str(), n, ms.front(), median);
  }
  std::fflush(stdout);
  pe_aot_fini();
  return 0;
}
#endif // PE_AOT_SHARD_MAIN
