//===- Named.cpp - Matmul, convolution and pools to linalg ----------------===//
//
// Contractions stay named ops (`linalg.matmul`, `batch_matmul`,
// `*_transpose_b`, NCHW convolutions) so that a later pass can hand them to
// a BLAS library; pools are linalg's named NCW/NCHW pools on a padded input,
// 3-D pools and max pools with indices the same loops as a linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

/// `v` with the sign bit of every (integer) element flipped.
Value flipSignBit(OpBuilder &b, Location loc, Value v) {
  RankedTensorType t = tensorType(v);
  unsigned w = t.getElementType().getIntOrFloatBitWidth();
  return buildElementwise(
      b, loc, t, v, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value bit = nb.create<arith::ConstantOp>(
            l, nb.getIntegerAttr(a[0].getType(), APInt::getSignMask(w)));
        return nb.create<arith::XOrIOp>(l, a[0], bit);
      });
}

/// True when `perm` swaps the last two dimensions and keeps the others.
bool isLastTwoSwap(ArrayRef<int64_t> perm) {
  int64_t n = perm.size();
  if (n < 2 || perm[n - 1] != n - 2 || perm[n - 2] != n - 1)
    return false;
  for (int64_t i = 0; i + 2 < n; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    // matmul(x, transpose(w)) reads w transposed instead of moving it.
    bool transB = false;
    if (auto t = rhs.getDefiningOp<TransposeOp>())
      if (isLastTwoSwap(t.getPermutation())) {
        rhs = t.getInput();
        transB = true;
      }
    RankedTensorType lt = tensorType(lhs), rt = tensorType(rhs);
    int64_t m = lt.getDimSize(lt.getRank() - 2),
            k = lt.getDimSize(lt.getRank() - 1);
    int64_t n = resultType.getDimSize(resultType.getRank() - 1);
    ArrayRef<int64_t> batchShape = resultType.getShape().drop_back(2);
    int64_t batch = 1;
    for (int64_t d : batchShape)
      batch *= d;
    // Halves accumulate in f32 (linalg extends the operands).
    Type acc = computeType(et);
    Value zero = zeroOf(rewriter, loc, acc);
    auto gemm = [&](Value a, Value bm, int64_t rows) -> Value {
      auto t = RankedTensorType::get({rows, n}, acc);
      Value init =
          rewriter
              .create<linalg::FillOp>(loc, zero, emptyTensor(rewriter, loc, t))
              .getResult(0);
      if (transB)
        return rewriter
            .create<linalg::MatmulTransposeBOp>(loc, t, ValueRange{a, bm}, init)
            .getResult(0);
      return rewriter.create<linalg::MatmulOp>(loc, t, ValueRange{a, bm}, init)
          .getResult(0);
    };
    Value result;
    if (rt.getRank() == 2) {
      // A shared 2-D right operand: fold every batch dimension into M.
      Value a = reshapeTo(rewriter, loc,
                          broadcastTo(rewriter, loc, lhs,
                                      [&] {
                                        SmallVector<int64_t> s(batchShape);
                                        s.push_back(m);
                                        s.push_back(k);
                                        return s;
                                      }()),
                          {batch * m, k});
      result = gemm(a, rhs, batch * m);
    } else {
      auto full = [&](Value v, int64_t r0, int64_t r1) {
        SmallVector<int64_t> s(batchShape);
        s.push_back(r0);
        s.push_back(r1);
        Value bv = broadcastTo(rewriter, loc, v, s);
        return reshapeTo(rewriter, loc, bv, {batch, r0, r1});
      };
      Value a = full(lhs, m, k);
      Value bm = transB ? full(rhs, n, k) : full(rhs, k, n);
      auto t = RankedTensorType::get({batch, m, n}, acc);
      Value init =
          rewriter
              .create<linalg::FillOp>(loc, zero, emptyTensor(rewriter, loc, t))
              .getResult(0);
      if (transB)
        result = rewriter
                     .create<linalg::BatchMatmulTransposeBOp>(
                         loc, t, ValueRange{a, bm}, init)
                     .getResult(0);
      else
        result =
            rewriter
                .create<linalg::BatchMatmulOp>(loc, t, ValueRange{a, bm}, init)
                .getResult(0);
    }
    result = truncateTo(rewriter, loc, result, et);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

/// Pads the spatial dimensions of an [N, C, spatial...] tensor with `value`,
/// `low[i]` and `high[i]` elements around spatial dimension `i`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return x;
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<OpFoldResult> lo(2, b.getIndexAttr(0)), hi(2, b.getIndexAttr(0));
  for (size_t i = 0; i < low.size(); ++i) {
    shape[2 + i] += low[i] + high[i];
    lo.push_back(b.getIndexAttr(low[i]));
    hi.push_back(b.getIndexAttr(high[i]));
  }
  auto type = RankedTensorType::get(shape, t.getElementType());
  Value pad = b.create<arith::ConstantOp>(loc, value);
  return b.create<tensor::PadOp>(loc, type, x, lo, hi, pad);
}

/// The padding of a pool's input: the window's explicit padding, plus at
/// the end whatever `ceil_mode` windows overhang the padded input.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
poolPadding(RankedTensorType in, RankedTensorType out, const PoolWindow &w) {
  size_t spatial = w.rank();
  SmallVector<int64_t> low(w.padding.begin(), w.padding.begin() + spatial);
  SmallVector<int64_t> high(w.padding.begin() + spatial, w.padding.end());
  for (size_t i = 0; i < spatial; ++i) {
    int64_t needed = (out.getDimSize(2 + i) - 1) * w.strides[i] + w.extent(i);
    int64_t have = in.getDimSize(2 + i) + low[i] + high[i];
    high[i] += std::max<int64_t>(0, needed - have);
  }
  return {low, high};
}

template <typename OpTy>
Value namedPool(OpBuilder &b, Location loc, ValueRange ins, Value init,
                const PoolWindow &w) {
  return b
      .create<OpTy>(loc, init.getType(), ins, init,
                    b.getI64TensorAttr(w.strides),
                    b.getI64TensorAttr(w.dilations))
      .getResult(0);
}

/// Pools the padded input `x` into `init` over windows `w`, by maximum or
/// by sum (accumulating in init's element type): linalg's named NCW and
/// NCHW pools, and for 3-D windows (linalg's are channels-last only) the
/// same loops as a linalg.generic.
Value poolWindows(OpBuilder &b, Location loc, Value x, Value init,
                  const PoolWindow &w, bool max) {
  Value window =
      b.create<tensor::EmptyOp>(loc, w.kernel, tensorType(x).getElementType());
  SmallVector<Value> ins{x, window};
  if (w.rank() == 1)
    return max ? namedPool<linalg::PoolingNcwMaxOp>(b, loc, ins, init, w)
               : namedPool<linalg::PoolingNcwSumOp>(b, loc, ins, init, w);
  if (w.rank() == 2)
    return max ? namedPool<linalg::PoolingNchwMaxOp>(b, loc, ins, init, w)
               : namedPool<linalg::PoolingNchwSumOp>(b, loc, ins, init, w);
  // Loops (n, c, outputs..., window...): the input is read at
  // output * stride + window * dilation.
  int64_t spatial = w.rank(), loops = 2 + 2 * spatial;
  SmallVector<AffineExpr> in{b.getAffineDimExpr(0), b.getAffineDimExpr(1)};
  SmallVector<AffineExpr> win;
  for (int64_t i = 0; i < spatial; ++i) {
    AffineExpr o = b.getAffineDimExpr(2 + i);
    AffineExpr k = b.getAffineDimExpr(2 + spatial + i);
    in.push_back(o * w.strides[i] + k * w.dilations[i]);
    win.push_back(k);
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{
      AffineMap::get(loops, 0, in, ctx), AffineMap::get(loops, 0, win, ctx),
      projectionMap(b, loops, [&](int64_t d) { return d < 2 + spatial; })};
  SmallVector<utils::IteratorType> iterators(2 + spatial,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          loc, init.getType(), ins, init, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value v = max ? maxValues(nb, l, a[0], a[2])
                          : addValues(nb, l, toCompute(nb, l, a[0]), a[2]);
            nb.create<linalg::YieldOp>(l, v);
          })
      .getResult(0);
}

struct Conv2dLowering : OpRewritePattern<Conv2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    ArrayRef<int64_t> p = op.getPadding();
    Value x =
        padSpatial(rewriter, loc, op.getInput(), p.take_front(2),
                   p.drop_front(2), cast<TypedAttr>(rewriter.getZeroAttr(et)));
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    int64_t groups = op.getGroups();
    Type ct = computeType(et);
    auto accType = RankedTensorType::get(resultType.getShape(), ct);
    Value zero = zeroOf(rewriter, loc, ct);
    Value result;
    if (groups == 1) {
      Value acc = rewriter
                      .create<linalg::FillOp>(
                          loc, zero, emptyTensor(rewriter, loc, accType))
                      .getResult(0);
      result = rewriter
                   .create<linalg::Conv2DNchwFchwOp>(
                       loc, accType, ValueRange{x, op.getFilter()}, acc,
                       strides, dilations)
                   .getResult(0);
    } else {
      RankedTensorType xt = tensorType(x), ft = tensorType(op.getFilter());
      int64_t n = xt.getDimSize(0), c = xt.getDimSize(1);
      int64_t o = ft.getDimSize(0);
      Value xg = reshapeTo(
          rewriter, loc, x,
          {n, groups, c / groups, xt.getDimSize(2), xt.getDimSize(3)});
      Value fg = reshapeTo(rewriter, loc, op.getFilter(),
                           {groups, o / groups, ft.getDimSize(1),
                            ft.getDimSize(2), ft.getDimSize(3)});
      auto gt = RankedTensorType::get({n, groups, o / groups,
                                       resultType.getDimSize(2),
                                       resultType.getDimSize(3)},
                                      ct);
      Value acc =
          rewriter
              .create<linalg::FillOp>(loc, zero, emptyTensor(rewriter, loc, gt))
              .getResult(0);
      Value r = rewriter
                    .create<linalg::Conv2DNgchwGfchwOp>(
                        loc, gt, ValueRange{xg, fg}, acc, strides, dilations)
                    .getResult(0);
      result = reshapeTo(rewriter, loc, r, accType.getShape());
    }
    if (Value bias = op.getBias()) {
      AffineMap channel = AffineMap::get(4, 0, rewriter.getAffineDimExpr(1),
                                         rewriter.getContext());
      result = mapWithStats(
          rewriter, loc, result, {}, {}, bias, channel, et,
          [&](OpBuilder &b, Location l, ValueRange a) {
            return fromCompute(
                b, l, addValues(b, l, a[0], toCompute(b, l, a[1])), et);
          });
    }
    rewriter.replaceOp(op, truncateTo(rewriter, loc, result, et));
    return success();
  }
};

struct MaxPoolLowering : OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    PoolWindow w = op.getWindow();
    auto [low, high] = poolPadding(tensorType(op.getInput()), resultType, w);
    // linalg's max pools are signed: flipping the sign bit maps unsigned
    // order onto signed order. Padding holds the lowest value: it never wins.
    bool u = isUnsigned(op);
    TypedAttr lowest = extremeAttr(rewriter, et, /*lowest=*/true);
    Value input = u ? flipSignBit(rewriter, loc, op.getInput()) : op.getInput();
    Value x = padSpatial(rewriter, loc, input, low, high, lowest);
    Value acc = filledTensor(rewriter, loc, resultType, lowest);
    Value r = poolWindows(rewriter, loc, x, acc, w, /*max=*/true);
    rewriter.replaceOp(op, u ? flipSignBit(rewriter, loc, r) : r);
    return success();
  }
};

/// Whether candidate `v` at row-major position `pos` beats the best so far,
/// `acc` at `accPos`: a greater value (NaN the greatest), or an equal one
/// earlier. The order is total, so the winner does not depend on the order
/// a window is visited in. `accPos` -1 (none yet) compares as the largest
/// position.
Value beatsBest(OpBuilder &b, Location loc, Value v, Value pos, Value acc,
                Value accPos, bool u) {
  Value greater, equal;
  if (isa<FloatType>(v.getType())) {
    Value cv = toCompute(b, loc, v), ca = toCompute(b, loc, acc);
    auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
      return b.create<arith::CmpFOp>(loc, p, x, y);
    };
    Value vNaN = cmp(arith::CmpFPredicate::UNO, cv, cv);
    Value aNaN = cmp(arith::CmpFPredicate::UNO, ca, ca);
    Value aNumber = cmp(arith::CmpFPredicate::ORD, ca, ca);
    greater =
        b.create<arith::OrIOp>(loc, cmp(arith::CmpFPredicate::OGT, cv, ca),
                               b.create<arith::AndIOp>(loc, vNaN, aNumber));
    equal = b.create<arith::OrIOp>(loc, cmp(arith::CmpFPredicate::OEQ, cv, ca),
                                   b.create<arith::AndIOp>(loc, vNaN, aNaN));
  } else {
    greater = b.create<arith::CmpIOp>(
        loc, u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, v, acc);
    equal = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, v, acc);
  }
  Value earlier =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, pos, accPos);
  return b.create<arith::OrIOp>(loc, greater,
                                b.create<arith::AndIOp>(loc, equal, earlier));
}

/// Max pooling with the position of each maximum: one generic over
/// (n, c, outputs..., window...) reading the padded input and carrying the
/// best value and its row-major position in the input's spatial plane.
/// Padded positions (explicit padding and the ceil_mode overhang) are not
/// candidates, so a window without input positions keeps (lowest, -1).
/// Column-major indices are renumbered from the row-major ones afterwards,
/// so that ties always go to the first position in row-major order.
struct MaxPoolWithIndicesLowering : OpRewritePattern<MaxPoolWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inType = tensorType(op.getInput());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto indexType = cast<RankedTensorType>(op.getIndices().getType());
    Type et = resultType.getElementType();
    PoolWindow w = op.getWindow();
    int64_t spatial = w.rank(), loops = 2 + 2 * spatial;
    ArrayRef<int64_t> extents = inType.getShape().drop_front(2);
    bool u = isUnsigned(op);
    TypedAttr lowest = extremeAttr(rewriter, et, /*lowest=*/true, u);
    auto [low, high] = poolPadding(inType, resultType, w);
    Value x = padSpatial(rewriter, loc, op.getInput(), low, high, lowest);
    Value window = rewriter.create<tensor::EmptyOp>(loc, w.kernel, et);
    Value values = filledTensor(rewriter, loc, resultType, lowest);
    Value indices =
        filledTensor(rewriter, loc, indexType, rewriter.getI64IntegerAttr(-1));
    SmallVector<AffineExpr> in{rewriter.getAffineDimExpr(0),
                               rewriter.getAffineDimExpr(1)};
    SmallVector<AffineExpr> win;
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = rewriter.getAffineDimExpr(2 + i);
      AffineExpr k = rewriter.getAffineDimExpr(2 + spatial + i);
      in.push_back(o * w.strides[i] + k * w.dilations[i]);
      win.push_back(k);
    }
    MLIRContext *ctx = rewriter.getContext();
    AffineMap out = projectionMap(rewriter, loops,
                                  [&](int64_t d) { return d < 2 + spatial; });
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, in, ctx),
                                AffineMap::get(loops, 0, win, ctx), out, out};
    SmallVector<utils::IteratorType> iterators(2 + spatial,
                                               utils::IteratorType::parallel);
    iterators.append(spatial, utils::IteratorType::reduction);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{resultType, indexType}, ValueRange{x, window},
        ValueRange{values, indices}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto index = [&](int64_t v) {
            return b.create<arith::ConstantIndexOp>(l, v);
          };
          auto scale = [&](Value v, int64_t c) -> Value {
            return c == 1 ? v : b.create<arith::MulIOp>(l, v, index(c));
          };
          // The input position read, p = o * stride + k * dilation - low,
          // per spatial dimension; it is inside unless padding put it out.
          Value inside, pos;
          for (int64_t i = 0; i < spatial; ++i) {
            Value o = b.create<linalg::IndexOp>(l, 2 + i);
            Value k = b.create<linalg::IndexOp>(l, 2 + spatial + i);
            Value p = b.create<arith::AddIOp>(l, scale(o, w.strides[i]),
                                              scale(k, w.dilations[i]));
            SmallVector<Value> checks;
            if (low[i]) {
              p = b.create<arith::SubIOp>(l, p, index(low[i]));
              checks.push_back(b.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::sge, p, index(0)));
            }
            if (high[i])
              checks.push_back(b.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::slt, p, index(extents[i])));
            for (Value c : checks)
              inside = inside ? b.create<arith::AndIOp>(l, inside, c) : c;
            pos =
                pos ? b.create<arith::AddIOp>(l, scale(pos, extents[i]), p) : p;
          }
          pos = b.create<arith::IndexCastOp>(l, b.getI64Type(), pos);
          Value better = beatsBest(b, l, a[0], pos, a[2], a[3], u);
          if (inside)
            better = b.create<arith::AndIOp>(l, inside, better);
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, better, a[0], a[2]),
                            b.create<arith::SelectOp>(l, better, pos, a[3])});
        });
    // An empty plane leaves every index -1 (and must not be divided by).
    Value idx = generic.getResult(1);
    if (op.getOrder() == IndexOrder::ColumnMajor && spatial > 1 &&
        llvm::all_of(extents, [](int64_t e) { return e > 0; }))
      idx = buildElementwise(
          rewriter, loc, indexType, idx,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            // Row-major coordinates, last dimension first, renumbered with
            // the first dimension varying fastest; -1 stays -1.
            Type i64 = b.getI64Type();
            Value rest = a[0], col;
            SmallVector<int64_t> strides{1};
            for (int64_t e : extents.drop_back())
              strides.push_back(strides.back() * e);
            for (int64_t i = spatial - 1; i >= 0; --i) {
              Value c = rest;
              if (i) {
                Value e = intConst(b, l, i64, extents[i]);
                c = b.create<arith::RemSIOp>(l, rest, e);
                rest = b.create<arith::DivSIOp>(l, rest, e);
              }
              Value term = strides[i] == 1
                               ? c
                               : b.create<arith::MulIOp>(
                                     l, c, intConst(b, l, i64, strides[i]));
              col = col ? b.create<arith::AddIOp>(l, col, term) : term;
            }
            Value none = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                 a[0], intConst(b, l, i64, 0));
            return b.create<arith::SelectOp>(l, none, a[0], col);
          });
    rewriter.replaceOp(op, {generic.getResult(0), idx});
    return success();
  }
};

struct AvgPoolLowering : OpRewritePattern<AvgPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    RankedTensorType inType = tensorType(op.getInput());
    Type et = resultType.getElementType(), ct = computeType(et);
    PoolWindow w = op.getWindow();
    size_t spatial = w.rank();
    auto [low, high] = poolPadding(inType, resultType, w);
    Value x = padSpatial(rewriter, loc, op.getInput(), low, high,
                         cast<TypedAttr>(rewriter.getZeroAttr(et)));
    auto sumType = RankedTensorType::get(resultType.getShape(), ct);
    Value acc = filledTensor(rewriter, loc, sumType,
                             cast<TypedAttr>(rewriter.getZeroAttr(ct)));
    Value sum = poolWindows(rewriter, loc, x, acc, w, /*max=*/false);
    // The divisor is the number of window positions inside the input, or
    // with count_include_pad all of them. It is a product over the spatial
    // dimensions: a constant factor for the dimensions where every window
    // counts the same, and a vector of counts for the others.
    double uniform = 1;
    SmallVector<Value> counts;
    SmallVector<AffineMap> countMaps;
    int64_t rank = resultType.getRank();
    for (size_t i = 0; i < spatial; ++i) {
      int64_t outputs = resultType.getDimSize(2 + i);
      SmallVector<int64_t> n = w.averageCounts(
          i, outputs, inType.getDimSize(2 + i), op.getCountIncludePad());
      if (llvm::all_equal(n)) {
        uniform *= n.empty() ? 1 : static_cast<double>(n.front());
        continue;
      }
      SmallVector<Attribute> values;
      for (int64_t c : n)
        values.push_back(rewriter.getFloatAttr(ct, static_cast<double>(c)));
      auto type = RankedTensorType::get({outputs}, ct);
      counts.push_back(rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(type, values)));
      countMaps.push_back(AffineMap::get(
          rank, 0, rewriter.getAffineDimExpr(2 + i), rewriter.getContext()));
    }
    Value r = mapWithStats(
        rewriter, loc, sum, {}, {}, counts, countMaps, et,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value divisor;
          if (uniform != 1 || a.size() == 1)
            divisor = floatConst(b, l, ct, uniform);
          for (Value c : a.drop_front())
            divisor =
                divisor ? Value(b.create<arith::MulFOp>(l, divisor, c)) : c;
          // A window that covers no input position is 0 / 0 = NaN, the
          // mean of nothing.
          Value v = b.create<arith::DivFOp>(l, a[0], divisor);
          return fromCompute(b, l, v, et);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void loom::nn_to_linalg::populateNNToLinalgNamedPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, Conv2dLowering, MaxPoolLowering,
               MaxPoolWithIndicesLowering, AvgPoolLowering>(
      patterns.getContext());
}
