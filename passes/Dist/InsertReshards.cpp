//===- InsertReshards.cpp - Make every layout change explicit -------------===//
//
// After propagation each value has one layout, but an op may need its
// operand in another: softmax needs its axis whole, a matmul needs both
// operands split alike along the contracted factor, a consumer cannot read a
// partial sum, a dist.annotate or a function result asks for a layout. This
// pass derives what each op computes from its result layouts and its rule,
// and puts a `dist.reshard` before every operand whose layout differs. After
// it, every op's operands have exactly the layouts its rule implies, which is
// what -dist-partition relies on.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_DISTINSERTRESHARDS
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {

/// The factor split an op computes with: parallel factors from its result
/// layouts, reduction factors from operands that supply the result's partial
/// axes. Fills `natural` with the result layouts that split implies (equal
/// to the recorded ones unless a recorded one is not expressible).
FactorAxes deriveFactors(Operation *op, const ShardingRule &rule, MeshOp mesh,
                         FlatSymbolRefAttr meshRef,
                         SmallVectorImpl<ShardingAttr> &natural) {
  FactorAxes chosen(rule.getNumFactors());
  llvm::SmallDenseSet<StringAttr, 8> used;
  auto take = [&](int f, ArrayRef<StringAttr> axes) {
    if (!chosen[f].empty() || axes.empty() ||
        rule.getFactor(f).kind == FactorKind::Replicated ||
        llvm::any_of(axes, [&](StringAttr a) { return used.count(a); }))
      return;
    chosen[f].assign(axes.begin(), axes.end());
    for (StringAttr a : axes)
      used.insert(a);
  };
  AxisList partial;
  std::optional<ReductionKind> kind;
  for (auto [i, r] : llvm::enumerate(op->getResults())) {
    ShardingAttr s = getRecordedSharding(r);
    if (!s)
      continue;
    if (partial.empty()) {
      partial.assign(s.getPartialAxes().begin(), s.getPartialAxes().end());
      kind = s.getPartialKind();
    }
    for (auto [d, factors] : llvm::enumerate(rule.getResults()[i])) {
      FailureOr<FactorAxes> split =
          axesToFactors(dimAxes(s, d), factors, rule, mesh);
      if (succeeded(split))
        for (auto [k, f] : llvm::enumerate(factors))
          take(f, (*split)[k]);
    }
  }
  // Reduction factors: axes an operand splits them by that the result
  // carries as partial.
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    ShardingAttr s = getRecordedSharding(v);
    if (!s)
      continue;
    for (auto [d, factors] : llvm::enumerate(rule.getOperands()[i])) {
      FailureOr<FactorAxes> split =
          axesToFactors(dimAxes(s, d), factors, rule, mesh);
      if (failed(split))
        continue;
      for (auto [k, f] : llvm::enumerate(factors)) {
        const ShardingFactor &factor = rule.getFactor(f);
        if (factor.kind != FactorKind::Reduction || !kind ||
            factor.reduction != *kind)
          continue;
        if (llvm::all_of((*split)[k], [&](StringAttr a) {
              return llvm::is_contained(partial, a);
            }))
          take(f, (*split)[k]);
      }
    }
  }
  dropInexpressible(chosen, rule, mesh);
  AxisList produced;
  for (int f = 0; f < rule.getNumFactors(); ++f)
    if (rule.getFactor(f).kind == FactorKind::Reduction)
      llvm::append_range(produced, chosen[f]);
  // Keep the recorded order of partial axes when all are produced.
  AxisList orderedPartial;
  for (StringAttr a : partial)
    if (llvm::is_contained(produced, a))
      orderedPartial.push_back(a);
  for (StringAttr a : produced)
    if (!llvm::is_contained(orderedPartial, a))
      orderedPartial.push_back(a);
  for (const TensorFactors &dims : rule.getResults())
    natural.push_back(factorsToSharding(op->getContext(), meshRef, dims, chosen,
                                        orderedPartial,
                                        kind.value_or(ReductionKind::Sum)));
  return chosen;
}

struct DistInsertReshardsPass
    : loom::impl::DistInsertReshardsBase<DistInsertReshardsPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (!fn.isExternal() && !fn->hasAttr(kSPMDAttrName))
        if (failed(runOnFunction(fn)))
          return signalPassFailure();
  }

  LogicalResult runOnFunction(func::FuncOp fn) {
    // The mesh: from any recorded layout.
    FlatSymbolRefAttr meshRef;
    fn.walk([&](Operation *op) {
      for (Value r : op->getResults())
        if (isa<RankedTensorType>(r.getType()))
          if (ShardingAttr s = getRecordedSharding(r))
            meshRef = s.getMesh();
    });
    for (BlockArgument arg : fn.getArguments())
      if (ShardingAttr s = getRecordedSharding(arg))
        meshRef = s.getMesh();
    if (!meshRef)
      return success();
    MeshOp mesh = lookupMesh(fn, meshRef);
    if (!mesh)
      return fn.emitError("unknown mesh ") << meshRef;
    MLIRContext *ctx = fn.getContext();

    auto layoutOf = [&](Value v) {
      ShardingAttr s = getRecordedSharding(v);
      if (!s)
        s = ShardingAttr::getReplicated(
            ctx, meshRef, cast<RankedTensorType>(v.getType()).getRank());
      return normalize(s);
    };
    // Uses `v` as `want` at `user`'s operand `index`.
    auto require = [&](Operation *user, unsigned index, ShardingAttr want) {
      Value v = user->getOperand(index);
      if (!isa<RankedTensorType>(v.getType()))
        return;
      want = normalize(want);
      ShardingAttr have = layoutOf(v);
      if (have == want)
        return;
      OpBuilder b(user);
      auto reshard = b.create<ReshardOp>(user->getLoc(), v, have, want);
      user->setOperand(index, reshard.getResult());
    };

    SmallVector<Operation *> ops;
    fn.walk([&](Operation *op) {
      if (op != fn.getOperation() && !isa<ReshardOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto annotate = dyn_cast<AnnotateOp>(op)) {
        require(op, 0, annotate.getSharding());
        continue;
      }
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
          if (!isa<RankedTensorType>(ret.getOperand(i).getType()))
            continue;
          auto want =
              fn.getResultAttrOfType<ShardingAttr>(i, dist::kShardingAttrName);
          if (!want)
            want = ShardingAttr::getReplicated(
                ctx, meshRef,
                cast<RankedTensorType>(ret.getOperand(i).getType()).getRank());
          require(op, i, want);
        }
        continue;
      }
      // A transfer moves each device's block in the layout it names; what
      // arrives keeps that layout.
      if (auto send = dyn_cast<SendOp>(op)) {
        ShardingAttr layout = send.getLayoutAttr();
        require(op, 0,
                layout
                    ? layout
                    : ShardingAttr::getReplicated(
                          ctx, meshRef, send.getInput().getType().getRank()));
        continue;
      }
      if (isa<RecvOp>(op))
        continue;
      if (auto barrier = dyn_cast<RecomputeOp>(op)) {
        require(op, 0, layoutOf(barrier.getResult()));
        continue;
      }
      auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
      bool typed = llvm::all_of(op->getOperandTypes(), [](Type t) {
        auto rt = dyn_cast<RankedTensorType>(t);
        return rt && rt.hasStaticShape();
      });
      if (!ruleOp || !typed) {
        // Ops without a rule see whole tensors.
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          if (auto rt = dyn_cast<RankedTensorType>(op->getOperand(i).getType()))
            require(op, i,
                    ShardingAttr::getReplicated(ctx, meshRef, rt.getRank()));
        if (op->getNumResults() && ruleOp == nullptr &&
            !op->hasTrait<OpTrait::IsTerminator>())
          for (Value r : op->getResults())
            if (auto rt = dyn_cast<RankedTensorType>(r.getType()))
              setRecordedSharding(
                  r, ShardingAttr::getReplicated(ctx, meshRef, rt.getRank()));
        continue;
      }
      ShardingRule rule = ruleOp.getShardingRule();
      SmallVector<ShardingAttr> natural;
      FactorAxes chosen = deriveFactors(op, rule, mesh, meshRef, natural);
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        require(op, i,
                factorsToSharding(ctx, meshRef, rule.getOperands()[i], chosen));
      // A recorded result layout the op cannot produce directly: produce
      // the natural one and reshard after the op.
      for (auto [i, r] : llvm::enumerate(op->getResults())) {
        ShardingAttr recorded = layoutOf(r);
        if (recorded == natural[i])
          continue;
        setRecordedSharding(r, natural[i]);
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        auto reshard =
            b.create<ReshardOp>(op->getLoc(), r, natural[i], recorded);
        r.replaceAllUsesExcept(reshard.getResult(), reshard);
      }
    }
    return success();
  }
};
} // namespace
