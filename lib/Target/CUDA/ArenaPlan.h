//===- ArenaPlan.h - Buffers of a program placed in one arena ---*- C++ -*-===//
//
// A CUDA program allocates nothing while it runs: every intermediate buffer
// is a range of one device-memory arena, planned here from the buffers'
// lifetimes in the host schedule (the instruction that first touches each
// and the last). Buffers whose lifetimes overlap get disjoint ranges.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_ARENAPLAN_H
#define LOOM_TARGET_CUDA_ARENAPLAN_H

#include <cstdint>
#include <optional>
#include <vector>

namespace loom::cuda {

struct ArenaBuffer {
  uint64_t bytes = 0;
  /// The first and last instruction that touch the buffer (inclusive).
  int64_t first = 0, last = 0;
};

struct ArenaPlan {
  /// Per buffer, its byte offset in the arena (a multiple of the
  /// alignment).
  std::vector<uint64_t> offsets;
  uint64_t bytes = 0;
};

/// Places `buffers`: largest first, each at the lowest aligned offset that
/// no buffer live at the same time occupies. Nullopt when the arena would
/// exceed 2^63 bytes.
std::optional<ArenaPlan> planArena(const std::vector<ArenaBuffer> &buffers,
                                   uint64_t alignment);

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_ARENAPLAN_H
