//===- PropagateSharding.cpp - Spread shardings through a function --------===//
//
// Starting from the layouts a user (or a strategy) gave (function argument
// and result attributes, dist.annotate, dist.shardings already on ops), every
// op's sharding rule carries mesh axes from tensors it knows to tensors it
// does not, forwards and backwards, until nothing changes. Each op then has
// `dist.shardings` on its results. Nothing here moves data: where an op
// cannot use the layout its operand has, -dist-insert-reshards adds a
// reshard.
//
// Conflicts (two tensors of one op splitting a factor differently, or one
// axis wanted by two factors) are resolved by priority, and reported as a
// remark on the op:
//   1. layouts a user wrote beat propagated ones;
//   2. among equals, operands beat results (forward information wins);
//   3. then the earlier operand.
// A factor the rule marks replicated is never split, whatever its tensors
// say (softmax's axis, a window): that is a rule, not a conflict.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_DISTPROPAGATESHARDING
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {
enum Priority { kUser = 0, kPropagated = 1, kUnknown = 2 };

/// What propagation knows about one value.
struct State {
  SmallVector<AxisList> dims;
  /// A dimension that may not receive axes: it has some, or a user closed it.
  SmallVector<bool> fixed;
  AxisList partial;
  ReductionKind kind = ReductionKind::Sum;
  int priority = kUnknown;

  bool uses(StringAttr axis) const {
    if (llvm::is_contained(partial, axis))
      return true;
    return llvm::any_of(
        dims, [&](const AxisList &d) { return llvm::is_contained(d, axis); });
  }
};

/// One tensor's opinion on how to split a factor.
struct Candidate {
  AxisList axes;
  int priority;
  bool isResult;
  unsigned tensor;
  int64_t dim;
};

std::string describe(const Candidate &c) {
  return std::string(c.isResult ? "result " : "operand ") +
         std::to_string(c.tensor) + " (dimension " + std::to_string(c.dim) +
         ", " + (c.priority == kUser ? "user layout" : "propagated") +
         ") splits it over " + formatAxes(c.axes);
}

bool before(const Candidate &a, const Candidate &b) {
  return std::make_tuple(a.priority, a.isResult, a.tensor) <
         std::make_tuple(b.priority, b.isResult, b.tensor);
}

class Propagator {
public:
  Propagator(func::FuncOp fn, MeshOp mesh, bool remarks)
      : fn(fn), mesh(mesh), remarks(remarks) {}

  void run() {
    seed();
    // A microbatch loop before its body: its inputs' layouts reach the body
    // on the first forward sweep, before what its results are asked for
    // comes back on the backward one (as in the unrolled step).
    SmallVector<Operation *> ops;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != fn.getOperation())
        ops.push_back(op);
    });
    // Each sweep only adds axes to dimensions that had none, so this ends;
    // the bound guards against a rule bug.
    for (int sweep = 0; sweep < 32; ++sweep) {
      bool changed = false;
      for (Operation *op : ops)
        changed |= visit(op);
      for (Operation *op : llvm::reverse(ops))
        changed |= visit(op);
      if (!changed)
        break;
    }
    if (remarks)
      for (auto &[op, lines] : conflicts)
        for (const std::string &line : lines)
          op->emitRemark() << line;
    write(ops);
  }

private:
  State &stateOf(Value v) {
    auto it = states.find(v);
    if (it != states.end())
      return it->second;
    State s;
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    s.dims.resize(rank);
    s.fixed.assign(rank, false);
    return states.insert({v, s}).first->second;
  }

  /// Records a layout the user (or a strategy) wrote.
  void seedValue(Value v, ShardingAttr sharding) {
    if (!sharding || !isa<RankedTensorType>(v.getType()))
      return;
    State &s = stateOf(v);
    for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
      s.dims[d].assign(dim.getAxes().begin(), dim.getAxes().end());
      s.fixed[d] = !dim.getAxes().empty() || !dim.getOpen();
    }
    s.partial.assign(sharding.getPartialAxes().begin(),
                     sharding.getPartialAxes().end());
    s.kind = sharding.getPartialKind();
    s.priority = kUser;
  }

  void seed() {
    for (BlockArgument arg : fn.getArguments())
      seedValue(arg, getRecordedSharding(arg));
    fn.walk([&](Operation *op) {
      for (Value r : op->getResults())
        seedValue(r, getRecordedSharding(r));
    });
  }

  /// True if the op defining `v` may produce it split along dimension `d`
  /// (its rule neither keeps the dimension whole nor makes the split
  /// inexpressible); arguments and rule-less ops take any layout.
  bool producible(Value v, size_t d, ArrayRef<StringAttr> axes) {
    auto result = dyn_cast<OpResult>(v);
    auto ruleOp =
        result ? dyn_cast<ShardingRuleOpInterface>(result.getOwner()) : nullptr;
    if (!ruleOp || isa<AnnotateOp, ReshardOp>(result.getOwner()))
      return true;
    ShardingRule rule = ruleOp.getShardingRule();
    const DimFactors &factors = rule.getResults()[result.getResultNumber()][d];
    FailureOr<FactorAxes> split = axesToFactors(axes, factors, rule, mesh);
    if (failed(split))
      return false;
    for (auto [k, f] : llvm::enumerate(factors))
      if (!(*split)[k].empty() &&
          rule.getFactor(f).kind == FactorKind::Replicated)
        return false;
    // An operand a user laid out splits its factors as written; the op
    // follows it (its higher priority) rather than this request.
    Operation *op = result.getOwner();
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      auto it = states.find(operand);
      if (it == states.end() || it->second.priority != kUser)
        continue;
      for (auto [e, operandFactors] : llvm::enumerate(rule.getOperands()[i])) {
        if (!it->second.fixed[e])
          continue;
        FailureOr<FactorAxes> has =
            axesToFactors(it->second.dims[e], operandFactors, rule, mesh);
        if (failed(has))
          continue;
        for (auto [k, f] : llvm::enumerate(factors))
          for (auto [m, g] : llvm::enumerate(operandFactors))
            if (f == g && (*has)[m] != (*split)[k])
              return false;
      }
    }
    return true;
  }

  /// Gives `v` the layout `want` where `v` has room for it. Requests from
  /// anything but `v`'s own producer are checked against what the producer
  /// can compute.
  bool offer(Value v, const State &want, int priority, bool fromOwner = false) {
    if (!isa<RankedTensorType>(v.getType()))
      return false;
    State &s = stateOf(v);
    bool changed = false;
    for (size_t d = 0; d < s.dims.size(); ++d) {
      if (s.fixed[d] || want.dims[d].empty())
        continue;
      if (!fromOwner && !producible(v, d, want.dims[d]))
        continue;
      if (llvm::any_of(want.dims[d], [&](StringAttr a) { return s.uses(a); }))
        continue;
      s.dims[d] = want.dims[d];
      s.fixed[d] = true;
      changed = true;
    }
    if (s.priority != kUser && !want.partial.empty() && s.partial.empty() &&
        llvm::none_of(want.partial, [&](StringAttr a) { return s.uses(a); })) {
      s.partial = want.partial;
      s.kind = want.kind;
      changed = true;
    }
    if (changed && s.priority == kUnknown)
      s.priority = priority;
    return changed;
  }

  bool visit(Operation *op) {
    if (auto loop = dyn_cast<MicrobatchesOp>(op))
      return visitLoop(loop);
    if (auto barrier = dyn_cast<RecomputeOp>(op))
      return visitIdentity(barrier.getInput(), barrier.getResult());
    if (auto annotate = dyn_cast<AnnotateOp>(op)) {
      // Both ways: the constraint back to the producer, and the producer's
      // axes into the constraint's open dimensions.
      State result = stateOf(annotate.getResult());
      bool changed = offer(annotate.getInput(), withoutPartial(result), kUser);
      if (states.count(annotate.getInput()))
        changed |=
            offer(annotate.getResult(),
                  withoutPartial(stateOf(annotate.getInput())), kPropagated);
      return changed;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      bool changed = false;
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        if (auto s = fn.getResultAttrOfType<ShardingAttr>(
                i, dist::kShardingAttrName)) {
          State want;
          want.dims.resize(s.getDims().size());
          for (auto [d, dim] : llvm::enumerate(s.getDims()))
            want.dims[d].assign(dim.getAxes().begin(), dim.getAxes().end());
          changed |= offer(v, want, kUser);
        }
      return changed;
    }
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
    if (!ruleOp ||
        llvm::any_of(op->getOperandTypes(),
                     [](Type t) {
                       auto rt = dyn_cast<RankedTensorType>(t);
                       return !rt || !rt.hasStaticShape();
                     }) ||
        llvm::any_of(op->getResultTypes(), [](Type t) {
          auto rt = dyn_cast<RankedTensorType>(t);
          return !rt || !rt.hasStaticShape();
        }))
      return false;
    // Layouts recorded on every tensor (a second run, after a pipeline
    // split): nothing to choose, and no conflict to report again.
    auto settled = [&](Value v) {
      auto it = states.find(v);
      return it != states.end() && it->second.priority == kUser &&
             llvm::all_of(it->second.fixed, [](bool f) { return f; });
    };
    if (llvm::all_of(op->getOperands(), settled) &&
        llvm::all_of(op->getResults(), settled))
      return false;
    ShardingRule rule = ruleOp.getShardingRule();
    int numFactors = rule.getNumFactors();
    std::vector<SmallVector<Candidate>> candidates(numFactors);

    auto collect = [&](Value v, const TensorFactors &dims, bool isResult,
                       unsigned index) {
      auto it = states.find(v);
      if (it == states.end())
        return;
      const State &s = it->second;
      for (auto [d, factors] : llvm::enumerate(dims)) {
        if (s.dims[d].empty()) {
          // A dimension a user closed whole asks for its factors whole.
          if (s.fixed[d] && s.priority == kUser)
            for (int f : factors)
              candidates[f].push_back({{}, kUser, isResult, index, (int64_t)d});
          continue;
        }
        FailureOr<FactorAxes> split =
            axesToFactors(s.dims[d], factors, rule, mesh);
        if (failed(split))
          continue;
        for (auto [k, f] : llvm::enumerate(factors))
          if (!(*split)[k].empty())
            candidates[f].push_back(
                {(*split)[k], s.priority, isResult, index, (int64_t)d});
      }
    };
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      collect(v, rule.getOperands()[i], false, i);
    for (auto [i, v] : llvm::enumerate(op->getResults()))
      collect(v, rule.getResults()[i], true, i);

    // Pick each factor's axes by priority.
    FactorAxes chosen(numFactors);
    SmallVector<const Candidate *> winner(numFactors, nullptr);
    for (int f = 0; f < numFactors; ++f) {
      auto &list = candidates[f];
      if (list.empty() || rule.getFactor(f).kind == FactorKind::Replicated)
        continue;
      llvm::stable_sort(list, before);
      winner[f] = &list.front();
      chosen[f] = list.front().axes;
      for (const Candidate &c : ArrayRef<Candidate>(list).drop_front())
        if (c.axes != chosen[f])
          note(op, "factor " + ShardingRule::factorName(f) + ": " +
                       describe(c) + ", but " + describe(list.front()) +
                       "; keeping the latter (higher priority)");
    }
    // One axis splits one factor; the higher-priority factor keeps it.
    SmallVector<int> order;
    for (int f = 0; f < numFactors; ++f)
      if (winner[f])
        order.push_back(f);
    llvm::stable_sort(
        order, [&](int a, int b) { return before(*winner[a], *winner[b]); });
    llvm::SmallDenseSet<StringAttr, 8> used;
    std::optional<ReductionKind> partialKind;
    AxisList partial;
    for (int f : order) {
      const ShardingFactor &factor = rule.getFactor(f);
      bool clash =
          llvm::any_of(chosen[f], [&](StringAttr a) { return used.count(a); });
      bool kindClash = factor.kind == FactorKind::Reduction && partialKind &&
                       *partialKind != factor.reduction;
      if (clash || kindClash) {
        note(op, "factor " + ShardingRule::factorName(f) + ": " +
                     describe(*winner[f]) + ", but " +
                     (clash ? "an axis already splits another factor"
                            : "another reduction of a different kind is "
                              "split") +
                     "; leaving it whole");
        chosen[f].clear();
        continue;
      }
      for (StringAttr a : chosen[f])
        used.insert(a);
      if (factor.kind == FactorKind::Reduction && !chosen[f].empty()) {
        partialKind = factor.reduction;
        llvm::append_range(partial, chosen[f]);
      }
    }

    dropInexpressible(chosen, rule, mesh);
    partial.clear();
    for (int f : order)
      if (rule.getFactor(f).kind == FactorKind::Reduction)
        llvm::append_range(partial, chosen[f]);
    if (partial.empty())
      partialKind.reset();

    bool changed = false;
    auto project = [&](const TensorFactors &dims, bool isResult) {
      State want;
      for (const DimFactors &dim : dims) {
        AxisList axes;
        for (int f : dim)
          llvm::append_range(axes, chosen[f]);
        want.dims.push_back(axes);
      }
      if (isResult) {
        want.partial = partial;
        want.kind = partialKind.value_or(ReductionKind::Sum);
      }
      return want;
    };
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      changed |= offer(v, project(rule.getOperands()[i], false), kPropagated);
    for (auto [i, v] : llvm::enumerate(op->getResults()))
      changed |= offer(v, project(rule.getResults()[i], true), kPropagated,
                       /*fromOwner=*/true);
    return changed;
  }

  /// A value that passes through unchanged, partial sums included.
  bool visitIdentity(Value in, Value out) {
    bool changed = false;
    if (states.count(in))
      changed |= offer(out, stateOf(in), kPropagated, /*fromOwner=*/true);
    if (states.count(out))
      changed |= offer(in, withoutPartial(stateOf(out)), kPropagated);
    return changed;
  }

  /// A microbatch is a block of rows of each input, laid out as the input
  /// is; a result is the sum of what the body yields, laid out as that.
  bool visitLoop(MicrobatchesOp loop) {
    bool changed = false;
    auto share = [&](Value from, Value to, bool keepPartial) {
      if (!states.count(from))
        return;
      State want = stateOf(from);
      if (!keepPartial)
        want.partial.clear();
      changed |= offer(to, want, kPropagated);
    };
    for (auto [input, arg] :
         llvm::zip(loop.getInputs(), loop.getBodyBlock().getArguments())) {
      share(input, arg, false);
      share(arg, input, false);
    }
    for (auto [result, value] :
         llvm::zip(loop.getResults(), loop.getYield().getValues())) {
      share(value, result, true);
      share(result, value, false);
    }
    return changed;
  }

  State withoutPartial(const State &s) {
    State copy = s;
    copy.partial.clear();
    return copy;
  }

  void note(Operation *op, std::string line) {
    auto &lines = conflicts[op];
    if (!llvm::is_contained(lines, line))
      lines.push_back(std::move(line));
  }

  ShardingAttr toAttr(Value v) {
    auto it = states.find(v);
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    MLIRContext *ctx = fn.getContext();
    auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
    if (it == states.end())
      return ShardingAttr::getReplicated(ctx, meshRef, rank);
    SmallVector<DimShardingAttr> dims;
    for (const AxisList &axes : it->second.dims)
      dims.push_back(DimShardingAttr::get(ctx, axes, false));
    return ShardingAttr::get(ctx, meshRef, dims, it->second.partial,
                             it->second.partial.empty() ? ReductionKind::Sum
                                                        : it->second.kind);
  }

  void write(ArrayRef<Operation *> ops) {
    for (BlockArgument arg : fn.getArguments())
      if (isa<RankedTensorType>(arg.getType())) {
        ShardingAttr s = toAttr(arg);
        if (!s.isReplicated() || getRecordedSharding(arg))
          setRecordedSharding(arg, s);
      }
    for (Operation *op : ops) {
      if (op->getNumResults() == 0 || isa<AnnotateOp, ReshardOp>(op) ||
          !llvm::all_of(op->getResultTypes(),
                        [](Type t) { return isa<RankedTensorType>(t); }))
        continue;
      for (Value r : op->getResults())
        setRecordedSharding(r, toAttr(r));
    }
    // Open dimensions of annotations take what propagation found; the
    // constraint is then explicit for -dist-insert-reshards.
    for (Operation *op : ops)
      if (auto annotate = dyn_cast<AnnotateOp>(op))
        annotate.setShardingAttr(toAttr(annotate.getResult()));
    // Results leave whole along partial axes: -dist-insert-reshards reduces
    // them before the return. Open dimensions of a written result layout
    // take the returned value's axes.
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      ShardingAttr found = dist::withoutPartial(toAttr(v));
      auto written =
          fn.getResultAttrOfType<ShardingAttr>(i, dist::kShardingAttrName);
      if (!written) {
        if (!found.isReplicated())
          fn.setResultAttr(i, dist::kShardingAttrName, found);
        continue;
      }
      SmallVector<DimShardingAttr> dims;
      llvm::SmallDenseSet<StringAttr, 8> used;
      for (StringAttr a : written.getAllAxes())
        used.insert(a);
      for (auto [d, dim] : llvm::enumerate(written.getDims())) {
        ArrayRef<StringAttr> axes = dim.getAxes();
        ArrayRef<StringAttr> more = dimAxes(found, d);
        if (axes.empty() && dim.getOpen() &&
            llvm::none_of(more, [&](StringAttr a) { return used.count(a); }))
          axes = more;
        dims.push_back(DimShardingAttr::get(fn.getContext(), axes, false));
      }
      fn.setResultAttr(i, dist::kShardingAttrName,
                       ShardingAttr::get(fn.getContext(), written.getMesh(),
                                         dims, written.getPartialAxes(),
                                         written.getPartialKind()));
    }
  }

  func::FuncOp fn;
  MeshOp mesh;
  bool remarks;
  llvm::DenseMap<Value, State> states;
  llvm::MapVector<Operation *, SmallVector<std::string>> conflicts;
};

/// The one mesh the function's layouts name, or null if it names none.
FailureOr<MeshOp> findMesh(func::FuncOp fn) {
  FlatSymbolRefAttr found;
  Operation *where = nullptr;
  WalkResult result = fn.walk([&](Operation *op) -> WalkResult {
    SmallVector<ShardingAttr> seen;
    if (auto a = dyn_cast<AnnotateOp>(op))
      seen.push_back(a.getSharding());
    if (auto r = dyn_cast<ReshardOp>(op))
      seen.push_back(r.getTo());
    if (op == fn.getOperation()) {
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (auto s =
                fn.getArgAttrOfType<ShardingAttr>(i, dist::kShardingAttrName))
          seen.push_back(s);
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        if (auto s = fn.getResultAttrOfType<ShardingAttr>(
                i, dist::kShardingAttrName))
          seen.push_back(s);
    } else if (auto list =
                   op->getAttrOfType<ArrayAttr>(dist::kShardingsAttrName)) {
      for (Attribute a : list)
        if (auto s = dyn_cast<ShardingAttr>(a))
          seen.push_back(s);
    }
    for (ShardingAttr s : seen) {
      if (found && s.getMesh() != found) {
        op->emitError("layouts name two meshes, ")
            << found << " and " << s.getMesh()
            << "; a function runs on one mesh";
        return WalkResult::interrupt();
      }
      found = s.getMesh();
      where = op;
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (!found)
    return MeshOp();
  MeshOp mesh = lookupMesh(where, found);
  if (!mesh) {
    where->emitError("unknown mesh ") << found;
    return failure();
  }
  return mesh;
}

struct DistPropagateShardingPass
    : loom::impl::DistPropagateShardingBase<DistPropagateShardingPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn->hasAttr(kSPMDAttrName))
        continue;
      FailureOr<MeshOp> mesh = findMesh(fn);
      if (failed(mesh))
        return signalPassFailure();
      if (!*mesh)
        continue;
      if (!fn.getBody().hasOneBlock()) {
        fn.emitError("sharding propagation needs a single-block function");
        return signalPassFailure();
      }
      Propagator(fn, *mesh, remarks).run();
    }
  }
};
} // namespace
