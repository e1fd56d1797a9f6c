//===- UntieInits.cpp - One init per op that writes it --------------------===//

#include "loom/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"

namespace loom {
#define GEN_PASS_DEF_UNTIEINITS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;

namespace {
struct UntieInitsPass : loom::impl::UntieInitsBase<UntieInitsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> shared;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::EmptyOp, linalg::FillOp>(op) &&
          op->getNumResults() == 1 && !op->getResult(0).hasOneUse() &&
          !op->getResult(0).use_empty())
        shared.push_back(op);
    });
    // Fills before their empties, so a cloned fill clones its own empty too.
    for (Operation *op : llvm::reverse(shared)) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder b(use->getOwner());
        IRMapping mapping;
        if (auto fill = dyn_cast<linalg::FillOp>(op))
          if (auto empty =
                  fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
            mapping.map(empty.getResult(), b.clone(*empty)->getResult(0));
        use->set(b.clone(*op, mapping)->getResult(0));
      }
    }
  }
};
} // namespace
