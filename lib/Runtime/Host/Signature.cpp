//===- Signature.cpp - The tensor signature of a compiled function --------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Signature.h"

#include <sstream>

using namespace pe::rt;

namespace {
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
} // namespace

const char *pe::rt::elemName(Elem elem) { return elemInfo(elem).name; }

DType pe::rt::storageDType(Elem elem) { return elemInfo(elem).storage; }

std::string pe::rt::typeString(const ValueSpec &v) {
  if (!v.isTensor)
    return elemName(v.elem);
  std::string s = "tensor<";
  for (int64_t d : v.shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + elemName(v.elem) + ">";
}

static void formatValue(std::ostringstream &os, const char *what,
                        const ValueSpec &v) {
  os << what << (v.isTensor ? " tensor " : " scalar ") << elemName(v.elem);
  if (v.isTensor) {
    os << " " << v.shape.size();
    for (int64_t d : v.shape)
      os << " " << (d < 0 ? int64_t(-1) : d);
  }
  os << "\n";
}

std::string pe::rt::formatSignature(const Signature &sig) {
  std::ostringstream os;
  os << "function " << sig.function << "\npipeline " << sig.pipeline << "\n";
  for (const ValueSpec &arg : sig.args)
    formatValue(os, "arg", arg);
  for (const ValueSpec &result : sig.results)
    formatValue(os, "result", result);
  if (!sig.cpu.empty())
    os << "cpu " << sig.cpu << "\nfeatures " << sig.features << "\n";
  return os.str();
}

/// Reads the rest of an "arg" or "result" line.
static bool parseValue(std::istringstream &in, ValueSpec &v) {
  std::string kind, elem;
  in >> kind >> elem;
  v.isTensor = kind == "tensor";
  if (!v.isTensor && kind != "scalar")
    return false;
  bool known = false;
  for (const ElemInfo &info : kElems)
    if (elem == info.name) {
      v.elem = info.elem;
      known = true;
    }
  if (!known)
    return false;
  if (v.isTensor) {
    int64_t rank = -1;
    in >> rank;
    for (int64_t d = 0; in && d < rank; ++d) {
      int64_t size;
      in >> size;
      v.shape.push_back(size);
    }
    if (rank < 0)
      return false;
  }
  return bool(in);
}

Expected<Signature> pe::rt::parseSignature(const std::string &text) {
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
      if (!parseValue(in, v))
        return Error("corrupt embedded signature: '" + line + "'");
      (what == "arg" ? sig.args : sig.results).push_back(v);
    }
  }
  return sig;
}
