//===- Harness.cpp - What pe-run's parts share ----------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "Roofline.h"

#include "pe/Runtime/Compare.h"
#include "pe/Runtime/Inputs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace ::pe::run;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;
using llvm::Twine;

namespace pe::run {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void report(const Twine &msg) {
  llvm::errs() << "pe-run: error: " << msg << "\n";
}

LogicalResult error(const Twine &msg) {
  report(msg);
  return failure();
}

LogicalResult error(llvm::Error err) {
  return error(llvm::toString(std::move(err)));
}

int fail(const Twine &msg) {
  report(msg);
  return 1;
}

int fail(llvm::Error err) { return fail(llvm::toString(std::move(err))); }

LogicalResult error(::pe::rt::Error err) { return error(err.message()); }

int fail(::pe::rt::Error err) { return fail(err.message()); }

std::string shapeString(ArrayRef<int64_t> shape) {
  return npy::shapeString(shape.vec());
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

static std::optional<Elem> tensorElem(Type t) {
  if (t.isF16())
    return Elem::F16;
  if (t.isBF16())
    return Elem::BF16;
  if (t.isF32())
    return Elem::F32;
  if (t.isF64())
    return Elem::F64;
  if (t.isSignlessInteger(1))
    return Elem::I1;
  if (t.isSignlessInteger(8))
    return Elem::I8;
  if (t.isSignlessInteger(32))
    return Elem::I32;
  if (t.isSignlessInteger(64))
    return Elem::I64;
  return std::nullopt;
}

static std::optional<Elem> scalarElem(Type t) {
  if (t.isIndex())
    return Elem::Index;
  if (t.isSignlessInteger(32))
    return Elem::I32;
  if (t.isSignlessInteger(64))
    return Elem::I64;
  if (t.isF32())
    return Elem::F32;
  if (t.isF64())
    return Elem::F64;
  return std::nullopt;
}

static const char kSupportedArgs[] =
    "supported are ranked tensors of f32, f64, f16, bf16, i32, i64, i8, i1 "
    "and index, i32, i64, f32, f64 scalars";

FailureOr<Signature> readSignature(func::FuncOp fn) {
  Signature sig;
  sig.name = fn.getSymName().str();
  FunctionType type = fn.getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    ArgSpec arg;
    arg.type = t;
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      std::optional<Elem> elem = tensorElem(tensor.getElementType());
      if (!elem || tensor.getEncoding()) {
        return error("function '" + sig.name + "' argument " + Twine(i) +
                     " has unsupported type " + typeString(t) + "; " +
                     kSupportedArgs);
      }
      arg.isTensor = true;
      arg.elem = *elem;
      arg.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    } else if (std::optional<Elem> elem = scalarElem(t)) {
      arg.elem = *elem;
    } else {
      return error("function '" + sig.name + "' argument " + Twine(i) +
                   " has unsupported type " + typeString(t) + "; " +
                   kSupportedArgs);
    }
    sig.args.push_back(std::move(arg));
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    std::optional<Elem> elem =
        tensor ? tensorElem(tensor.getElementType()) : std::nullopt;
    if (!tensor || !elem || tensor.getEncoding()) {
      return error(
          "function '" + sig.name + "' result " + Twine(i) + " has type " +
          typeString(t) +
          "; pe-run supports only ranked tensor results of f32, f64, f16, "
          "bf16, i32, i64, i8, i1");
    }
    ResultSpec res;
    res.elem = *elem;
    res.rank = tensor.getRank();
    res.type = t;
    sig.results.push_back(res);
  }
  return sig;
}

/// Negative (dynamic) dimensions for the host runtime.
static std::vector<int64_t> runtimeShape(ArrayRef<int64_t> shape) {
  std::vector<int64_t> out;
  for (int64_t d : shape)
    out.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return out;
}

static ::pe::rt::ValueSpec runtimeArg(const ArgSpec &arg) {
  return {arg.isTensor, arg.elem, runtimeShape(arg.shape)};
}

::pe::rt::Signature runtimeSignature(const Signature &sig) {
  ::pe::rt::Signature out;
  out.function = sig.name;
  for (const ArgSpec &arg : sig.args)
    out.args.push_back(runtimeArg(arg));
  for (const ResultSpec &r : sig.results)
    out.results.push_back(
        {true, r.elem,
         runtimeShape(cast<RankedTensorType>(r.type).getShape())});
  return out;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

FailureOr<npy::Array> readArgument(const Signature &sig, size_t index,
                                   ArrayRef<std::string> inputs,
                                   uint64_t seed) {
  ::pe::rt::ValueSpec arg = runtimeArg(sig.args[index]);
  if (index >= inputs.size()) {
    ::pe::rt::Expected<npy::Array> made =
        ::pe::rt::randomInput(arg, index, seed);
    if (!made)
      return error(made.takeError());
    return std::move(*made);
  }
  ::pe::rt::Expected<npy::Array> read = npy::readNpy(inputs[index]);
  if (!read)
    return error(read.takeError());
  ::pe::rt::Expected<npy::Array> adapted =
      ::pe::rt::adaptInput(arg, index, inputs[index], std::move(*read));
  if (!adapted)
    return error(adapted.takeError());
  return std::move(*adapted);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

LogicalResult Invocation::prepare() {
  if (::pe::rt::Error err = impl.prepare())
    return error(std::move(err));
  return success();
}

LogicalResult Invocation::call(void (*fn)(void **),
                               SmallVectorImpl<npy::Array> *outputs, double *ms,
                               Roofline *evictBefore) {
  std::vector<npy::Array> results;
  std::function<void()> evict;
  if (evictBefore)
    evict = [evictBefore] { evictBefore->evict(); };
  if (::pe::rt::Error err =
          impl.call(fn, outputs ? &results : nullptr, ms, evict))
    return error(std::move(err));
  if (outputs)
    for (npy::Array &a : results)
      outputs->push_back(std::move(a));
  return success();
}

//===----------------------------------------------------------------------===//
// Check
//===----------------------------------------------------------------------===//

bool checkResult(size_t index, const npy::Array &actual,
                 const npy::Array &expected, double rtol, double atol) {
  ::pe::rt::Comparison c = ::pe::rt::compare(actual, expected, rtol, atol);
  if (!c.sameShape) {
    llvm::outs() << "pe-run: check result " << index << ": shape "
                 << shapeString(actual.shape) << " vs reference "
                 << shapeString(expected.shape) << ": FAIL\n";
    return false;
  }
  llvm::outs() << "pe-run: check result " << index << ": "
               << llvm::format("max_abs_err=%.3g max_rel_err=%.3g", c.maxAbsErr,
                               c.maxRelErr)
               << llvm::format(" rtol=%g atol=%g", rtol, atol) << ": "
               << (c.pass ? "PASS" : "FAIL") << "\n";
  return c.pass;
}

} // namespace pe::run
