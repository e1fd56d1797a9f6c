//===- DistAttrs.cpp - dist dialect attributes ----------------------------===//

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Support/FloatFormat.h"
#include "loom/Support/Limits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loom;
using namespace loom::dist;

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.cpp.inc"

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dist/DistAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MeshAxisAttr
//===----------------------------------------------------------------------===//

LogicalResult PlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t dp, int64_t tp, int64_t pp,
                               int64_t microbatches, int64_t zero, BoolAttr,
                               StringRef schedule, APFloat) {
  if (dp < 1 || tp < 1 || pp < 1 || microbatches < 1)
    return emitError() << "dp, tp, pp and microbatches must be positive";
  if (zero < 0 || zero > 3)
    return emitError() << "zero must be 0, 1, 2 or 3";
  if (schedule != "none" && !symbolizeSchedule(schedule))
    return emitError() << "unknown pipeline schedule '" << schedule
                       << "' (expected none, gpipe, 1f1b, interleaved or zb1p)";
  return success();
}

LogicalResult PipelineAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t stage, int64_t stages,
                                   int64_t microbatches, StringRef schedule,
                                   StringRef recompute, StringRef axis,
                                   int64_t chunks) {
  if (stages < 1 || stage < 0 || stage >= stages)
    return emitError() << "stage " << stage << " is not one of " << stages
                       << " stages";
  if (microbatches < 1)
    return emitError() << "microbatches must be at least 1, got "
                       << microbatches;
  if (!symbolizeSchedule(schedule))
    return emitError() << "unknown schedule '" << schedule << "'";
  if (!symbolizeRecompute(recompute))
    return emitError() << "recompute must be off, full or selective, not '"
                       << recompute << "'";
  if (axis.empty())
    return emitError() << "the pipeline axis is empty";
  if (chunks < 1)
    return emitError() << "chunks must be at least 1, got " << chunks;
  if (chunks > 1 && schedule != "interleaved")
    return emitError() << chunks << " chunks per stage need the interleaved "
                       << "schedule, not '" << schedule << "'";
  return success();
}

LogicalResult
CollectiveCallAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           StringRef kind, int64_t group, int64_t bytes) {
  if (kind.empty())
    return emitError() << "a collective call names its kind";
  if (group < 0 || bytes < 0)
    return emitError() << "group and bytes must not be negative";
  return success();
}

LogicalResult MeshAxisAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef name, int64_t size, LinkKind,
                                   APFloat bandwidth, APFloat latency) {
  if (name.empty())
    return emitError() << "mesh axis name must not be empty";
  if (size < 1)
    return emitError() << "mesh axis \"" << name << "\" has size " << size
                       << "; sizes must be at least 1";
  if (size > kMaxDevices)
    return emitError() << "mesh axis \"" << name << "\" has size " << size
                       << "; a mesh has at most " << kMaxDevices << " devices";
  if (bandwidth.isNegative() || latency.isNegative() || bandwidth.isNaN() ||
      latency.isNaN())
    return emitError() << "mesh axis \"" << name
                       << "\" has a negative bandwidth or latency";
  return success();
}

//===----------------------------------------------------------------------===//
// DimShardingAttr: {"a", "b", ?}
//===----------------------------------------------------------------------===//

static ParseResult parseDimBody(AsmParser &parser,
                                SmallVector<StringAttr> &axes, bool &open) {
  open = false;
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        if (open)
          return parser.emitError(parser.getCurrentLocation(),
                                  "'?' must come last in a dimension sharding");
        if (succeeded(parser.parseOptionalQuestion())) {
          open = true;
          return success();
        }
        std::string name;
        if (parser.parseString(&name))
          return failure();
        axes.push_back(parser.getBuilder().getStringAttr(name));
        return success();
      });
}

static void printDimBody(AsmPrinter &printer, ArrayRef<StringAttr> axes,
                         bool open) {
  printer << '{';
  llvm::interleaveComma(axes, printer, [&](StringAttr a) { printer << a; });
  if (open)
    printer << (axes.empty() ? "?" : ", ?");
  printer << '}';
}

Attribute DimShardingAttr::parse(AsmParser &parser, Type) {
  SmallVector<StringAttr> axes;
  bool open;
  if (parser.parseLess() || parseDimBody(parser, axes, open) ||
      parser.parseGreater())
    return {};
  return DimShardingAttr::get(parser.getContext(), axes, open);
}

void DimShardingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printDimBody(printer, getAxes(), getOpen());
  printer << '>';
}

//===----------------------------------------------------------------------===//
// ShardingAttr: <@mesh, [dims], partial<kind> = {axes}>
//===----------------------------------------------------------------------===//

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SymbolRefAttr mesh;
  if (parser.parseLess() || parser.parseAttribute(mesh))
    return {};
  if (!llvm::isa<FlatSymbolRefAttr>(mesh)) {
    parser.emitError(parser.getCurrentLocation(),
                     "expected a flat mesh symbol, got ")
        << mesh;
    return {};
  }
  SmallVector<DimShardingAttr> dims;
  if (parser.parseComma() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        SmallVector<StringAttr> axes;
        bool open;
        if (parseDimBody(parser, axes, open))
          return failure();
        dims.push_back(DimShardingAttr::get(ctx, axes, open));
        return success();
      }))
    return {};
  SmallVector<StringAttr> partial;
  ReductionKind kind = ReductionKind::Sum;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("partial"))
      return {};
    if (succeeded(parser.parseOptionalLess())) {
      StringRef keyword;
      SMLoc loc = parser.getCurrentLocation();
      if (parser.parseKeyword(&keyword))
        return {};
      auto parsed = symbolizeReductionKind(keyword);
      if (!parsed) {
        parser.emitError(loc, "unknown reduction kind '")
            << keyword << "'; expected sum, mean, max or min";
        return {};
      }
      kind = *parsed;
      if (parser.parseGreater())
        return {};
    }
    bool open;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseEqual() || parseDimBody(parser, partial, open))
      return {};
    if (open) {
      parser.emitError(loc, "partial axes cannot be open");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return ShardingAttr::get(ctx, llvm::cast<FlatSymbolRefAttr>(mesh), dims,
                           partial, kind);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << '<' << getMesh() << ", [";
  llvm::interleaveComma(getDims(), printer, [&](DimShardingAttr dim) {
    printDimBody(printer, dim.getAxes(), dim.getOpen());
  });
  printer << ']';
  if (!getPartialAxes().empty()) {
    printer << ", partial";
    if (getPartialKind() != ReductionKind::Sum)
      printer << '<' << stringifyReductionKind(getPartialKind()) << '>';
    printer << " = ";
    printDimBody(printer, getPartialAxes(), false);
  }
  printer << '>';
}

ShardingAttr ShardingAttr::getReplicated(MLIRContext *ctx,
                                         FlatSymbolRefAttr mesh, int64_t rank) {
  SmallVector<DimShardingAttr> dims(rank, DimShardingAttr::get(ctx, {}, false));
  return ShardingAttr::get(ctx, mesh, dims, {}, ReductionKind::Sum);
}

SmallVector<StringAttr> ShardingAttr::getAllAxes() const {
  SmallVector<StringAttr> axes;
  for (DimShardingAttr dim : getDims())
    llvm::append_range(axes, dim.getAxes());
  llvm::append_range(axes, getPartialAxes());
  return axes;
}

bool ShardingAttr::isReplicated() const { return getAllAxes().empty(); }

//===----------------------------------------------------------------------===//
// Verification against a mesh and a type
//===----------------------------------------------------------------------===//

LogicalResult
loom::dist::verifySharding(ShardingAttr sharding, Type type, Operation *from,
                           SymbolTableCollection &symbols,
                           function_ref<InFlightDiagnostic()> emitError) {
  auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(from, sharding.getMesh());
  if (!mesh)
    return emitError() << "unknown mesh " << sharding.getMesh();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << "shardings apply to ranked tensors, not " << type;
  if ((int64_t)sharding.getDims().size() != tensor.getRank())
    return emitError() << "sharding has " << sharding.getDims().size()
                       << " dimension(s) but the tensor " << type
                       << " has rank " << tensor.getRank();
  llvm::SmallSet<StringRef, 8> seen;
  auto checkAxis = [&](StringAttr axis) -> LogicalResult {
    if (!mesh.getAxis(axis.getValue()))
      return emitError() << "mesh axis " << axis << " is not an axis of mesh "
                         << sharding.getMesh();
    if (!seen.insert(axis.getValue()).second)
      return emitError() << "mesh axis " << axis << " is used more than once";
    return success();
  };
  for (auto [d, dim] : llvm::enumerate(sharding.getDims())) {
    for (StringAttr axis : dim.getAxes())
      if (failed(checkAxis(axis)))
        return failure();
    int64_t size = tensor.getDimSize(d);
    int64_t devices = mesh.getGroupSize(dim.getAxes());
    if (!ShapedType::isDynamic(size) && size % devices != 0) {
      InFlightDiagnostic diag = emitError();
      diag << "dimension " << d << " of size " << size
           << " is not divisible by " << devices
           << ", the product of its mesh axes [";
      llvm::interleaveComma(dim.getAxes(), diag, [&](StringAttr a) {
        diag << "\"" << a.getValue() << "\"";
      });
      return diag << "]";
    }
  }
  for (StringAttr axis : sharding.getPartialAxes())
    if (failed(checkAxis(axis)))
      return failure();
  return success();
}
