//===- DistOps.cpp - dist dialect operations ------------------------------===//
//
// Collectives are checked in two steps: what needs no mesh (dimension
// indices, ranks) in verify(), and what does (axis names, group sizes,
// result shapes) in verifySymbolUses(), once the mesh symbol is resolvable.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Support/Limits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::dist;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `[<"dp" = 2, inter_node>, ...]`
static ParseResult parseMeshAxes(OpAsmParser &parser, ArrayAttr &axes) {
  SmallVector<Attribute> parsed;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        Attribute axis = MeshAxisAttr::parse(parser, Type());
        if (!axis)
          return failure();
        parsed.push_back(axis);
        return success();
      }))
    return failure();
  axes = parser.getBuilder().getArrayAttr(parsed);
  return success();
}

static void printMeshAxes(OpAsmPrinter &printer, Operation *, ArrayAttr axes) {
  printer << '[';
  llvm::interleaveComma(axes, printer, [&](Attribute axis) {
    cast<MeshAxisAttr>(axis).print(printer);
  });
  printer << ']';
}

/// `[0 -> 1, 1 -> 2]`, stored flattened.
static ParseResult parsePermutePairs(OpAsmParser &parser,
                                     DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> flat;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t source, target;
        if (parser.parseInteger(source) || parser.parseArrow() ||
            parser.parseInteger(target))
          return failure();
        flat.push_back(source);
        flat.push_back(target);
        return success();
      }))
    return failure();
  pairs = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printPermutePairs(OpAsmPrinter &printer, Operation *,
                              DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> flat = pairs.asArrayRef();
  printer << '[';
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    printer << (i ? ", " : "") << flat[i] << " -> " << flat[i + 1];
  printer << ']';
}

#define GET_OP_CLASSES
#include "dist/DistOps.cpp.inc"

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

MeshAxisAttr MeshOp::getAxis(StringRef name) {
  for (Attribute a : getAxes())
    if (cast<MeshAxisAttr>(a).getName() == name)
      return cast<MeshAxisAttr>(a);
  return {};
}

int64_t MeshOp::getGroupSize(ArrayRef<StringAttr> axes) {
  int64_t size = 1;
  for (StringAttr axis : axes)
    if (MeshAxisAttr attr = getAxis(axis.getValue()))
      size *= attr.getSize();
  return size;
}

int64_t MeshOp::getNumDevices() {
  int64_t size = 1;
  for (Attribute a : getAxes())
    size *= cast<MeshAxisAttr>(a).getSize();
  return size;
}

LogicalResult MeshOp::verify() {
  if (getAxes().empty())
    return emitOpError("needs at least one axis");
  llvm::SmallSet<StringRef, 8> names;
  // Every group size and device count the passes take is a product of axis
  // sizes: bounded here, they never overflow (nor wrap to 0 and divide).
  int64_t devices = 1;
  for (Attribute a : getAxes()) {
    auto axis = cast<MeshAxisAttr>(a);
    if (!names.insert(axis.getName()).second)
      return emitOpError("axis \"") << axis.getName() << "\" is declared twice";
    if (llvm::MulOverflow(devices, axis.getSize(), devices) ||
        devices > kMaxDevices)
      return emitOpError("has more than ")
             << kMaxDevices << " devices (the product of its axis sizes)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AnnotateOp
//===----------------------------------------------------------------------===//

FailureOr<OpCost> AnnotateOp::computeCost(TypeRange operands,
                                          TypeRange results) {
  // A constraint on the value, not a computation: nothing moves.
  if (getNumElements(operands[0]) < 0)
    return failure();
  return OpCost();
}

LogicalResult AnnotateOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifySharding(getSharding(), getInput().getType(), *this, symbols,
                        [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// Resolves the mesh and checks the axes; returns the group size.
static FailureOr<int64_t> verifyGroup(Operation *op, FlatSymbolRefAttr meshRef,
                                      ArrayAttr axes,
                                      SymbolTableCollection &symbols) {
  auto mesh = symbols.lookupNearestSymbolFrom<MeshOp>(op, meshRef);
  if (!mesh)
    return op->emitOpError("unknown mesh ") << meshRef;
  if (axes.empty())
    return op->emitOpError("needs at least one mesh axis");
  llvm::SmallSet<StringRef, 8> seen;
  int64_t size = 1;
  for (Attribute a : axes) {
    StringRef name = cast<StringAttr>(a).getValue();
    MeshAxisAttr axis = mesh.getAxis(name);
    if (!axis)
      return op->emitOpError("mesh axis \"")
             << name << "\" is not an axis of mesh " << meshRef;
    if (!seen.insert(name).second)
      return op->emitOpError("mesh axis \"") << name << "\" is used twice";
    size *= axis.getSize();
  }
  return size;
}

static LogicalResult checkDim(Operation *op, int64_t dim, int64_t rank,
                              StringRef name) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError()
           << name << " " << dim << " is out of range for rank " << rank;
  return success();
}

/// Checks `result` = `input` with dimension `dim` multiplied (or divided) by
/// the group size.
static LogicalResult checkScaledDim(Operation *op, RankedTensorType input,
                                    RankedTensorType result, int64_t dim,
                                    int64_t group, bool multiply) {
  if (input.getRank() != result.getRank())
    return op->emitOpError("result rank ")
           << result.getRank() << " differs from operand rank "
           << input.getRank();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t in = input.getDimSize(d), out = result.getDimSize(d);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out))
      continue;
    if (d != dim) {
      if (in != out)
        return op->emitOpError("dimension ")
               << d << " changes from " << in << " to " << out
               << " but only dimension " << dim << " may";
      continue;
    }
    if (!multiply && in % group != 0)
      return op->emitOpError("dimension ")
             << d << " of size " << in << " is not divisible by the group size "
             << group;
    int64_t expected = in / group;
    if (multiply && llvm::MulOverflow(in, group, expected))
      return op->emitOpError("dimension ")
             << d << " of size " << in << " times the group size " << group
             << " overflows";
    if (out != expected)
      return op->emitOpError("dimension ")
             << d << " of the result must be " << expected << " (" << in
             << (multiply ? " x " : " / ") << group << "), got " << out;
  }
  return success();
}

static LogicalResult checkReduction(Operation *op, ReductionKind kind,
                                    Type type) {
  Type element = getElementTypeOrSelf(type);
  if (kind == ReductionKind::Mean && !isa<FloatType>(element))
    return op->emitOpError("mean reduction needs a floating-point element "
                           "type, got ")
           << element;
  if (element.isInteger(1) &&
      (kind == ReductionKind::Sum || kind == ReductionKind::Mean))
    return op->emitOpError("i1 values reduce with max (or) or min (and) only");
  return success();
}

LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (failed(verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols)))
    return failure();
  return checkReduction(*this, getReduction(), getInput().getType());
}

LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto group = verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols);
  if (failed(group) ||
      failed(checkDim(*this, getDim(), getInput().getType().getRank(), "dim")))
    return failure();
  return checkScaledDim(*this, getInput().getType(), getResult().getType(),
                        getDim(), *group, /*multiply=*/true);
}

LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto group = verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols);
  if (failed(group) ||
      failed(
          checkDim(*this, getDim(), getInput().getType().getRank(), "dim")) ||
      failed(checkReduction(*this, getReduction(), getInput().getType())))
    return failure();
  return checkScaledDim(*this, getInput().getType(), getResult().getType(),
                        getDim(), *group, /*multiply=*/false);
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto group = verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols);
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  if (failed(group) ||
      failed(checkDim(*this, getSplitDim(), input.getRank(), "split_dim")) ||
      failed(checkDim(*this, getConcatDim(), input.getRank(), "concat_dim")))
    return failure();
  if (input.getRank() != result.getRank())
    return emitOpError("result rank ")
           << result.getRank() << " differs from operand rank "
           << input.getRank();
  int64_t split = getSplitDim(), concat = getConcatDim();
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t in = input.getDimSize(d), out = result.getDimSize(d);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out))
      continue;
    int64_t expected = in;
    if (d == split && split != concat) {
      if (in % *group != 0)
        return emitOpError("split dimension ")
               << d << " of size " << in
               << " is not divisible by the group size " << *group;
      expected = in / *group;
    } else if (d == concat && split != concat) {
      expected = in * *group;
    }
    if (out != expected)
      return emitOpError("dimension ")
             << d << " of the result must be " << expected << ", got " << out;
  }
  return success();
}

LogicalResult BroadcastOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (failed(verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols)))
    return failure();
  MeshOp mesh = getMeshOp(symbols);
  ArrayRef<int64_t> root = getRoot();
  if (root.size() != getMeshAxes().size())
    return emitOpError("root has ") << root.size() << " coordinate(s) for "
                                    << getMeshAxes().size() << " mesh axis(es)";
  for (auto [coord, a] : llvm::zip(root, getMeshAxes())) {
    int64_t size = mesh.getAxis(cast<StringAttr>(a).getValue()).getSize();
    if (coord < 0 || coord >= size)
      return emitOpError("root coordinate ")
             << coord << " is outside mesh axis " << a << " of size " << size;
  }
  return success();
}

LogicalResult
CollectivePermuteOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto group = verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols);
  if (failed(group))
    return failure();
  ArrayRef<int64_t> pairs = getPairs();
  if (pairs.size() % 2 != 0)
    return emitOpError("pairs must be source/target couples");
  llvm::SmallSet<int64_t, 8> sources, targets;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    for (int64_t index : {pairs[i], pairs[i + 1]})
      if (index < 0 || index >= *group)
        return emitOpError("device index ")
               << index << " is outside the group of " << *group;
    if (!sources.insert(pairs[i]).second)
      return emitOpError("device ") << pairs[i] << " sends twice";
    if (!targets.insert(pairs[i + 1]).second)
      return emitOpError("device ") << pairs[i + 1] << " receives twice";
  }
  return success();
}

/// Checks a point-to-point transfer's peer and tag.
static LogicalResult verifyPeer(Operation *op, FlatSymbolRefAttr mesh,
                                ArrayAttr axes, int64_t peer, int64_t tag,
                                SymbolTableCollection &symbols) {
  auto group = verifyGroup(op, mesh, axes, symbols);
  if (failed(group))
    return failure();
  if (peer < 0 || peer >= *group)
    return op->emitOpError("peer ")
           << peer << " is outside the group of " << *group;
  if (tag < 0 || tag > INT32_MAX)
    return op->emitOpError("tag ") << tag << " is not in [0, 2^31)";
  return success();
}

LogicalResult SendOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyPeer(*this, getMeshAttr(), getMeshAxes(), getPeer(), getTag(),
                    symbols);
}

LogicalResult SendOp::verify() {
  ShardingAttr layout = getLayoutAttr();
  if (!layout)
    return success();
  if (layout.getMesh() != getMeshAttr())
    return emitOpError("layout names mesh ")
           << layout.getMesh() << ", but the transfer runs over "
           << getMeshAttr();
  if (static_cast<int64_t>(layout.getDims().size()) !=
      getInput().getType().getRank())
    return emitOpError("layout has ")
           << layout.getDims().size() << " dimensions, the value "
           << getInput().getType().getRank();
  for (Attribute a : getMeshAxes())
    if (llvm::is_contained(layout.getAllAxes(), cast<StringAttr>(a)))
      return emitOpError("layout splits the value along ")
             << a << ", the axis it crosses";
  return success();
}

LogicalResult RecvOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyPeer(*this, getMeshAttr(), getMeshAxes(), getPeer(), getTag(),
                    symbols);
}

//===----------------------------------------------------------------------===//
// ReshardOp, TakeShardOp
//===----------------------------------------------------------------------===//

LogicalResult ReshardOp::verify() {
  ShardingAttr from = getFrom(), to = getTo();
  if (from.getMesh() != to.getMesh())
    return emitOpError("cannot move between meshes ")
           << from.getMesh() << " and " << to.getMesh();
  if (getInput().getType().getElementType() !=
      getResult().getType().getElementType())
    return emitOpError("changes the element type");
  for (StringAttr axis : to.getPartialAxes())
    if (!llvm::is_contained(from.getPartialAxes(), axis))
      return emitOpError("cannot make a value partial along ")
             << axis << " that is not partial along it already";
  if (!to.getPartialAxes().empty() &&
      from.getPartialKind() != to.getPartialKind())
    return emitOpError("cannot change the kind of a partial value");
  return success();
}

LogicalResult ReshardOp::verifySymbolUses(SymbolTableCollection &symbols) {
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  auto prefix = [&] { return emitOpError(); };
  // Per-device types appear in partitioned functions only; elsewhere both
  // types are the global one.
  auto fn = (*this)->getParentOfType<FunctionOpInterface>();
  bool local = fn && fn->hasAttr(kSPMDAttrName);
  if (!local && input != result)
    return emitOpError("changes the type of a global value from ")
           << input << " to " << result
           << " (per-device types belong in dist.spmd functions)";
  if (!local)
    return failure(
        failed(verifySharding(getFrom(), input, *this, symbols, prefix)) ||
        failed(verifySharding(getTo(), result, *this, symbols, prefix)));
  // Per-device types: both must be blocks of one global shape.
  MeshOp mesh =
      symbols.lookupNearestSymbolFrom<MeshOp>(*this, getFrom().getMesh());
  if (!mesh)
    return emitOpError("unknown mesh ") << getFrom().getMesh();
  if (input.getRank() != result.getRank() ||
      (int64_t)getFrom().getDims().size() != input.getRank() ||
      (int64_t)getTo().getDims().size() != input.getRank())
    return emitOpError("operand, result and layouts must have one rank");
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (input.isDynamicDim(d) || result.isDynamicDim(d))
      continue;
    int64_t in, out;
    if (llvm::MulOverflow(input.getDimSize(d),
                          mesh.getGroupSize(getFrom().getDims()[d].getAxes()),
                          in) ||
        llvm::MulOverflow(result.getDimSize(d),
                          mesh.getGroupSize(getTo().getDims()[d].getAxes()),
                          out))
      return emitOpError("dimension ")
             << d << " overflows int64 as a global extent";
    if (in != out)
      return emitOpError("dimension ")
             << d << " is " << in << " globally before and " << out
             << " after the reshard";
  }
  return success();
}

LogicalResult TakeShardOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto group = verifyGroup(*this, getMeshAttr(), getMeshAxes(), symbols);
  if (failed(group) ||
      failed(checkDim(*this, getDim(), getInput().getType().getRank(), "dim")))
    return failure();
  return checkScaledDim(*this, getInput().getType(), getResult().getType(),
                        getDim(), *group, /*multiply=*/false);
}

//===----------------------------------------------------------------------===//
// MicrobatchesOp
//===----------------------------------------------------------------------===//

RankedTensorType MicrobatchesOp::getMicrobatchType(RankedTensorType type,
                                                   int64_t count) {
  if (count < 1 || type.getRank() == 0)
    return {};
  int64_t rows = type.getDimSize(0);
  if (ShapedType::isDynamic(rows))
    return type;
  if (rows % count != 0)
    return {};
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = rows / count;
  return type.clone(shape);
}

YieldOp MicrobatchesOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

void MicrobatchesOp::build(OpBuilder &builder, OperationState &state,
                           TypeRange resultTypes, ValueRange inputs,
                           int64_t count) {
  state.addOperands(inputs);
  state.addAttribute(getCountAttrName(state.name),
                     builder.getI64IntegerAttr(count));
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block;
  body->push_back(block);
  for (Value input : inputs)
    block->addArgument(
        getMicrobatchType(cast<RankedTensorType>(input.getType()), count),
        input.getLoc());
}

/// Why an input does not split into `count` microbatches, or "".
static std::string whyNotSplit(unsigned i, RankedTensorType type,
                               int64_t count) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (type.getRank() == 0)
    os << "input #" << i << " (" << type << ") has no dimension 0 to split";
  else if (!MicrobatchesOp::getMicrobatchType(type, count))
    os << "input #" << i << ": dimension 0 of size " << type.getDimSize(0)
       << " does not divide into " << count << " microbatches";
  return why;
}

/// `count (%arg = %input, ...) : (input types) -> (result types)
/// attributes {...} { body }`: the body's arguments take the microbatch
/// types.
ParseResult MicrobatchesOp::parse(OpAsmParser &parser, OperationState &state) {
  int64_t count;
  SMLoc countLoc = parser.getCurrentLocation();
  if (parser.parseInteger(count))
    return failure();
  if (count < 1)
    return parser.emitError(countLoc, "needs at least one microbatch, not ")
           << count;
  state.addAttribute(getCountAttrName(state.name),
                     parser.getBuilder().getI64IntegerAttr(count));
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  if (succeeded(parser.parseOptionalLParen()) &&
      (parser.parseCommaSeparatedList([&] {
        if (parser.parseArgument(args.emplace_back()) || parser.parseEqual() ||
            parser.parseOperand(inputs.emplace_back()))
          return failure();
        return success();
      }) ||
       parser.parseRParen()))
    return failure();
  SmallVector<Type> inputTypes, resultTypes;
  SMLoc typesLoc = parser.getCurrentLocation();
  if (parser.parseColon() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Paren,
          [&] { return parser.parseType(inputTypes.emplace_back()); }) ||
      parser.parseArrow() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, [&] {
        return parser.parseType(resultTypes.emplace_back());
      }))
    return failure();
  if (inputTypes.size() != inputs.size())
    return parser.emitError(typesLoc, "expected ")
           << inputs.size() << " input types, got " << inputTypes.size();
  for (auto [i, arg, type] : llvm::enumerate(args, inputTypes)) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked)
      return parser.emitError(typesLoc, "inputs must be ranked tensors, not ")
             << type;
    std::string why = whyNotSplit(i, ranked, count);
    if (!why.empty())
      return parser.emitError(typesLoc, why);
    arg.type = getMicrobatchType(ranked, count);
  }
  if (parser.resolveOperands(inputs, inputTypes, typesLoc, state.operands))
    return failure();
  state.addTypes(resultTypes);
  if (parser.parseOptionalAttrDictWithKeyword(state.attributes))
    return failure();
  Region *body = state.addRegion();
  return parser.parseRegion(*body, args);
}

void MicrobatchesOp::print(OpAsmPrinter &p) {
  p << ' ' << getCount();
  if (!getInputs().empty()) {
    p << " (";
    llvm::interleaveComma(llvm::zip(getBodyBlock().getArguments(), getInputs()),
                          p, [&](auto pair) {
                            p << std::get<0>(pair) << " = "
                              << std::get<1>(pair);
                          });
    p << ')';
  }
  p << " : (" << getInputs().getTypes() << ") -> (" << getResultTypes() << ')';
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getCountAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult MicrobatchesOp::verify() {
  int64_t count = getCount();
  if (count < 1)
    return emitOpError("needs at least one microbatch, not ") << count;
  Block &body = getBodyBlock();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("the body takes ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  for (auto [i, input, arg] :
       llvm::enumerate(getInputs(), body.getArguments())) {
    auto type = cast<RankedTensorType>(input.getType());
    std::string why = whyNotSplit(i, type, count);
    if (!why.empty())
      return emitOpError(why);
    Type micro = getMicrobatchType(type, count);
    if (arg.getType() != micro)
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << ", not " << micro
             << ", one microbatch of input #" << i;
  }
  return success();
}

LogicalResult MicrobatchesOp::verifyRegions() {
  auto yield = dyn_cast<YieldOp>(getBodyBlock().getTerminator());
  if (!yield)
    return emitOpError("the body must end in dist.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("the body yields ")
           << yield.getValues().size() << " values for " << getNumResults()
           << " results";
  for (auto [i, value, type] :
       llvm::enumerate(yield.getValues().getTypes(), getResultTypes()))
    if (value != type)
      return emitOpError("the body yields ")
             << value << " for result #" << i << " of type " << type;
  return success();
}
