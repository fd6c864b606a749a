//===- Blocks.cpp - A process's block of a sharded array ------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Blocks.h"

#include <cstring>

using namespace pe::rt;

Error pe::rt::blockOf(const BlockLayout &layout,
                      const std::vector<int64_t> &shape, int64_t rank,
                      std::vector<int64_t> &offsets,
                      std::vector<int64_t> &sizes) {
  const std::vector<int64_t> &grid = layout.gridShape;
  offsets.assign(shape.size(), 0);
  sizes = shape;
  if (grid.empty())
    return Error::success();
  // Row-major multi-index of the process on the grid.
  std::vector<int64_t> index(grid.size());
  for (int64_t a = int64_t(grid.size()) - 1, r = rank; a >= 0; --a) {
    index[a] = r % grid[a];
    r /= grid[a];
  }
  for (size_t dim = 0; dim < layout.splitAxes.size() && dim < shape.size();
       ++dim) {
    const std::vector<int64_t> &axes = layout.splitAxes[dim];
    if (axes.empty())
      continue;
    int64_t block = 0, count = 1;
    for (int64_t a : axes) {
      block = block * grid[a] + index[a];
      count *= grid[a];
    }
    if (shape[dim] < 0 || shape[dim] % count != 0)
      return Error("dimension " + std::to_string(dim) + " of size " +
                   std::to_string(shape[dim]) + " is not split evenly over " +
                   std::to_string(count) + " processes");
    sizes[dim] = shape[dim] / count;
    offsets[dim] = block * sizes[dim];
  }
  return Error::success();
}

/// Calls `fn(src, dst, bytes)` for each contiguous innermost row of the block
/// [offsets, offsets + sizes) of a row-major array of `shape`: `src` is the
/// row's byte offset in the array, `dst` in the packed block.
template <typename Fn>
static void forEachBlockRow(const std::vector<int64_t> &shape,
                            const std::vector<int64_t> &offsets,
                            const std::vector<int64_t> &sizes, int64_t elemSize,
                            Fn fn) {
  int64_t rank = shape.size();
  if (rank == 0) {
    fn(0, 0, elemSize);
    return;
  }
  for (int64_t s : sizes)
    if (s == 0)
      return;
  std::vector<int64_t> strides(rank, elemSize);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  int64_t rowBytes = sizes[rank - 1] * elemSize, dst = 0;
  std::vector<int64_t> idx(rank, 0);
  while (true) {
    int64_t src = offsets[rank - 1] * elemSize;
    for (int64_t d = 0; d + 1 < rank; ++d)
      src += (offsets[d] + idx[d]) * strides[d];
    fn(src, dst, rowBytes);
    dst += rowBytes;
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

Array pe::rt::extractBlock(const Array &a, const std::vector<int64_t> &offsets,
                           const std::vector<int64_t> &sizes) {
  Array block;
  block.dtype = a.dtype;
  block.shape = sizes;
  block.data.resize(size_t(block.numBytes()));
  forEachBlockRow(a.shape, offsets, sizes, dtypeSize(a.dtype),
                  [&](int64_t src, int64_t dst, int64_t bytes) {
                    std::memcpy(block.data.data() + dst, a.data.data() + src,
                                size_t(bytes));
                  });
  return block;
}

bool pe::rt::insertBlock(Array &a, const uint8_t *data,
                         const std::vector<int64_t> &offsets,
                         const std::vector<int64_t> &sizes, bool compare) {
  bool same = true;
  forEachBlockRow(
      a.shape, offsets, sizes, dtypeSize(a.dtype),
      [&](int64_t dst, int64_t src, int64_t bytes) {
        if (compare)
          same &=
              std::memcmp(a.data.data() + dst, data + src, size_t(bytes)) == 0;
        else
          std::memcpy(a.data.data() + dst, data + src, size_t(bytes));
      });
  return same;
}
