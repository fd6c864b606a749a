//===- Invocation.cpp - Calls through the packed interface ----------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Invocation.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

using namespace pe::rt;

static size_t resultSlots(const ValueSpec &r) { return 3 + 2 * r.shape.size(); }

Error Invocation::prepare() {
  for (size_t i = 0; i < sig.args.size(); ++i) {
    auto slot = std::make_unique<ArgSlot>();
    const Array &data = inputs[i];
    if (sig.args[i].isTensor) {
      size_t bytes = data.data.size();
      size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
      void *buffer = std::aligned_alloc(64, rounded);
      if (!buffer)
        return Error("out of memory allocating argument " + std::to_string(i) +
                     " (" + std::to_string(bytes) + " bytes)");
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
      std::memcpy(&slot->scalar, data.data.data(),
                  std::min(data.data.size(), sizeof(slot->scalar)));
      packed.push_back(&slot->scalar);
    }
    slots.push_back(std::move(slot));
  }
  size_t total = 0;
  for (const ValueSpec &r : sig.results)
    total += resultSlots(r);
  resultBuffer.assign(total, 0);
  if (total)
    packed.push_back(resultBuffer.data());
  return Error::success();
}

Error Invocation::call(void (*fn)(void **), std::vector<Array> *outputs,
                       double *ms, const std::function<void()> &beforeCall) {
  // A zero-size tensor has no data (data() may be null): memcpy with a
  // null pointer is undefined even for 0 bytes.
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i]->buffer && slots[i]->bytes)
      std::memcpy(slots[i]->buffer.get(), inputs[i].data.data(),
                  slots[i]->bytes);
  std::fill(resultBuffer.begin(), resultBuffer.end(), 0);
  if (beforeCall)
    beforeCall();

  auto start = std::chrono::steady_clock::now();
  fn(packed.data());
  auto stop = std::chrono::steady_clock::now();
  if (ms)
    *ms = std::chrono::duration<double, std::milli>(stop - start).count();

  Error status;
  lastResultBytes = 0;
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
    pos += resultSlots(r);
    void *allocated, *aligned;
    std::memcpy(&allocated, &d[0], 8);
    std::memcpy(&aligned, &d[1], 8);
    std::vector<int64_t> sizes(d + 3, d + 3 + rank),
        strides(d + 3 + rank, d + 3 + 2 * rank);
    int64_t elements = 1;
    for (int64_t size : sizes)
      elements *= size;
    lastResultBytes += elements * dtypeSize(storageDType(r.elem));
    if (outputs && !status) {
      Expected<Array> out = copyOut(r, i, aligned, d[2], sizes, strides);
      if (!out)
        status = out.takeError();
      else
        outputs->push_back(std::move(*out));
    }
    if (allocated && keep.insert(allocated).second)
      std::free(allocated);
  }
  return status;
}

int64_t Invocation::tensorBytes() const {
  int64_t bytes = lastResultBytes;
  for (const auto &slot : slots)
    bytes += int64_t(slot->bytes);
  return bytes;
}

/// Copies the `sizes` elements of `es` bytes at `base` + `offset` with
/// `strides` (in elements) to the packed `out`.
static void gather(uint8_t *out, const uint8_t *base, int64_t offset,
                   const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &strides, int64_t n, int64_t es) {
  bool contiguous = true;
  int64_t expect = 1;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expect)
      contiguous = false;
    expect *= sizes[d];
  }
  if (contiguous) {
    std::memcpy(out, base + offset * es, size_t(n * es));
    return;
  }
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t lin = offset;
    for (size_t d = 0; d < sizes.size(); ++d)
      lin += idx[d] * strides[d];
    std::memcpy(out + e * es, base + lin * es, size_t(es));
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
  }
}

Expected<Array> Invocation::copyOut(const ValueSpec &r, size_t index,
                                    void *aligned, int64_t offset,
                                    const std::vector<int64_t> &sizes,
                                    const std::vector<int64_t> &strides) {
  DType dtype = storageDType(r.elem);
  Expected<Array> made = makeArray(dtype, sizes);
  if (!made)
    return Error("result " + std::to_string(index) + ": bad sizes " +
                 shapeString(sizes) + ": " + made.errorMessage());
  int64_t n = made->numElements();
  if (n > 0) {
    if (!aligned)
      return Error("result " + std::to_string(index) +
                   " has a null data pointer");
    gather(made->data.data(), static_cast<const uint8_t *>(aligned), offset,
           sizes, strides, n, dtypeSize(dtype));
  }
  if (r.elem == Elem::I1)
    for (uint8_t &b : made->data)
      b &= 1; // LLVM stores i1 as a zero-extended byte
  if (r.elem == Elem::BF16)
    return convert(*made, DType::F32);
  return made;
}
