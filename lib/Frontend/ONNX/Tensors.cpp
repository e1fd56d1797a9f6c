//===- Tensors.cpp - ONNX tensors to elements attributes ------------------===//
//
// Tensor data is untrusted: dimensions are checked for sign and overflow,
// a tensor must keep its data in exactly one source (raw bytes, its type's
// typed field, an external file), and that source must hold exactly the
// number of elements the dimensions declare.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

Location ImportState::fileLoc() {
  return FileLineColLoc::get(&context, source.displayName, 0, 0);
}

InFlightDiagnostic ImportState::error() { return emitError(fileLoc()); }

InFlightDiagnostic ImportState::unsupportedError(Location loc) {
  unsupported = true;
  return emitError(loc);
}

bool loom::onnx_import::withinElementLimit(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      continue;
    if (d < 0 || llvm::MulOverflow(count, d, count) || count > kMaxElements)
      return false;
  }
  return true;
}

static const char *dtypeName(int32_t dtype) {
  if (onnx::TensorProto_DataType_IsValid(dtype))
    return onnx::TensorProto_DataType_Name(
               static_cast<onnx::TensorProto_DataType>(dtype))
        .c_str();
  return nullptr;
}

FailureOr<Type> loom::onnx_import::convertElementType(ImportState &state,
                                                      Location loc,
                                                      int32_t dtype,
                                                      StringRef what) {
  MLIRContext *ctx = &state.context;
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return Type(Float32Type::get(ctx));
  case onnx::TensorProto::DOUBLE:
    return Type(Float64Type::get(ctx));
  case onnx::TensorProto::FLOAT16:
    return Type(Float16Type::get(ctx));
  case onnx::TensorProto::BFLOAT16:
    return Type(BFloat16Type::get(ctx));
  case onnx::TensorProto::INT8:
    return Type(IntegerType::get(ctx, 8));
  case onnx::TensorProto::INT16:
    return Type(IntegerType::get(ctx, 16));
  case onnx::TensorProto::INT32:
    return Type(IntegerType::get(ctx, 32));
  case onnx::TensorProto::INT64:
    return Type(IntegerType::get(ctx, 64));
  case onnx::TensorProto::UINT8:
    return Type(IntegerType::get(ctx, 8, IntegerType::Unsigned));
  case onnx::TensorProto::UINT16:
    return Type(IntegerType::get(ctx, 16, IntegerType::Unsigned));
  case onnx::TensorProto::UINT32:
    return Type(IntegerType::get(ctx, 32, IntegerType::Unsigned));
  case onnx::TensorProto::UINT64:
    return Type(IntegerType::get(ctx, 64, IntegerType::Unsigned));
  case onnx::TensorProto::BOOL:
    return Type(IntegerType::get(ctx, 1));
  // Newer than the protobuf schema this build knows, so by number.
  case 17: // FLOAT8E4M3FN
    return Type(Float8E4M3FNType::get(ctx));
  case 18: // FLOAT8E4M3FNUZ
    return Type(Float8E4M3FNUZType::get(ctx));
  case 19: // FLOAT8E5M2
    return Type(Float8E5M2Type::get(ctx));
  case 20: // FLOAT8E5M2FNUZ
    return Type(Float8E5M2FNUZType::get(ctx));
  case 21: // UINT4
    return Type(IntegerType::get(ctx, 4, IntegerType::Unsigned));
  case 22: // INT4
    return Type(IntegerType::get(ctx, 4));
  default:
    break;
  }
  if (const char *name = dtypeName(dtype); name && dtype != 0) {
    state.unsupportedError(loc)
        << what << " has data type " << name
        << ", which Loom does not support (supported: the float, integer "
           "and bool types, FLOAT8*, INT4 and UINT4)";
    return failure();
  }
  if (dtype == 23) {
    state.unsupportedError(loc)
        << what << " has data type FLOAT4E2M1, which Loom does not support";
    return failure();
  }
  emitError(loc) << what << " has invalid data type " << dtype;
  return failure();
}

/// Bytes per element as stored in raw_data and external files (4-bit
/// types pack two elements per byte; see packedBytes).
static int64_t storageBytes(Type type) {
  return type.isInteger(1) ? 1 : (type.getIntOrFloatBitWidth() + 7) / 8;
}

static bool isPacked(Type type) { return type.isInteger(4); }

/// Bytes that `count` elements of `type` take in raw_data.
static int64_t packedBytes(Type type, int64_t count) {
  return isPacked(type) ? (count + 1) / 2 : count * storageBytes(type);
}

/// Checks the dimensions and returns the element count.
static FailureOr<int64_t> elementCount(ImportState &state, Location loc,
                                       const onnx::TensorProto &tensor,
                                       SmallVectorImpl<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0) {
      emitError(loc) << "tensor '" << tensor.name()
                     << "' has negative dimension " << d;
      return failure();
    }
    if (llvm::MulOverflow(count, d, count) || count > kMaxElements) {
      emitError(loc) << "tensor '" << tensor.name()
                     << "' has more than 2^48 elements";
      return failure();
    }
    shape.push_back(d);
  }
  return count;
}

/// The typed field that holds the values of a tensor of data type `dtype`.
static StringRef typedFieldName(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return "float_data";
  case onnx::TensorProto::DOUBLE:
    return "double_data";
  case onnx::TensorProto::INT64:
    return "int64_data";
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return "uint64_data";
  default:
    // The other integers, BOOL, the 8-bit floats, FLOAT16 and BFLOAT16 (as
    // bit patterns) all live in int32_data.
    return "int32_data";
  }
}

/// Checks that `tensor` keeps its data in one place (external data,
/// raw_data, or the typed field of its data type): a reader that picked one
/// would silently drop the others.
static LogicalResult checkDataSource(Location loc,
                                     const onnx::TensorProto &tensor) {
  bool external = tensor.has_data_location() &&
                  tensor.data_location() == onnx::TensorProto::EXTERNAL;
  if (!external && tensor.external_data_size() != 0)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' lists external_data but its data_location is "
                             "not EXTERNAL";
  SmallVector<StringRef> sources;
  auto add = [&](bool set, StringRef name) {
    if (set)
      sources.push_back(name);
  };
  add(external, "external data");
  add(tensor.has_raw_data(), "raw_data");
  add(tensor.float_data_size() != 0, "float_data");
  add(tensor.int32_data_size() != 0, "int32_data");
  add(tensor.string_data_size() != 0, "string_data");
  add(tensor.int64_data_size() != 0, "int64_data");
  add(tensor.double_data_size() != 0, "double_data");
  add(tensor.uint64_data_size() != 0, "uint64_data");
  if (sources.size() > 1)
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has data in more than one place ("
                          << llvm::join(sources, ", ")
                          << "); it must have exactly one";
  StringRef typed = typedFieldName(tensor.data_type());
  if (sources.size() == 1 && sources.front().ends_with("_data") &&
      sources.front() != "raw_data" && sources.front() != typed)
    return emitError(loc) << "tensor '" << tensor.name() << "' holds its "
                          << "values in " << sources.front()
                          << ", but values of its data type belong in "
                          << typed;
  return success();
}

/// Little-endian bytes of `count` elements of `type` from the typed fields.
static LogicalResult typedFieldBytes(ImportState &state, Location loc,
                                     const onnx::TensorProto &tensor, Type type,
                                     int64_t count, std::vector<char> &bytes) {
  int64_t width = storageBytes(type);
  // 4-bit types hold one packed byte (two elements) per int32_data entry.
  if (isPacked(type))
    count = packedBytes(type, count);
  // Copies one repeated field as little-endian bit patterns; counts are
  // checked before anything is allocated.
  auto copy = [&](const auto &field, StringRef name, auto toBits) {
    if (field.size() != count) {
      emitError(loc) << "tensor '" << tensor.name() << "' declares " << count
                     << " elements but its " << name << " holds "
                     << field.size();
      return failure();
    }
    bytes.resize(count * width);
    for (int64_t i = 0; i < count; ++i) {
      uint64_t bits = toBits(field.Get(i));
      for (int64_t k = 0; k < width; ++k)
        bytes[i * width + k] = char((bits >> (8 * k)) & 0xff);
    }
    return success();
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return copy(tensor.float_data(), "float_data",
                [](float v) { return uint64_t(llvm::bit_cast<uint32_t>(v)); });
  case onnx::TensorProto::DOUBLE:
    return copy(tensor.double_data(), "double_data",
                [](double v) { return llvm::bit_cast<uint64_t>(v); });
  case onnx::TensorProto::INT64:
    return copy(tensor.int64_data(), "int64_data",
                [](int64_t v) { return uint64_t(v); });
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return copy(tensor.uint64_data(), "uint64_data",
                [](uint64_t v) { return v; });
  default:
    // The other integers, BOOL, the 8-bit floats, FLOAT16 and BFLOAT16 (as
    // bit patterns) all live in int32_data.
    return copy(tensor.int32_data(), "int32_data",
                [](int32_t v) { return uint64_t(uint32_t(v)); });
  }
}

FailureOr<ElementsAttr>
loom::onnx_import::convertTensor(ImportState &state, Location loc,
                                 const onnx::TensorProto &tensor,
                                 bool asResource) {
  auto elementType = convertElementType(state, loc, tensor.data_type(),
                                        "tensor '" + tensor.name() + "'");
  if (failed(elementType))
    return failure();
  SmallVector<int64_t> shape;
  auto count = elementCount(state, loc, tensor, shape);
  if (failed(count) || failed(checkDataSource(loc, tensor)))
    return failure();
  auto type = RankedTensorType::get(shape, *elementType);
  int64_t width = storageBytes(*elementType);
  int64_t expected = packedBytes(*elementType, *count);

  std::vector<char> bytes;
  if (tensor.has_data_location() &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    if (failed(readExternalData(state, loc, tensor, expected, bytes)))
      return failure();
  } else if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if ((int64_t)raw.size() != expected) {
      emitError(loc) << "tensor '" << tensor.name() << "' has " << raw.size()
                     << " bytes of raw_data but its dimensions and type need "
                     << expected;
      return failure();
    }
    bytes.assign(raw.begin(), raw.end());
  } else if (failed(typedFieldBytes(state, loc, tensor, *elementType, *count,
                                    bytes))) {
    return failure();
  }

  // MLIR stores i1 one bit per element; ONNX one byte.
  if (elementType->isInteger(1)) {
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  // Two 4-bit elements per byte, the first in the low half.
  if (isPacked(*elementType)) {
    SmallVector<APInt> values;
    values.reserve(*count);
    for (int64_t i = 0; i < *count; ++i)
      values.push_back(APInt(4, (uint8_t(bytes[i / 2]) >> (4 * (i % 2))) & 15));
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  ArrayRef<char> data(bytes.data(), bytes.size());
  if (asResource && !bytes.empty()) {
    AsmResourceBlob blob =
        HeapAsmResourceBlob::allocateAndCopyWithAlign(data, width);
    std::string name = tensor.name().empty() ? "tensor" : tensor.name();
    return ElementsAttr(
        DenseResourceElementsAttr::get(type, name, std::move(blob)));
  }
  // The byte count was checked above, so the buffer is valid for `type`.
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, data));
}
