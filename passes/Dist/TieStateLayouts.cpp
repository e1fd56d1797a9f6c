//===- TieStateLayouts.cpp - Update results laid out like their state -----===//
//
// The runtime swaps a parameter's buffer with its update's after a training
// step, so the update result must hold the same block on every device as
// the parameter it replaces (see -nn-build-training-step).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

namespace loom {
#define GEN_PASS_DEF_DISTTIESTATELAYOUTS
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
struct DistTieStateLayoutsPass
    : loom::impl::DistTieStateLayoutsBase<DistTieStateLayoutsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto meshes = module.getOps<dist::MeshOp>();
    if (meshes.empty())
      return;
    auto meshRef = FlatSymbolRefAttr::get(*meshes.begin());
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      llvm::StringMap<nn::ParameterOp> updated;
      fn.walk([&](nn::ParameterOp param) {
        if (auto name = param->getAttrOfType<StringAttr>(nn::kUpdateAttrName))
          updated[name.getValue()] = param;
      });
      for (unsigned i = 0; i < fn.getNumResults(); ++i) {
        auto name = fn.getResultAttrOfType<StringAttr>(i, nn::kNameAttrName);
        if (!name)
          continue;
        auto it = updated.find(name.getValue());
        if (it == updated.end())
          continue;
        nn::ParameterOp param = it->second;
        dist::ShardingAttr layout =
            dist::getRecordedSharding(param.getResult());
        if (!layout)
          layout = dist::ShardingAttr::getReplicated(
              module.getContext(), meshRef, param.getType().getRank());
        fn.setResultAttr(i, dist::kShardingAttrName,
                         dist::withoutPartial(layout));
      }
    }
  }
};
} // namespace
