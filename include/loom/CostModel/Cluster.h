//===- Cluster.h - What the devices are and how they are linked -*- C++ -*-===//
//
// A cluster description (docs/Cluster.md, examples under clusters/): nodes,
// devices per node, the device kind (peak FLOP/s per dtype, memory, memory
// bandwidth), and the links within and between nodes. `loomc --cluster`
// reads one; without it loomc describes the machine it runs on. Meshes are
// laid onto a cluster innermost axis first, so the axes that fit in a node
// get the intra-node link.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_COSTMODEL_CLUSTER_H
#define LOOM_COSTMODEL_CLUSTER_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <string>
#include <utility>
#include <vector>

namespace loom {

struct LinkSpec {
  /// GB/s per device and direction.
  double bandwidthGBps = 0;
  double latencyUs = 0;
  /// Measured bandwidths that collectives of one kind reach on this link
  /// (`collective_bandwidth_gb_per_s`, from `loomc calibrate`): MPI's
  /// collectives on shared memory copy and reduce on the cores and fall short
  /// of the point-to-point figure. 0: `bandwidthGBps`.
  double allReduceGBps = 0, reduceScatterGBps = 0, allGatherGBps = 0;
};

struct DeviceSpec {
  /// "gpu" or "cpu".
  std::string kind;
  std::string name;
  double memoryGB = 0;
  double memoryBandwidthGBps = 0;
  /// Peak dense TFLOP/s per dtype name ("float32", "bfloat16", ...).
  llvm::StringMap<double> peakTFLOPs;
  /// Measured float32 matmul rate by size (`matmul_tflops_by_size`): pairs
  /// of (cube root of m*n*k, TFLOP/s), sorted by size, both positive. Empty
  /// when the description has none; the cost model interpolates in
  /// log(size) between the points.
  std::vector<std::pair<double, double>> matmulTFLOPsBySize;
  /// Watts while computing (`power_w`, the board power) and while waiting
  /// for communication (`idle_power_w`, default: power_w); 0 when the
  /// description gives none.
  double powerW = 0, idlePowerW = 0;
  /// What one device costs per hour (`price_per_hour`, any currency); 0
  /// when unknown.
  double pricePerHour = 0;
};

struct Cluster {
  std::string name;
  /// Where the figures come from (datasheet, calibration, estimate).
  std::string source;
  int64_t nodes = 1;
  int64_t devicesPerNode = 1;
  DeviceSpec device;
  LinkSpec intraNode, interNode;
  /// False for the description of this machine made up without a file: CPU
  /// ranks are processes and may outnumber the cores.
  bool strictDeviceCount = true;

  int64_t numDevices() const { return nodes * devicesPerNode; }
};

/// Parses and checks a cluster description; errors name the key.
llvm::Expected<Cluster> parseCluster(llvm::StringRef json,
                                     llvm::StringRef fileName);
llvm::Expected<Cluster> readClusterFile(llvm::StringRef path);

/// This machine: one node, one CPU device per hardware thread, links of
/// shared memory. Figures not measured are marked in `source`.
Cluster describeThisMachine();

/// One axis of a mesh laid onto a cluster.
struct MeshAxisSpec {
  std::string name;
  int64_t size = 1;
  bool intraNode = true;
  LinkSpec link;
};

/// Parses `dp=2,tp=4` (axes major to minor) and lays it onto `cluster`:
/// the innermost axes whose product fits in a node are intra-node.
llvm::Expected<std::vector<MeshAxisSpec>> layMesh(llvm::StringRef spec,
                                                  const Cluster &cluster);

} // namespace loom

#endif // LOOM_COSTMODEL_CLUSTER_H
