//===- GraphImporter.cpp - ONNX models to nn functions --------------------===//
//
// Reads and checks the model (size, protobuf, IR version, opsets), lists
// every unsupported operator at once, then converts the graph node by node
// into one `func.func @main`, folding shape computations as it goes, and
// finally runs the clean-up pipeline (folding, idiom recognition, CSE).
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Dialect/NN/NNState.h"
#include "loom/Pipelines/Pipelines.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <cerrno>
#include <climits>
#include <cstring>
#include <sys/stat.h>

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

namespace {
/// The newest IR version and default-domain opset whose semantics the
/// importer knows (ONNX 1.16).
constexpr int64_t kMaxIRVersion = 10;
constexpr int64_t kMinIRVersion = 3;
constexpr int64_t kMaxOpset = 21;
/// The model metadata key whose value, a regex, names the graph inputs that
/// are weightless parameters (what `--parameter-inputs` says otherwise).
constexpr llvm::StringLiteral kParameterInputsKey = "loom.parameter_inputs";

bool isDefaultDomain(StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

std::string nodeName(const onnx::NodeProto &node, int index) {
  if (!node.name().empty())
    return node.name();
  return (node.op_type() + "#" + Twine(index)).str();
}

/// Locations name what the model calls things: "node 'n' (Op)",
/// "input 'x'", "initializer 'w'"; diagnostics print them before the text.
Location namedLoc(ImportState &state, const Twine &name) {
  return NameLoc::get(StringAttr::get(&state.context, name), state.fileLoc());
}

class GraphImporter {
public:
  GraphImporter(ImportState &state, const ImportOptions &options)
      : state(state), options(options), ctx(state.context) {}

  ImportResult run(const onnx::ModelProto &model);

private:
  LogicalResult checkModel(const onnx::ModelProto &model);
  LogicalResult checkOperators(const onnx::GraphProto &graph);
  /// Reads which graph inputs are weightless parameters: --parameter-inputs,
  /// else the model's `loom.parameter_inputs` metadata.
  LogicalResult readParameterInputs(const onnx::ModelProto &model);
  /// Checks that parameter input `input` of `type` has a static float type.
  LogicalResult checkParameterInput(const onnx::ValueInfoProto &input,
                                    RankedTensorType type);
  LogicalResult importInputs(const onnx::GraphProto &graph, OpBuilder &b,
                             func::FuncOp fn);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &input);
  LogicalResult importInitializers(const onnx::GraphProto &graph, OpBuilder &b);
  LogicalResult importNodes(const onnx::GraphProto &graph, OpBuilder &b);
  /// Rejects a node that would compute on an 8-bit float or 4-bit integer.
  LogicalResult checkStorageOnly(const onnx::NodeProto &node,
                                 ArrayRef<Value> inputs, Location loc);
  LogicalResult define(StringRef name, Value value, Location loc);

  ImportState &state;
  const ImportOptions &options;
  MLIRContext &ctx;
  int64_t opset = 0;
  llvm::StringMap<Value> values;
  llvm::StringSet<> initializerNames;
  /// Model names of the function's arguments, set once its type is final.
  SmallVector<std::string> argNames;
  /// Which arguments are weightless parameters.
  SmallVector<bool> argIsParameter;
  /// The whole-name regex of parameter inputs (unset: none), its source for
  /// diagnostics and its text.
  std::optional<llvm::Regex> parameterRegex;
  std::string parameterSource, parameterPattern;
};
} // namespace

LogicalResult GraphImporter::checkModel(const onnx::ModelProto &model) {
  if (model.ir_version() == 0 && !model.has_graph())
    return state.error() << "not an ONNX model (no IR version and no graph)";
  if (model.ir_version() < kMinIRVersion || model.ir_version() > kMaxIRVersion)
    return state.error() << "IR version " << model.ir_version()
                         << " is not supported (supported: " << kMinIRVersion
                         << " to " << kMaxIRVersion << ")";
  if (!model.has_graph())
    return state.error() << "the model has no graph";
  bool found = false;
  for (const onnx::OperatorSetIdProto &set : model.opset_import()) {
    if (!isDefaultDomain(set.domain()))
      continue;
    found = true;
    opset = set.version();
  }
  if (!found)
    return state.error() << "the model imports no opset of the default "
                            "(ai.onnx) domain";
  if (opset < 1)
    return state.error() << "invalid opset version " << opset;
  if (opset > kMaxOpset)
    return state.unsupportedError(state.fileLoc())
           << "opset " << opset << " is newer than Loom supports (up to "
           << kMaxOpset << ")";
  return success();
}

LogicalResult GraphImporter::checkOperators(const onnx::GraphProto &graph) {
  struct Problem {
    std::string node, op, domain;
    int64_t version;
    std::string why;
  };
  std::vector<Problem> problems;
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    std::string why;
    const OpImporter *importer = nullptr;
    if (!isDefaultDomain(node.domain()))
      why = "custom domain";
    else if (!(importer = lookupOpImporter(node.op_type())))
      why = "unsupported operator";
    else if (opset < importer->minOpset)
      why = "supported from opset " + std::to_string(importer->minOpset);
    if (!why.empty())
      problems.push_back({nodeName(node, i), node.op_type(),
                          node.domain().empty() ? "ai.onnx" : node.domain(),
                          isDefaultDomain(node.domain()) ? opset : 0, why});
  }
  if (problems.empty())
    return success();
  auto diag = state.unsupportedError(state.fileLoc())
              << problems.size()
              << " node(s) use operators Loom does not "
                 "support:";
  for (const Problem &p : problems) {
    diag << "\n  node '" << p.node << "': " << p.op << " (domain " << p.domain;
    if (p.version)
      diag << ", opset " << p.version;
    diag << "): " << p.why;
  }
  return failure();
}

LogicalResult GraphImporter::define(StringRef name, Value value, Location loc) {
  if (name.empty())
    return success();
  if (!values.try_emplace(name, value).second)
    return emitError(loc) << "value '" << name << "' is defined twice";
  return success();
}

FailureOr<RankedTensorType>
GraphImporter::inputType(const onnx::ValueInfoProto &input) {
  Location loc = namedLoc(state, "input '" + input.name() + "'");
  if (!input.has_type() || !input.type().has_tensor_type())
    return state.unsupportedError(loc)
           << "graph input '" << input.name()
           << "' is not a tensor (sequences, maps and optionals are not "
              "supported)";
  const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
  auto element = convertElementType(state, loc, tensor.elem_type(),
                                    "graph input '" + input.name() + "'");
  if (failed(element))
    return failure();
  if (!tensor.has_shape())
    return state.unsupportedError(loc) << "graph input '" << input.name()
                                       << "' has no shape (unknown rank)";
  SmallVector<int64_t> shape;
  SmallVector<std::string> params;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return emitError(loc) << "graph input '" << input.name()
                              << "' has negative dimension " << dim.dim_value();
      shape.push_back(dim.dim_value());
    } else {
      shape.push_back(ShapedType::kDynamic);
    }
    params.push_back(dim.has_dim_param() ? dim.dim_param() : "");
  }
  auto it = options.inputShapes.find(input.name());
  if (it != options.inputShapes.end()) {
    ArrayRef<int64_t> given = it->second;
    if (given.size() != shape.size())
      return emitError(loc)
             << "--input-shape gives " << given.size() << " dimensions for '"
             << input.name() << "', which has rank " << shape.size();
    for (size_t d = 0; d < shape.size(); ++d) {
      if (ShapedType::isDynamic(given[d]))
        continue;
      if (!ShapedType::isDynamic(shape[d]) && shape[d] != given[d])
        return emitError(loc) << "--input-shape sets dimension " << d << " of '"
                              << input.name() << "' to " << given[d]
                              << " but the model fixes it to " << shape[d];
      shape[d] = given[d];
    }
  }
  if (!withinElementLimit(shape))
    return emitError(loc) << "graph input '" << input.name()
                          << "' has more than 2^48 elements";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    if (!state.dynamicInputs.empty())
      state.dynamicInputs += ", ";
    state.dynamicInputs += "'" + input.name() + "' dimension " +
                           std::to_string(d) +
                           (params[d].empty() ? "" : " ('" + params[d] + "')");
  }
  return RankedTensorType::get(shape, *element);
}

LogicalResult GraphImporter::importInitializers(const onnx::GraphProto &graph,
                                                OpBuilder &b) {
  llvm::StringMap<std::string> torchNames = torchLinearNames(graph);
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    Location loc = namedLoc(state, "initializer '" + tensor.name() + "'");
    if (tensor.name().empty())
      return emitError(loc) << "an initializer has no name";
    if (tensor.has_segment())
      return state.unsupportedError(loc)
             << "initializer '" << tensor.name() << "' is segmented";
    // Float tensors of more than one element are the model's weights: they
    // become named parameters (kept out of folding, in resource blobs).
    // Scalars and integer tensors are constants that fold into shape code.
    // (Bad dimensions are reported by convertTensor.)
    bool scalar = llvm::all_of(tensor.dims(), [](int64_t d) { return d == 1; });
    bool isFloat = tensor.data_type() == onnx::TensorProto::FLOAT ||
                   tensor.data_type() == onnx::TensorProto::DOUBLE ||
                   tensor.data_type() == onnx::TensorProto::FLOAT16 ||
                   tensor.data_type() == onnx::TensorProto::BFLOAT16;
    bool parameter = isFloat && !scalar;
    auto value = convertTensor(state, loc, tensor, parameter);
    if (failed(value))
      return failure();
    auto torchName = torchNames.find(tensor.name());
    if (parameter && torchName != torchNames.end()) {
      // A pre-transposed nn.Linear weight: PyTorch's name and layout.
      FailureOr<ElementsAttr> transposed =
          transposedResource(*value, torchName->second);
      if (succeeded(transposed)) {
        auto param =
            b.create<nn::ParameterOp>(loc, torchName->second, *transposed);
        param.emitRemark("stored transposed by the exporter under this "
                         "name; it is module weight '")
            << torchName->second << "', in PyTorch's layout";
        Value result = b.create<nn::TransposeOp>(
            loc, param.getResult(), b.getDenseI64ArrayAttr({1, 0}));
        if (failed(define(tensor.name(), result, loc)))
          return failure();
        initializerNames.insert(tensor.name());
        continue;
      }
    }
    Value result =
        parameter
            ? b.create<nn::ParameterOp>(loc, tensor.name(), *value).getResult()
            : b.create<nn::ConstantOp>(loc, *value).getResult();
    if (failed(define(tensor.name(), result, loc)))
      return failure();
    initializerNames.insert(tensor.name());
  }
  return success();
}

LogicalResult GraphImporter::importNodes(const onnx::GraphProto &graph,
                                         OpBuilder &b) {
  // Which node produces each name, to tell "defined later" from "undefined".
  llvm::StringMap<int> producer;
  llvm::StringSet<> used;
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    for (const std::string &out : node.output())
      if (!out.empty())
        producer.try_emplace(out, i);
    for (const std::string &in : node.input())
      used.insert(in);
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    used.insert(out.name());

  auto untied = untieMergedInitializers(graph, values, initializerNames, b);
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    Location loc = namedLoc(state, "node '" + nodeName(node, i) + "' (" +
                                       node.op_type() + ")");
    if (Value param = untied.lookup(i)) {
      if (failed(define(node.output(0), param, loc)))
        return failure();
      continue;
    }
    SmallVector<Value> inputs;
    for (const std::string &in : node.input()) {
      if (in.empty()) {
        inputs.push_back(Value());
        continue;
      }
      auto it = values.find(in);
      if (it != values.end()) {
        inputs.push_back(it->second);
        continue;
      }
      auto later = producer.find(in);
      if (later != producer.end() && later->second >= (int)i)
        return emitError(loc)
               << "the graph is not topologically sorted: input '" << in
               << "' is produced by node '"
               << nodeName(graph.node(later->second), later->second)
               << "', which comes later";
      return emitError(loc)
             << "input '" << in << "' is not defined in the graph";
    }
    if (failed(checkStorageOnly(node, inputs, loc)))
      return failure();
    const OpImporter *importer = lookupOpImporter(node.op_type());
    NodeImporter importerNode(state, b, node, inputs, opset, loc);
    if (failed(importer->convert(importerNode)))
      return failure();
    for (auto [k, out] : llvm::enumerate(node.output())) {
      if (out.empty())
        continue;
      if (k >= importerNode.results.size()) {
        if (used.contains(out))
          return state.unsupportedError(loc)
                 << "output #" << k << " ('" << out << "') is not supported";
        continue;
      }
      if (failed(define(out, importerNode.results[k], loc)))
        return failure();
    }
  }
  return success();
}

/// The ONNX names of the types Loom only converts and moves.
static StringRef storageOnlyName(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return "FLOAT8E4M3FN";
  if (isa<Float8E4M3FNUZType>(t))
    return "FLOAT8E4M3FNUZ";
  if (isa<Float8E5M2Type>(t))
    return "FLOAT8E5M2";
  if (isa<Float8E5M2FNUZType>(t))
    return "FLOAT8E5M2FNUZ";
  if (t.isInteger(4))
    return t.isUnsignedInteger() ? "UINT4" : "INT4";
  return "";
}

LogicalResult GraphImporter::checkStorageOnly(const onnx::NodeProto &node,
                                              ArrayRef<Value> inputs,
                                              Location loc) {
  static const llvm::StringSet<> movers = {
      "Cast",    "CastLike", "Identity",  "Reshape", "Transpose",
      "Flatten", "Squeeze",  "Unsqueeze", "Concat",  "Slice",
      "Split",   "Gather",   "Expand",    "Shape",   "Size"};
  if (movers.contains(node.op_type()))
    return success();
  for (auto [k, v] : llvm::enumerate(inputs)) {
    if (!v)
      continue;
    Type element = getElementTypeOrSelf(v.getType());
    if (nn::isStorageOnlyType(element))
      return state.unsupportedError(loc)
             << "input #" << k << " ('" << node.input(k) << "') has data type "
             << storageOnlyName(element)
             << ", which Loom only converts (Cast) and moves; cast it to a "
                "computable type first";
  }
  return success();
}

LogicalResult
GraphImporter::readParameterInputs(const onnx::ModelProto &model) {
  if (!options.parameterInputs.empty()) {
    parameterPattern = options.parameterInputs;
    parameterSource = "--parameter-inputs";
  } else {
    for (const onnx::StringStringEntryProto &entry : model.metadata_props())
      if (entry.key() == kParameterInputsKey) {
        parameterPattern = entry.value();
        parameterSource = ("metadata '" + kParameterInputsKey + "'").str();
      }
    if (parameterSource.empty())
      return success();
    if (parameterPattern.empty())
      return state.error() << parameterSource
                           << " is empty; it should be a regular expression "
                              "naming the graph inputs that are parameters";
  }
  // A whole-name match, POSIX extended syntax (as --freeze).
  parameterRegex.emplace("^(" + parameterPattern + ")$");
  std::string error;
  if (!parameterRegex->isValid(error))
    return state.error() << parameterSource << ": invalid regular expression '"
                         << parameterPattern << "': " << error;
  return success();
}

LogicalResult
GraphImporter::checkParameterInput(const onnx::ValueInfoProto &input,
                                   RankedTensorType type) {
  Location loc = namedLoc(state, "input '" + input.name() + "'");
  if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(
          type.getElementType()))
    return emitError(loc) << "graph input '" << input.name() << "' matches "
                          << parameterSource << " '" << parameterPattern
                          << "' but has data type "
                          << onnx::TensorProto::DataType_Name(
                                 input.type().tensor_type().elem_type())
                          << "; parameters must be float tensors";
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      return emitError(loc)
             << "graph input '" << input.name() << "' matches "
             << parameterSource << " '" << parameterPattern
             << "' but dimension " << d
             << " is dynamic; parameters need static shapes (fix it with "
             << "--input-shape or in the model)";
  return success();
}

LogicalResult GraphImporter::importInputs(const onnx::GraphProto &graph,
                                          OpBuilder &b, func::FuncOp fn) {
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &input : graph.input())
    inputNames.insert(input.name());
  for (const auto &entry : options.inputShapes)
    if (!inputNames.contains(entry.getKey()) ||
        initializerNames.contains(entry.getKey())) {
      auto diag = state.error() << "--input-shape names '" << entry.getKey()
                                << "', which is not a model input; inputs are:";
      for (const onnx::ValueInfoProto &input : graph.input())
        if (!initializerNames.contains(input.name()))
          diag << " '" << input.name() << "'";
      return failure();
    }
  Block &entry = fn.getBody().front();
  for (const onnx::ValueInfoProto &input : graph.input()) {
    // IR versions before 4 list initializers among the inputs.
    if (initializerNames.contains(input.name()))
      continue;
    if (input.name().empty())
      return state.error() << "a graph input has no name";
    auto type = inputType(input);
    if (failed(type))
      return failure();
    bool parameter = parameterRegex && parameterRegex->match(input.name());
    if (parameter && failed(checkParameterInput(input, *type)))
      return failure();
    Location loc = namedLoc(state, "input '" + input.name() + "'");
    BlockArgument arg = entry.addArgument(*type, loc);
    argNames.push_back(input.name());
    argIsParameter.push_back(parameter);
    if (failed(define(input.name(), arg, loc)))
      return failure();
  }
  if (parameterRegex &&
      llvm::none_of(argIsParameter, [](bool p) { return p; })) {
    auto diag = state.error() << parameterSource << " '" << parameterPattern
                              << "' matches no graph input; inputs are:";
    constexpr int kListed = 10;
    int listed = 0;
    for (const std::string &name : argNames)
      if (listed++ < kListed)
        diag << " '" << name << "'";
    if (listed > kListed)
      diag << " and " << (listed - kListed) << " more";
    if (argNames.empty())
      diag << " none";
    return failure();
  }
  return success();
}

ImportResult GraphImporter::run(const onnx::ModelProto &model) {
  ImportResult result;
  auto finish = [&](LogicalResult r) {
    result.status = succeeded(r)        ? ImportStatus::Success
                    : state.unsupported ? ImportStatus::Unsupported
                                        : ImportStatus::Invalid;
    if (failed(r))
      result.module = nullptr;
    return std::move(result);
  };
  if (failed(checkModel(model)))
    return finish(failure());
  const onnx::GraphProto &graph = model.graph();
  if (failed(checkOperators(graph)) || failed(readParameterInputs(model)))
    return finish(failure());

  ctx.loadDialect<nn::NNDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  result.module = ModuleOp::create(state.fileLoc());
  b.setInsertionPointToEnd(result.module->getBody());
  auto fn = b.create<func::FuncOp>(state.fileLoc(), "main",
                                   b.getFunctionType({}, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  if (failed(importInitializers(graph, b)) ||
      failed(importInputs(graph, b, fn)) || failed(importNodes(graph, b)))
    return finish(failure());

  SmallVector<Value> outputs;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end())
      return finish(state.error()
                    << "graph output '" << out.name() << "' is never defined");
    outputs.push_back(it->second);
  }
  if (outputs.empty())
    return finish(state.error() << "the graph has no outputs");
  SmallVector<std::string> resultNames;
  for (const onnx::ValueInfoProto &out : graph.output())
    resultNames.push_back(out.name());
  if (options.stateResults) {
    llvm::StringSet<> updated;
    for (auto &[name, value] : state.stateUpdates) {
      if (!updated.insert(name).second)
        return finish(state.error()
                      << "parameter '" << name << "' is updated by two nodes");
      outputs.push_back(value);
      resultNames.push_back((nn::kStateResultPrefix + name).str());
    }
  }
  b.create<func::ReturnOp>(state.fileLoc(), outputs);
  fn.setFunctionType(b.getFunctionType(entry->getArgumentTypes(),
                                       ValueRange(outputs).getTypes()));
  StringRef nameAttr = nn::NNDialect::NameAttrHelper::getNameStr();
  // A weightless parameter is named as an nn.parameter op would name it; it
  // is not a model input.
  for (auto [i, name] : llvm::enumerate(argNames))
    fn.setArgAttr(
        i, argIsParameter[i] ? StringRef(nn::kParameterArgAttrName) : nameAttr,
        StringAttr::get(&ctx, name));
  for (auto [i, name] : llvm::enumerate(resultNames))
    fn.setResultAttr(i, nameAttr, StringAttr::get(&ctx, name));

  if (failed(verify(*result.module)))
    return finish(failure());
  tieExportedCopies(fn);
  if (options.cleanup) {
    PassManager pm(&ctx);
    buildImportCleanupPipeline(pm);
    if (failed(pm.run(*result.module)))
      return finish(failure());
  }
  return finish(success());
}

ImportResult loom::onnx_import::importModelBytes(MLIRContext &context,
                                                 StringRef bytes,
                                                 StringRef modelDir,
                                                 StringRef displayName,
                                                 const ImportOptions &options) {
  ImportState state(context, {displayName.str(), modelDir.str()});
  ImportResult result;
  if (bytes.empty()) {
    state.error() << "the file is empty";
    return result;
  }
  if (bytes.size() > size_t(INT_MAX)) {
    state.error() << "the model is " << bytes.size()
                  << " bytes, over protobuf's 2 GiB limit; store the weights "
                     "as external data";
    return result;
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    state.error() << "not a valid ONNX model (the protobuf is truncated or "
                     "corrupt)";
    return result;
  }
  GraphImporter importer(state, options);
  return importer.run(model);
}

ImportResult loom::onnx_import::importModelFile(MLIRContext &context,
                                                StringRef path,
                                                const ImportOptions &options) {
  ImportState state(context, {path.str(), ""});
  ImportResult result;
  struct stat info;
  if (::stat(path.str().c_str(), &info) != 0) {
    state.error() << "cannot open the model: " << std::strerror(errno);
    return result;
  }
  // Refuse FIFOs and devices (reading them can block forever) and files
  // protobuf cannot parse in one piece.
  if (!S_ISREG(info.st_mode)) {
    state.error() << "the model path is not a regular file";
    return result;
  }
  if (info.st_size > INT_MAX) {
    state.error() << "the model is " << info.st_size
                  << " bytes, over protobuf's 2 GiB limit; store the weights "
                     "as external data";
    return result;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    state.error() << "cannot read the model: " << buffer.getError().message();
    return result;
  }
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  return importModelBytes(context, (*buffer)->getBuffer(), dir, path, options);
}

LogicalResult loom::onnx_import::parseInputShape(StringRef spec,
                                                 ImportOptions &options,
                                                 std::string &error) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || dims.empty() || !spec.contains('=')) {
    error = "--input-shape expects NAME=DxDx..., got '" + spec.str() + "'";
    return failure();
  }
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  // `NAME=scalar` fixes a rank-0 input.
  if (dims != "scalar")
    dims.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t d;
    if (part == "?") {
      shape.push_back(ShapedType::kDynamic);
    } else if (part.getAsInteger(10, d) || d < 0) {
      error = "--input-shape for '" + name.str() + "': '" + part.str() +
              "' is not a dimension (a non-negative integer or ?)";
      return failure();
    } else {
      shape.push_back(d);
    }
  }
  options.inputShapes[name] = shape;
  return success();
}
