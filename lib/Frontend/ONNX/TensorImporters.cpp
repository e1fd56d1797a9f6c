//===- TensorImporters.cpp - ONNX shape and tensor operators to nn --------===//
//
// Shapes, constants, reshapes, concatenation, slicing, gathering, padding
// and ranges. Inputs that determine shapes must be constants after
// folding; attributes that became inputs are read per opset version.
//
//===----------------------------------------------------------------------===//

#include "OpImporters.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

namespace loom::onnx_import {

LogicalResult importShape(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  (void)x;
  if (failed(n.requireStatic(0, "Shape")))
    return failure();
  ArrayRef<int64_t> shape = n.typeOf(0).getShape();
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  ASSIGN_OR_FAIL(startAttr, n.intAttr("start", 0));
  ASSIGN_OR_FAIL(endAttr, n.intAttr("end", rank));
  int64_t start = clampIndex(startAttr), end = clampIndex(endAttr);
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  auto type = RankedTensorType::get({(int64_t)dims.size()}, n.b.getI64Type());
  return done(n, n.b.create<nn::ConstantOp>(
                        n.loc, cast<ElementsAttr>(DenseElementsAttr::get(
                                   type, ArrayRef<int64_t>(dims))))
                     .getResult());
}

LogicalResult importSize(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  (void)x;
  if (failed(n.requireStatic(0, "Size")))
    return failure();
  return done(n, n.scalar(n.b.getI64Type(), n.typeOf(0).getNumElements()));
}

LogicalResult importConstant(Node &n) {
  if (n.node.attribute_size() != 1)
    return n.error() << "needs exactly one value attribute";
  const std::string &name = n.node.attribute(0).name();
  // The type each supported value attribute must have.
  auto type =
      llvm::StringSwitch<std::optional<onnx::AttributeProto::AttributeType>>(
          name)
          .Case("value", onnx::AttributeProto::TENSOR)
          .Case("value_float", onnx::AttributeProto::FLOAT)
          .Case("value_floats", onnx::AttributeProto::FLOATS)
          .Case("value_int", onnx::AttributeProto::INT)
          .Case("value_ints", onnx::AttributeProto::INTS)
          .Default(std::nullopt);
  if (!type)
    return n.unsupported() << "constant attribute '" << name
                           << "' is not supported";
  ASSIGN_OR_FAIL(a, n.typedAttr(name, *type));
  MLIRContext *ctx = n.b.getContext();
  Attribute value;
  if (name == "value") {
    ASSIGN_OR_FAIL(t, convertTensor(n.state, n.loc, a->t(), false));
    value = t;
  } else if (name == "value_float") {
    value = DenseElementsAttr::get(
        RankedTensorType::get({}, Float32Type::get(ctx)), a->f());
  } else if (name == "value_floats") {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, Float32Type::get(ctx)),
        ArrayRef<float>(v));
  } else if (name == "value_int") {
    value = DenseElementsAttr::get(
        RankedTensorType::get({}, IntegerType::get(ctx, 64)), a->i());
  } else {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, IntegerType::get(ctx, 64)),
        ArrayRef<int64_t>(v));
  }
  return done(
      n,
      n.b.create<nn::ConstantOp>(n.loc, cast<ElementsAttr>(value)).getResult());
}

LogicalResult importConstantOfShape(Node &n) {
  ASSIGN_OR_FAIL(shape, n.constantInts(0, "input"));
  for (int64_t d : shape)
    if (d < 0)
      return n.error() << "shape has negative dimension " << d;
  if (!withinElementLimit(shape))
    return n.error() << "the result would have more than 2^48 elements";
  Attribute fill;
  Type element = n.b.getF32Type();
  ASSIGN_OR_FAIL(given, n.tensorAttr("value"));
  if (given) {
    ASSIGN_OR_FAIL(t, convertTensor(n.state, n.loc, *given, false));
    auto dense = dyn_cast<DenseElementsAttr>(t);
    if (!dense || dense.getNumElements() != 1)
      return n.error() << "value must hold one element";
    fill = dense.getSplatValue<Attribute>();
    element = dense.getElementType();
  } else {
    fill = n.b.getF32FloatAttr(0);
  }
  auto type = RankedTensorType::get(shape, element);
  return done(
      n, n.b.create<nn::ConstantOp>(
                n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, fill)))
             .getResult());
}

LogicalResult importFlatten(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  if (failed(n.requireStatic(0, "Flatten")))
    return failure();
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  ASSIGN_OR_FAIL(given, n.intAttr("axis", 1));
  int64_t axis = given < 0 ? given + rank : given;
  if (axis < 0 || axis > rank)
    return n.error() << "axis " << given << " is out of range for rank "
                     << rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= type.getDimSize(d);
  return done(n, n.reshape(x, {outer, inner}));
}

LogicalResult importReshape(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  ASSIGN_OR_FAIL(target, n.constantInts(1, "shape"));
  auto type = n.typeOf(0);
  ASSIGN_OR_FAIL(allowZeroAttr, n.intAttr("allowzero", 0));
  bool allowZero = allowZeroAttr != 0;
  SmallVector<int64_t> shape;
  int64_t inferred = -1;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= type.getRank())
        return n.error() << "shape entry " << i
                         << " copies a dimension the input does not have";
      if (type.isDynamicDim(i) && failed(n.requireStatic(0, "Reshape")))
        return failure();
      shape.push_back(type.getDimSize(i));
    } else if (d == -1) {
      if (inferred >= 0)
        return n.error() << "shape has more than one -1";
      inferred = i;
      shape.push_back(1);
    } else if (d < 0) {
      return n.error() << "shape has invalid dimension " << d;
    } else {
      shape.push_back(d);
    }
  }
  if (inferred >= 0) {
    if (failed(n.requireStatic(0, "Reshape with -1")))
      return failure();
    int64_t known = 1;
    for (auto [i, d] : llvm::enumerate(shape))
      if ((int64_t)i != inferred && llvm::MulOverflow(known, d, known))
        return n.error() << "shape has more than 2^63 elements";
    if (known == 0 || type.getNumElements() % known != 0)
      return n.error() << "cannot infer the -1 dimension: "
                       << type.getNumElements() << " elements do not divide by "
                       << known;
    shape[inferred] = type.getNumElements() / known;
  }
  return done(n, n.reshape(x, shape));
}

LogicalResult importTranspose(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  int64_t rank = n.typeOf(0).getRank();
  SmallVector<int64_t> perm;
  ASSIGN_OR_FAIL(given, n.intsAttr("perm"));
  if (given) {
    perm = *given;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  return done(n, n.transpose(x, perm));
}

LogicalResult importConcat(Node &n) {
  SmallVector<Value> inputs;
  for (Value v : n.inputs)
    if (v)
      inputs.push_back(v);
  if (inputs.empty())
    return n.error() << "needs at least one input";
  if (!n.attr("axis"))
    return n.error() << "missing attribute 'axis'";
  int64_t rank = cast<RankedTensorType>(inputs[0].getType()).getRank();
  ASSIGN_OR_FAIL(given, n.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, n.axis(given, rank));
  return done(n, n.make<nn::ConcatOp>(ValueRange(inputs), axis));
}

LogicalResult importSplit(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  auto type = n.typeOf(0);
  ASSIGN_OR_FAIL(given, n.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, n.axis(given, type.getRank()));
  ASSIGN_OR_FAIL(splitAttr, n.intsAttr("split"));
  ASSIGN_OR_FAIL(numOutputs, n.intAttr("num_outputs", -1));
  int64_t outputs = n.node.output_size();
  if (outputs < 1)
    return n.error() << "needs at least one output";
  SmallVector<int64_t> sizes;
  if (n.opset >= 13 && n.input(1)) {
    ASSIGN_OR_FAIL(s, n.constantInts(1, "split"));
    sizes = s;
  } else if (n.opset < 13 && splitAttr) {
    sizes = *splitAttr;
  } else {
    int64_t dim = type.getDimSize(axis);
    if (ShapedType::isDynamic(dim) &&
        failed(n.requireStatic(0, "Split without sizes")))
      return failure();
    int64_t parts =
        n.opset >= 18 && n.attr("num_outputs") ? numOutputs : outputs;
    if (parts != outputs)
      return n.error() << "num_outputs is " << parts << " but the node has "
                       << outputs << " outputs";
    // Equal parts; from opset 18 the last one may be smaller.
    int64_t chunk = llvm::divideCeil(dim, parts);
    if (n.opset < 18 && dim % parts != 0)
      return n.error() << "dimension " << dim << " does not split into "
                       << parts << " equal parts";
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(std::min(chunk, dim - i * chunk), 0));
  }
  if ((int64_t)sizes.size() != outputs)
    return n.error() << "split gives " << sizes.size() << " sizes for "
                     << outputs << " outputs";
  ASSIGN_OR_FAIL(parts, n.build<nn::SplitOp>(outputs, x, axis, sizes));
  llvm::append_range(n.results, parts);
  return success();
}

LogicalResult importSlice(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset >= 10) {
    ASSIGN_OR_FAIL(s, n.constantInts(1, "starts"));
    ASSIGN_OR_FAIL(e, n.constantInts(2, "ends"));
    starts = s;
    ends = e;
    if (n.input(3)) {
      ASSIGN_OR_FAIL(a, n.constantInts(3, "axes"));
      axes = a;
    }
    if (n.input(4)) {
      ASSIGN_OR_FAIL(st, n.constantInts(4, "steps"));
      steps = st;
    }
  } else {
    ASSIGN_OR_FAIL(s, n.intsAttr("starts", {}));
    ASSIGN_OR_FAIL(e, n.intsAttr("ends", {}));
    ASSIGN_OR_FAIL(a, n.intsAttr("axes", {}));
    starts = s;
    ends = e;
    axes = a;
  }
  if (starts.size() != ends.size())
    return n.error() << "starts and ends differ in length";
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return n.error() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    ASSIGN_OR_FAIL(a, n.axis(axes[i], rank));
    if (seen[a])
      return n.error() << "axis " << axes[i] << " is repeated";
    seen[a] = true;
    int64_t dim = type.getDimSize(a), step = steps[i];
    if (step == 0)
      return n.error() << "step of axis " << axes[i] << " is zero";
    if (ShapedType::isDynamic(dim) && failed(n.requireStatic(0, "Slice")))
      return failure();
    // ONNX clamping: indices count from the end when negative; starts clamp
    // to [0, dim] (or [0, dim - 1] going backwards), ends to [0, dim] (or
    // [-1, dim - 1]).
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < INT64_MIN + dim ? lo : v + dim;
      return std::clamp(v, lo, hi);
    };
    if (dim == 0) { // nothing to select, in either direction
      offsets[a] = sizes[a] = 0;
      strides[a] = step;
      continue;
    }
    int64_t start =
        step > 0 ? clamp(starts[i], 0, dim) : clamp(starts[i], 0, dim - 1);
    int64_t end =
        step > 0 ? clamp(ends[i], 0, dim) : clamp(ends[i], -1, dim - 1);
    if (step == INT64_MIN)
      return n.error() << "step of axis " << axes[i] << " is out of range";
    // Written so that no intermediate overflows.
    int64_t size = step > 0 ? (end > start ? (end - start - 1) / step + 1 : 0)
                            : (start > end ? (start - end - 1) / -step + 1 : 0);
    offsets[a] = size > 0 ? start : 0;
    sizes[a] = size;
    strides[a] = step;
  }
  return done(n, n.make<nn::SliceOp>(x, offsets, sizes, strides));
}

LogicalResult importSqueeze(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  auto type = n.typeOf(0);
  std::optional<SmallVector<int64_t>> given;
  if (n.opset >= 13) {
    if (n.input(1)) {
      ASSIGN_OR_FAIL(a, n.constantInts(1, "axes"));
      given = a;
    }
  } else {
    ASSIGN_OR_FAIL(a, n.intsAttr("axes"));
    given = a;
  }
  SmallVector<int64_t> axes;
  if (!given) {
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d) &&
          failed(n.requireStatic(0, "Squeeze without axes")))
        return failure();
      if (type.getDimSize(d) == 1)
        axes.push_back(d);
    }
  } else {
    ASSIGN_OR_FAIL(normalized, n.axes(*given, type.getRank()));
    axes = normalized;
  }
  return done(n, n.squeeze(x, axes));
}

LogicalResult importUnsqueeze(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  SmallVector<int64_t> given;
  if (n.opset >= 13) {
    ASSIGN_OR_FAIL(a, n.constantInts(1, "axes"));
    given = a;
  } else {
    ASSIGN_OR_FAIL(a, n.intsAttr("axes", {}));
    given = a;
  }
  int64_t rank = n.typeOf(0).getRank() + given.size();
  ASSIGN_OR_FAIL(axes, n.axes(given, rank));
  return done(n, n.unsqueeze(x, axes));
}

LogicalResult importGather(Node &n) {
  ASSIGN_OR_FAIL(data, n.required(0, "data"));
  ASSIGN_OR_FAIL(indices, n.required(1, "indices"));
  ASSIGN_OR_FAIL(given, n.intAttr("axis", 0));
  ASSIGN_OR_FAIL(axis, n.axis(given, n.typeOf(0).getRank()));
  return done(n, n.make<nn::GatherOp>(data, indices, axis));
}

LogicalResult importExpand(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  ASSIGN_OR_FAIL(shape, n.constantInts(1, "shape"));
  // Expand broadcasts both ways: the result is the broadcast of the two.
  ArrayRef<int64_t> in = n.typeOf(0).getShape();
  size_t rank = std::max(in.size(), shape.size());
  SmallVector<int64_t> target(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (ShapedType::isDynamic(a))
      return n.requireStatic(0, "Expand");
    if (a != b && a != 1 && b != 1)
      return n.error() << "cannot expand dimension " << i << " of size " << a
                       << " to " << b;
    target[i] = a == 1 ? b : a;
  }
  return done(n, n.make<nn::BroadcastToOp>(x, target));
}

LogicalResult importTile(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  ASSIGN_OR_FAIL(repeats, n.constantInts(1, "repeats"));
  auto type = n.typeOf(0);
  if ((int64_t)repeats.size() != type.getRank())
    return n.error() << "repeats has " << repeats.size() << " entries for rank "
                     << type.getRank();
  if (failed(n.requireStatic(0, "Tile")))
    return failure();
  // tile(x, r) = reshape(broadcast(reshape(x, [1, d0, 1, d1, ...]),
  //                                [r0, d0, r1, d1, ...]), [r0*d0, ...])
  SmallVector<int64_t> interleaved, broadcast, result;
  for (auto [d, r] : llvm::zip(type.getShape(), repeats)) {
    int64_t tiled;
    if (r < 0 || llvm::MulOverflow(r, d, tiled))
      return n.error() << "repeats must be non-negative and small enough";
    interleaved.append({1, d});
    broadcast.append({r, d});
    result.push_back(tiled);
  }
  ASSIGN_OR_FAIL(spread, n.reshape(x, interleaved));
  ASSIGN_OR_FAIL(tiled, n.make<nn::BroadcastToOp>(spread, broadcast));
  return done(n, n.reshape(tiled, result));
}

LogicalResult importPad(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  ASSIGN_OR_FAIL(mode, n.stringAttr("mode", "constant"));
  SmallVector<int64_t> pads;
  Type element = type.getElementType();
  // The padding value, exactly as given (an int64 may not fit a double).
  TypedAttr padValue;
  SmallVector<int64_t> axes;
  if (n.opset >= 11) {
    ASSIGN_OR_FAIL(p, n.constantInts(1, "pads"));
    pads = p;
    if (n.input(2)) {
      ASSIGN_OR_FAIL(v, n.constant(2, "constant_value"));
      if (v.getNumElements() != 1)
        return n.error() << "input 'constant_value' must hold one value, it "
                            "holds "
                         << v.getNumElements();
      if (v.getElementType() != element)
        return n.error() << "constant_value has type " << v.getElementType()
                         << ", the data " << element;
      padValue = cast<TypedAttr>(*v.getValues<Attribute>().begin());
    }
    if (n.input(3)) {
      ASSIGN_OR_FAIL(a, n.constantInts(3, "axes"));
      for (int64_t v : a) {
        ASSIGN_OR_FAIL(normalized, n.axis(v, rank));
        axes.push_back(normalized);
      }
    }
  } else {
    ASSIGN_OR_FAIL(p, n.intsAttr("pads", {}));
    ASSIGN_OR_FAIL(v, n.floatAttr("value", 0.0f));
    pads = p;
    if (isa<FloatType>(element))
      padValue = n.b.getFloatAttr(element, v);
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (pads.size() != 2 * axes.size())
    return n.error() << "pads has " << pads.size() << " entries for "
                     << axes.size() << " axes";
  for (int64_t p : pads)
    if (p < -kMaxElements || p > kMaxElements)
      return n.error() << "pad " << p << " is out of range";
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    low[axes[i]] = pads[i];
    high[axes[i]] = pads[i + axes.size()];
  }
  // Negative pads crop: slice first, then pad by what is left.
  bool crops = llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
               llvm::any_of(high, [](int64_t v) { return v < 0; });
  if (crops) {
    if (failed(n.requireStatic(0, "Pad with negative pads")))
      return failure();
    SmallVector<int64_t> offsets(rank), sizes(rank), strides(rank, 1);
    for (int64_t d = 0; d < rank; ++d) {
      offsets[d] = std::max<int64_t>(-low[d], 0);
      sizes[d] =
          type.getDimSize(d) - offsets[d] - std::max<int64_t>(-high[d], 0);
      if (sizes[d] < 0)
        return n.error() << "pads crop dimension " << d << " below zero";
      low[d] = std::max<int64_t>(low[d], 0);
      high[d] = std::max<int64_t>(high[d], 0);
    }
    ASSIGN_OR_FAIL(cropped, n.make<nn::SliceOp>(x, offsets, sizes, strides));
    x = cropped;
  }
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return done(n, x);
  nn::PadMode padMode;
  if (mode == "constant")
    padMode = nn::PadMode::Constant;
  else if (mode == "reflect")
    padMode = nn::PadMode::Reflect;
  else if (mode == "edge")
    padMode = nn::PadMode::Edge;
  else if (mode == "wrap")
    padMode = nn::PadMode::Wrap;
  else
    return n.unsupported() << "pad mode '" << mode << "' is not supported";
  // Zero is the default; it need not be spelled out.
  if (padValue &&
      (padMode != nn::PadMode::Constant || matchPattern(padValue, m_Zero()) ||
       matchPattern(padValue, m_AnyZeroFloat())))
    padValue = {};
  return done(
      n, n.make<nn::PadOp>(
             x, n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
             nn::PadModeAttr::get(n.b.getContext(), padMode), padValue));
}

LogicalResult importTrilu(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  int64_t k = 0;
  if (n.input(1)) {
    ASSIGN_OR_FAIL(v, n.constantScalar(1, "k"));
    k = int64_t(v);
  }
  ASSIGN_OR_FAIL(upperAttr, n.intAttr("upper", 1));
  bool upper = upperAttr != 0;
  return done(n, n.make<nn::TriluOp>(x, upper ? n.b.getUnitAttr() : UnitAttr(),
                                     n.b.getI64IntegerAttr(k)));
}

LogicalResult importRange(Node &n) {
  SmallVector<Attribute> bounds;
  Type element;
  static const StringRef names[] = {"start", "limit", "delta"};
  for (auto [i, name] : llvm::enumerate(names)) {
    ASSIGN_OR_FAIL(attr, n.constant(i, name));
    if (attr.getNumElements() != 1)
      return n.error() << name << " must be a scalar";
    if (element && attr.getElementType() != element)
      return n.error() << "start, limit and delta must have the same type";
    element = attr.getElementType();
    bounds.push_back(attr.getSplatValue<Attribute>());
  }
  if (element.isInteger(1) ||
      (!isa<FloatType>(element) && !isa<IntegerType>(element)))
    return n.error() << "bounds must be numbers";
  return done(n, n.make<nn::RangeOp>(cast<TypedAttr>(bounds[0]),
                                     cast<TypedAttr>(bounds[1]),
                                     cast<TypedAttr>(bounds[2])));
}

} // namespace loom::onnx_import
