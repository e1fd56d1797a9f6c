//===- loom-cluster-fuzz.cpp - libFuzzer target for cluster descriptions --===//
//
// Feeds arbitrary bytes to the reader of `loomc --cluster` files, then lays
// meshes onto a description it accepts and costs collectives on their links,
// as the planner does. Any crash, sanitizer report (a figure too large to
// convert, say), leak or out-of-memory is a bug: bad input must end in an
// error.
//
//===----------------------------------------------------------------------===//

#include "loom/CostModel/Cluster.h"
#include "loom/CostModel/CommCost.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<loom::Cluster> cluster = loom::parseCluster(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.json");
  if (!cluster) {
    llvm::consumeError(cluster.takeError());
    return 0;
  }
  for (const char *mesh : {"dp=2", "dp=2,tp=4", "pp=2,dp=4,tp=8"}) {
    llvm::Expected<std::vector<loom::MeshAxisSpec>> axes =
        loom::layMesh(mesh, *cluster);
    if (!axes) {
      llvm::consumeError(axes.takeError());
      continue;
    }
    for (const loom::MeshAxisSpec &axis : *axes)
      for (loom::CollectiveKind kind :
           {loom::CollectiveKind::AllReduce, loom::CollectiveKind::AllGather,
            loom::CollectiveKind::ReduceScatter, loom::CollectiveKind::AllToAll,
            loom::CollectiveKind::Broadcast})
        (void)loom::bestCollectiveTime(kind, axis.size, 1e9, axis.link);
  }
  return 0;
}
