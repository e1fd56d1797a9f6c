//===- Layout.h - Device meshes, groups and tensor blocks -------*- C++ -*-===//
//
// The arithmetic of distributed artifacts (docs/Artifact.md): a rank's
// coordinates in the mesh, the members of its groups, and the block of a
// sharded tensor it holds. Everything is mixed radix with the first axis
// most significant, so that the compiler and the runtime agree by
// construction.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_COMM_LAYOUT_H
#define LOOM_RUNTIME_COMM_LAYOUT_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace loom::rt::layout {

/// Mesh axis sizes, major to minor.
using MeshSizes = std::vector<int64_t>;
/// Indices into the mesh's axes.
using AxisList = std::vector<int>;

/// The product of all sizes (1 for no axes).
int64_t meshSize(const MeshSizes &sizes);

/// `rank` written in mixed radix over the axes.
std::vector<int64_t> coordinates(const MeshSizes &sizes, int64_t rank);

/// The inverse of coordinates().
int64_t rankOf(const MeshSizes &sizes, const std::vector<int64_t> &coords);

/// The product of the sizes of `axes`.
int64_t sizeAlong(const MeshSizes &sizes, const AxisList &axes);

/// The mixed-radix number of `coords` along `axes`, in the listed order.
int64_t indexAlong(const MeshSizes &sizes, const std::vector<int64_t> &coords,
                   const AxisList &axes);

/// The ranks whose coordinates equal `rank`'s except along `axes`, ordered
/// by their index in the group (indexAlong).
std::vector<int64_t> groupMembers(const MeshSizes &sizes, const AxisList &axes,
                                  int64_t rank);

/// The smallest rank of `rank`'s group over `axes` (its coordinates along
/// `axes` set to 0): the same for all members, different between groups.
int64_t groupColor(const MeshSizes &sizes, const AxisList &axes, int64_t rank);

/// Where the block of rank `rank` starts, per dimension, for a tensor of
/// local shape `localShape` whose dim d is split along `sharding[d]`.
std::vector<int64_t> blockOffsets(const MeshSizes &sizes,
                                  const std::vector<AxisList> &sharding,
                                  const std::vector<int64_t> &localShape,
                                  int64_t rank);

/// Whether `rank` holds the canonical copy of its block: its coordinates
/// along every axis that does not shard the tensor are 0.
bool isCanonicalHolder(const MeshSizes &sizes,
                       const std::vector<AxisList> &sharding, int64_t rank);

/// Copies the block at `offsets` of extent `localShape` out of a row-major
/// tensor of `globalShape` into a contiguous buffer (extract), or back
/// (insert). Shapes and offsets must be consistent (the manifest checks
/// guarantee it).
void extractBlock(const void *global, void *local,
                  const std::vector<int64_t> &globalShape,
                  const std::vector<int64_t> &localShape,
                  const std::vector<int64_t> &offsets, size_t elementSize);
void insertBlock(const void *local, void *global,
                 const std::vector<int64_t> &globalShape,
                 const std::vector<int64_t> &localShape,
                 const std::vector<int64_t> &offsets, size_t elementSize);

} // namespace loom::rt::layout

#endif // LOOM_RUNTIME_COMM_LAYOUT_H
