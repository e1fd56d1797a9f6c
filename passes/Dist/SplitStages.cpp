//===- SplitStages.cpp - One pipeline stage of a training step ------------===//
//
// -dist-split-stages{stage=s}: every stage's module starts as the same
// whole step; each keeps its own part. Every op gets a home: a stage, or
// "everywhere" for what any stage can compute alone (arguments,
// parameters, constants and what follows from them only). Ops of the
// microbatch loop carry their stage (forward ops from -dist-assign-stages,
// backward ops from the gradient builder); the others go where their
// operands are, and where operands live on several stages, to the stage
// that receives the fewest bytes. A value used away from its home crosses
// as dist.send/dist.recv. Every stage runs this same analysis on the same
// IR, so the transfer list, and with it every tag, is the same on all.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Interfaces/Cost.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace loom {
#define GEN_PASS_DEF_DISTSPLITSTAGES
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {

/// The home of what every stage can compute by itself.
constexpr int64_t kEverywhere = -1;

/// The loss and the gradient norm: the step's first two results, which
/// every stage returns.
constexpr unsigned kSharedResults = 2;

struct Transfer {
  Value value;
  /// Devices along the pipeline axis.
  int64_t from, to;
  /// The first op on `to` that uses the value.
  Operation *consumer;
};

/// Homes are virtual stages: with `chunks` model chunks per device,
/// virtual stage v runs on device v % stages. Values cross only between
/// devices.
class Splitter {
public:
  Splitter(func::FuncOp fn, int64_t stages, int64_t stage, int64_t chunks,
           StringRef axis)
      : fn(fn), stages(stages), stage(stage), chunks(chunks), axis(axis) {}

  LogicalResult run(MeshOp mesh) {
    if (failed(analyze()))
      return failure();
    rewrite(mesh);
    return stampLoop();
  }

private:
  int64_t home(Value v) const {
    auto it = homes.find(v);
    return it == homes.end() ? kEverywhere : it->second;
  }
  int64_t home(Operation *op) const {
    auto it = opHomes.find(op);
    return it == opHomes.end() ? kEverywhere : it->second;
  }
  /// The device of a home.
  int64_t device(int64_t h) const { return h == kEverywhere ? h : h % stages; }
  bool kept(Operation *op) const {
    int64_t h = home(op);
    return h == kEverywhere || device(h) == stage;
  }

  /// Where an op without a stage of its own runs: with its operands, or
  /// among their stages the one that receives the fewest bytes.
  int64_t combine(Operation *op) const {
    llvm::MapVector<int64_t, int64_t> bytesAt;
    for (Value v : op->getOperands())
      if (int64_t h = home(v); h != kEverywhere)
        bytesAt[h] += getTensorBytes(v.getType());
    if (bytesAt.empty())
      return kEverywhere;
    int64_t total = 0;
    for (auto &[s, bytes] : bytesAt)
      total += bytes;
    int64_t best = kEverywhere, bestMoved = 0;
    for (auto &[s, bytes] : bytesAt) {
      int64_t moved = total - bytes;
      if (best == kEverywhere || moved < bestMoved ||
          (moved == bestMoved && s < best)) {
        best = s;
        bestMoved = moved;
      }
    }
    return best;
  }

  void need(Value v, int64_t at, Operation *consumer) {
    int64_t from = device(home(v));
    at = device(at);
    if (from == kEverywhere || from == at)
      return;
    if (!needed.insert({{v, at}, transfers.size()}).second)
      return;
    transfers.push_back({v, from, at, consumer});
  }

  void place(Operation *op, int64_t h) {
    opHomes[op] = h;
    for (Value r : op->getResults())
      if (h != kEverywhere)
        homes[r] = h;
    if (h == kEverywhere)
      return;
    for (Value v : op->getOperands())
      need(v, h, op);
  }

  LogicalResult analyze() {
    Block &body = fn.getBody().front();
    for (Operation &op : body)
      if (auto l = dyn_cast<MicrobatchesOp>(op)) {
        if (loop)
          return fn.emitError("a pipelined step has one microbatch loop, '")
                 << fn.getName() << "' has several";
        loop = l;
      }
    if (!loop)
      return fn.emitError("cannot split '")
             << fn.getName()
             << "' into pipeline stages: it has no microbatch loop (build "
                "the training step with microbatches)";
    ret = cast<func::ReturnOp>(body.getTerminator());
    eraseDead();
    for (Operation &op : body) {
      if (&op == ret.getOperation())
        break;
      if (&op != loop.getOperation()) {
        place(&op, combine(&op));
        continue;
      }
      for (Operation &inner : loop.getBodyBlock().without_terminator()) {
        auto marked = inner.getAttrOfType<IntegerAttr>(kStageAttrName);
        if (marked && marked.getInt() >= stages * chunks)
          return inner.emitError("op is marked for pipeline stage ")
                 << marked.getInt() << " but the step has " << stages * chunks
                 << " (virtual) stages";
        place(&inner, marked ? marked.getInt() : combine(&inner));
      }
      // A loop result lives where its yielded value does.
      opHomes[loop] = kEverywhere;
      for (auto [r, y] :
           llvm::zip(loop.getResults(), loop.getYield().getValues()))
        if (int64_t h = home(y); h != kEverywhere)
          homes[r] = h;
    }
    if (ret.getNumOperands() < kSharedResults)
      return fn.emitError("a pipelined step returns the loss and the "
                          "gradient norm first");
    for (unsigned i = 0; i < kSharedResults; ++i)
      for (int64_t s = 0; s < stages; ++s)
        need(ret.getOperand(i), s, ret);
    return shareTied();
  }

  /// Dead code (the gradients of constants, say) would otherwise cross
  /// between stages for nothing.
  void eraseDead() {
    auto sweep = [](Block &block) {
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(block.getOperations())))
        if (isOpTriviallyDead(&op))
          op.erase();
    };
    sweep(loop.getBodyBlock());
    sweep(fn.getBody().front());
  }

  /// A parameter several stages use (GPT's tied wte and lm_head) has a copy
  /// on each. Its gradient is summed where the gradient builder sums it
  /// (the parts cross like any value), and the updated value goes from the
  /// stage that computes it to the others, which return it as their update
  /// of the parameter: the copies stay equal.
  LogicalResult shareTied() {
    for (auto param : fn.getBody().front().getOps<nn::ParameterOp>()) {
      llvm::SmallSetVector<int64_t, 4> devices;
      for (Operation *user : param->getUsers())
        if (int64_t h = device(home(user)); h != kEverywhere)
          devices.insert(h);
      auto update = param->getAttrOfType<StringAttr>(nn::kUpdateAttrName);
      if (devices.size() < 2 || !update)
        continue;
      bool found = false;
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        auto name = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
        if (name != update)
          continue;
        found = true;
        for (int64_t d : devices) {
          need(v, d, ret);
          tiedResults[i].push_back(d);
        }
      }
      if (!found)
        return param.emitError("parameter '")
               << param.getName() << "' is used by pipeline stages "
               << std::min(devices[0], devices[1]) << " and "
               << std::max(devices[0], devices[1])
               << ", but the step returns no update '" << update.getValue()
               << "' to keep their copies equal";
    }
    return success();
  }

  /// The layout a value crosses in: the one propagation gave it before
  /// the split (the same on every stage), or whole.
  static ShardingAttr crossingLayout(Value v) {
    ShardingAttr layout = getRecordedSharding(v);
    return layout && !layout.isReplicated() ? layout : ShardingAttr();
  }

  void rewrite(MeshOp mesh) {
    MLIRContext *ctx = fn.getContext();
    OpBuilder b(ctx);
    auto meshRef = FlatSymbolRefAttr::get(mesh.getSymNameAttr());
    ArrayAttr axes = b.getStrArrayAttr({axis});
    auto backward = [](Operation *op) {
      return op && op->hasAttr(kBackwardAttrName);
    };
    // Sends right after what they send (in transfer order), receives right
    // before their first consumer.
    llvm::DenseMap<Operation *, Operation *> lastSend;
    for (auto [tag, t] : llvm::enumerate(transfers)) {
      Location loc = t.value.getLoc();
      if (t.from == stage) {
        Operation *def = t.value.getDefiningOp();
        Operation *after = lastSend.lookup(def);
        b.setInsertionPointAfter(after ? after : def);
        auto send = b.create<SendOp>(
            loc, t.value, meshRef, axes, b.getI64IntegerAttr(t.to),
            b.getI64IntegerAttr(tag), crossingLayout(t.value));
        if (backward(def))
          send->setAttr(kBackwardAttrName, b.getUnitAttr());
        opHomes[send] = home(def);
        lastSend[def] = send;
      } else if (t.to == stage) {
        // A value made outside the loop arrives once, before it.
        Operation *consumer = t.consumer;
        if (consumer->getParentOp() == loop.getOperation() &&
            t.value.getParentBlock() != &loop.getBodyBlock())
          consumer = loop;
        b.setInsertionPoint(consumer);
        auto recv = b.create<RecvOp>(loc, t.value.getType(), meshRef, axes,
                                     b.getI64IntegerAttr(t.from),
                                     b.getI64IntegerAttr(tag));
        if (consumer == t.consumer && backward(t.consumer))
          recv->setAttr(kBackwardAttrName, b.getUnitAttr());
        opHomes[recv] = home(consumer);
        if (ShardingAttr layout = crossingLayout(t.value))
          setRecordedSharding(recv.getResult(), layout);
        t.value.replaceUsesWithIf(recv.getResult(), [&](OpOperand &use) {
          Operation *user = use.getOwner();
          return user == ret.getOperation() || device(home(user)) == stage;
        });
      }
    }
    rewriteReturn(b);
    rewriteLoop(b);
    // What another stage computes goes, consumers first.
    auto drop = [&](Block &block) {
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(block.getOperations())))
        if (!op.hasTrait<OpTrait::IsTerminator>() && !isa<SendOp, RecvOp>(op) &&
            !kept(&op) && op.use_empty())
          op.erase();
    };
    drop(loop.getBodyBlock());
    drop(fn.getBody().front());
    for (auto param : llvm::make_early_inc_range(
             fn.getBody().front().getOps<nn::ParameterOp>()))
      if (param->use_empty())
        param.erase();
  }

  /// The loss and the norm on every stage, and this stage's updates.
  void rewriteReturn(OpBuilder &b) {
    SmallVector<Value> operands;
    SmallVector<DictionaryAttr> attrs;
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      int64_t h = home(v);
      if (i < kSharedResults || device(h) == stage ||
          (h == kEverywhere && stage == 0) ||
          llvm::is_contained(tiedResults.lookup(i), stage)) {
        operands.push_back(v);
        attrs.push_back(fn.getResultAttrDict(i));
      }
    }
    b.setInsertionPoint(ret);
    auto newRet = b.create<func::ReturnOp>(ret.getLoc(), operands);
    ret.erase();
    ret = newRet;
    fn.setType(FunctionType::get(fn.getContext(), fn.getArgumentTypes(),
                                 ValueRange(operands).getTypes()));
    for (auto [i, a] : llvm::enumerate(attrs))
      fn.setResultAttrs(i, a);
  }

  /// The loop yields what this stage makes.
  void rewriteLoop(OpBuilder &b) {
    YieldOp yield = loop.getYield();
    SmallVector<Value> values;
    SmallVector<unsigned> keptResults;
    for (auto [i, v] : llvm::enumerate(yield.getValues())) {
      int64_t h = home(v);
      if (h == kEverywhere || device(h) == stage) {
        values.push_back(v);
        keptResults.push_back(i);
      }
    }
    b.setInsertionPoint(yield);
    b.create<YieldOp>(yield.getLoc(), values);
    yield.erase();
    b.setInsertionPoint(loop);
    auto newLoop =
        b.create<MicrobatchesOp>(loop.getLoc(), ValueRange(values).getTypes(),
                                 loop.getInputs(), loop.getCount());
    newLoop->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
    if (auto layouts = loop->getAttrOfType<ArrayAttr>(kShardingsAttrName)) {
      SmallVector<Attribute> kept;
      for (unsigned i : keptResults)
        kept.push_back(layouts[i]);
      newLoop->setAttr(kShardingsAttrName, b.getArrayAttr(kept));
    }
    newLoop.getBody().takeBody(loop.getBody());
    for (auto [n, i] : llvm::enumerate(keptResults))
      loop.getResult(i).replaceAllUsesWith(newLoop.getResult(n));
    // (Sends of loop results stay after the old loop, so after the new.)
    for (OpResult r : loop->getResults())
      r.dropAllUses();
    loop.erase();
    loop = newLoop;
  }

  /// Every op left in the loop carries its virtual stage (a schedule cuts
  /// the loop into units by it). What every stage computes alike moves
  /// before the loop when it does not depend on the microbatch, and else
  /// runs in the unit of its first user.
  LogicalResult stampLoop() {
    Builder b(fn.getContext());
    Block &body = loop.getBodyBlock();
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      if (home(&op) == kEverywhere && isMemoryEffectFree(&op) &&
          llvm::all_of(op.getOperands(),
                       [&](Value v) { return v.getParentBlock() != &body; }))
        op.moveBefore(loop);
    // Units run F(chunk 0..V-1), then B(chunk V-1..0) for one microbatch.
    auto unitRank = [&](Operation *op) -> int64_t {
      if (isa<YieldOp>(op))
        return 0;
      auto stageAttr = op->getAttrOfType<IntegerAttr>(kStageAttrName);
      int64_t chunk = stageAttr ? stageAttr.getInt() / stages : 0;
      return op->hasAttr(kBackwardAttrName) ? 2 * chunks - 1 - chunk : chunk;
    };
    // (Reverse iterators do not survive erasing the op after them.)
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *opPtr : llvm::reverse(ops)) {
      Operation &op = *opPtr;
      if (int64_t h = home(&op); h != kEverywhere) {
        op.setAttr(kStageAttrName, b.getI64IntegerAttr(h));
        continue;
      }
      if (op.use_empty() && isMemoryEffectFree(&op)) {
        op.erase();
        continue;
      }
      Operation *first = nullptr;
      for (Operation *user : op.getUsers())
        if (!first || unitRank(user) < unitRank(first))
          first = user;
      if (!first || !isMemoryEffectFree(&op))
        return op.emitOpError("has no pipeline stage and no user to run "
                              "with in the microbatch loop");
      int64_t rank = unitRank(first);
      int64_t chunk = rank < chunks ? rank : 2 * chunks - 1 - rank;
      op.setAttr(kStageAttrName, b.getI64IntegerAttr(stage + chunk * stages));
      if (rank < chunks)
        op.removeAttr(kBackwardAttrName);
      else
        op.setAttr(kBackwardAttrName, b.getUnitAttr());
    }
    return success();
  }

  func::FuncOp fn;
  int64_t stages, stage, chunks;
  StringRef axis;
  MicrobatchesOp loop;
  func::ReturnOp ret;
  llvm::DenseMap<Value, int64_t> homes;
  llvm::DenseMap<Operation *, int64_t> opHomes;
  SmallVector<Transfer> transfers;
  llvm::DenseMap<std::pair<Value, int64_t>, size_t> needed;
  /// Results that tied parameters' stages all return, by index.
  llvm::DenseMap<unsigned, SmallVector<int64_t>> tiedResults;
};

struct DistSplitStagesPass
    : loom::impl::DistSplitStagesBase<DistSplitStagesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t stages = this->stages, stage = this->stage;
    if (stages < 2 || stage < 0 || stage >= stages) {
      module.emitError("-dist-split-stages: stage ")
          << stage << " of " << stages << " stages (a pipeline has at least 2)";
      return signalPassFailure();
    }
    std::optional<Schedule> kind = symbolizeSchedule(schedule);
    if (!kind) {
      module.emitError("-dist-split-stages: unknown schedule '")
          << schedule << "' (gpipe, 1f1b, interleaved, zb1p)";
      return signalPassFailure();
    }
    if (!symbolizeRecompute(recompute)) {
      module.emitError("-dist-split-stages: unknown recomputation '")
          << recompute << "' (off, full, selective)";
      return signalPassFailure();
    }
    int64_t chunks = this->chunks;
    if (chunks < 1 || (chunks > 1 && *kind != Schedule::Interleaved)) {
      module.emitError("-dist-split-stages: ")
          << chunks << " chunks per stage (more than 1 only with the "
          << "interleaved schedule)";
      return signalPassFailure();
    }
    auto meshes = module.getOps<MeshOp>();
    if (meshes.empty()) {
      module.emitError("-dist-split-stages: the module declares no mesh");
      return signalPassFailure();
    }
    MeshOp mesh = *meshes.begin();
    MeshAxisAttr meshAxis = mesh.getAxis(axis);
    if (!meshAxis || meshAxis.getSize() != stages) {
      module.emitError("-dist-split-stages: the mesh needs an axis \"")
          << axis << "\" of size " << stages;
      return signalPassFailure();
    }
    int64_t microbatches = 0;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      if (failed(Splitter(fn, stages, stage, chunks, axis).run(mesh)))
        return signalPassFailure();
      fn.walk([&](MicrobatchesOp l) { microbatches = l.getCount(); });
    }
    module->setAttr(kPipelineAttrName,
                    PipelineAttr::get(&getContext(), stage, stages,
                                      std::max<int64_t>(microbatches, 1),
                                      schedule, recompute, axis, chunks));
  }
};
} // namespace
