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

#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Passes/Dist/Megatron.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace loom {
#define GEN_PASS_DEF_DISTAPPLYSTRATEGY
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

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
    auto mesh = b.create<MeshOp>(module.getLoc(), "mesh", b.getArrayAttr(axes));
    // Verified before use: group sizes are products of its axis sizes.
    if (failed(mlir::verify(mesh))) {
      mesh.erase();
      return failure();
    }
    return mesh;
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
      else if (axis.getName() == "pp") // stages, not batch blocks
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
        if (auto n = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                     nn::kNameAttrName))
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
