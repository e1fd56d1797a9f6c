//===- DistToRuntime.cpp - Collectives as runtime calls -------------------===//
//
// The compiler never talks to MPI or NCCL: a collective becomes a call into
// the runtime (runtime/include/loom/runtime/Collectives.h), which runs it on
// the communicator the program is bound to. Calls take raw pointers and the
// few extents the runtime needs to rearrange a dimension that is not the
// outermost one, so one symbol per kind serves every shape and type.
//
//===----------------------------------------------------------------------===//

#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/runtime/ABI.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Builders.h"

namespace loom {
#define GEN_PASS_DEF_CONVERTDISTTORUNTIME
#include "loom/Conversion/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {

/// The runtime's code of an element type (loom_dtype, ABI.h), or
/// LOOM_DTYPE_INVALID.
int32_t dtypeCode(Type t) {
  if (t.isF16())
    return LOOM_DTYPE_FLOAT16;
  if (t.isBF16())
    return LOOM_DTYPE_BFLOAT16;
  if (t.isF32())
    return LOOM_DTYPE_FLOAT32;
  if (t.isF64())
    return LOOM_DTYPE_FLOAT64;
  if (t.isInteger(1))
    return LOOM_DTYPE_BOOL;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool isUnsigned = i.isUnsigned();
    switch (i.getWidth()) {
    case 8:
      return isUnsigned ? LOOM_DTYPE_UINT8 : LOOM_DTYPE_INT8;
    case 16:
      return isUnsigned ? LOOM_DTYPE_UINT16 : LOOM_DTYPE_INT16;
    case 32:
      return isUnsigned ? LOOM_DTYPE_UINT32 : LOOM_DTYPE_INT32;
    case 64:
      return isUnsigned ? LOOM_DTYPE_UINT64 : LOOM_DTYPE_INT64;
    }
  }
  return LOOM_DTYPE_INVALID;
}

/// The runtime's code of a reduction (loom_reduce_op, ABI.h).
int32_t reduceCode(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return LOOM_REDUCE_SUM;
  case ReductionKind::Mean:
    return LOOM_REDUCE_MEAN;
  case ReductionKind::Max:
    return LOOM_REDUCE_MAX;
  case ReductionKind::Min:
    return LOOM_REDUCE_MIN;
  }
  llvm_unreachable("unknown reduction kind");
}

int64_t elementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

class Lowering {
public:
  explicit Lowering(ModuleOp module) : module(module), b(module.getContext()) {}

  LogicalResult run() {
    // A pipelined step's stages are compiled one by one but bind together:
    // the driver seeds every stage with the same groups, in the same order.
    if (auto seeded = module->getAttrOfType<ArrayAttr>(kCommGroupsAttrName))
      for (Attribute g : seeded)
        groups.push_back(cast<ArrayAttr>(g));
    // Recomputation barriers have done their work: no tensor op is merged
    // after this point.
    module.walk([](RecomputeOp barrier) {
      barrier.getResult().replaceAllUsesWith(barrier.getInput());
      barrier.erase();
    });
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<AllReduceOp, AllGatherOp, ReduceScatterOp, AllToAllOp,
              BroadcastOp, TakeShardOp, CollectivePermuteOp, SendOp, RecvOp>(
              op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(lower(op)))
        return failure();
    if (!groups.empty()) {
      SmallVector<Attribute> list;
      for (ArrayAttr g : groups)
        list.push_back(g);
      module->setAttr(kCommGroupsAttrName, b.getArrayAttr(list));
      module->setAttr(kCollectivesAttrName, b.getArrayAttr(calls));
    }
    return success();
  }

private:
  int32_t groupIndex(ArrayAttr axes) {
    for (auto [i, g] : llvm::enumerate(groups))
      if (g == axes)
        return i;
    groups.push_back(axes);
    return groups.size() - 1;
  }

  func::FuncOp declare(StringRef name, TypeRange args, TypeRange results) {
    if (auto fn = module.lookupSymbol<func::FuncOp>(name))
      return fn;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto fn = b.create<func::FuncOp>(module.getLoc(), name,
                                     b.getFunctionType(args, results));
    fn.setPrivate();
    return fn;
  }

  Value i64(int64_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, b.getI64Type());
  }
  Value i32(int64_t v) {
    return b.create<arith::ConstantIntOp>(loc, v, b.getI32Type());
  }

  LogicalResult lower(Operation *op) {
    loc = op->getLoc();
    b.setInsertionPoint(op);
    if (isa<CollectivePermuteOp>(op))
      return op->emitError("collective_permute has no CPU lowering yet "
                           "(pipeline parallelism is a later feature)");
    if (isa<SendOp, RecvOp>(op))
      return lowerTransfer(op);
    Value input = op->getOperand(0);
    auto in = cast<RankedTensorType>(input.getType());
    auto out = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = in.getElementType();
    int32_t dtype = dtypeCode(element);
    if (dtype == LOOM_DTYPE_INVALID)
      return op->emitError("collectives on ")
             << element << " are not supported by the runtime";
    int64_t es = elementBytes(element);
    auto axes = op->getAttrOfType<ArrayAttr>("mesh_axes");
    int32_t group = groupIndex(axes);

    auto src = b.create<bufferization::ToMemrefOp>(
        loc, MemRefType::get(in.getShape(), element), input);
    auto dst = b.create<memref::AllocOp>(
        loc, MemRefType::get(out.getShape(), element), b.getI64IntegerAttr(64));
    Value srcPtr = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, src);
    Value dstPtr = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, dst);
    SmallVector<Value> args{srcPtr, dstPtr};
    StringRef kind;
    ArrayRef<int64_t> inShape = in.getShape(), outShape = out.getShape();
    if (auto ar = dyn_cast<AllReduceOp>(op)) {
      kind = "all_reduce";
      args.append({i64(in.getNumElements()), i32(dtype),
                   i32(reduceCode(ar.getReduction()))});
    } else if (auto ag = dyn_cast<AllGatherOp>(op)) {
      kind = "all_gather";
      int64_t dim = ag.getDim();
      args.append({i64(product(inShape.take_front(dim))),
                   i64(product(inShape.drop_front(dim)) * es)});
    } else if (auto rs = dyn_cast<ReduceScatterOp>(op)) {
      kind = "reduce_scatter";
      int64_t dim = rs.getDim();
      args.append({i64(product(inShape.take_front(dim))),
                   i64(product(outShape.drop_front(dim))), i32(dtype),
                   i32(reduceCode(rs.getReduction()))});
    } else if (auto a2a = dyn_cast<AllToAllOp>(op)) {
      kind = "all_to_all";
      int64_t split = a2a.getSplitDim(), concat = a2a.getConcatDim();
      SmallVector<int64_t> block(inShape);
      int64_t n = in.getDimSize(split) / out.getDimSize(split);
      if (split == concat)
        n = 1;
      block[split] /= n;
      ArrayRef<int64_t> blockRef(block);
      args.append({i64(product(inShape.take_front(split))),
                   i64(product(blockRef.drop_front(split)) * es),
                   i64(product(blockRef.take_front(concat))),
                   i64(product(blockRef.drop_front(concat)) * es)});
    } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
      kind = "broadcast";
      SymbolTableCollection symbols;
      MeshOp mesh = bc.getMeshOp(symbols);
      int64_t root = 0;
      for (auto [coord, a] : llvm::zip(bc.getRoot(), bc.getMeshAxes()))
        root = root * mesh.getAxis(cast<StringAttr>(a).getValue()).getSize() +
               coord;
      args.append({i64(in.getNumElements() * es), i64(root)});
    } else if (auto take = dyn_cast<TakeShardOp>(op)) {
      kind = "take_shard";
      int64_t dim = take.getDim();
      args.append({i64(product(inShape.take_front(dim))),
                   i64(product(outShape.drop_front(dim)) * es)});
    }
    args.push_back(i32(group));
    std::string symbol = (LOOM_COLLECTIVE_SYMBOL_PREFIX + kind).str();
    func::FuncOp callee = declare(symbol, ValueRange(args).getTypes(), {});
    b.create<func::CallOp>(loc, callee, args);
    Value result = b.create<bufferization::ToTensorOp>(
        loc, out, dst, /*restrict=*/true, /*writable=*/true);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    calls.push_back(CollectiveCallAttr::get(b.getContext(), kind, group,
                                            in.getNumElements() * es));
    return success();
  }

  /// dist.send: loom_coll_send(src, bytes, peer, tag, group); dist.recv:
  /// loom_coll_recv(dst, bytes, peer, tag, group) into a fresh buffer.
  LogicalResult lowerTransfer(Operation *op) {
    bool send = isa<SendOp>(op);
    auto type = cast<RankedTensorType>(send ? op->getOperand(0).getType()
                                            : op->getResult(0).getType());
    Type element = type.getElementType();
    if (dtypeCode(element) == LOOM_DTYPE_INVALID)
      return op->emitError("transfers of ")
             << element << " are not supported by the runtime";
    int64_t bytes = type.getNumElements() * elementBytes(element);
    auto memrefType = MemRefType::get(type.getShape(), element);
    Value buffer;
    if (send)
      buffer = b.create<bufferization::ToMemrefOp>(loc, memrefType,
                                                   op->getOperand(0));
    else
      buffer =
          b.create<memref::AllocOp>(loc, memrefType, b.getI64IntegerAttr(64));
    Value ptr = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, buffer);
    auto peer = op->getAttrOfType<IntegerAttr>("peer").getInt();
    auto tag = op->getAttrOfType<IntegerAttr>("tag").getInt();
    int32_t group = groupIndex(op->getAttrOfType<ArrayAttr>("mesh_axes"));
    SmallVector<Value> args{ptr, i64(bytes), i64(peer), i64(tag), i32(group)};
    StringRef kind = send ? "send" : "recv";
    std::string symbol = (LOOM_COLLECTIVE_SYMBOL_PREFIX + kind).str();
    func::FuncOp callee = declare(symbol, ValueRange(args).getTypes(), {});
    b.create<func::CallOp>(loc, callee, args);
    if (!send) {
      Value result = b.create<bufferization::ToTensorOp>(
          loc, type, buffer, /*restrict=*/true, /*writable=*/true);
      op->getResult(0).replaceAllUsesWith(result);
    }
    op->erase();
    calls.push_back(
        CollectiveCallAttr::get(b.getContext(), kind, group, bytes));
    return success();
  }

  ModuleOp module;
  OpBuilder b;
  Location loc = UnknownLoc::get(module.getContext());
  SmallVector<ArrayAttr> groups;
  SmallVector<Attribute> calls;
};

struct ConvertDistToRuntimePass
    : loom::impl::ConvertDistToRuntimeBase<ConvertDistToRuntimePass> {
  void runOnOperation() override {
    if (failed(Lowering(getOperation()).run()))
      signalPassFailure();
  }
};
} // namespace
