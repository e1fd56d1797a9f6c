//===- ImporterImpl.h - Internals of the ONNX importer ----------*- C++ -*-===//

#ifndef LOOM_LIB_FRONTEND_ONNX_IMPORTERIMPL_H
#define LOOM_LIB_FRONTEND_ONNX_IMPORTERIMPL_H

#include "loom/Dialect/NN/NNOps.h"
#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "onnx/onnx_pb.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <optional>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace loom::onnx_import {

/// Where a model came from: its name in diagnostics, and the directory its
/// external data must stay inside (empty when there is none).
struct ModelSource {
  std::string displayName;
  std::string dir;
};

/// State shared by every step of one import.
class ImportState {
public:
  ImportState(mlir::MLIRContext &context, ModelSource source)
      : context(context), source(std::move(source)) {}

  mlir::MLIRContext &context;
  ModelSource source;
  /// Set when a failure is a capability gap rather than a bad model.
  bool unsupported = false;
  /// The graph inputs' unknown dimensions, e.g. "'x' dimension 0 ('batch')",
  /// named when an op needs a static shape.
  std::string dynamicInputs;
  /// New values of parameters that nodes update as they run (training-mode
  /// BatchNormalization's running statistics), in node order.
  llvm::SmallVector<std::pair<std::string, mlir::Value>> stateUpdates;

  /// A location naming the model file.
  mlir::Location fileLoc();
  /// An error at the model file.
  mlir::InFlightDiagnostic error();
  /// An error about something the model uses that Loom does not support.
  mlir::InFlightDiagnostic unsupportedError(mlir::Location loc);
};

/// Most elements any tensor in an imported model may have (2^48): large
/// enough for any real model, small enough that shape arithmetic never
/// overflows.
constexpr int64_t kMaxElements = int64_t(1) << 48;

/// Whether the static dimensions of `shape` multiply to at most
/// kMaxElements (dynamic dimensions are ignored).
bool withinElementLimit(llvm::ArrayRef<int64_t> shape);

/// The MLIR element type of ONNX data type `dtype`; failure (with the
/// unsupported flag set for valid but unsupported types) otherwise.
mlir::FailureOr<mlir::Type> convertElementType(ImportState &state,
                                               mlir::Location loc,
                                               int32_t dtype,
                                               llvm::StringRef what);

/// Converts a TensorProto (inline or external data) into an elements
/// attribute. `asResource` stores the data in a resource blob (for weights).
mlir::FailureOr<mlir::ElementsAttr>
convertTensor(ImportState &state, mlir::Location loc,
              const onnx::TensorProto &tensor, bool asResource);

/// Reads the external data of `tensor` into `bytes` after checking that it
/// is contained in the model directory and matches the declared size.
mlir::LogicalResult readExternalData(ImportState &state, mlir::Location loc,
                                     const onnx::TensorProto &tensor,
                                     int64_t expectedBytes,
                                     std::vector<char> &bytes);

/// Replaces float initializers that are exact copies (or 2-D transposes) of
/// another by uses of that one, with a remark naming both (TiedWeights.cpp).
void tieExportedCopies(mlir::func::FuncOp fn);

/// The module names of nn.Linear weights torch.onnx.export renamed and
/// stored transposed when it folded constants ("onnx::MatMul_474" read only
/// by "/m/lm_head/MatMul" -> "m.lm_head.weight"), by initializer name; names
/// already taken are left out (TiedWeights.cpp).
llvm::StringMap<std::string> torchLinearNames(const onnx::GraphProto &graph);

/// The 2-D `attr` transposed, as a resource named `name`; failure when it
/// holds no plain data.
mlir::FailureOr<mlir::ElementsAttr> transposedResource(mlir::ElementsAttr attr,
                                                       llvm::StringRef name);

/// Unties initializers torch.onnx.export merged because their values were
/// equal: an Identity node of a parameter whose elements are all equal gets
/// a parameter of its own (created at `b`, named by its output), with a
/// remark. Returns, by node index, the parameter that replaces the Identity
/// (TiedWeights.cpp).
llvm::DenseMap<unsigned, mlir::Value> untieMergedInitializers(
    const onnx::GraphProto &graph, const llvm::StringMap<mlir::Value> &values,
    const llvm::StringSet<> &initializerNames, mlir::OpBuilder &b);

/// Converts one node. Holds the node, its resolved inputs and the builder.
class NodeImporter {
public:
  NodeImporter(ImportState &state, mlir::OpBuilder &builder,
               const onnx::NodeProto &node, llvm::ArrayRef<mlir::Value> inputs,
               int64_t opset, mlir::Location loc)
      : state(state), b(builder), node(node), inputs(inputs), opset(opset),
        loc(loc) {}

  ImportState &state;
  mlir::OpBuilder &b;
  const onnx::NodeProto &node;
  llvm::ArrayRef<mlir::Value> inputs;
  int64_t opset;
  mlir::Location loc;
  llvm::SmallVector<mlir::Value> results;

  /// Input `i`, or null when absent (omitted or named "").
  mlir::Value input(unsigned i) const {
    return i < inputs.size() ? inputs[i] : mlir::Value();
  }
  mlir::RankedTensorType typeOf(unsigned i) const {
    return llvm::cast<mlir::RankedTensorType>(input(i).getType());
  }
  /// Number of outputs the node declares (trailing "" outputs excluded).
  unsigned numOutputs() const;
  /// Whether output `i` is named (used by the graph).
  bool hasOutput(unsigned i) const;

  /// An error about this node (a malformed model).
  mlir::InFlightDiagnostic error();
  /// An error about a variant of this op Loom does not support.
  mlir::InFlightDiagnostic unsupported();

  /// Requires input `i`.
  mlir::FailureOr<mlir::Value> required(unsigned i, llvm::StringRef name);
  /// Input `i` as a constant (after folding), or an error naming it.
  mlir::FailureOr<mlir::DenseElementsAttr> constant(unsigned i,
                                                    llvm::StringRef name);
  /// Input `i` as a constant list of integers.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  constantInts(unsigned i, llvm::StringRef name);
  /// Input `i` as a constant scalar (rank 0 or one element) as a double.
  mlir::FailureOr<double> constantScalar(unsigned i, llvm::StringRef name);

  /// The attribute `name`, or null when absent, unchecked: for presence
  /// tests only; read values with the typed accessors (Attributes.cpp).
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  /// The attribute `name` (null when absent) after checking that it is
  /// given once, declares type `expected` (the one the operator's schema
  /// gives it) and holds its value in the field of that type alone; an
  /// error naming the attribute and both types otherwise.
  mlir::FailureOr<const onnx::AttributeProto *>
  typedAttr(llvm::StringRef name, onnx::AttributeProto::AttributeType expected);
  /// The checked value of an INT, FLOAT, STRING, INTS, FLOATS or TENSOR
  /// attribute, or `dflt` when absent.
  mlir::FailureOr<int64_t> intAttr(llvm::StringRef name, int64_t dflt);
  mlir::FailureOr<float> floatAttr(llvm::StringRef name, float dflt);
  mlir::FailureOr<std::string> stringAttr(llvm::StringRef name,
                                          llvm::StringRef dflt);
  mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  intsAttr(llvm::StringRef name);
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  intsAttr(llvm::StringRef name, llvm::ArrayRef<int64_t> dflt);
  mlir::FailureOr<llvm::SmallVector<float>> floatsAttr(llvm::StringRef name);
  /// A TENSOR attribute's tensor, or null when absent.
  mlir::FailureOr<const onnx::TensorProto *> tensorAttr(llvm::StringRef name);
  /// An INT attribute holding an ONNX data type (`dflt` when absent), as
  /// the MLIR element type; `what` names it in diagnostics.
  mlir::FailureOr<mlir::Type> dataTypeAttr(llvm::StringRef name, int64_t dflt,
                                           llvm::StringRef what);

  /// Normalises a possibly negative axis against `rank`.
  mlir::FailureOr<int64_t> axis(int64_t axis, int64_t rank,
                                llvm::StringRef what = "axis");
  /// Normalises, sorts and deduplicates axes.
  mlir::FailureOr<llvm::SmallVector<int64_t>> axes(llvm::ArrayRef<int64_t> axes,
                                                   int64_t rank);
  /// Requires every dimension of input `i` to be static (for ops whose
  /// result depends on it), naming the dynamic graph inputs otherwise.
  mlir::LogicalResult requireStatic(unsigned i, llvm::StringRef why);

  /// Creates `OpTy` from builder arguments (after the result types), with
  /// its result types inferred and checked first (the generated inferring
  /// builders abort on failure, so they are never used on model input), then
  /// verifies it and folds it when its operands are constants. Diagnostics
  /// point at this node.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> build(unsigned numResults,
                                                        Args &&...args) {
    mlir::OperationState state(loc, OpTy::getOperationName());
    llvm::SmallVector<mlir::Type> placeholders(numResults, b.getNoneType());
    OpTy::build(b, state, mlir::TypeRange(placeholders),
                std::forward<Args>(args)...);
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(OpTy::inferReturnTypes(
            b.getContext(), loc, state.operands,
            state.attributes.getDictionary(b.getContext()),
            state.getRawProperties(), state.regions, types)))
      return mlir::failure();
    state.types.assign(types.begin(), types.end());
    return finish(b.create(state));
  }
  /// `build` for single-result ops.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> make(Args &&...args) {
    auto values = build<OpTy>(1, std::forward<Args>(args)...);
    if (mlir::failed(values))
      return mlir::failure();
    return values->front();
  }
  /// Verifies a freshly created op and folds it; returns the values to use
  /// (constants or existing values when it folded).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> finish(mlir::Operation *op);

  /// A splat constant of `type` (float or integer element type).
  mlir::Value splat(mlir::RankedTensorType type, double value);
  /// A rank-0 constant of `elementType`.
  mlir::Value scalar(mlir::Type elementType, double value);
  /// Casts `value` to `elementType` unless it already has it.
  mlir::FailureOr<mlir::Value> castTo(mlir::Value value,
                                      mlir::Type elementType);
  mlir::FailureOr<mlir::Value> reshape(mlir::Value value,
                                       llvm::ArrayRef<int64_t> shape);
  mlir::FailureOr<mlir::Value> transpose(mlir::Value value,
                                         llvm::ArrayRef<int64_t> perm);
  mlir::FailureOr<mlir::Value> unsqueeze(mlir::Value value,
                                         llvm::ArrayRef<int64_t> axes);
  mlir::FailureOr<mlir::Value> squeeze(mlir::Value value,
                                       llvm::ArrayRef<int64_t> axes);
};

/// Converts a node; sets `node.results` on success.
using OpImportFn = mlir::LogicalResult (*)(NodeImporter &node);

struct OpImporter {
  llvm::StringRef opType;
  /// Oldest opset version whose semantics the importer implements.
  int64_t minOpset;
  OpImportFn convert;
};

/// The importer for `opType`, or null.
const OpImporter *lookupOpImporter(llvm::StringRef opType);

} // namespace loom::onnx_import

#endif // LOOM_LIB_FRONTEND_ONNX_IMPORTERIMPL_H
