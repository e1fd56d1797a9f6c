//===- Megatron.cpp - Megatron's column-then-row pairing ------------------===//
//
// What --strategy=megatron and the planner's Megatron seed share: which
// matmuls against parameters pair column-then-row (one all-reduce per
// pair), and the rewrite that unfuses a projection split afterwards (GPT-2's
// c_attn) so that each part stays whole on a device.
//
//===----------------------------------------------------------------------===//

#include "loom/Passes/Dist/Megatron.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace loom;

namespace {

/// Whether `v` is a parameter: an nn.parameter op, or a weightless parameter
/// (a function argument carrying nn.parameter).
bool isParameter(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    return fn && arg.getOwner()->isEntryBlock() &&
           !nn::getArgumentParameterName(fn, arg.getArgNumber()).empty();
  }
  return isa_and_nonnull<nn::ParameterOp>(v.getDefiningOp());
}

/// Whether a matmul's right operand is a parameter (possibly through a
/// transpose or a slice).
bool hasParameterRhs(nn::MatmulOp mm) {
  auto rhs = mm.getRhs().getType();
  if (rhs.getRank() != 2 || mm.getLhs().getType().getRank() < 2)
    return false;
  Value w = mm.getRhs();
  if (Operation *def = w.getDefiningOp();
      isa_and_nonnull<nn::TransposeOp, nn::SliceOp>(def))
    w = def->getOperand(0);
  return isParameter(w);
}

} // namespace

void loom::dist::unfuseSplitProjections(func::FuncOp fn) {
  SmallVector<nn::SplitOp> splits;
  fn.walk([&](nn::SplitOp op) { splits.push_back(op); });
  for (nn::SplitOp split : splits) {
    RankedTensorType type = split.getInput().getType();
    if (split.getAxis() != type.getRank() - 1)
      continue;
    Value producer = split.getInput();
    nn::AddOp add = producer.getDefiningOp<nn::AddOp>();
    Value bias;
    nn::MatmulOp mm;
    if (add) {
      for (int side = 0; side < 2 && !mm; ++side) {
        mm = add->getOperand(side).getDefiningOp<nn::MatmulOp>();
        bias = add->getOperand(1 - side);
      }
      auto biasType = cast<RankedTensorType>(bias.getType());
      if (!mm || biasType.getRank() != 1 || !mm->hasOneUse() ||
          !add->hasOneUse())
        continue;
    } else {
      mm = producer.getDefiningOp<nn::MatmulOp>();
      if (!mm || !mm->hasOneUse())
        continue;
    }
    if (!hasParameterRhs(mm) || mm.getRhs().getDefiningOp<nn::SliceOp>())
      continue;
    OpBuilder b(split);
    Value w = mm.getRhs();
    auto wType = cast<RankedTensorType>(w.getType());
    int64_t offset = 0;
    for (auto [result, size] :
         llvm::zip(split.getResults(), split.getSizes())) {
      Value part =
          b.create<nn::SliceOp>(split.getLoc(), w, ArrayRef<int64_t>{0, offset},
                                ArrayRef<int64_t>{wType.getDimSize(0), size},
                                ArrayRef<int64_t>{1, 1});
      Value out = b.create<nn::MatmulOp>(mm.getLoc(), result.getType(),
                                         mm.getLhs(), part);
      if (add) {
        Value biasPart = b.create<nn::SliceOp>(
            split.getLoc(), bias, ArrayRef<int64_t>{offset},
            ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1});
        out =
            b.create<nn::AddOp>(add.getLoc(), result.getType(), out, biasPart);
      }
      result.replaceAllUsesWith(out);
      offset += size;
    }
    split.erase();
    if (add)
      add.erase();
    mm.erase();
  }
}

llvm::DenseMap<Operation *, int>
loom::dist::megatronWeightDims(func::FuncOp fn) {
  SmallVector<nn::MatmulOp> weighted;
  fn.walk([&](nn::MatmulOp mm) {
    if (hasParameterRhs(mm))
      weighted.push_back(mm);
  });
  enum Role { None, Column, Row };
  llvm::DenseMap<Operation *, Role> role;
  llvm::DenseMap<Operation *, bool> paired;
  for (nn::MatmulOp mm : weighted) {
    // The parameter matmuls feeding this one's left operand, through
    // anything but another parameter matmul or a normalisation.
    llvm::SetVector<Operation *> feeding;
    SmallVector<Value> work{mm.getLhs()};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (!def || isa<nn::ParameterOp, nn::ConstantOp, nn::LayerNormOp>(def))
        continue;
      if (auto other = dyn_cast<nn::MatmulOp>(def);
          other && hasParameterRhs(other)) {
        feeding.insert(other);
        continue;
      }
      llvm::append_range(work, def->getOperands());
    }
    // Outputs of unpaired columns are split; everything else feeding in is
    // whole (a row's output is all-reduced).
    auto open = [&](Operation *op) {
      return role.lookup(op) == Column && !paired.lookup(op);
    };
    if (!feeding.empty() && llvm::all_of(feeding, open)) {
      role[mm] = Row;
      for (Operation *op : feeding)
        paired[op] = true;
    } else {
      role[mm] = llvm::none_of(feeding, open) ? Column : None;
    }
  }
  llvm::DenseMap<Operation *, int> dims;
  for (nn::MatmulOp mm : weighted) {
    Role r = role.lookup(mm);
    if (r == None || (r == Column && !paired.lookup(mm)))
      continue;
    dims[mm] = r == Column ? 1 : 0;
  }
  return dims;
}
