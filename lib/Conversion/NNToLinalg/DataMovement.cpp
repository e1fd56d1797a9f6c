//===- DataMovement.cpp - Data movement to tensor and linalg --------------===//
//
// Reshapes, slices, concatenation and padding become tensor ops where they
// can; gather, strided slices and non-constant pads read with
// tensor.extract at clamped indices, so that bad data cannot read outside
// a buffer (or, with check-indices, stop at a gather or scatter_add index
// out of range); scatter_add is an scf.for nest over its updates.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

struct GatherLowering : OpRewritePattern<GatherOp> {
  GatherLowering(MLIRContext *ctx, bool checkIndices)
      : OpRewritePattern(ctx), checkIndices(checkIndices) {}
  bool checkIndices;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value data = op.getData(), indices = op.getIndices();
    RankedTensorType dt = tensorType(data), it = tensorType(indices);
    int64_t axis = op.getAxis(), ir = it.getRank(), rank = resultType.getRank();
    if (dt.getDimSize(axis) == 0 && resultType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "gather from an empty axis");
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < ir; ++i)
      idxExprs.push_back(rewriter.getAffineDimExpr(axis + i));
    SmallVector<AffineMap> maps{
        AffineMap::get(rank, 0, idxExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, indices, emptyTensor(rewriter, loc, resultType), maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          if (checkIndices)
            assertIndexInRange(b, l, args[0], dt.getDimSize(axis), op, axis);
          Value at = clampIndex(b, l, args[0], dt.getDimSize(axis),
                                /*wrapNegative=*/true);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i)
            coords.push_back(b.create<linalg::IndexOp>(l, i));
          coords.push_back(at);
          for (int64_t i = axis + 1; i < dt.getRank(); ++i)
            coords.push_back(b.create<linalg::IndexOp>(l, i - 1 + ir));
          b.create<linalg::YieldOp>(
              l, b.create<tensor::ExtractOp>(l, data, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// nn.scatter_add: zeros, then a loop nest over the updates that adds each
/// one at its clamped index (linalg has no scatter; the loops carry the
/// result tensor, which bufferizes in place). The outer loops run over the
/// dimensions up to the indices' last and read the index once; the inner
/// ones over the trailing, contiguous dimensions. O(elements of updates).
struct ScatterAddLowering : OpRewritePattern<ScatterAddOp> {
  ScatterAddLowering(MLIRContext *ctx, bool checkIndices)
      : OpRewritePattern(ctx), checkIndices(checkIndices) {}
  bool checkIndices;
  LogicalResult matchAndRewrite(ScatterAddOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value updates = op.getUpdates(), indices = op.getIndices();
    RankedTensorType ut = tensorType(updates), it = tensorType(indices);
    Type et = resultType.getElementType();
    int64_t axis = op.getAxis(), ir = it.getRank(), ur = ut.getRank();
    int64_t extent = resultType.getDimSize(axis);
    Value zeros = filledTensor(rewriter, loc, resultType,
                               cast<TypedAttr>(rewriter.getZeroAttr(et)));
    if (resultType.getNumElements() == 0 || ut.getNumElements() == 0) {
      rewriter.replaceOp(op, zeros);
      return success();
    }
    // Loop bounds over dimensions [from, to) of the updates.
    auto bounds = [&](int64_t from, int64_t to, SmallVectorImpl<Value> &lbs,
                      SmallVectorImpl<Value> &ubs,
                      SmallVectorImpl<Value> &steps) {
      for (int64_t d = from; d < to; ++d) {
        lbs.push_back(rewriter.create<arith::ConstantIndexOp>(loc, 0));
        ubs.push_back(
            rewriter.create<arith::ConstantIndexOp>(loc, ut.getDimSize(d)));
        steps.push_back(rewriter.create<arith::ConstantIndexOp>(loc, 1));
      }
    };
    SmallVector<Value> outerLbs, outerUbs, outerSteps, innerLbs, innerUbs,
        innerSteps;
    bounds(0, axis + ir, outerLbs, outerUbs, outerSteps);
    bounds(axis + ir, ur, innerLbs, innerUbs, innerSteps);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, outerLbs, outerUbs, outerSteps, zeros,
        [&](OpBuilder &b, Location l, ValueRange outer,
            ValueRange outerAcc) -> scf::ValueVector {
          Value raw =
              b.create<tensor::ExtractOp>(l, indices, outer.drop_front(axis));
          if (checkIndices)
            assertIndexInRange(b, l, raw, extent, op, axis);
          Value at = clampIndex(b, l, raw, extent, /*wrapNegative=*/true);
          scf::LoopNest inner = scf::buildLoopNest(
              b, l, innerLbs, innerUbs, innerSteps, outerAcc,
              [&](OpBuilder &ib, Location il, ValueRange ivs,
                  ValueRange acc) -> scf::ValueVector {
                SmallVector<Value> from(outer), to(outer.take_front(axis));
                llvm::append_range(from, ivs);
                to.push_back(at);
                llvm::append_range(to, ivs);
                Value u = toCompute(
                    ib, il, ib.create<tensor::ExtractOp>(il, updates, from));
                Value old = toCompute(
                    ib, il, ib.create<tensor::ExtractOp>(il, acc[0], to));
                Value sum = fromCompute(
                    ib, il, ib.create<arith::AddFOp>(il, old, u), et);
                return {ib.create<tensor::InsertOp>(il, sum, acc[0], to)
                            .getResult()};
              });
          return inner.results;
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

template <typename OpTy> struct ReshapeLikeLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), op->getOperand(0),
                                     resultType.getShape()));
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), resultType);
    rewriter.replaceOp(op, rewriter
                               .create<linalg::TransposeOp>(op.getLoc(),
                                                            op.getInput(), init,
                                                            op.getPermutation())
                               .getResult()[0]);
    return success();
  }
};

struct BroadcastToLowering : OpRewritePattern<BroadcastToOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastToOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(op, broadcastTo(rewriter, op.getLoc(), op.getInput(),
                                       resultType.getShape()));
    return success();
  }
};

/// The static offsets, sizes and strides of the slice [offset, offset +
/// size) along `axis` of a tensor of `shape` (whole along the others).
struct SliceAlong {
  SmallVector<int64_t> offsets, sizes, strides;
  SliceAlong(ArrayRef<int64_t> shape, int64_t axis, int64_t offset,
             int64_t size)
      : offsets(shape.size(), 0), sizes(shape), strides(shape.size(), 1) {
    offsets[axis] = offset;
    sizes[axis] = size;
  }
};

struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    Value acc = emptyTensor(rewriter, loc, resultType);
    int64_t offset = 0;
    for (Value in : op.getInputs()) {
      RankedTensorType t = tensorType(in);
      int64_t size = t.getDimSize(axis);
      SliceAlong slice(t.getShape(), axis, offset, size);
      offset += size;
      acc = rewriter.create<tensor::InsertSliceOp>(
          loc, in, acc, ValueRange{}, ValueRange{}, ValueRange{}, slice.offsets,
          slice.sizes, slice.strides);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> offsets = op.getOffsets(), sizes = op.getSizes(),
                      strides = op.getStrides();
    if (llvm::all_of(strides, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, op.getInput(), ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, strides);
      return success();
    }
    Value input = op.getInput();
    Value r = buildIndexed(
        rewriter, loc, resultType,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          SmallVector<Value> coords;
          for (size_t d = 0; d < idx.size(); ++d)
            coords.push_back(b.create<arith::AddIOp>(
                l, b.create<arith::ConstantIndexOp>(l, offsets[d]),
                b.create<arith::MulIOp>(
                    l, idx[d],
                    b.create<arith::ConstantIndexOp>(l, strides[d]))));
          return b.create<tensor::ExtractOp>(l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SplitLowering : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType t = tensorType(op.getInput());
    int64_t axis = op.getAxis(), offset = 0;
    SmallVector<Value> results;
    for (auto [size, result] : llvm::zip(op.getSizes(), op.getResults())) {
      SliceAlong slice(t.getShape(), axis, offset, size);
      offset += size;
      results.push_back(rewriter.create<tensor::ExtractSliceOp>(
          op.getLoc(), cast<RankedTensorType>(result.getType()), op.getInput(),
          ValueRange{}, ValueRange{}, ValueRange{}, slice.offsets, slice.sizes,
          slice.strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    RankedTensorType in = tensorType(op.getInput());
    Type et = in.getElementType();
    ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
    if (op.getMode() == PadMode::Constant) {
      TypedAttr value = op.getValueAttr()
                            ? op.getValueAttr()
                            : cast<TypedAttr>(rewriter.getZeroAttr(et));
      Value pad = rewriter.create<arith::ConstantOp>(loc, value);
      SmallVector<OpFoldResult> lo, hi;
      for (auto [l, h] : llvm::zip(low, high)) {
        lo.push_back(rewriter.getIndexAttr(l));
        hi.push_back(rewriter.getIndexAttr(h));
      }
      // Pads are non-negative (the importer turns crops into nn.slice).
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, resultType, op.getInput(),
                                                 lo, hi, pad);
      return success();
    }
    if (resultType.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, resultType));
      return success();
    }
    if (in.getNumElements() == 0)
      return op.emitError("cannot ")
             << stringifyPadMode(op.getMode())
             << "-pad an empty tensor to a non-empty one";
    // Reflect and edge read the input at a mirrored or clamped index, wrap
    // at the index modulo the dimension.
    bool reflect = op.getMode() == PadMode::Reflect;
    bool wrap = op.getMode() == PadMode::Wrap;
    Value input = op.getInput();
    Value r = buildIndexed(
        rewriter, loc, resultType,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          SmallVector<Value> coords;
          for (size_t d = 0; d < idx.size(); ++d) {
            int64_t n = in.getDimSize(d);
            if (wrap) {
              if (low[d] == 0 && high[d] == 0) {
                coords.push_back(idx[d]);
                continue;
              }
              // (idx - low) mod n, shifted by a multiple of n to stay
              // non-negative.
              int64_t shift = (low[d] + n - 1) / n * n - low[d];
              Value i = b.create<arith::AddIOp>(
                  l, idx[d], b.create<arith::ConstantIndexOp>(l, shift));
              coords.push_back(b.create<arith::RemUIOp>(
                  l, i, b.create<arith::ConstantIndexOp>(l, n)));
              continue;
            }
            Value zero = b.create<arith::ConstantIndexOp>(l, 0);
            Value last = b.create<arith::ConstantIndexOp>(l, n - 1);
            Value i = b.create<arith::SubIOp>(
                l, idx[d], b.create<arith::ConstantIndexOp>(l, low[d]));
            if (reflect) {
              // -i before the start, 2(n-1) - i after the end.
              i = b.create<arith::SelectOp>(
                  l,
                  b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i,
                                          zero),
                  b.create<arith::SubIOp>(l, zero, i), i);
              Value twice = b.create<arith::ConstantIndexOp>(l, 2 * (n - 1));
              i = b.create<arith::SelectOp>(
                  l,
                  b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sgt, i,
                                          last),
                  b.create<arith::SubIOp>(l, twice, i), i);
            }
            i = b.create<arith::MinSIOp>(
                l, b.create<arith::MaxSIOp>(l, i, zero), last);
            coords.push_back(i);
          }
          return b.create<tensor::ExtractOp>(l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct TriluLowering : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), k = op.getK();
    bool upper = op.getUpper();
    Type et = type.getElementType();
    Value r = mapWithStats(
        rewriter, op.getLoc(), op.getInput(), {}, {}, {}, {}, et,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value row = b.create<linalg::IndexOp>(l, rank - 2);
          Value col = b.create<linalg::IndexOp>(l, rank - 1);
          Value diff = b.create<arith::SubIOp>(l, col, row);
          Value kc = b.create<arith::ConstantIndexOp>(l, k);
          Value keep = b.create<arith::CmpIOp>(
              l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diff, kc);
          return b.create<arith::SelectOp>(l, keep, a[0], zeroOf(b, l, et))
              .getResult();
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void loom::nn_to_linalg::populateNNToLinalgDataMovementPatterns(
    RewritePatternSet &patterns, bool checkIndices) {
  patterns.add<GatherLowering, ScatterAddLowering>(patterns.getContext(),
                                                   checkIndices);
  patterns.add<ReshapeLikeLowering<ReshapeOp>, ReshapeLikeLowering<SqueezeOp>,
               ReshapeLikeLowering<UnsqueezeOp>, TransposeLowering,
               BroadcastToLowering, ConcatLowering, SliceLowering,
               SplitLowering, PadLowering, TriluLowering>(
      patterns.getContext());
}
