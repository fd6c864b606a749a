//===- pe-fuzz.cpp - libFuzzer target for the pe dialect ------------------===//
//
// Part of the pe-mlir project.
//
// Parses the input as MLIR with every dialect pe-opt registers, verifies it
// and, if valid, runs pe-reference-pipeline and pe-cpu-pipeline on clones of
// it. Diagnostics are swallowed: parse, verification and pass failures are
// expected outcomes; only crashes, sanitizer reports, aborts (including
// llvm::report_fatal_error), timeouts and running out of memory are findings.
// Nothing is JIT-compiled or executed.
//
// Inputs that only crash upstream MLIR are skipped (isKnownUpstreamCrash).
// Each input gets a fresh MLIRContext, so a finding reproduces with
//   pe-opt crash-file --pe-reference-pipeline     (or --pe-cpu-pipeline)
// (test/Fuzz/replay.py does exactly that for the saved corpus).
//
// A custom mutator (LLVMFuzzerCustomMutator) rewrites integers and floats in
// the text (dimensions, attributes) to boundary values half of the time; the
// other half is libFuzzer's own byte-level mutation, guided by pe.dict.
//
//===----------------------------------------------------------------------===//

#include "pe/InitAllPE.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>

using namespace mlir;

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

static DialectRegistry *registry;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  // The same registration as tools/pe-opt.
  registerAllPasses();
  pe::registerAllPasses();
  registry = new DialectRegistry;
  pe::registerAllDialects(*registry);
  registerAllDialects(*registry);
  registerAllExtensions(*registry);
  return 0;
}

/// True when the text has an unsigned decimal literal of more than
/// `maxDigits` digits or above `maxValue`.
static bool hasLargeNumber(StringRef text, size_t maxDigits,
                           unsigned long maxValue) {
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e])))
      ++e;
    if (e - i > maxDigits || std::stoul(text.substr(i, e - i).str()) > maxValue)
      return true;
    i = e;
  }
  return false;
}

/// True when a `permutation = [...]` or `dimensions = [...]` list of the
/// text (linalg.transpose, linalg.reduce, linalg.broadcast) is not a list of
/// integers that fit in int64.
static bool hasMalformedLinalgDimensionList(StringRef text) {
  for (StringRef keyword : {"permutation", "dimensions"}) {
    for (size_t at = text.find(keyword); at != StringRef::npos;
         at = text.find(keyword, at + 1)) {
      StringRef rest = text.drop_front(at + keyword.size()).ltrim();
      if (!rest.consume_front("="))
        continue;
      rest = rest.ltrim();
      if (rest.starts_with("array<"))
        continue; // the generic form's attribute
      if (!rest.consume_front("["))
        return true;
      size_t close = rest.find(']');
      if (close == StringRef::npos)
        return true;
      SmallVector<StringRef> items;
      rest.take_front(close).split(items, ',');
      for (StringRef item : items) {
        item = item.trim();
        if (item.empty() && items.size() == 1)
          break; // []
        item.consume_front("-");
        if (item.empty() || item.size() > 18 || !llvm::all_of(item, [](char c) {
              return std::isdigit(static_cast<unsigned char>(c));
            }))
          return true;
      }
    }
  }
  return false;
}

/// Inputs that crash upstream MLIR 22, not pe, before any pe code runs (no
/// pe frame in the stack; reproducers in test/Fuzz/open/). Such inputs are
/// skipped, so fuzzing time goes to pe:
/// * `tensor.from_elements` parses its result type's element count into a
///   SmallVector of operand types: a large static shape aborts in the parser
///   ("SmallVector unable to grow") or runs out of memory;
/// * linalg's parsers of `permutation = [...]` / `dimensions = [...]`
///   (transpose, reduce, broadcast) set a null attribute when the list does
///   not parse (a stray token, an integer beyond int64): SEGV in
///   NamedAttrList::set;
/// * `tensor.concat dim(N)` with N beyond int64 indexes out of range in its
///   verifier (SEGV in tensor::ConcatOp::verify).
static bool isKnownUpstreamCrash(StringRef text) {
  if (text.contains("from_elements") && hasLargeNumber(text, 5, 65536))
    return true;
  if (text.contains("linalg.") && hasMalformedLinalgDimensionList(text))
    return true;
  if (text.contains("tensor.concat") &&
      hasLargeNumber(text, 18, 1000000000000000000UL))
    return true;
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef text(reinterpret_cast<const char *>(data), size);
  if (isKnownUpstreamCrash(text))
    return -1; // not a finding; keep it out of the corpus
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  // Errors are fine; a crash is not. Swallow every diagnostic.
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz-input"), llvm::SMLoc());
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module || failed(verify(*module)))
    return 0;

  using Builder = void (*)(OpPassManager &);
  for (Builder build :
       {Builder(pe::buildReferencePipeline), Builder(pe::buildCPUPipeline)}) {
    OwningOpRef<ModuleOp> clone = module->clone();
    PassManager pm(&context);
    build(pm);
    (void)pm.run(*clone);
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Structure-aware mutation of numbers
//===----------------------------------------------------------------------===//

namespace {
/// Values that break size arithmetic: 0, 1, powers of two and their
/// neighbours, the int32/int64 limits, and float specials.
const char *const kIntegers[] = {
    "0",
    "1",
    "2",
    "3",
    "4",
    "7",
    "8",
    "15",
    "16",
    "31",
    "32",
    "63",
    "64",
    "65",
    "127",
    "128",
    "255",
    "256",
    "4096",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "-1",
    "-2",
    "-9223372036854775808",
};
const char *const kFloats[] = {
    "0.0",        "-0.0",
    "1.0",        "-1.0",
    "0.5",        "1.0e-45",
    "1.0e+38",    "3.4e+38",
    "1.0e+308",   "1.0e-308",
    "0x7FC00000", "0x7F800000",
    "0xFF800000", "0x7FF8000000000000",
    "10000.0",    "500000.0",
};

struct Number {
  size_t begin, end; // [begin, end) in the text
  bool isFloat;
};

/// The numbers of the text: decimal integers (with a leading '-'), decimal
/// floats, and hex literals; the digits inside identifiers (%arg0, f32, 4x8
/// shapes count: 'x' separates dimensions) are numbers too where they stand
/// alone between non-alphanumerics or 'x'.
SmallVector<Number> findNumbers(const uint8_t *data, size_t size) {
  SmallVector<Number> out;
  auto isIdent = [](uint8_t c) { return std::isalnum(c) || c == '_'; };
  for (size_t i = 0; i < size;) {
    bool startOk = i == 0 || !isIdent(data[i - 1]) || data[i - 1] == 'x';
    if (!std::isdigit(data[i]) || !startOk) {
      ++i;
      continue;
    }
    size_t b = i;
    if (b > 0 && data[b - 1] == '-')
      --b;
    size_t e = i;
    bool isFloat = false;
    if (data[e] == '0' && e + 1 < size && (data[e + 1] == 'x') &&
        e + 2 < size && std::isxdigit(data[e + 2])) {
      e += 2;
      while (e < size && std::isxdigit(data[e]))
        ++e;
      isFloat = true; // hex literals are float bit patterns in MLIR text
    } else {
      while (e < size && std::isdigit(data[e]))
        ++e;
      if (e < size && data[e] == '.') {
        isFloat = true;
        ++e;
        while (e < size && std::isdigit(data[e]))
          ++e;
        if (e < size && (data[e] == 'e' || data[e] == 'E')) {
          ++e;
          if (e < size && (data[e] == '+' || data[e] == '-'))
            ++e;
          while (e < size && std::isdigit(data[e]))
            ++e;
        }
      }
    }
    out.push_back({b, e, isFloat});
    i = e;
  }
  return out;
}
} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::minstd_rand rng(seed);
  SmallVector<Number> numbers = findNumbers(data, size);
  if (numbers.empty() || rng() % 2)
    return LLVMFuzzerMutate(data, size, maxSize);

  const Number &n = numbers[rng() % numbers.size()];
  std::string old(reinterpret_cast<const char *>(data) + n.begin,
                  n.end - n.begin);
  std::string repl;
  switch (rng() % 4) {
  case 0: // a boundary value of the number's kind
    repl = n.isFloat ? kFloats[rng() % std::size(kFloats)]
                     : kIntegers[rng() % std::size(kIntegers)];
    break;
  case 1: // any boundary integer (a float attribute becomes an int, too)
    repl = kIntegers[rng() % std::size(kIntegers)];
    break;
  case 2: { // off by one, doubled or halved
    if (n.isFloat) {
      repl = kFloats[rng() % std::size(kFloats)];
      break;
    }
    long long v = std::strtoll(old.c_str(), nullptr, 10);
    switch (rng() % 4) {
    case 0:
      v = v == LLONG_MAX ? v : v + 1;
      break;
    case 1:
      v = v == LLONG_MIN ? v : v - 1;
      break;
    case 2:
      v = (v > LLONG_MAX / 2 || v < LLONG_MIN / 2) ? v : v * 2;
      break;
    default:
      v /= 2;
      break;
    }
    repl = std::to_string(v);
    break;
  }
  default: { // copy another number of the text over this one
    const Number &o = numbers[rng() % numbers.size()];
    repl.assign(reinterpret_cast<const char *>(data) + o.begin,
                o.end - o.begin);
    break;
  }
  }
  size_t newSize = size - old.size() + repl.size();
  if (newSize > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memmove(data + n.begin + repl.size(), data + n.end, size - n.end);
  std::memcpy(data + n.begin, repl.data(), repl.size());
  return newSize;
}
