//===- Recompute.h - What a backward unit recomputes ------------*- C++ -*-===//
//
// Activation recomputation over a microbatch loop body: which forward
// values the forward unit keeps for the backward unit (checkpoints) and
// which the backward unit computes again from them. Used by
// -dist-unroll-microbatches.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_DIST_RECOMPUTE_H
#define LOOM_PASSES_DIST_RECOMPUTE_H

#include "loom/Dialect/Dist/DistOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace loom::dist {

class RecomputePlan {
public:
  /// `full`: keep the values that cross a cut where one activation is live
  /// (between layers; the planner's segments), recompute the rest.
  /// `selective`: keep the results of matrix products and convolutions,
  /// recompute the cheap ops between them (softmax, norms, activations).
  /// Either way the microbatch's inputs, received values and what does not
  /// depend on the microbatch are kept. `off`: nothing is recomputed.
  RecomputePlan(mlir::Block &body, Recompute mode);

  /// Whether backward units recompute `v` instead of using the forward
  /// unit's value.
  bool recomputes(mlir::Value v) const { return recomputed.contains(v); }
  /// Position of a body op (body order is a topological order).
  unsigned position(mlir::Operation *op) const { return positions.lookup(op); }
  /// The kept values (for tests and statistics).
  const llvm::DenseSet<mlir::Value> &checkpoints() const { return kept; }

private:
  llvm::DenseSet<mlir::Value> recomputed, kept;
  llvm::DenseMap<mlir::Operation *, unsigned> positions;
};

} // namespace loom::dist

#endif // LOOM_PASSES_DIST_RECOMPUTE_H
