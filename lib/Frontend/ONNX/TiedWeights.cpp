//===- TiedWeights.cpp - What exporters did to weights, undone ------------===//
//
// torch.onnx.export stores a weight used in two places (GPT-2's wte and
// lm_head) as two initializers when it folds the transpose of one use into a
// constant: training would then update two copies. A float initializer whose
// data equals another's, or the transpose of another's (2-D), becomes a use
// of that one, and a remark names both. Tensors whose elements are all equal
// (zero biases, unit norms) are not evidence of a copy and stay apart.
//
// The exporter also does the opposite: it merges initializers of equal
// value (the unit weights of every norm layer, the zero biases) into one,
// and names the others by Identity nodes of it. An Identity of an
// initializer whose elements are all equal becomes a parameter of its own,
// named by the Identity's output, with a remark. (A weight PyTorch really
// shares is exported once, read directly, with no Identity.)
//
// Folding also renames: an nn.Linear weight becomes "onnx::MatMul_474",
// stored transposed. When one module's MatMul nodes are its only readers
// ("/m/lm_head/MatMul"), it is named after the module ("m.lm_head.weight")
// and stored as PyTorch does, read through a transpose, so checkpoints
// carry the module's names and layouts.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include <algorithm>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace loom;

namespace {
/// The raw bytes of a parameter's value; empty for splats.
ArrayRef<char> rawBytes(ElementsAttr attr) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
    return {};
  }
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || dense.isSplat())
    return {};
  return dense.getRawData();
}

/// Whether all `n` elements of `bytes` (each `width` bytes) are equal.
bool allEqual(ArrayRef<char> bytes, size_t width) {
  for (size_t i = width; i + width <= bytes.size(); i += width)
    if (std::memcmp(bytes.data(), bytes.data() + i, width) != 0)
      return false;
  return true;
}

/// Whether `b` ([cols, rows]) is the transpose of `a` ([rows, cols]).
bool isTranspose(ArrayRef<char> a, ArrayRef<char> b, int64_t rows, int64_t cols,
                 size_t width) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (std::memcmp(a.data() + (r * cols + c) * width,
                      b.data() + (c * rows + r) * width, width) != 0)
        return false;
  return true;
}

/// Whether every element of `attr` is equal (splats included).
bool isUniform(ElementsAttr attr, Type element) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr); dense && dense.isSplat())
    return true;
  ArrayRef<char> bytes = rawBytes(attr);
  unsigned bits = element.getIntOrFloatBitWidth();
  return !bytes.empty() && bits % 8 == 0 && allEqual(bytes, bits / 8);
}

struct Candidate {
  nn::ParameterOp op;
  ArrayRef<char> bytes;
  RankedTensorType type;
  size_t width;
};
} // namespace

void loom::onnx_import::tieExportedCopies(func::FuncOp fn) {
  SmallVector<Candidate> candidates;
  for (auto param : fn.getBody().front().getOps<nn::ParameterOp>()) {
    auto type = cast<RankedTensorType>(param.getType());
    unsigned bits = type.getElementType().getIntOrFloatBitWidth();
    ArrayRef<char> bytes = rawBytes(param.getValue());
    size_t width = bits / 8;
    if (bits % 8 != 0 || bytes.empty() ||
        bytes.size() != size_t(type.getNumElements()) * width ||
        allEqual(bytes, width))
      continue;
    candidates.push_back({param, bytes, type, width});
  }
  // Buckets by element count and type keep the comparisons few.
  llvm::DenseMap<std::pair<int64_t, Type>, SmallVector<unsigned>> buckets;
  for (auto [i, c] : llvm::enumerate(candidates))
    buckets[{c.type.getNumElements(), c.type.getElementType()}].push_back(i);
  llvm::SmallDenseSet<unsigned> tied;
  for (auto &entry : buckets) {
    ArrayRef<unsigned> members = entry.second;
    for (auto [k, i] : llvm::enumerate(members)) {
      if (tied.contains(i))
        continue;
      Candidate &keep = candidates[i];
      for (unsigned j : members.drop_front(k + 1)) {
        if (tied.contains(j))
          continue;
        Candidate &copy = candidates[j];
        ArrayRef<int64_t> ks = keep.type.getShape(), cs = copy.type.getShape();
        bool same = ks == cs && keep.bytes == copy.bytes;
        bool transposed =
            !same && ks.size() == 2 && cs.size() == 2 && ks[0] == cs[1] &&
            ks[1] == cs[0] &&
            isTranspose(keep.bytes, copy.bytes, ks[0], ks[1], keep.width);
        if (!same && !transposed)
          continue;
        OpBuilder b(copy.op);
        Value replacement = keep.op.getResult();
        if (transposed)
          replacement = b.create<nn::TransposeOp>(
              copy.op.getLoc(), replacement, b.getDenseI64ArrayAttr({1, 0}));
        copy.op.emitRemark(transposed ? "the transpose" : "a copy")
            << " of initializer '" << keep.op.getName()
            << "' (an exporter's copy of one weight): tied to it";
        copy.op.getResult().replaceAllUsesWith(replacement);
        copy.op.erase();
        tied.insert(j);
      }
    }
  }
}

llvm::DenseMap<unsigned, Value> loom::onnx_import::untieMergedInitializers(
    const onnx::GraphProto &graph, const llvm::StringMap<Value> &values,
    const llvm::StringSet<> &initializerNames, OpBuilder &b) {
  llvm::DenseMap<unsigned, Value> untied;
  llvm::MapVector<nn::ParameterOp, SmallVector<std::string>> merged;
  llvm::StringSet<> taken;
  for (const auto &entry : initializerNames)
    taken.insert(entry.getKey());
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    if (node.op_type() != "Identity" || node.input_size() != 1 ||
        node.output_size() != 1 || !initializerNames.contains(node.input(0)))
      continue;
    auto param = values.lookup(node.input(0)).getDefiningOp<nn::ParameterOp>();
    const std::string &name = node.output(0);
    if (!param || name.empty() ||
        !isUniform(param.getValue(), param.getType().getElementType()) ||
        !taken.insert(name).second)
      continue;
    untied[i] =
        b.create<nn::ParameterOp>(param.getLoc(), name, param.getValue());
    merged[param].push_back(name);
  }
  for (auto &[param, names] : merged) {
    auto remark = param.emitRemark("every element is equal, and the exporter "
                                   "merged ")
                  << names.size()
                  << (names.size() == 1 ? " parameter" : " parameters")
                  << " of equal value into it, named by Identity nodes; each "
                     "is a parameter of its own again:";
    for (const std::string &name : names)
      remark << " '" << name << "'";
  }
  return untied;
}

llvm::StringMap<std::string>
loom::onnx_import::torchLinearNames(const onnx::GraphProto &graph) {
  llvm::StringSet<> taken;
  for (const onnx::TensorProto &t : graph.initializer())
    taken.insert(t.name());
  for (const onnx::ValueInfoProto &v : graph.input())
    taken.insert(v.name());
  // Each candidate's module, or "" once a reader disqualifies it.
  llvm::StringMap<std::string> scope;
  for (const onnx::TensorProto &t : graph.initializer())
    if (StringRef(t.name()).starts_with("onnx::MatMul") && t.dims_size() == 2)
      scope[t.name()] = "?";
  for (const onnx::NodeProto &node : graph.node()) {
    StringRef name = node.name();
    for (auto [k, in] : llvm::enumerate(node.input())) {
      auto it = scope.find(in);
      if (it == scope.end() || it->second.empty())
        continue;
      std::string module;
      size_t slash = name.rfind('/');
      if (node.op_type() == "MatMul" && k == 1 && name.starts_with("/") &&
          slash != StringRef::npos && slash > 1 &&
          name.drop_front(slash + 1).starts_with("MatMul")) {
        module = name.slice(1, slash).str();
        std::replace(module.begin(), module.end(), '/', '.');
      }
      if (module.empty() || (it->second != "?" && it->second != module))
        it->second = "";
      else
        it->second = module;
    }
  }
  llvm::StringMap<std::string> names;
  for (auto &entry : scope) {
    if (entry.second.empty() || entry.second == "?")
      continue;
    std::string torchName = entry.second + ".weight";
    if (taken.insert(torchName).second)
      names[entry.getKey()] = torchName;
  }
  return names;
}

FailureOr<ElementsAttr> loom::onnx_import::transposedResource(ElementsAttr attr,
                                                              StringRef name) {
  auto type = cast<RankedTensorType>(attr.getType());
  ArrayRef<char> bytes = rawBytes(attr);
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (type.getRank() != 2 || bits % 8 != 0 || bytes.empty())
    return failure();
  size_t width = bits / 8;
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if (bytes.size() != size_t(rows * cols) * width)
    return failure();
  std::vector<char> out(bytes.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out.data() + (c * rows + r) * width,
                  bytes.data() + (r * cols + c) * width, width);
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(out), width);
  auto transposed = RankedTensorType::get({cols, rows}, type.getElementType());
  return ElementsAttr(
      DenseResourceElementsAttr::get(transposed, name, std::move(blob)));
}
