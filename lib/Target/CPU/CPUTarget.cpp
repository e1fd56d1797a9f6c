//===- CPUTarget.cpp - Compile nn modules to native CPU artifacts ---------===//

#include "loom/Target/CPUTarget.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace loom;
using namespace loom::cpu;
using loom::nn::ConstantOp;
using loom::nn::ParameterOp;

namespace {

/// Replaces f32 transcendental math with polynomial approximations, which
/// LLVM vectorises (libm calls would keep loops scalar).
struct ApproximateMath : PassWrapper<ApproximateMath, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMath)
  StringRef getArgument() const override { return "loom-approximate-math"; }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// Fuses elementwise producers into consumers that read each produced
/// element once (elementwise ops and reductions). Upstream's default would
/// also fuse into matmuls, recomputing the producer for every output column
/// and taking the matmul away from BLAS.
struct FuseElementwise : PassWrapper<FuseElementwise, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseElementwise)
  StringRef getArgument() const override { return "loom-fuse-elementwise"; }
  StringRef getDescription() const override {
    return "Fuse elementwise linalg.generics into consumers that read each "
           "element once";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
      if (!producer || !consumer || !producer->hasOneUse())
        return false;
      AffineMap map = consumer.getMatchingIndexingMap(operand);
      return map.isPermutation();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// Ops with fewer loop iterations run on one thread: below this, waking
/// the pool costs more than it saves.
constexpr int64_t kMinParallelIterations = 1 << 15;

/// The function attribute (an LLVM string attribute after translation) that
/// marks an outlined op whose first loop runs in parallel over [0, value).
constexpr const char *kParallelExtentAttr = "loom-parallel-extent";

/// For each operand of `op`, the position of its dimension indexed by loop 0
/// (-1 if loop 0 does not index it), or failure if loop 0 appears in a
/// compound index (a convolution window), where the op cannot be split.
FailureOr<SmallVector<int64_t>> outerLoopPositions(linalg::LinalgOp op) {
  SmallVector<int64_t> positions;
  llvm::DenseMap<Value, int64_t> byValue;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    int64_t position = -1;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(0))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || position != -1)
        return failure();
      position = i;
    }
    // One buffer read through two maps can be narrowed only one way.
    auto [it, inserted] = byValue.try_emplace(operand.get(), position);
    if (!inserted && it->second != position)
      return failure();
    positions.push_back(position);
  }
  return positions;
}

/// Moves every linalg op on buffers into its own internal, non-inlined
/// function. One function per op keeps LLVM's loop analyses (quadratic in
/// function size) fast on large models, and names each op in profiles.
/// When an op's first loop is parallel and the op is big enough, the
/// function takes the range [lo, hi) of that loop and works on subviews;
/// the caller passes the whole range, and the artifact build turns the call
/// into `loom_parallel_for` over the runtime's thread pool.
struct OutlineKernels : PassWrapper<OutlineKernels, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutlineKernels)
  StringRef getArgument() const override { return "loom-outline-kernels"; }
  StringRef getDescription() const override {
    return "Outline each linalg op on buffers into a non-inlined function";
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::LinalgOp> ops;
    for (auto fn : module.getOps<func::FuncOp>())
      fn.walk([&](linalg::LinalgOp op) {
        if (op.hasPureBufferSemantics() &&
            !op->getParentOfType<linalg::LinalgOp>())
          ops.push_back(op);
      });
    OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
    auto internal =
        LLVM::LinkageAttr::get(ctx, LLVM::linkage::Linkage::Internal);
    unsigned counter = 0;
    for (linalg::LinalgOp op : ops) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      llvm::SetVector<Value> args(op->operand_begin(), op->operand_end());
      SmallVector<Operation *> constants;
      for (Value v : captured) {
        Operation *def = v.getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>())
          constants.push_back(def);
        else
          args.insert(v);
      }
      // Split the first loop across threads?
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t iterations = 1;
      for (int64_t r : ranges)
        iterations = ShapedType::isDynamic(r) ? 0 : iterations * r;
      FailureOr<SmallVector<int64_t>> positions = outerLoopPositions(op);
      bool parallel =
          !ranges.empty() && ranges[0] >= 2 &&
          iterations >= kMinParallelIterations &&
          op.getIteratorTypesArray()[0] == utils::IteratorType::parallel &&
          succeeded(positions);

      SmallVector<Type> types;
      for (Value v : args)
        types.push_back(v.getType());
      if (parallel)
        types.append(2, mb.getIndexType());
      std::string name =
          ("loom_op" + Twine(counter++) + "_" + op->getName().stripDialect())
              .str();
      auto fn = mb.create<func::FuncOp>(op.getLoc(), name,
                                        mb.getFunctionType(types, {}));
      fn.setPrivate();
      fn->setAttr("llvm.linkage", internal);
      SmallVector<Attribute> passthrough{StringAttr::get(ctx, "noinline")};
      if (parallel)
        passthrough.push_back(ArrayAttr::get(
            ctx, {StringAttr::get(ctx, kParallelExtentAttr),
                  StringAttr::get(ctx, Twine(ranges[0]).str())}));
      fn->setAttr("passthrough", ArrayAttr::get(ctx, passthrough));
      Block *body = fn.addEntryBlock();
      OpBuilder b = OpBuilder::atBlockBegin(body);
      IRMapping mapping;
      for (auto [v, arg] : llvm::zip(args, body->getArguments()))
        mapping.map(v, arg);
      for (Operation *c : constants)
        b.clone(*c, mapping);
      Value lo, hi;
      if (parallel) {
        lo = body->getArgument(args.size());
        hi = body->getArgument(args.size() + 1);
        Value size = b.create<arith::SubIOp>(op.getLoc(), hi, lo);
        // Each operand indexed by loop 0 is narrowed to [lo, hi).
        llvm::SmallPtrSet<Value, 8> narrowed;
        for (auto [operand, position] :
             llvm::zip(op->getOperands(), *positions)) {
          if (position < 0 || !narrowed.insert(operand).second)
            continue;
          auto type = cast<MemRefType>(operand.getType());
          SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
          SmallVector<OpFoldResult> sizes,
              strides(type.getRank(), b.getIndexAttr(1));
          for (int64_t d : type.getShape())
            sizes.push_back(b.getIndexAttr(d));
          offsets[position] = lo;
          sizes[position] = size;
          Value view = b.create<memref::SubViewOp>(
              op.getLoc(), mapping.lookup(operand), offsets, sizes, strides);
          mapping.map(operand, view);
        }
      }
      Operation *clone = b.clone(*op, mapping);
      if (parallel) {
        // Loop 0 now counts from lo.
        clone->walk([&](linalg::IndexOp index) {
          if (index.getDim() != 0)
            return;
          OpBuilder ib(index->getNextNode());
          auto shifted = ib.create<arith::AddIOp>(index.getLoc(), index, lo);
          index.getResult().replaceAllUsesExcept(shifted, shifted);
        });
      }
      b.create<func::ReturnOp>(op.getLoc());
      OpBuilder cb(op);
      SmallVector<Value> callArgs(args.begin(), args.end());
      if (parallel) {
        callArgs.push_back(cb.create<arith::ConstantIndexOp>(op.getLoc(), 0));
        callArgs.push_back(
            cb.create<arith::ConstantIndexOp>(op.getLoc(), ranges[0]));
      }
      cb.create<func::CallOp>(op.getLoc(), fn, callArgs);
      op->erase();
    }
  }
};

/// The pipeline from nn on tensors to the LLVM dialect.
constexpr const char *kLinalgPipeline =
    "convert-nn-to-linalg,canonicalize,cse,loom-fuse-elementwise,"
    "canonicalize,cse,convert-dist-to-runtime";
constexpr const char *kLLVMPipeline =
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs=true},"
    "convert-linalg-to-kernels,"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
    "loom-outline-kernels,"
    "convert-linalg-to-loops,canonicalize,cse,expand-strided-metadata,"
    "lower-affine,loom-approximate-math,convert-math-to-funcs,"
    "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
    "finalize-memref-to-llvm{use-generic-functions},convert-arith-to-llvm,"
    "convert-index-to-llvm,"
    "convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts";

constexpr const char *kEntryName = "loom_entry";
// The entry calling convention and the first kernels.
constexpr int kBaseABI = 1;
// Imported only by programs with a GEMM against a parameter (ABI 2).
constexpr int kConstBGemmABI = 2;
constexpr const char *kConstBGemmSymbol =
    "_mlir_ciface_loom_kernel_gemm_const_b_f32";
constexpr const char *kProgramName = "loom_program";

// Imported by partitioned programs (ABI 3).
constexpr const char *kCollectivePrefix = "loom_coll_";

struct TensorSpec {
  std::string name;
  /// The per-device type (the whole tensor's when not split).
  RankedTensorType type;
  ElementsAttr value; // parameters only
  uint64_t offset = 0;
  /// Bytes in the parameter file: the whole (global) tensor's.
  uint64_t nbytes = 0;
  /// Which block of the global tensor a device holds; null when whole.
  dist::ShardingAttr sharding = {};
  RankedTensorType globalType = {};
  /// Training state: starts as zeros (no bytes in the parameter file).
  bool zeroInit = false;
  /// Training state: the output that replaces it after a step.
  std::string update;
};

std::string dtypeName(Type t) {
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

/// Bools and 4-bit integers take a byte each (the 4-bit ones hold their
/// sign- or zero-extended value).
uint64_t elementBytes(Type t) {
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

uint64_t byteSize(RankedTensorType t) {
  return static_cast<uint64_t>(t.getNumElements()) *
         elementBytes(t.getElementType());
}

/// The bytes of a float or wide-integer elements attribute, row-major.
std::string rawBytes(ElementsAttr attr) {
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

StringRef nameAttrOf(DictionaryAttr attrs) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>(nn::kNameAttrName))
      return name.getValue();
  return "";
}

FailureOr<func::FuncOp> findEntry(ModuleOp module) {
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

/// Records that `spec` (of per-device type) is a block of a global tensor.
void setSharding(TensorSpec &spec, dist::ShardingAttr sharding,
                 Operation *from) {
  auto mesh = SymbolTable::lookupNearestSymbolFrom<dist::MeshOp>(
      from, sharding.getMesh());
  if (!mesh || sharding.isReplicated())
    return;
  SmallVector<int64_t> global(spec.type.getShape());
  for (auto [d, dim] : llvm::enumerate(sharding.getDims()))
    global[d] *= mesh.getGroupSize(dim.getAxes());
  spec.sharding = sharding;
  spec.globalType = spec.type.clone(global);
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

/// Checks the signature, moves parameters to leading arguments and records
/// what the manifest lists.
LogicalResult prepareEntry(func::FuncOp fn, SmallVectorImpl<TensorSpec> &params,
                           SmallVectorImpl<TensorSpec> &inputs,
                           SmallVectorImpl<TensorSpec> &outputs) {
  auto checkType = [&](Type t, StringRef what, unsigned i,
                       StringRef name) -> LogicalResult {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape() || dtypeName(rt.getElementType()).empty())
      return emitError(fn.getLoc())
             << what << " #" << i << " ('" << name << "') has type " << t
             << "; the CPU backend needs tensors of static shape (fix "
                "dynamic dimensions with --input-shape)";
    return success();
  };
  FunctionType type = fn.getFunctionType();
  auto record = [&](TypeRange types, StringRef what, bool isArg,
                    SmallVectorImpl<TensorSpec> &specs) {
    for (auto [i, t] : llvm::enumerate(types)) {
      std::string name =
          nameAttrOf(isArg ? fn.getArgAttrDict(i) : fn.getResultAttrDict(i))
              .str();
      if (failed(checkType(t, what, i, name)))
        return failure();
      if (name.empty())
        name = (isArg ? "input" : "output") + std::to_string(i);
      TensorSpec spec{name, cast<RankedTensorType>(t), {}, 0, 0};
      DictionaryAttr attrs =
          isArg ? fn.getArgAttrDict(i) : fn.getResultAttrDict(i);
      if (attrs)
        if (auto sharding =
                attrs.getAs<dist::ShardingAttr>(dist::kShardingAttrName))
          setSharding(spec, sharding, fn);
      specs.push_back(spec);
    }
    return success();
  };
  if (failed(record(type.getInputs(), "input", true, inputs)) ||
      failed(record(type.getResults(), "result", false, outputs)))
    return failure();

  // Parameters become leading arguments; one argument per distinct name.
  llvm::StringMap<unsigned> byName;
  SmallVector<ParameterOp> paramOps;
  fn.walk([&](ParameterOp op) { paramOps.push_back(op); });
  Block &body = fn.getBody().front();
  uint64_t offset = 0;
  for (ParameterOp op : paramOps) {
    // A split parameter's argument is the device's block.
    auto shard = parameterShard(op);
    Value replaced = shard ? shard->second : op.getResult();
    auto localType = cast<RankedTensorType>(replaced.getType());
    auto it = byName.find(op.getName());
    if (it == byName.end()) {
      unsigned index = params.size();
      auto rt = cast<RankedTensorType>(op.getType());
      uint64_t nbytes = byteSize(rt);
      TensorSpec spec{op.getName().str(), localType, op.getValue(), offset,
                      nbytes};
      if (shard) {
        spec.sharding = shard->first;
        spec.globalType = rt;
      }
      spec.zeroInit = op->hasAttr(nn::kZeroInitAttrName);
      if (auto update = op->getAttrOfType<StringAttr>(nn::kUpdateAttrName))
        spec.update = update.str();
      if (spec.zeroInit)
        spec.nbytes = 0;
      else
        offset = llvm::alignTo(offset + nbytes, 64);
      params.push_back(spec);
      fn.insertArgument(index, localType, {}, op.getLoc());
      it = byName.insert({op.getName(), index}).first;
    }
    BlockArgument arg = body.getArgument(it->second);
    if (arg.getType() != localType ||
        params[it->second].sharding !=
            (shard ? shard->first : dist::ShardingAttr()))
      return op.emitError("parameter '")
             << op.getName()
             << "' appears with two types or layouts: " << arg.getType()
             << " and " << localType;
    replaced.replaceAllUsesWith(arg);
    // The chain of take_shards, last first, then the parameter.
    Operation *def = replaced.getDefiningOp();
    while (def != op.getOperation()) {
      Operation *prev = def->getOperand(0).getDefiningOp();
      def->erase();
      def = prev;
    }
    op.erase();
  }
  // Layouts are in the specs now; bufferized types cannot carry them.
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.removeArgAttr(i, dist::kShardingAttrName);
  for (unsigned i = 0; i < fn.getNumResults(); ++i)
    fn.removeResultAttr(
        i, StringAttr::get(fn.getContext(), dist::kShardingAttrName));
  fn->removeAttr(dist::kSPMDAttrName);
  // The program never writes its parameters and inputs (they may be
  // read-only mappings); bufferization must copy before writing.
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                  BoolAttr::get(fn.getContext(), false));
  // Parameters also stay at one address while the program is loaded, which
  // lets GEMM kernels keep them packed (-convert-linalg-to-kernels); those
  // a training step updates change between runs and must not be.
  for (unsigned i = 0; i < params.size(); ++i)
    if (params[i].update.empty())
      fn.setArgAttr(i, nn::kImmutableAttrName, UnitAttr::get(fn.getContext()));

  // Constants backed by resource blobs become plain dense attributes, which
  // the LLVM translation emits as globals.
  fn.walk([&](ConstantOp op) {
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(op.getValue())) {
      std::string bytes = rawBytes(resource);
      op.setValueAttr(DenseElementsAttr::getFromRawBuffer(
          resource.getType(), ArrayRef<char>(bytes.data(), bytes.size())));
    }
  });
  return success();
}

/// Gives every result its own buffer produced inside the function: MLIR
/// 19's buffer-results-to-out-params{hoist-static-allocs} crashes on a
/// returned argument, and two results must not share one out-parameter.
/// Runs on linalg, after the canonicalisations that fold copies away.
void copyAliasedResults(ModuleOp module) {
  FailureOr<func::FuncOp> entry = findEntry(module);
  if (failed(entry))
    return;
  func::FuncOp fn = *entry;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  OpBuilder builder(ret);
  llvm::SmallPtrSet<Value, 8> seen;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value v = operand.get();
    if (!isa<BlockArgument>(v) && seen.insert(v).second)
      continue;
    auto rt = cast<RankedTensorType>(v.getType());
    Value init = builder.create<tensor::EmptyOp>(ret.getLoc(), rt.getShape(),
                                                 rt.getElementType());
    operand.set(
        builder.create<linalg::CopyOp>(ret.getLoc(), v, init).getResult(0));
  }
}

/// Gives each use of a `tensor.empty` or of a `linalg.fill` of one its own
/// copy. CSE merges identical inits of different ops; bufferization then
/// sees two ops writing one buffer and copies it before each write.
void untieInits(ModuleOp module) {
  SmallVector<Operation *> shared;
  module.walk([&](Operation *op) {
    if (isa<tensor::EmptyOp, linalg::FillOp>(op) && op->getNumResults() == 1 &&
        !op->getResult(0).hasOneUse() && !op->getResult(0).use_empty())
      shared.push_back(op);
  });
  // Fills before their empties, so a cloned fill clones its own empty too.
  for (Operation *op : llvm::reverse(shared)) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      OpBuilder b(use->getOwner());
      IRMapping mapping;
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        if (auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
          mapping.map(empty.getResult(), b.clone(*empty)->getResult(0));
      use->set(b.clone(*op, mapping)->getResult(0));
    }
  }
}

LogicalResult runPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module.getContext());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os))) {
    emitError(module.getLoc()) << "internal error: bad pipeline: " << error;
    return failure();
  }
  return pm.run(module);
}

void registerTargetPasses() {
  static bool once = [] {
    mlir::registerAllPasses();
    registerLoomConversionPasses();
    PassRegistration<ApproximateMath>();
    PassRegistration<FuseElementwise>();
    PassRegistration<OutlineKernels>();
    return true;
  }();
  (void)once;
}

/// Shapes of the entry's buffers in call order (parameters, inputs,
/// outputs).
SmallVector<RankedTensorType> bufferTypes(ArrayRef<TensorSpec> params,
                                          ArrayRef<TensorSpec> inputs,
                                          ArrayRef<TensorSpec> outputs) {
  SmallVector<RankedTensorType> types;
  for (ArrayRef<TensorSpec> group : {params, inputs, outputs})
    for (const TensorSpec &s : group)
      types.push_back(s.type);
  return types;
}

/// Adds `void loom_entry(void **buffers)`, which builds the memref
/// descriptors of the contiguous buffers and calls the program.
LogicalResult addEntryWrapper(llvm::Module &module,
                              ArrayRef<RankedTensorType> types, Location loc) {
  llvm::Function *program = module.getFunction(kProgramName);
  if (!program)
    return emitError(loc) << "internal error: no " << kProgramName;
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *fnTy =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy}, false);
  llvm::Function *entry = llvm::Function::Create(
      fnTy, llvm::GlobalValue::ExternalLinkage, kEntryName, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  SmallVector<llvm::Value *> args;
  for (auto [i, t] : llvm::enumerate(types)) {
    llvm::Value *slot = b.CreateConstGEP1_64(ptrTy, entry->getArg(0), i);
    llvm::Value *p = b.CreateLoad(ptrTy, slot);
    args.append({p, p, llvm::ConstantInt::get(i64, 0)});
    for (int64_t d : t.getShape())
      args.push_back(llvm::ConstantInt::get(i64, d));
    int64_t stride = 1;
    SmallVector<llvm::Value *> strides;
    for (int64_t d : llvm::reverse(t.getShape())) {
      strides.push_back(llvm::ConstantInt::get(i64, stride));
      stride *= d;
    }
    args.append(strides.rbegin(), strides.rend());
  }
  if (program->arg_size() != args.size())
    return emitError(loc) << "internal error: " << kProgramName << " takes "
                          << program->arg_size() << " arguments, expected "
                          << args.size();
  b.CreateCall(program, args);
  b.CreateRetVoid();
  // Internal, so LLVM specialises it for the constant shapes and inlines it.
  program->setLinkage(llvm::GlobalValue::InternalLinkage);
  return success();
}

/// LLVM's O3 without loop unrolling: the loops have constant trip counts,
/// and fully unrolled and peeled copies of hundreds of loop nests cost
/// seconds of code generation for no measured speed-up. Vectorisation
/// (with interleaving) stays.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  // LLVM vectorises at 256 bits on AVX-512 CPUs by default (for the clock
  // penalty of 512-bit code). The kernels' GEMMs already run at 512 bits,
  // and the wide loops measured about 4% faster on the decoder benchmark.
  if (machine.getMCSubtargetInfo()->checkFeatures("+avx512f"))
    for (llvm::Function &f : module)
      if (!f.isDeclaration())
        f.addFnAttr("prefer-vector-width", "512");
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

/// Turns each call of an outlined op marked `loom-parallel-extent` into
/// `loom_parallel_for(task, ctx, extent)`: `task(ctx, lo, hi)` unpacks the
/// arguments the caller stored in `ctx` and calls the op on [lo, hi).
void addParallelDispatch(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *voidTy = llvm::Type::getVoidTy(ctx);
  llvm::FunctionCallee parallelFor = module.getOrInsertFunction(
      "loom_parallel_for", voidTy, ptrTy, ptrTy, i64);
  SmallVector<llvm::Function *> marked;
  for (llvm::Function &f : module)
    if (f.hasFnAttribute(kParallelExtentAttr))
      marked.push_back(&f);
  for (llvm::Function *f : marked) {
    int64_t extent = 0;
    if (f->getFnAttribute(kParallelExtentAttr)
            .getValueAsString()
            .getAsInteger(10, extent) ||
        f->arg_size() < 2)
      continue;
    f->removeFnAttr(kParallelExtentAttr);
    SmallVector<llvm::Type *> fields;
    for (llvm::Argument &arg : llvm::drop_end(f->args(), 2))
      fields.push_back(arg.getType());
    auto *frame = llvm::StructType::get(ctx, fields);
    auto *task = llvm::Function::Create(
        llvm::FunctionType::get(voidTy, {ptrTy, i64, i64}, false),
        llvm::GlobalValue::InternalLinkage, f->getName() + ".task", module);
    {
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", task));
      SmallVector<llvm::Value *> args;
      for (auto [i, t] : llvm::enumerate(fields))
        args.push_back(
            b.CreateLoad(t, b.CreateStructGEP(frame, task->getArg(0), i)));
      args.push_back(task->getArg(1));
      args.push_back(task->getArg(2));
      b.CreateCall(f, args);
      b.CreateRetVoid();
    }
    SmallVector<llvm::CallInst *> calls;
    for (llvm::User *user : f->users())
      if (auto *call = dyn_cast<llvm::CallInst>(user))
        if (call->getCalledFunction() == f && call->getFunction() != task)
          calls.push_back(call);
    for (llvm::CallInst *call : calls) {
      llvm::Function *caller = call->getFunction();
      llvm::IRBuilder<> entry(&caller->getEntryBlock(),
                              caller->getEntryBlock().begin());
      llvm::AllocaInst *slot = entry.CreateAlloca(frame);
      llvm::IRBuilder<> b(call);
      for (unsigned i = 0; i < fields.size(); ++i)
        b.CreateStore(call->getArgOperand(i),
                      b.CreateStructGEP(frame, slot, i));
      b.CreateCall(parallelFor,
                   {task, slot, llvm::ConstantInt::get(i64, extent)});
      call->eraseFromParent();
    }
  }
}

struct HostTarget {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::string triple, cpu;
  std::vector<std::string> features; // those the runtime checks
};

FailureOr<HostTarget> makeTarget(StringRef cpuOption, Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  HostTarget host;
  host.triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (!target)
    return emitError(loc) << "no LLVM target for " << host.triple << ": "
                          << error;
  std::string featureString;
  if (cpuOption == "native") {
    host.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    SmallVector<std::string> parts;
    for (auto &f : features)
      parts.push_back((f.second ? "+" : "-") + f.first().str());
    llvm::sort(parts);
    featureString = llvm::join(parts, ",");
  } else {
    host.cpu = cpuOption.str();
  }
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(host.triple, host.cpu, featureString));
  if (!sti || !sti->isCPUStringValid(host.cpu))
    return emitError(loc) << "unknown CPU '" << host.cpu
                          << "' for --cpu (try 'native', 'x86-64-v3' or "
                             "'skylake-avx512')";
  // Every enabled feature the runtime can test before running the program
  // (runtime/lib/Target.cpp): instructions from any of them may appear in
  // the code (AVX512-FP16 conversions, F16C, BMI ...), and a machine
  // without one must be refused rather than die of SIGILL.
  for (const char *checked : {"popcnt",      "sse3",       "ssse3",
                              "sse4.1",      "sse4.2",     "avx",
                              "avx2",        "fma",        "f16c",
                              "bmi",         "bmi2",       "lzcnt",
                              "movbe",       "adx",        "aes",
                              "pclmul",      "sha",        "xsave",
                              "gfni",        "vaes",       "vpclmulqdq",
                              "avxvnni",     "avx512f",    "avx512vl",
                              "avx512bw",    "avx512dq",   "avx512cd",
                              "avx512vbmi",  "avx512ifma", "avx512vpopcntdq",
                              "avx512vbmi2", "avx512vnni", "avx512bitalg",
                              "avx512bf16",  "avx512fp16"})
    if (sti->checkFeatures(std::string("+") + checked))
      host.features.push_back(checked);
  llvm::TargetOptions options;
  host.machine.reset(target->createTargetMachine(
      host.triple, host.cpu, featureString, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!host.machine)
    return emitError(loc) << "cannot create a target machine for "
                          << host.triple;
  return host;
}

LogicalResult writeFile(StringRef path, StringRef data, Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
  }
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  return success();
}

/// The manifest's `training` object (docs/Training.md), keys sorted as the
/// runtime's tests read them.
void writeTraining(llvm::json::OStream &j, nn::TrainingAttr t) {
  auto number = [&](StringRef key, const APFloat &v) {
    j.attribute(key, v.convertToDouble());
  };
  bool sgd = t.getOptimizer() == nn::Optimizer::SGD;
  j.object([&] {
    if (t.getBatch() > 0)
      j.attribute("batch", t.getBatch());
    if (!t.getClipGradNorm().isZero())
      number("clip_grad_norm", t.getClipGradNorm());
    j.attributeArray("data_inputs", [&] {
      for (Attribute name : t.getDataInputs())
        j.value(cast<StringAttr>(name).getValue());
    });
    number("flops_per_step", t.getFlopsPerStep());
    j.attribute("grad_accum", t.getGradAccum());
    j.attribute("grad_norm", t.getGradNorm());
    if (!t.getLabels().empty())
      j.attribute("labels", t.getLabels());
    j.attribute("loss", t.getLoss());
    j.attributeObject("lr_schedule", [&] {
      j.attribute("decay_steps", t.getDecaySteps());
      j.attribute("kind", nn::stringifyLRSchedule(t.getLrSchedule()));
      number("min_lr", t.getMinLr());
      j.attribute("warmup", t.getWarmup());
    });
    if (!t.getLabels().empty())
      j.attribute("num_classes", t.getNumClasses());
    j.attributeObject("optimizer", [&] {
      if (!sgd) {
        number("beta1", t.getBeta1());
        number("beta2", t.getBeta2());
        number("eps", t.getEps());
      }
      j.attribute("kind", nn::stringifyOptimizer(t.getOptimizer()));
      number("lr", t.getLr());
      if (sgd)
        number("momentum", t.getMomentum());
      number("weight_decay", t.getWeightDecay());
    });
    j.attributeObject("scalars", [&] {
      auto scalars = t.getScalarInputs();
      llvm::sort(scalars);
      for (auto [input, key] : scalars)
        j.attribute(input, key);
    });
    if (t.getTokensPerExample() > 0)
      j.attribute("tokens_per_example", t.getTokensPerExample());
    j.attribute("zero", t.getZero());
  });
}

std::string manifestJSON(ModuleOp module, ArrayRef<TensorSpec> params,
                         ArrayRef<TensorSpec> inputs,
                         ArrayRef<TensorSpec> outputs, const HostTarget &host,
                         const CompileOptions &options, int abi) {
  auto meshes = llvm::to_vector(module.getOps<dist::MeshOp>());
  dist::MeshOp mesh = meshes.empty() ? dist::MeshOp() : meshes.front();
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os, 2);
  auto tensor = [&](const TensorSpec &s, bool isParam) {
    j.object([&] {
      j.attribute("name", s.name);
      j.attribute("dtype", dtypeName(s.type.getElementType()));
      j.attributeArray("shape", [&] {
        for (int64_t d : s.type.getShape())
          j.value(d);
      });
      if (s.sharding) {
        j.attributeArray("global_shape", [&] {
          for (int64_t d : s.globalType.getShape())
            j.value(d);
        });
        j.attributeArray("sharding", [&] {
          for (dist::DimShardingAttr dim : s.sharding.getDims())
            j.array([&] {
              for (StringAttr a : dim.getAxes())
                j.value(a.getValue());
            });
        });
      }
      if (isParam && s.zeroInit) {
        j.attribute("init", "zeros");
      } else if (isParam) {
        j.attribute("offset", static_cast<int64_t>(s.offset));
        j.attribute("nbytes", static_cast<int64_t>(s.nbytes));
      }
      if (isParam && !s.update.empty())
        j.attribute("update", s.update);
    });
  };
  j.object([&] {
    j.attribute("format", "loom-artifact");
    // Version 2 adds the mesh; single-device artifacts stay readable by
    // older runtimes.
    // 3 adds training state.
    auto training =
        module->getAttrOfType<nn::TrainingAttr>(nn::kTrainingAttrName);
    j.attribute("format_version", training ? 3
                                  : mesh   ? 2
                                           : kArtifactFormatVersion);
    j.attribute("runtime_abi", abi);
    j.attribute("producer", "loomc " LOOM_VERSION);
    j.attribute("model", options.modelName);
    j.attributeObject("target", [&] {
      j.attribute("triple", host.triple);
      j.attribute("cpu", host.cpu);
      j.attributeArray("features", [&] {
        for (const std::string &f : host.features)
          j.value(f);
      });
    });
    j.attribute("library", "program.so");
    j.attribute("entry", kEntryName);
    if (mesh) {
      j.attributeObject("mesh", [&] {
        j.attributeArray("axes", [&] {
          for (Attribute a : mesh.getAxes()) {
            auto axis = cast<dist::MeshAxisAttr>(a);
            j.object([&] {
              j.attribute("name", axis.getName());
              j.attribute("size", axis.getSize());
            });
          }
        });
      });
      j.attributeArray("groups", [&] {
        if (auto groups =
                module->getAttrOfType<ArrayAttr>(dist::kCommGroupsAttrName))
          for (Attribute g : groups)
            j.array([&] {
              for (Attribute a : cast<ArrayAttr>(g))
                j.value(cast<StringAttr>(a).getValue());
            });
      });
      j.attributeArray("collectives", [&] {
        if (auto calls =
                module->getAttrOfType<ArrayAttr>(dist::kCollectivesAttrName))
          for (Attribute c : calls) {
            auto call = cast<dist::CollectiveCallAttr>(c);
            j.object([&] {
              j.attribute("kind", call.getKind());
              j.attribute("group", call.getGroup());
              j.attribute("bytes", call.getBytes());
            });
          }
      });
    }
    if (!params.empty())
      j.attribute("parameter_file", "parameters.bin");
    j.attributeArray("parameters", [&] {
      for (const TensorSpec &s : params)
        tensor(s, true);
    });
    j.attributeArray("inputs", [&] {
      for (const TensorSpec &s : inputs)
        tensor(s, false);
    });
    j.attributeArray("outputs", [&] {
      for (const TensorSpec &s : outputs)
        tensor(s, false);
    });
    if (training) {
      j.attributeBegin("training");
      writeTraining(j, training);
      j.attributeEnd();
    }
  });
  os << "\n";
  return text;
}

/// Links `object` into the shared object `library` with the system
/// compiler driver.
LogicalResult linkSharedObject(StringRef object, StringRef library,
                               Location loc) {
  std::string linker;
  for (const char *candidate : {"cc", "gcc", "clang", "clang-19"})
    if (auto path = llvm::sys::findProgramByName(candidate)) {
      linker = *path;
      break;
    }
  if (linker.empty())
    return emitError(loc) << "no C compiler driver (cc, gcc or clang) on "
                             "PATH to link the program";
  SmallVector<StringRef> args{linker, "-shared", "-o", library, object, "-lm"};
  std::string error;
  SmallString<128> log;
  llvm::sys::fs::createTemporaryFile("loomc-link", "log", log);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, 0, &error);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(log);
  if (rc != 0)
    return emitError(loc) << "linking the program with " << linker << " failed"
                          << (error.empty() ? "" : ": ") << error << "\n"
                          << output;
  return success();
}

/// The tensors of the program's signature, in call order.
struct Signature {
  SmallVector<TensorSpec> params, inputs, outputs;
};

/// Finds the entry, moves its parameters to arguments and records the
/// signature; renames the entry when `entryName` is not empty.
FailureOr<Signature> prepareModule(ModuleOp module, StringRef entryName) {
  registerTargetPasses();
  FailureOr<func::FuncOp> entry = findEntry(module);
  // Weightless parameters have nothing to put in parameters.bin.
  if (failed(entry) || failed(nn::checkHasWeightData(*entry)))
    return failure();
  Signature sig;
  if (failed(prepareEntry(*entry, sig.params, sig.inputs, sig.outputs)))
    return failure();
  if (!entryName.empty())
    entry->setSymName(entryName);
  return sig;
}

/// Runs the pipeline on a prepared module: to fused linalg, then (unless
/// `stopAfterLinalg`) to the LLVM dialect.
LogicalResult lowerPreparedModule(ModuleOp module, bool stopAfterLinalg) {
  if (failed(runPipeline(module, kLinalgPipeline)))
    return failure();
  copyAliasedResults(module);
  untieInits(module);
  if (stopAfterLinalg)
    return success();
  return runPipeline(module, kLLVMPipeline);
}

} // namespace

LogicalResult loom::cpu::lowerToLLVMDialect(ModuleOp module,
                                            bool stopAfterLinalg) {
  if (failed(prepareModule(module, "")))
    return failure();
  return lowerPreparedModule(module, stopAfterLinalg);
}

LogicalResult loom::cpu::compileArtifact(ModuleOp module, StringRef outputDir,
                                         const CompileOptions &options) {
  Location loc = module.getLoc();
  FailureOr<Signature> sig = prepareModule(module, kProgramName);
  if (failed(sig))
    return failure();
  ArrayRef<TensorSpec> params = sig->params, inputs = sig->inputs,
                       outputs = sig->outputs;
  FailureOr<HostTarget> host = makeTarget(options.cpu, loc);
  if (failed(host))
    return failure();

  // An existing output is replaced only if it is an artifact.
  if (llvm::sys::fs::exists(outputDir)) {
    SmallString<128> manifest(outputDir);
    llvm::sys::path::append(manifest, "manifest.json");
    if (!llvm::sys::fs::is_directory(outputDir) ||
        !llvm::sys::fs::exists(manifest))
      return emitError(loc) << "refusing to replace '" << outputDir
                            << "': it exists and is not a Loom artifact";
  }

  if (failed(lowerPreparedModule(module, /*stopAfterLinalg=*/false)))
    return failure();

  // The oldest runtime ABI that has every symbol the program imports.
  // (The mesh is read before lowering to LLVM erases the dist ops.)
  int abi = kBaseABI;
  if (module.lookupSymbol(kConstBGemmSymbol))
    abi = kConstBGemmABI;
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    if (fn.getName().starts_with(kCollectivePrefix))
      abi = kRuntimeABIVersion;
  std::string manifest =
      manifestJSON(module, params, inputs, outputs, *host, options, abi);
  // Nothing of dist is left but the mesh, which LLVM IR has no use for.
  for (auto mesh : llvm::make_early_inc_range(module.getOps<dist::MeshOp>()))
    mesh.erase();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "loom_program");
  if (!llvmModule)
    return emitError(loc) << "internal error: translation to LLVM IR failed";
  llvmModule->setDataLayout(host->machine->createDataLayout());
  llvmModule->setTargetTriple(host->triple);
  if (failed(addEntryWrapper(*llvmModule, bufferTypes(params, inputs, outputs),
                             loc)))
    return failure();
  addParallelDispatch(*llvmModule);
  optimizeModule(*llvmModule, *host->machine);
  SmallString<0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager pm;
    if (host->machine->addPassesToEmitFile(pm, os, nullptr,
                                           llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "the target cannot emit object files";
    pm.run(*llvmModule);
  }

  // Build everything in a fresh directory beside the output, then swap it
  // in, so a failure leaves any previous artifact untouched.
  std::string base = outputDir.rtrim('/').str();
  std::string tmpDir =
      base + ".tmp-" + std::to_string(llvm::sys::Process::getProcessId());
  llvm::sys::fs::remove_directories(tmpDir);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmpDir))
    return emitError(loc) << "cannot create '" << tmpDir
                          << "': " << ec.message();
  auto fail = [&]() {
    llvm::sys::fs::remove_directories(tmpDir);
    return failure();
  };
  auto inTmp = [&](StringRef name) {
    SmallString<128> p(tmpDir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  if (failed(writeFile(inTmp("program.o"), object, loc)) ||
      failed(linkSharedObject(inTmp("program.o"), inTmp("program.so"), loc)))
    return fail();
  llvm::sys::fs::remove(inTmp("program.o"));
  if (!params.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(inTmp("parameters.bin"), ec,
                            llvm::sys::fs::OF_None);
    uint64_t written = 0;
    for (const TensorSpec &p : params) {
      if (ec)
        break;
      if (p.zeroInit)
        continue;
      os.write_zeros(p.offset - written);
      std::string bytes = rawBytes(p.value);
      if (bytes.size() != p.nbytes) {
        emitError(loc) << "parameter '" << p.name << "' has " << bytes.size()
                       << " bytes of data, expected " << p.nbytes;
        return fail();
      }
      os << bytes;
      written = p.offset + p.nbytes;
    }
    os.close();
    if (ec || os.has_error()) {
      emitError(loc) << "cannot write '" << inTmp("parameters.bin")
                     << "': " << (ec ? ec : os.error()).message();
      os.clear_error();
      return fail();
    }
  }
  if (failed(writeFile(inTmp("manifest.json"), manifest, loc)))
    return fail();

  std::string old;
  if (llvm::sys::fs::exists(base)) {
    old = base + ".old-" + std::to_string(llvm::sys::Process::getProcessId());
    if (std::error_code ec = llvm::sys::fs::rename(base, old)) {
      emitError(loc) << "cannot replace '" << base << "': " << ec.message();
      return fail();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpDir, base)) {
    if (!old.empty())
      llvm::sys::fs::rename(old, base);
    emitError(loc) << "cannot create '" << base << "': " << ec.message();
    return fail();
  }
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  return success();
}
