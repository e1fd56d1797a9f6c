//===- NNDialect.cpp - The nn dialect -------------------------------------===//

#include "loom/Dialect/NN/NNDialect.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Support/FloatFormat.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loom::nn;

#include "nn/NNDialect.cpp.inc"

void NNDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "nn/NNOps.cpp.inc"
      >();
  registerAttributes();
}

Operation *NNDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

/// `nn.name` on a function argument or result: the model's name for it.
static LogicalResult verifyNameAttr(Operation *op, NamedAttribute attr,
                                    StringRef what, unsigned index) {
  if (attr.getName() != NNDialect::NameAttrHelper::getNameStr())
    return op->emitError() << "unknown nn attribute '"
                           << attr.getName().strref() << "' on " << what << " #"
                           << index;
  if (!isa<StringAttr>(attr.getValue()))
    return op->emitError() << "'" << attr.getName().strref() << "' on " << what
                           << " #" << index << " must be a string";
  return success();
}

/// `nn.parameter` on a func.func argument: a weightless parameter, named,
/// of a ranked float tensor type (what an nn.parameter op yields).
static LogicalResult verifyParameterArgAttr(Operation *op, unsigned index,
                                            Attribute value) {
  auto fn = dyn_cast<func::FuncOp>(op);
  if (!fn)
    return op->emitError() << "'" << kParameterArgAttrName << "' on argument #"
                           << index << " applies to func.func arguments only";
  auto name = dyn_cast<StringAttr>(value);
  if (!name)
    return op->emitError() << "'" << kParameterArgAttrName << "' on argument #"
                           << index << " must be a string";
  if (name.getValue().empty())
    return op->emitError() << "'" << kParameterArgAttrName << "' on argument #"
                           << index << " needs a non-empty name";
  Type type = fn.getArgumentTypes()[index];
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
                     tensor.getElementType()))
    return op->emitError() << "parameter '" << name.getValue()
                           << "' (argument #" << index
                           << ") must be a ranked tensor of f16, bf16, f32 or "
                              "f64, not "
                           << type;
  return success();
}

LogicalResult NNDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned arg,
                                                  NamedAttribute attr) {
  if (attr.getName() == kParameterArgAttrName)
    return verifyParameterArgAttr(op, arg, attr.getValue());
  if (attr.getName() == kImmutableAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << kImmutableAttrName << "' on argument #"
                             << arg << " is a unit attribute";
    return success();
  }
  return verifyNameAttr(op, attr, "argument", arg);
}

LogicalResult NNDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  auto misplaced = [&](StringRef where) {
    return op->emitError() << "'" << name << "' belongs on " << where;
  };
  if (name == kUpdateAttrName) {
    auto update = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<ParameterOp>(op))
      return misplaced("nn.parameter ops");
    if (!update || update.getValue().empty())
      return op->emitError() << "'" << name
                             << "' must name the result that replaces the "
                                "parameter";
    return success();
  }
  if (name == kZeroInitAttrName) {
    if (!isa<ParameterOp>(op))
      return misplaced("nn.parameter ops");
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a unit attribute";
    return success();
  }
  if (name == kTrainingAttrName) {
    if (!isa<ModuleOp>(op))
      return misplaced("the module");
    if (!isa<TrainingAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a #nn.training";
    return success();
  }
  if (name == UnsignedAttrHelper::getNameStr() ||
      name == CastFromAttrHelper::getNameStr()) {
    // Set only inside -convert-nn-to-linalg, on the ops it lowers.
    if (!isa<NNDialect>(op->getDialect()))
      return misplaced("nn ops");
    return success();
  }
  if (name == kNameAttrName || name == kParameterArgAttrName ||
      name == kImmutableAttrName)
    return misplaced("function arguments or results");
  return op->emitError() << "unknown nn attribute '" << name << "'";
}

LogicalResult NNDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned result,
                                                     NamedAttribute attr) {
  return verifyNameAttr(op, attr, "result", result);
}

StringRef loom::nn::getArgumentParameterName(func::FuncOp fn,
                                             unsigned argIndex) {
  if (auto name =
          fn.getArgAttrOfType<StringAttr>(argIndex, kParameterArgAttrName))
    return name.getValue();
  return "";
}

LogicalResult loom::nn::checkHasWeightData(func::FuncOp fn) {
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    StringRef name = getArgumentParameterName(fn, i);
    if (name.empty())
      continue;
    Location loc = fn.isExternal() ? fn.getLoc() : fn.getArgument(i).getLoc();
    return emitError(loc) << "parameter '" << name
                          << "' has no data (a weightless model): it can be "
                             "planned (--explain, --emit=plan) but not "
                             "trained or compiled";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `start to limit step delta -> tensor-type`: the bounds take the result's
/// element type, so they are parsed after it is known.
static ParseResult parseRange(OpAsmParser &parser, TypedAttr &start,
                              TypedAttr &limit, TypedAttr &delta,
                              Type &resultType) {
  // No `:` follows a bound, so an untyped literal parses as i64 or f64; it
  // takes the result's element type once that is read.
  SMLoc loc = parser.getCurrentLocation();
  Attribute raw[3];
  if (parser.parseAttribute(raw[0]) || parser.parseKeyword("to") ||
      parser.parseAttribute(raw[1]) || parser.parseKeyword("step") ||
      parser.parseAttribute(raw[2]))
    return failure();
  RankedTensorType tensor;
  if (parser.parseArrow() || parser.parseType(tensor))
    return failure();
  resultType = tensor;
  Type type = tensor.getElementType();
  TypedAttr typed[3];
  for (int i = 0; i < 3; ++i) {
    auto integer = dyn_cast<IntegerAttr>(raw[i]);
    auto real = dyn_cast<FloatAttr>(raw[i]);
    if (!integer && !real)
      return parser.emitError(loc, "range bounds must be numbers");
    if (isa<IntegerType>(type)) {
      if (!integer)
        return parser.emitError(loc, "integer range bounds expected for ")
               << type;
      typed[i] = IntegerAttr::get(type, integer.getInt());
    } else if (isa<FloatType>(type)) {
      typed[i] = FloatAttr::get(type, real ? real.getValueAsDouble()
                                           : double(integer.getInt()));
    } else {
      return parser.emitError(loc, "range element type must be an integer or "
                                   "float type, got ")
             << type;
    }
  }
  start = typed[0];
  limit = typed[1];
  delta = typed[2];
  return success();
}

static void printRange(OpAsmPrinter &printer, Operation *, TypedAttr start,
                       TypedAttr limit, TypedAttr delta, Type resultType) {
  auto print = [&](TypedAttr attr) {
    if (auto i = dyn_cast<IntegerAttr>(attr))
      printer << i.getValue().getSExtValue();
    else
      loom::printShortestFloat(printer.getStream(),
                               cast<FloatAttr>(attr).getValue());
  };
  print(start);
  printer << " to ";
  print(limit);
  printer << " step ";
  print(delta);
  printer << " -> " << resultType;
}

/// `upper` or `lower`.
static ParseResult parseTriangleKind(OpAsmParser &parser, UnitAttr &upper) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword == "upper")
    upper = parser.getBuilder().getUnitAttr();
  else if (keyword != "lower")
    return parser.emitError(loc, "expected 'upper' or 'lower'");
  return success();
}

static void printTriangleKind(OpAsmPrinter &printer, Operation *,
                              UnitAttr upper) {
  printer << (upper ? "upper" : "lower");
}

/// A hyper-parameter: a float literal, printed in the shortest form that
/// reads back exactly (`0.9`, `1.0`, `1.0E-8`).
static ParseResult parseF64Attr(OpAsmParser &parser, FloatAttr &value) {
  // Not parseAttribute: a `: type` after the number would be taken as its.
  double parsed;
  if (parser.parseFloat(parsed))
    return failure();
  value = parser.getBuilder().getF64FloatAttr(parsed);
  return success();
}

static void printF64Attr(OpAsmPrinter &printer, Operation *, FloatAttr value) {
  printer << loom::nn::formatFloatLiteral(value.getValue());
}

#define GET_OP_CLASSES
#include "nn/NNOps.cpp.inc"
