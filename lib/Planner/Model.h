//===- Model.h - The planner's view of a model ------------------*- C++ -*-===//
//
// Private to lib/Planner. A forward function as a graph of priced ops: each
// op's ways of splitting over a tensor-parallel group (one per factor of its
// sharding rule that the group divides, plus running whole), each value's
// bytes and role, and the model cut into layers where a single activation
// crosses (the places a pipeline may cut).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_PLANNER_MODEL_H
#define LOOM_LIB_PLANNER_MODEL_H

#include "loom/Interfaces/ShardingRule.h"
#include "loom/Planner/Planner.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <map>

namespace loom::planner {

/// Where a value lives on a tensor-parallel group.
struct Layout {
  enum Kind : int8_t { Replicated, Sharded, Partial };
  Kind kind = Replicated;
  int8_t dim = -1;
  bool operator==(const Layout &o) const {
    return kind == o.kind && dim == o.dim;
  }
  bool operator!=(const Layout &o) const { return !(*this == o); }
};

/// One way to run an op on a tp group.
struct Strategy {
  /// The rule's factor split over the group; -1 runs the op whole.
  int factor = -1;
  llvm::SmallVector<Layout, 4> operands, results;
  /// Per device, at the graph's batch: arithmetic (transcendentals
  /// weighted) and bytes at the op's boundary.
  double flops = 0, bytes = 0;
  /// For matmuls: per-device problem, and which extent scales with the
  /// batch (0 none, 1 the batch count, 2 the rows).
  bool matmul = false;
  double mmCount = 1, mmM = 1, mmN = 1, mmK = 1;
  int mmScale = 0;
};

struct ValueInfo {
  enum Kind : int8_t { Activation, Parameter, Data, Constant };
  Kind kind = Constant;
  mlir::Value value;
  /// Global bytes at the graph batch, in the model's element type.
  double bytes = 0;
  double elements = 0;
  bool isFloat = false;
  int producer = -1;
  /// Consumers as (node, operand index), in program order.
  llvm::SmallVector<std::pair<int, int>, 4> uses;
  std::string name;
  /// The dimension carrying the batch, or -1.
  int batchDim = -1;
  /// A result of a view op (reshape, transpose): not stored again.
  bool view = false;
  bool needsGrad() const {
    return (kind == Activation && isFloat) || kind == Parameter;
  }
};

struct Node {
  mlir::Operation *op = nullptr;
  llvm::SmallVector<int, 4> operands; // value ids, -1 for non-tensors
  llvm::SmallVector<int, 2> results;
  /// Depends on the batch (runs per microbatch and has a backward pass).
  bool batchDependent = false;
  int segment = 0;
};

struct Segment {
  int begin = 0, end = 0; // node range
  /// Layer group key ("h.#.attn") and index within it.
  std::string group;
  int64_t groupIndex = -1;
  double parameters = 0;
  /// The activation crossing into the next segment (-1 for the last).
  int boundary = -1;
  bool hasMatmul = false;
  /// Structure of the segment's ops (names, types, how operands connect),
  /// equal for repeated layers: their per-op solutions are shared.
  uint64_t structure = 0;
  /// The same over the products and the ops holding parameters only: equal
  /// for the layers of a repeated block even where one of them also
  /// computes a mask; layer groups are found from it.
  uint64_t layerShape = 0;
};

/// Per-device figures of one segment for one microbatch.
struct SegmentCost {
  double forward = 0, backward = 0;     // compute seconds
  double tpForward = 0, tpBackward = 0; // exposed tp communication
  double forwardFlops = 0;              // global FLOPs (for MFU)
  double parameters = 0;                // elements on a device (tp split)
  double savedActivations = 0;          // bytes kept for backward
  /// Bytes live at once beyond what is kept: the forward's transients
  /// (freed after their last use) or a backward op's gradients.
  double peakActivations = 0;
  /// Everything the segment's ops produce (what full recomputation brings
  /// back at once).
  double layerWorkingSet = 0;
  double inputBytes = 0;    // what recomputation keeps
  double boundaryBytes = 0; // what crosses to the next stage
  /// The weight-gradient part of `backward` (what ZB-H1 defers), and the
  /// bytes a deferred weight gradient keeps (the weight products' inputs
  /// and output gradients).
  double weightGrad = 0, weightGradBytes = 0;
  /// Selective recomputation (passes/Dist/Recompute.h): kept are the
  /// results of matrix products and convolutions and the segment's inputs;
  /// the other ops run again in backward.
  double selectiveKept = 0, selectiveRecompute = 0;
  /// tp collective kind -> (bytes, seconds, calls) per microbatch.
  std::map<std::string, CommVolume> comm;
};

/// What prices ops: the device, the tp group's link, the precision.
struct Pricing {
  const Cluster *cluster = nullptr;
  int64_t tp = 1;
  LinkSpec tpLink;
  bool mixed = false;
  bool train = true;
  /// Sequence parallelism: ops run whole over tp are split along the
  /// sequence instead (their time and activations / tp), and tp all-reduces
  /// of activations become reduce-scatter + all-gather pairs.
  bool sequenceParallel = false;
  /// Attention cores run as one fused kernel: the scores are neither
  /// stored nor read back; backward recomputes them (one more product).
  bool fusedAttention = false;
  /// Samples per microbatch per device and the graph's batch.
  double microbatch = 1;
  double graphBatch = 1;

  double scale() const { return microbatch / graphBatch; }
  double floatBytesScale() const { return mixed ? 0.5 : 1.0; }
  /// FLOP/s of a matmul at the device's peak in this precision.
  double matmulPeak() const;
  double matmulSeconds(const Strategy &s, bool batchDependent) const;
  double opSeconds(const Strategy &s, bool batchDependent) const;
  double backwardSeconds(const Strategy &s, bool batchDependent) const;
  /// One tp collective; `record` adds it to a segment's volumes and to its
  /// forward or backward tp time.
  double collective(CollectiveKind kind, double bytes,
                    SegmentCost *record = nullptr, bool backward = false,
                    bool activation = false) const;
};

/// A per-node choice of strategy for one tp degree.
struct Assignment {
  std::string name;
  std::vector<int> choice;
};

/// An op's part in an attention core softmax(Q K^T) V, which a fused
/// kernel (FlashAttention, cuDNN's SDPA) computes without storing the
/// scores.
enum class AttentionRole : int8_t { None, Scores, Inner, Output };

/// `value` in the largest of `units` (each `base` times the one before)
/// that keeps it at least 1: "1.5 GiB", "12.34 kJ".
std::string formatScaled(double value, double base,
                         llvm::ArrayRef<const char *> units, int decimals);

class Model {
public:
  mlir::func::FuncOp fn;
  /// The global batch of the step planned, and the graph's (its inputs'
  /// dimension 0): the same, unless the graph is one microbatch of it
  /// (PlannerOptions::graphMicrobatches).
  int64_t batch = 0;
  int64_t graphBatch = 0;
  std::vector<Node> nodes;
  std::vector<ValueInfo> values;
  std::vector<Segment> segments;
  llvm::DenseMap<mlir::Value, int> valueIds;
  double numParameters = 0;
  uint64_t hash = 0;
  /// Per node: its part in an attention core.
  std::vector<AttentionRole> attention;
  /// Per value: whether a backward op reads it (an operand of an op whose
  /// gradient depends on its operands, or the source of such a view).
  std::vector<bool> saved;

  /// Builds the graph; errors are emitted at the culprit.
  mlir::LogicalResult build(mlir::func::FuncOp fn);

  /// Strategies of every node for a tp degree (cached).
  const std::vector<llvm::SmallVector<Strategy, 4>> &strategies(int64_t tp);

  /// Candidate assignments for `tp` under `pricing` (cached per degree and
  /// link): the Megatron pairing and the searched one.
  const std::vector<Assignment> &candidates(const Pricing &pricing,
                                            bool megatronOnly,
                                            const std::string &cacheDir);
  int64_t searched = 0, cached = 0;

  /// Per-segment costs of an assignment.
  std::vector<SegmentCost> segmentCosts(const Pricing &pricing,
                                        const Assignment &assignment);

  /// The stored layout of each parameter and the dimension (or -1) each
  /// matmul weight is split along under `assignment`.
  llvm::DenseMap<mlir::Operation *, int>
  weightDims(int64_t tp, const Assignment &assignment);

private:
  std::map<int64_t, std::vector<llvm::SmallVector<Strategy, 4>>> strategyCache;
  std::map<std::string, std::vector<Assignment>> candidateCache;

  void buildSegments();
  void findAttention();
  void findSaved();
  /// Names the segments' layer groups from the repeated structure of the
  /// segment chain; `names` is each segment's first parameter's name.
  void groupSegments(llvm::ArrayRef<std::string> names);
  uint64_t structureHash(const Segment &seg, bool layerOps) const;
  /// Time of node `i` under strategy `s` (compute and its own backward
  /// partial-sum reductions).
  double nodeSeconds(const Pricing &p, int i, const Strategy &s);
  /// The all-reduces of partial gradients of node `i`'s whole operands
  /// when it runs split (training only).
  double partialGradientSeconds(const Pricing &p, int i, const Strategy &s,
                                SegmentCost *record);
  /// Whether parameter `v` is stored split over tp: its first use takes it
  /// split, or it is a fused projection whose every slice feeds a split
  /// product.
  bool storedSharded(int64_t tp, const std::vector<int> &choice, int v,
                     Layout firstUse);
  /// Value `v`'s bytes per device before any split: at the pricing's
  /// microbatch and precision.
  double valueBytes(const Pricing &p, int v) const;
  /// Time of moving value `v` from layout `from` to `to` (forward and, in
  /// training, backward).
  double edgeSeconds(const Pricing &p, int v, Layout from, Layout to,
                     SegmentCost *record = nullptr);
  /// The layout value `v` arrives in under `choice` for its use by `user`
  /// (std::nullopt: free, any layout).
  std::optional<Layout>
  producedLayout(int64_t tp, const std::vector<int> &choice, int v, int user);
  double localSeconds(const Pricing &p, std::vector<int> &choice, int i, int s);
  void refine(const Pricing &p, std::vector<int> &choice,
              const std::vector<bool> &fixed);
  std::vector<int> greedy(const Pricing &p, const std::vector<int> *forced);
  double totalSeconds(const Pricing &p, const std::vector<int> &choice);
  /// Node `i`'s time under `choice` with the moves of its operands into
  /// place (and of the leaving boundary, when it makes it).
  double incomingSeconds(const Pricing &p, const std::vector<int> &choice,
                         int i);
  /// Sets `choice[i]` to the strategy of least incoming time.
  int bestIncoming(const Pricing &p, std::vector<int> &choice, int i);

  /// The dynamic programme over the chain of segments: for each boundary
  /// activation each layout it may take (whole, or split along a dimension
  /// the group divides), each segment's best inner assignment between an
  /// entry and an exit layout (greedy + descent inside the segment,
  /// shared by segments of one structure), then the cheapest chain.
  std::vector<int> chainProgramme(const Pricing &p,
                                  const std::vector<int> &start);
  double solveSegment(const Pricing &p, int k, std::optional<Layout> in,
                      std::optional<Layout> out, std::vector<int> &choice);

  /// While solving one segment: its node range, the layout its entering
  /// activation arrives in, and the layout its boundary must leave in.
  int scopeBegin = -1, scopeEnd = -1;
  int entering = -1, leaving = -1;
  Layout enteringLayout, leavingLayout;
  bool inScope(int node) const {
    return scopeBegin < 0 || (node >= scopeBegin && node < scopeEnd);
  }
};

} // namespace loom::planner

#endif // LOOM_LIB_PLANNER_MODEL_H
