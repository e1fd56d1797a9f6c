//===- ApplyStrategy.cpp - Write a strategy's layouts onto a model --------===//
//
// `data` and `megatron` (see Passes.td) as annotations: layouts on inputs
// and on parameter operands of matmuls, which -dist-propagate-sharding then
// spreads. The Megatron pairing follows the paper's recipe (column-parallel
// then row-parallel, one all-reduce per pair) on whatever the importer
// produced; a fused projection that is split afterwards (GPT-2's c_attn) is
// first rewritten into one matmul per part, since a block layout of the
// fused output would give each device a mix of Q, K and V.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Passes/Passes.h"
#include "loom/Passes/Sharding.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace loom {
#define GEN_PASS_DEF_DISTAPPLYSTRATEGY
#include "Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

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

namespace {
/// Pairs matmuls against parameters column-then-row and records the layouts
/// of their right operands.
void pairMegatron(func::FuncOp fn, StringAttr tp, FlatSymbolRefAttr meshRef) {
  MLIRContext *ctx = fn.getContext();
  auto empty = DimShardingAttr::get(ctx, {}, false);
  auto split = DimShardingAttr::get(ctx, {tp}, false);
  for (auto [op, dim] : megatronWeightDims(fn)) {
    SmallVector<DimShardingAttr> dims{empty, empty};
    dims[dim] = split;
    auto layout = ShardingAttr::get(ctx, meshRef, dims, {}, ReductionKind::Sum);
    setRecordedSharding(cast<nn::MatmulOp>(op).getRhs(), layout);
  }
}

struct DistApplyStrategyPass
    : loom::impl::DistApplyStrategyBase<DistApplyStrategyPass> {
  using Base::Base;

  /// The module's mesh, created from the `mesh` option if there is none.
  FailureOr<MeshOp> getMesh(ModuleOp module) {
    auto meshes = llvm::to_vector(module.getOps<MeshOp>());
    if (meshes.size() > 1) {
      meshes[1].emitError("the strategy needs one mesh, the module has ")
          << meshes.size();
      return failure();
    }
    if (!meshes.empty())
      return meshes.front();
    if (meshSpec.empty()) {
      module.emitError("no mesh: pass mesh=NAME=SIZE,... or declare a "
                       "dist.mesh");
      return failure();
    }
    SmallVector<Attribute> axes;
    for (StringRef part : llvm::split(meshSpec, ',')) {
      auto [name, size] = part.split('=');
      int64_t n;
      if (name.trim().empty() || size.trim().getAsInteger(10, n) || n < 1) {
        module.emitError("bad mesh axis '") << part << "': expected NAME=SIZE";
        return failure();
      }
      axes.push_back(MeshAxisAttr::get(&getContext(), name.trim(), n,
                                       LinkKind::IntraNode, APFloat(0.0),
                                       APFloat(0.0)));
    }
    OpBuilder b(module.getBodyRegion());
    return b.create<MeshOp>(module.getLoc(), "mesh", b.getArrayAttr(axes));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (strategy != "data" && strategy != "megatron" && strategy != "planned") {
      module.emitError("unknown strategy '")
          << strategy << "' (expected data, megatron or planned)";
      return signalPassFailure();
    }
    FailureOr<MeshOp> mesh = getMesh(module);
    if (failed(mesh))
      return signalPassFailure();
    auto meshRef = FlatSymbolRefAttr::get((*mesh).getSymNameAttr());
    MLIRContext *ctx = &getContext();
    StringAttr tp;
    AxisList batchAxes;
    for (Attribute a : (*mesh).getAxes()) {
      auto axis = cast<MeshAxisAttr>(a);
      auto name = StringAttr::get(ctx, axis.getName());
      if (strategy != "data" && axis.getName() == "tp")
        tp = name;
      else if (strategy == "planned" && axis.getName() == "pp")
        continue;
      else
        batchAxes.push_back(name);
    }
    if (strategy == "megatron" && !tp) {
      (*mesh).emitError("--strategy=megatron splits layers over a mesh axis "
                        "named \"tp\"; this mesh has none");
      return signalPassFailure();
    }
    int64_t batchDevices = (*mesh).getGroupSize(batchAxes);

    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPublic())
        continue;
      if (tp && strategy == "megatron") {
        unfuseSplitProjections(fn);
        pairMegatron(fn, tp, meshRef);
      }
      if (batchAxes.empty() || batchDevices == 1)
        continue;
      std::optional<int64_t> batch;
      for (BlockArgument arg : fn.getArguments()) {
        auto type = dyn_cast<RankedTensorType>(arg.getType());
        // Weightless parameters are weights, whole on every device.
        if (!type || type.getRank() == 0 ||
            !nn::getArgumentParameterName(fn, arg.getArgNumber()).empty())
          continue;
        if (!batch)
          batch = type.getDimSize(0);
        if (type.getDimSize(0) != *batch)
          continue;
        std::string name = "input";
        if (auto n =
                fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nn.name"))
          name = ("input '" + n.getValue() + "'").str();
        if (ShapedType::isDynamic(*batch) || *batch % batchDevices != 0) {
          fn.emitError() << name << " (argument " << arg.getArgNumber()
                         << "): dimension 0 (the batch) of size "
                         << (ShapedType::isDynamic(*batch)
                                 ? std::string("?")
                                 : std::to_string(*batch))
                         << " is not divisible by " << batchDevices
                         << ", the devices of mesh axes "
                         << formatAxes(batchAxes)
                         << " (fix the batch with --input-shape)";
          return signalPassFailure();
        }
        SmallVector<DimShardingAttr> dims(
            type.getRank(), DimShardingAttr::get(ctx, {}, /*open=*/true));
        dims[0] = DimShardingAttr::get(ctx, batchAxes, false);
        setRecordedSharding(
            arg, ShardingAttr::get(ctx, meshRef, dims, {}, ReductionKind::Sum));
      }
    }
  }
};
} // namespace
