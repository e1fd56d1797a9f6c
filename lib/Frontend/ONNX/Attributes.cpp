//===- Attributes.cpp - Checked reads of ONNX node attributes -------------===//
//
// Attributes are untrusted. Each accessor names the type the operator's
// schema gives the attribute, and a value is read only when the attribute
// declares that type and holds its value in that type's field alone: a
// FLOAT `axis` of 1.5, or an INT whose value sits in `f` or `ints`, is an
// error rather than a silently truncated or zero value.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

using AttrType = onnx::AttributeProto::AttributeType;

/// The ONNX name of an attribute type ("INT", "FLOATS").
static std::string typeName(int type) {
  if (onnx::AttributeProto_AttributeType_IsValid(type))
    return onnx::AttributeProto_AttributeType_Name(AttrType(type));
  return "invalid type " + std::to_string(type);
}

/// The field that holds the value of an attribute of `type`.
static StringRef fieldOf(AttrType type) {
  switch (type) {
  case onnx::AttributeProto::FLOAT:
    return "f";
  case onnx::AttributeProto::INT:
    return "i";
  case onnx::AttributeProto::STRING:
    return "s";
  case onnx::AttributeProto::TENSOR:
    return "t";
  case onnx::AttributeProto::GRAPH:
    return "g";
  case onnx::AttributeProto::SPARSE_TENSOR:
    return "sparse_tensor";
  case onnx::AttributeProto::TYPE_PROTO:
    return "tp";
  case onnx::AttributeProto::FLOATS:
    return "floats";
  case onnx::AttributeProto::INTS:
    return "ints";
  case onnx::AttributeProto::STRINGS:
    return "strings";
  case onnx::AttributeProto::TENSORS:
    return "tensors";
  case onnx::AttributeProto::GRAPHS:
    return "graphs";
  case onnx::AttributeProto::SPARSE_TENSORS:
    return "sparse_tensors";
  case onnx::AttributeProto::TYPE_PROTOS:
    return "type_protos";
  default:
    return "";
  }
}

/// The value fields `a` sets.
static SmallVector<StringRef> setFields(const onnx::AttributeProto &a) {
  SmallVector<StringRef> fields;
  auto add = [&](bool set, StringRef name) {
    if (set)
      fields.push_back(name);
  };
  add(a.has_f(), "f");
  add(a.has_i(), "i");
  add(a.has_s(), "s");
  add(a.has_t(), "t");
  add(a.has_g(), "g");
  add(a.has_sparse_tensor(), "sparse_tensor");
  add(a.has_tp(), "tp");
  add(a.floats_size() != 0, "floats");
  add(a.ints_size() != 0, "ints");
  add(a.strings_size() != 0, "strings");
  add(a.tensors_size() != 0, "tensors");
  add(a.graphs_size() != 0, "graphs");
  add(a.sparse_tensors_size() != 0, "sparse_tensors");
  add(a.type_protos_size() != 0, "type_protos");
  return fields;
}

const onnx::AttributeProto *NodeImporter::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

FailureOr<const onnx::AttributeProto *>
NodeImporter::typedAttr(StringRef name, AttrType expected) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return a;
  if (llvm::count_if(node.attribute(), [&](const onnx::AttributeProto &other) {
        return other.name() == name;
      }) > 1)
    return error() << "attribute '" << name << "' is given more than once";
  if (a->type() != expected)
    return error() << "attribute '" << name << "' must be "
                   << typeName(expected) << ", but it is "
                   << typeName(a->type());
  // A list may be empty; any other value must be in its field, and no other
  // field may hold a competing one.
  SmallVector<StringRef> fields = setFields(*a);
  StringRef field = fieldOf(expected);
  bool isList = expected >= onnx::AttributeProto::FLOATS &&
                expected != onnx::AttributeProto::SPARSE_TENSOR &&
                expected != onnx::AttributeProto::TYPE_PROTO;
  bool valid =
      fields.empty() ? isList : fields.size() == 1 && fields.front() == field;
  if (!valid) {
    auto diag = error() << "attribute '" << name << "' is "
                        << typeName(expected) << ", whose value belongs in "
                        << "field '" << field << "', but ";
    if (fields.empty())
      return diag << "no field is set";
    return diag << "the fields set are '" << llvm::join(fields, "', '") << "'";
  }
  return a;
}

FailureOr<int64_t> NodeImporter::intAttr(StringRef name, int64_t dflt) {
  auto a = typedAttr(name, onnx::AttributeProto::INT);
  if (failed(a))
    return failure();
  return *a ? (*a)->i() : dflt;
}

FailureOr<float> NodeImporter::floatAttr(StringRef name, float dflt) {
  auto a = typedAttr(name, onnx::AttributeProto::FLOAT);
  if (failed(a))
    return failure();
  return *a ? (*a)->f() : dflt;
}

FailureOr<std::string> NodeImporter::stringAttr(StringRef name,
                                                StringRef dflt) {
  auto a = typedAttr(name, onnx::AttributeProto::STRING);
  if (failed(a))
    return failure();
  return *a ? (*a)->s() : dflt.str();
}

FailureOr<std::optional<SmallVector<int64_t>>>
NodeImporter::intsAttr(StringRef name) {
  auto a = typedAttr(name, onnx::AttributeProto::INTS);
  if (failed(a))
    return failure();
  if (!*a)
    return std::optional<SmallVector<int64_t>>();
  return std::optional<SmallVector<int64_t>>(
      SmallVector<int64_t>((*a)->ints().begin(), (*a)->ints().end()));
}

FailureOr<SmallVector<int64_t>> NodeImporter::intsAttr(StringRef name,
                                                       ArrayRef<int64_t> dflt) {
  auto values = intsAttr(name);
  if (failed(values))
    return failure();
  return values->value_or(SmallVector<int64_t>(dflt));
}

FailureOr<SmallVector<float>> NodeImporter::floatsAttr(StringRef name) {
  auto a = typedAttr(name, onnx::AttributeProto::FLOATS);
  if (failed(a))
    return failure();
  if (!*a)
    return SmallVector<float>();
  return SmallVector<float>((*a)->floats().begin(), (*a)->floats().end());
}

FailureOr<const onnx::TensorProto *> NodeImporter::tensorAttr(StringRef name) {
  auto a = typedAttr(name, onnx::AttributeProto::TENSOR);
  if (failed(a))
    return failure();
  return *a ? &(*a)->t() : nullptr;
}

FailureOr<Type> NodeImporter::dataTypeAttr(StringRef name, int64_t dflt,
                                           StringRef what) {
  auto dtype = intAttr(name, dflt);
  if (failed(dtype))
    return failure();
  // Data types are int32 in TensorProto: a wider value must not wrap into
  // a valid one.
  if (*dtype != int64_t(int32_t(*dtype)))
    return error() << what << " has invalid data type " << *dtype;
  return convertElementType(state, loc, int32_t(*dtype), what);
}
