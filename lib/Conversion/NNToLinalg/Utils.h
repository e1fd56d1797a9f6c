//===- Utils.h - Helpers shared by the nn -> linalg patterns ----*- C++ -*-===//
//
// Scalar and tensor builders used by more than one op family of
// -convert-nn-to-linalg, and each family's populate function. Private to
// lib/Conversion/NNToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_CONVERSION_NNTOLINALG_UTILS_H
#define LOOM_LIB_CONVERSION_NNTOLINALG_UTILS_H

#include "loom/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace loom::nn_to_linalg {

//===----------------------------------------------------------------------===//
// Populate functions, one per op family
//===----------------------------------------------------------------------===//

/// Unary and binary math, compare, where, cast, constants and range.
void populateNNToLinalgElementwisePatterns(mlir::RewritePatternSet &patterns);
/// Matmul, convolution and pools.
void populateNNToLinalgNamedPatterns(mlir::RewritePatternSet &patterns);
/// Reductions, global pools, softmax, normalisations and cross entropy.
void populateNNToLinalgReductionPatterns(mlir::RewritePatternSet &patterns);
/// Gather, scatter_add, reshapes, transpose, broadcast_to, concat, slice,
/// split, pad and trilu; `checkIndices` as for populateNNToLinalgPatterns.
void populateNNToLinalgDataMovementPatterns(mlir::RewritePatternSet &patterns,
                                            bool checkIndices);

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

inline bool isHalf(mlir::Type t) { return t.isF16() || t.isBF16(); }

/// Whether `op`'s integer operands were unsigned before the pass stored
/// them as signless.
inline bool isUnsigned(mlir::Operation *op) {
  return op->hasAttr(nn::NNDialect::UnsignedAttrHelper::getNameStr());
}

/// The type arithmetic on `t` is carried out in.
inline mlir::Type computeType(mlir::Type t) {
  return isHalf(t) ? mlir::Float32Type::get(t.getContext()) : t;
}

inline mlir::Value toCompute(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v) {
  if (isHalf(v.getType()))
    return b.create<mlir::arith::ExtFOp>(loc, b.getF32Type(), v);
  return v;
}

inline mlir::Value fromCompute(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value v, mlir::Type storage) {
  if (v.getType() != storage)
    return b.create<mlir::arith::TruncFOp>(loc, storage, v);
  return v;
}

inline mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Type t, double v) {
  return b.create<mlir::arith::ConstantOp>(loc, b.getFloatAttr(t, v));
}

inline mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Type t, int64_t v) {
  return b.create<mlir::arith::ConstantOp>(loc, b.getIntegerAttr(t, v));
}

/// `0` of any element type.
inline mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type t) {
  return b.create<mlir::arith::ConstantOp>(loc, b.getZeroAttr(t));
}

/// The identity of max (lowest) or min (highest) for `t`, whose integers
/// are unsigned if `u`.
mlir::TypedAttr extremeAttr(mlir::OpBuilder &b, mlir::Type t, bool lowest,
                            bool u = false);

/// Reassociation and contraction let LLVM vectorise reductions and use FMAs.
mlir::arith::FastMathFlagsAttr reductionFlags(mlir::OpBuilder &b);

mlir::Value addValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y, bool reassoc = false);
mlir::Value maxValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y, bool u = false);
mlir::Value minValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y, bool u = false);

/// The signless type that stores element type `t` in the lowering, or null
/// when `t` is computed on as it is.
mlir::Type storageOf(mlir::Type t);
mlir::Type storageOrSelf(mlir::Type t);

/// Converts a scalar between nn element types with nn.cast's semantics.
/// `v` holds a `from` in its storage type; the result holds a `to` in its
/// storage type.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type from, mlir::Type to, bool saturate = true);

/// Converts a signless scalar as a value of the same type.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type to);

/// Clamps an index read from a tensor into [0, extent): out-of-range
/// indices in user data must not read outside the buffer. Negative indices
/// count from the end first (`wrapNegative`).
mlir::Value clampIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                       int64_t extent, bool wrapNegative);

/// Checks that index `i` lies in [-extent, extent): a program compiled with
/// check-indices stops at a bad index, printing it with `op`'s location, the
/// axis and the range to stderr, where clampIndex would hide it.
void assertIndexInRange(mlir::OpBuilder &b, mlir::Location loc, mlir::Value i,
                        int64_t extent, mlir::Operation *op, int64_t axis);

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

inline mlir::RankedTensorType tensorType(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

inline mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType t) {
  return b.create<mlir::tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
}

mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType t, mlir::TypedAttr value);

/// The map reading an operand of `operandType` broadcast (numpy rules) to a
/// loop nest over `resultRank` dimensions.
mlir::AffineMap broadcastMap(mlir::OpBuilder &b,
                             mlir::RankedTensorType operandType,
                             llvm::ArrayRef<int64_t> resultShape);

/// A map over `rank` loops that keeps the dimensions `keep` says.
mlir::AffineMap projectionMap(mlir::OpBuilder &b, int64_t rank,
                              llvm::function_ref<bool(int64_t)> keep);

using ScalarFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// One parallel `linalg.generic` producing `resultType` from `operands`
/// broadcast to it; `fn` maps the operands' scalars to the result scalar.
/// Constant i1 operands (masks) are read as i8: LLVM vectorises byte loads,
/// but assembles vectors of i1 loaded from memory one bit at a time.
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType resultType,
                             mlir::ValueRange operands, ScalarFn fn);

/// A generic over the result's index space that computes each element from
/// its indices (`linalg.index`), reading other tensors with tensor.extract.
mlir::Value
buildIndexed(mlir::OpBuilder &b, mlir::Location loc,
             mlir::RankedTensorType resultType,
             llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                            llvm::ArrayRef<mlir::Value>)>
                 fn);

/// Reshapes `v` to `shape` (same element count, row-major).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape);

/// Materialises `v` broadcast to `shape` (numpy rules).
mlir::Value broadcastTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        llvm::ArrayRef<int64_t> shape);

/// A generic computing `fn(x, stats...)` over x's shape, where each stat is
/// `x` reduced over `axes` (read without the reduced dimensions).
mlir::Value mapWithStats(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                         mlir::ValueRange stats, llvm::ArrayRef<int64_t> axes,
                         mlir::ValueRange extras,
                         llvm::ArrayRef<mlir::AffineMap> extraMaps,
                         mlir::Type resultElement, ScalarFn fn);

/// Converts a tensor of the compute type back to `storage` (a no-op unless
/// the storage type is a half type).
mlir::Value truncateTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       mlir::Type storage);

} // namespace loom::nn_to_linalg

#endif // LOOM_LIB_CONVERSION_NNTOLINALG_UTILS_H
