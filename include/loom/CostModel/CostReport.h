//===- CostReport.h - Tabulate op costs -------------------------*- C++ -*-===//

#ifndef LOOM_COSTMODEL_COSTREPORT_H
#define LOOM_COSTMODEL_COSTREPORT_H

#include "loom/Interfaces/Cost.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

namespace loom {

/// Summed cost of the ops under a function.
struct CostSummary {
  OpCost total;
  /// FLOPs per compute element type, in first-seen order.
  llvm::MapVector<mlir::Type, double> flopsByType;
  int numPriced = 0;
  /// Ops without a cost: no CostOpInterface or a dynamic shape.
  int numUnpriced = 0;
};

/// Prints, for every function under `root`, one row per priced op (when
/// `perOp`) and the totals; returns the summary over all functions.
CostSummary printCostReport(mlir::Operation *root, llvm::raw_ostream &os,
                            bool perOp);

} // namespace loom

#endif // LOOM_COSTMODEL_COSTREPORT_H
