//===- Blocks.h - A process's block of a sharded array ----------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The block of a global array that each process of a sharded run holds
// (pe-run --ranks, and the executables of sharded functions), and copies of
// blocks out of and into global arrays.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_BLOCKS_H
#define PE_RUNTIME_BLOCKS_H

#include "pe/Runtime/Npy.h"

#include <cstdint>
#include <vector>

namespace pe::rt {

/// How a value is laid out over a grid of processes: the grid's shape
/// (empty: the whole value on every process) and, per dimension, the grid
/// axes it is split on.
struct BlockLayout {
  std::vector<int64_t> gridShape;
  std::vector<std::vector<int64_t>> splitAxes;
};

/// The offsets and sizes of process `rank`'s block of a value of `shape`:
/// the process's row-major index on the grid; a dimension split on axes
/// (a, b) is cut into |a|*|b| equal blocks, numbered a-major. An error
/// unless the split dimensions divide evenly (negative sizes are dynamic).
Error blockOf(const BlockLayout &layout, const std::vector<int64_t> &shape,
              int64_t rank, std::vector<int64_t> &offsets,
              std::vector<int64_t> &sizes);

/// The block [offsets, offsets + sizes) of `a`, packed.
Array extractBlock(const Array &a, const std::vector<int64_t> &offsets,
                   const std::vector<int64_t> &sizes);

/// Writes the packed block `data` of `sizes` into `a` at `offsets`; with
/// `compare`, writes nothing and returns whether `a` holds the same bytes
/// there.
bool insertBlock(Array &a, const uint8_t *data,
                 const std::vector<int64_t> &offsets,
                 const std::vector<int64_t> &sizes, bool compare);

} // namespace pe::rt

#endif // PE_RUNTIME_BLOCKS_H
