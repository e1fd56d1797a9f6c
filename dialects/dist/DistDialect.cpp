//===- DistDialect.cpp - The dist dialect ---------------------------------===//

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Support/FloatFormat.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::dist;

#include "dist/DistDialect.cpp.inc"
#include "dist/DistEnums.cpp.inc"

void DistDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dist/DistOps.cpp.inc"
      >();
  registerAttributes();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

static LogicalResult verifyShardingOn(Operation *op, Attribute attr, Type type,
                                      const Twine &where, bool local = false) {
  auto sharding = dyn_cast<ShardingAttr>(attr);
  if (!sharding)
    return op->emitError() << "'"
                           << DistDialect::ShardingAttrHelper::getNameStr()
                           << "' on " << where
                           << " must be a #dist.sharding, got " << attr;
  SymbolTableCollection symbols;
  // In a partitioned function the type is one device's block: check the
  // layout against the global type it is a block of.
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(op, sharding.getMesh());
  if (local && tensor && mesh &&
      (int64_t)sharding.getDims().size() == tensor.getRank()) {
    SmallVector<int64_t> global(tensor.getShape());
    for (auto [d, dim] : llvm::enumerate(sharding.getDims()))
      if (!ShapedType::isDynamic(global[d]) &&
          llvm::MulOverflow(global[d], mesh.getGroupSize(dim.getAxes()),
                            global[d]))
        return op->emitError()
               << "invalid sharding of " << where << ": dimension " << d
               << " overflows int64 as a global extent";
    type = tensor.clone(global);
  }
  return verifySharding(sharding, type, op, symbols, [&] {
    return op->emitError() << "invalid sharding of " << where << ": ";
  });
}

/// The module-level attributes: the plan, the groups of the collectives and
/// the list of collective calls.
static LogicalResult verifyModuleAttr(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << name << "' belongs on the module";
  if (name == kPlanAttrName) {
    if (!isa<PlanAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a #dist.plan";
    return success();
  }
  auto list = dyn_cast<ArrayAttr>(attr.getValue());
  if (name == kCollectivesAttrName) {
    if (!list || !llvm::all_of(list, [](Attribute a) {
          return isa<CollectiveCallAttr>(a);
        }))
      return op->emitError() << "'" << name << "' must be an array of "
                             << "#dist.call";
    return success();
  }
  auto isAxes = [](Attribute a) {
    auto axes = dyn_cast<ArrayAttr>(a);
    return axes &&
           llvm::all_of(axes, [](Attribute x) { return isa<StringAttr>(x); });
  };
  if (!list || !llvm::all_of(list, isAxes))
    return op->emitError() << "'" << name
                           << "' must be an array of arrays of axis names";
  return success();
}

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == ShardingsAttrHelper::getNameStr()) {
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    if (!list || list.size() != op->getNumResults())
      return op->emitError() << "'" << ShardingsAttrHelper::getNameStr()
                             << "' must list one #dist.sharding per result ("
                             << op->getNumResults() << ")";
    for (auto [i, sharding] : llvm::enumerate(list))
      if (failed(verifyShardingOn(op, sharding, op->getResult(i).getType(),
                                  "result #" + Twine(i))))
        return failure();
    return success();
  }
  if (attr.getName() == kSPMDAttrName) {
    if (!isa<FunctionOpInterface>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kSPMDAttrName << "' is a unit attribute of functions";
    return success();
  }
  if (attr.getName() == kStageAttrName) {
    auto stage = dyn_cast<IntegerAttr>(attr.getValue());
    if (!stage || stage.getInt() < 0)
      return op->emitError()
             << "'" << kStageAttrName << "' must be a non-negative integer";
    return success();
  }
  if (attr.getName() == kBackwardAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << kBackwardAttrName << "' is a unit attribute";
    return success();
  }
  if (attr.getName() == kPipelineAttrName) {
    if (!isa<ModuleOp>(op) || !isa<PipelineAttr>(attr.getValue()))
      return op->emitError() << "'" << kPipelineAttrName
                             << "' must be a #dist.pipeline on the module";
    return success();
  }
  if (attr.getName() == kPlanAttrName ||
      attr.getName() == kCommGroupsAttrName ||
      attr.getName() == kCollectivesAttrName)
    return verifyModuleAttr(op, attr);
  if (attr.getName() == ShardingAttrHelper::getNameStr())
    return op->emitError()
           << "'" << ShardingAttrHelper::getNameStr()
           << "' belongs on function arguments and results; annotate op "
              "results with '"
           << ShardingsAttrHelper::getNameStr() << "'";
  return op->emitError() << "unknown dist attribute '"
                         << attr.getName().strref() << "'";
}

/// Argument and result attributes are verified for functions only (MLIR
/// calls these hooks from FunctionOpInterface's verifier).
static LogicalResult verifyRegionAttr(Operation *op, unsigned index,
                                      NamedAttribute attr, bool result) {
  StringRef what = result ? "result" : "argument";
  if (attr.getName() != DistDialect::ShardingAttrHelper::getNameStr())
    return op->emitError() << "unknown dist attribute '"
                           << attr.getName().strref() << "' on " << what << " #"
                           << index;
  auto fn = cast<FunctionOpInterface>(op);
  Type type =
      result ? fn.getResultTypes()[index] : fn.getArgumentTypes()[index];
  return verifyShardingOn(op, attr.getValue(), type,
                          Twine(what) + " #" + Twine(index),
                          /*local=*/op->hasAttr(kSPMDAttrName));
}

LogicalResult DistDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned region,
                                                    unsigned arg,
                                                    NamedAttribute attr) {
  return verifyRegionAttr(op, arg, attr, /*result=*/false);
}

LogicalResult DistDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned region,
                                                       unsigned res,
                                                       NamedAttribute attr) {
  return verifyRegionAttr(op, res, attr, /*result=*/true);
}
