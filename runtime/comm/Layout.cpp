//===- Layout.cpp - Device meshes, groups and tensor blocks ---------------===//

#include "comm/Layout.h"
#include <cstring>

using namespace loom::rt;

int64_t layout::meshSize(const MeshSizes &sizes) {
  int64_t size = 1;
  for (int64_t s : sizes)
    size *= s;
  return size;
}

std::vector<int64_t> layout::coordinates(const MeshSizes &sizes, int64_t rank) {
  std::vector<int64_t> coords(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    coords[i] = rank % sizes[i];
    rank /= sizes[i];
  }
  return coords;
}

int64_t layout::rankOf(const MeshSizes &sizes,
                       const std::vector<int64_t> &coords) {
  int64_t rank = 0;
  for (size_t i = 0; i < sizes.size(); ++i)
    rank = rank * sizes[i] + coords[i];
  return rank;
}

int64_t layout::sizeAlong(const MeshSizes &sizes, const AxisList &axes) {
  int64_t size = 1;
  for (int axis : axes)
    size *= sizes[axis];
  return size;
}

int64_t layout::indexAlong(const MeshSizes &sizes,
                           const std::vector<int64_t> &coords,
                           const AxisList &axes) {
  int64_t index = 0;
  for (int axis : axes)
    index = index * sizes[axis] + coords[axis];
  return index;
}

std::vector<int64_t> layout::groupMembers(const MeshSizes &sizes,
                                          const AxisList &axes, int64_t rank) {
  std::vector<int64_t> coords = coordinates(sizes, rank);
  int64_t count = sizeAlong(sizes, axes);
  std::vector<int64_t> members(count);
  for (int64_t index = 0; index < count; ++index) {
    // Write `index` in mixed radix over the group's axes (last minor).
    int64_t rest = index;
    for (size_t k = axes.size(); k-- > 0;) {
      coords[axes[k]] = rest % sizes[axes[k]];
      rest /= sizes[axes[k]];
    }
    members[index] = rankOf(sizes, coords);
  }
  return members;
}

int64_t layout::groupColor(const MeshSizes &sizes, const AxisList &axes,
                           int64_t rank) {
  std::vector<int64_t> coords = coordinates(sizes, rank);
  for (int axis : axes)
    coords[axis] = 0;
  return rankOf(sizes, coords);
}

std::vector<int64_t>
layout::blockOffsets(const MeshSizes &sizes,
                     const std::vector<AxisList> &sharding,
                     const std::vector<int64_t> &localShape, int64_t rank) {
  std::vector<int64_t> offsets(localShape.size(), 0);
  if (sharding.empty())
    return offsets;
  std::vector<int64_t> coords = coordinates(sizes, rank);
  for (size_t d = 0; d < localShape.size(); ++d)
    offsets[d] = indexAlong(sizes, coords, sharding[d]) * localShape[d];
  return offsets;
}

bool layout::isCanonicalHolder(const MeshSizes &sizes,
                               const std::vector<AxisList> &sharding,
                               int64_t rank) {
  std::vector<int64_t> coords = coordinates(sizes, rank);
  std::vector<bool> used(sizes.size(), false);
  for (const AxisList &axes : sharding)
    for (int axis : axes)
      used[axis] = true;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (!used[i] && coords[i] != 0)
      return false;
  return true;
}

namespace {
/// Copies a block between the global tensor and its contiguous local copy.
/// The trailing dimensions the block spans fully, plus the first one it
/// does not, form one contiguous run in both; the rest is an odometer.
void copyBlock(const char *src, char *dst,
               const std::vector<int64_t> &globalShape,
               const std::vector<int64_t> &localShape,
               const std::vector<int64_t> &offsets, size_t elementSize,
               bool toGlobal) {
  size_t rank = localShape.size();
  for (int64_t extent : localShape)
    if (extent == 0)
      return;
  // k: the innermost dimension where the block is narrower than the tensor.
  size_t k = rank;
  while (k > 0 && localShape[k - 1] == globalShape[k - 1])
    --k;
  if (k == 0) {
    size_t bytes = elementSize;
    for (int64_t extent : localShape)
      bytes *= static_cast<size_t>(extent);
    std::memcpy(dst, src, bytes);
    return;
  }
  size_t inner = elementSize; // bytes of one element of dim k
  for (size_t d = k; d < rank; ++d)
    inner *= static_cast<size_t>(globalShape[d]);
  size_t run = static_cast<size_t>(localShape[k - 1]) * inner;
  // Global byte strides of dims 0..k-1.
  std::vector<size_t> stride(k);
  size_t s = inner;
  for (size_t d = k; d-- > 0;) {
    stride[d] = s;
    s *= static_cast<size_t>(globalShape[d]);
  }
  std::vector<int64_t> index(k - 1, 0);
  size_t localOffset = 0;
  while (true) {
    size_t globalOffset = static_cast<size_t>(offsets[k - 1]) * stride[k - 1];
    for (size_t d = 0; d + 1 < k; ++d)
      globalOffset += static_cast<size_t>(offsets[d] + index[d]) * stride[d];
    if (toGlobal)
      std::memcpy(dst + globalOffset, src + localOffset, run);
    else
      std::memcpy(dst + localOffset, src + globalOffset, run);
    localOffset += run;
    size_t d = k - 1;
    while (d > 0) {
      if (++index[d - 1] < localShape[d - 1])
        break;
      index[d - 1] = 0;
      --d;
    }
    if (d == 0)
      return;
  }
}
} // namespace

void layout::extractBlock(const void *global, void *local,
                          const std::vector<int64_t> &globalShape,
                          const std::vector<int64_t> &localShape,
                          const std::vector<int64_t> &offsets,
                          size_t elementSize) {
  copyBlock(static_cast<const char *>(global), static_cast<char *>(local),
            globalShape, localShape, offsets, elementSize, false);
}

void layout::insertBlock(const void *local, void *global,
                         const std::vector<int64_t> &globalShape,
                         const std::vector<int64_t> &localShape,
                         const std::vector<int64_t> &offsets,
                         size_t elementSize) {
  copyBlock(static_cast<const char *>(local), static_cast<char *>(global),
            globalShape, localShape, offsets, elementSize, true);
}
