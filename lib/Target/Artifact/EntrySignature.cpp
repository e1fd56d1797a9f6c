//===- EntrySignature.cpp - The tensors an artifact's entry takes ---------===//

#include "loom/Target/Artifact/EntrySignature.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/runtime/ABI.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include <optional>

using namespace mlir;
using namespace loom;
using loom::nn::ConstantOp;
using loom::nn::ParameterOp;

namespace {

/// Bools and 4-bit integers take a byte each (the 4-bit ones hold their
/// sign- or zero-extended value).
uint64_t elementBytes(Type t) {
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

/// The bytes of a tensor of type `t`, or nothing when they would not fit in
/// int64 (what loomrun refuses as "a tensor too large to address": the
/// product of the non-zero extents and the element size, checked).
std::optional<uint64_t> checkedByteSize(RankedTensorType t) {
  int64_t nonZero = 1;
  bool empty = false;
  for (int64_t d : t.getShape()) {
    if (d == 0)
      empty = true;
    else if (d < 0 || llvm::MulOverflow(nonZero, d, nonZero))
      return std::nullopt;
  }
  int64_t bytes;
  if (llvm::MulOverflow(nonZero, int64_t(elementBytes(t.getElementType())),
                        bytes))
    return std::nullopt;
  return empty ? 0 : uint64_t(bytes);
}

/// An error at `fn` when `t` (of `what`, e.g. "result #0 ('y')") has more
/// bytes than loomrun can address.
LogicalResult checkAddressable(func::FuncOp fn, RankedTensorType t,
                               const Twine &what) {
  if (checkedByteSize(t))
    return success();
  return emitError(fn.getLoc())
         << what << " has type " << t
         << ", more bytes than a 64-bit size holds: loomrun could not "
            "address it";
}

StringRef nameAttrOf(DictionaryAttr attrs) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(nn::kNameAttrName))
      return name.getValue();
  return "";
}

/// Records that `spec` (of per-device type) is a block of a global tensor;
/// fails when the global extents overflow int64.
LogicalResult setSharding(TensorSpec &spec, dist::ShardingAttr sharding,
                          Operation *from) {
  auto mesh = SymbolTable::lookupNearestSymbolFrom<dist::MeshOp>(
      from, sharding.getMesh());
  if (!mesh || sharding.isReplicated())
    return success();
  SmallVector<int64_t> global(spec.type.getShape());
  for (auto [d, dim] : llvm::enumerate(sharding.getDims()))
    if (d < global.size() &&
        llvm::MulOverflow(global[d], mesh.getGroupSize(dim.getAxes()),
                          global[d]))
      return failure();
  spec.sharding = sharding;
  spec.globalType = spec.type.clone(global);
  return success();
}

/// If every use of `param` is one chain of take_shards (what
/// -dist-partition writes for a split parameter), the layout the chain
/// selects and its last value; the runtime then slices the parameter once at
/// load time instead of on every run.
std::optional<std::pair<dist::ShardingAttr, Value>>
parameterShard(ParameterOp param) {
  Value v = param.getResult();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<SmallVector<StringAttr>> dims(type.getRank());
  FlatSymbolRefAttr mesh;
  while (v.hasOneUse()) {
    auto take = dyn_cast<dist::TakeShardOp>(*v.getUsers().begin());
    if (!take || (mesh && take.getMeshAttr() != mesh))
      break;
    mesh = take.getMeshAttr();
    for (Attribute a : take.getMeshAxes())
      dims[take.getDim()].push_back(cast<StringAttr>(a));
    v = take.getResult();
  }
  if (!mesh)
    return std::nullopt;
  MLIRContext *ctx = param.getContext();
  SmallVector<dist::DimShardingAttr> attrs;
  for (auto &axes : dims)
    attrs.push_back(dist::DimShardingAttr::get(ctx, axes, false));
  return std::make_pair(
      dist::ShardingAttr::get(ctx, mesh, attrs, {}, ReductionKind::Sum), v);
}

/// The value a parameter's argument replaces (its last take_shard, or the
/// parameter itself), and the argument's layout.
std::pair<Value, dist::ShardingAttr> parameterArgument(ParameterOp op) {
  if (auto shard = parameterShard(op))
    return {shard->second, shard->first};
  return {op.getResult(), {}};
}

} // namespace

std::string loom::dtypeName(Type t) {
  if (t.isF32())
    return "float32";
  if (t.isF64())
    return "float64";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  if (isa<Float8E4M3FNType>(t))
    return "float8e4m3fn";
  if (isa<Float8E4M3FNUZType>(t))
    return "float8e4m3fnuz";
  if (isa<Float8E5M2Type>(t))
    return "float8e5m2";
  if (isa<Float8E5M2FNUZType>(t))
    return "float8e5m2fnuz";
  if (t.isInteger(1))
    return "bool";
  if (auto it = dyn_cast<IntegerType>(t))
    return (it.isUnsigned() ? "uint" : "int") + std::to_string(it.getWidth());
  return "";
}

std::string loom::tensorBytes(ElementsAttr attr) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
      ArrayRef<char> data = blob->getData();
      return std::string(data.data(), data.size());
    }
    return "";
  }
  auto dense = cast<DenseElementsAttr>(attr);
  Type et = dense.getElementType();
  if (et.isInteger(4)) {
    std::string out;
    for (const APInt &v : dense.getValues<APInt>())
      out.push_back(char(
          (et.isUnsignedInteger() ? v.zext(8) : v.sext(8)).getZExtValue()));
    return out;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return std::string(raw.data(), raw.size());
  std::string out;
  int64_t n = dense.getNumElements();
  out.reserve(raw.size() * n);
  for (int64_t i = 0; i < n; ++i)
    out.append(raw.data(), raw.size());
  return out;
}

FailureOr<func::FuncOp> loom::findEntry(ModuleOp module) {
  func::FuncOp entry;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal() || fn.isPrivate())
      continue;
    if (entry) {
      emitError(fn.getLoc())
          << "cannot compile a module with more than one public function ('@"
          << entry.getSymName() << "' and '@" << fn.getSymName() << "')";
      return failure();
    }
    entry = fn;
  }
  if (!entry) {
    emitError(module.getLoc())
        << "the module has no public function to compile";
    return failure();
  }
  return entry;
}

FailureOr<EntrySignature> loom::collectEntrySignature(func::FuncOp fn) {
  EntrySignature sig;
  FunctionType type = fn.getFunctionType();
  auto record = [&](TypeRange types, StringRef what, bool isArg,
                    SmallVectorImpl<TensorSpec> &specs) -> LogicalResult {
    for (auto [i, t] : llvm::enumerate(types)) {
      DictionaryAttr attrs =
          isArg ? fn.getArgAttrDict(i) : fn.getResultAttrDict(i);
      std::string name = nameAttrOf(attrs).str();
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt || !rt.hasStaticShape() || dtypeName(rt.getElementType()).empty())
        return emitError(fn.getLoc())
               << what << " #" << i << " ('" << name << "') has type " << t
               << "; compiled programs need tensors of static shape (fix "
                  "dynamic dimensions with --input-shape)";
      if (name.empty())
        name = (isArg ? "input" : "output") + std::to_string(i);
      // loomrun selects inputs and outputs by name (--input NAME=...) and
      // refuses a manifest that names two alike.
      for (auto [j, other] : llvm::enumerate(specs))
        if (other.name == name)
          return emitError(fn.getLoc())
                 << what << " #" << i << " is named '" << name << "' like "
                 << what << " #" << j
                 << "; the inputs, and the results, of a compiled program "
                    "need distinct names";
      TensorSpec spec{name, rt, {}, 0, 0};
      std::string described =
          (what + " #" + Twine(i) + " ('" + name + "')").str();
      if (failed(checkAddressable(fn, rt, described)))
        return failure();
      if (attrs)
        if (auto sharding =
                attrs.getAs<dist::ShardingAttr>(dist::kShardingAttrName)) {
          if (failed(setSharding(spec, sharding, fn)))
            return emitError(fn.getLoc())
                   << "the whole tensor of " << described
                   << " has more elements than a 64-bit size holds";
          if (spec.globalType &&
              failed(checkAddressable(fn, spec.globalType,
                                      "the whole tensor of " + described)))
            return failure();
        }
      specs.push_back(spec);
    }
    return success();
  };
  if (failed(record(type.getInputs(), "input", true, sig.inputs)) ||
      failed(record(type.getResults(), "result", false, sig.outputs)))
    return failure();

  // One parameter per distinct name, in the order the body first names it.
  llvm::StringMap<unsigned> byName;
  uint64_t offset = 0;
  WalkResult walk = fn.walk([&](ParameterOp op) -> WalkResult {
    auto [replaced, layout] = parameterArgument(op);
    auto localType = cast<RankedTensorType>(replaced.getType());
    auto it = byName.find(op.getName());
    if (it != byName.end()) {
      const TensorSpec &first = sig.params[it->second];
      if (first.type == localType && first.sharding == layout)
        return WalkResult::advance();
      op.emitError("parameter '")
          << op.getName()
          << "' appears with two types or layouts: " << first.type << " and "
          << localType;
      return WalkResult::interrupt();
    }
    auto rt = cast<RankedTensorType>(op.getType());
    std::optional<uint64_t> nbytes = checkedByteSize(rt);
    if (!nbytes || !checkedByteSize(localType)) {
      op.emitError("parameter '")
          << op.getName() << "' has type " << rt
          << ", more bytes than a 64-bit size holds: loomrun could not "
             "address it";
      return WalkResult::interrupt();
    }
    TensorSpec spec{op.getName().str(), localType, op.getValue(), offset,
                    *nbytes};
    if (layout) {
      spec.sharding = layout;
      spec.globalType = rt;
    }
    spec.zeroInit = op->hasAttr(nn::kZeroInitAttrName);
    if (auto update = op->getAttrOfType<StringAttr>(nn::kUpdateAttrName))
      spec.update = update.str();
    if (spec.zeroInit) {
      spec.nbytes = 0;
    } else {
      // The parameter file's offsets are int64 too.
      constexpr uint64_t limit = uint64_t(INT64_MAX) - LOOM_ALIGNMENT;
      if (spec.nbytes > limit || offset > limit - spec.nbytes) {
        op.emitError("parameter '")
            << op.getName()
            << "' ends beyond what a 64-bit offset addresses: the "
               "parameters are too large together";
        return WalkResult::interrupt();
      }
      offset = llvm::alignTo(offset + spec.nbytes, LOOM_ALIGNMENT);
    }
    byName[op.getName()] = sig.params.size();
    sig.params.push_back(spec);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return sig;
}

void loom::applyEntrySignature(func::FuncOp fn, const EntrySignature &sig) {
  MLIRContext *ctx = fn.getContext();
  llvm::StringMap<unsigned> byName;
  for (auto [i, spec] : llvm::enumerate(sig.params)) {
    byName[spec.name] = i;
    fn.insertArgument(i, spec.type, {}, fn.getLoc());
  }
  Block &body = fn.getBody().front();
  SmallVector<ParameterOp> paramOps;
  fn.walk([&](ParameterOp op) { paramOps.push_back(op); });
  for (ParameterOp op : paramOps) {
    Value replaced = parameterArgument(op).first;
    replaced.replaceAllUsesWith(body.getArgument(byName.lookup(op.getName())));
    // The chain of take_shards, last first, then the parameter.
    Operation *def = replaced.getDefiningOp();
    while (def != op.getOperation()) {
      Operation *prev = def->getOperand(0).getDefiningOp();
      def->erase();
      def = prev;
    }
    op.erase();
  }
  // Layouts are in the signature now; bufferized types cannot carry them.
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.removeArgAttr(i, dist::kShardingAttrName);
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    fn.removeResultAttr(i, StringAttr::get(ctx, dist::kShardingAttrName));
  fn->removeAttr(dist::kSPMDAttrName);
  // The program never writes its parameters and inputs (they may be
  // read-only mappings); bufferization must copy before writing.
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                  BoolAttr::get(ctx, false));
  // Parameters also stay at one address while the program is loaded, which
  // lets GEMM kernels keep them packed; those a training step updates change
  // between runs and must not be.
  for (auto [i, spec] : llvm::enumerate(sig.params))
    if (spec.update.empty())
      fn.setArgAttr(i, nn::kImmutableAttrName, UnitAttr::get(ctx));

  // Constants backed by resource blobs become plain dense attributes, which
  // the LLVM translation emits as globals.
  fn.walk([&](ConstantOp op) {
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue())) {
      std::string bytes = tensorBytes(resource);
      op.setValueAttr(DenseElementsAttr::getFromRawBuffer(
          resource.getType(), ArrayRef<char>(bytes.data(), bytes.size())));
    }
  });
}
