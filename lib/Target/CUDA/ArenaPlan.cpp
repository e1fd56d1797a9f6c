//===- ArenaPlan.cpp - Buffers of a program placed in one arena -----------===//

#include "ArenaPlan.h"
#include <algorithm>
#include <numeric>

using namespace loom::cuda;

std::optional<ArenaPlan>
loom::cuda::planArena(const std::vector<ArenaBuffer> &buffers,
                      uint64_t alignment) {
  constexpr uint64_t limit = uint64_t(1) << 63;
  ArenaPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first (ties: earliest first), which packs well in practice.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  auto alignUp = [&](uint64_t v) -> std::optional<uint64_t> {
    if (v > limit)
      return std::nullopt;
    return (v + alignment - 1) / alignment * alignment;
  };
  std::vector<size_t> placed;
  for (size_t i : order) {
    const ArenaBuffer &b = buffers[i];
    // The placed buffers live at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed) {
      const ArenaBuffer &o = buffers[j];
      if (o.first <= b.last && b.first <= o.last && o.bytes > 0)
        busy.push_back({plan.offsets[j], plan.offsets[j] + o.bytes});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + b.bytes <= lo)
        break;
      std::optional<uint64_t> next = alignUp(std::max(offset, hi));
      if (!next)
        return std::nullopt;
      offset = std::max(offset, *next);
    }
    if (b.bytes > limit || offset > limit - b.bytes)
      return std::nullopt;
    plan.offsets[i] = offset;
    plan.bytes = std::max(plan.bytes, offset + b.bytes);
    placed.push_back(i);
  }
  std::optional<uint64_t> total = alignUp(plan.bytes);
  if (!total)
    return std::nullopt;
  plan.bytes = *total;
  return plan;
}
