//===- DistDialect.cpp - The dist dialect ---------------------------------===//

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Support/FloatFormat.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

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

FailureOr<APFloat> loom::dist::parseF64(AsmParser &parser) {
  // An untyped literal parses as i64 or f64, with its sign.
  Attribute number;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(number))
    return failure();
  if (auto integer = dyn_cast<IntegerAttr>(number))
    return APFloat(double(integer.getValue().getSExtValue()));
  if (auto real = dyn_cast<FloatAttr>(number))
    return APFloat(real.getValueAsDouble());
  return parser.emitError(loc, "expected a number, got ") << number;
}

void loom::dist::printF64(AsmPrinter &printer, const APFloat &value) {
  printShortestFloat(printer.getStream(), value);
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
      if (!ShapedType::isDynamic(global[d]))
        global[d] *= mesh.getGroupSize(dim.getAxes());
    type = tensor.clone(global);
  }
  return verifySharding(sharding, type, op, symbols, [&] {
    return op->emitError() << "invalid sharding of " << where << ": ";
  });
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
