//===- OpImporters.h - ONNX operator importers ------------------*- C++ -*-===//
//
// One function per ONNX operator, following each operator's semantics per
// opset version where it changed (attributes that became inputs: axes of the
// reductions, Squeeze/Unsqueeze and Split, Slice/Pad/Clip bounds; Softmax's
// axis meaning before opset 13). Inputs that determine shapes must be
// constants after folding; the importer folds shape subgraphs as it goes.
//
// Declared here for the registration table (OpImporters.cpp); defined by
// family. The templates are instantiated, for the rows of the table, next to
// their definitions.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_FRONTEND_ONNX_OPIMPORTERS_H
#define LOOM_LIB_FRONTEND_ONNX_OPIMPORTERS_H

#include "ImporterImpl.h"

// Unwraps a FailureOr into `lhs`, returning failure from the importer.
#define ASSIGN_OR_FAIL(lhs, expr)                                              \
  auto lhs##OrFailure = (expr);                                                \
  if (failed(lhs##OrFailure))                                                  \
    return failure();                                                          \
  auto lhs = *lhs##OrFailure

namespace loom::onnx_import {

using Node = NodeImporter;

inline mlir::LogicalResult done(Node &n, mlir::Value v) {
  n.results.push_back(v);
  return mlir::success();
}

inline mlir::LogicalResult done(Node &n, mlir::FailureOr<mlir::Value> v) {
  if (mlir::failed(v))
    return mlir::failure();
  n.results.push_back(*v);
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// MathImporters.cpp: elementwise math, contractions, reductions, softmax
//===----------------------------------------------------------------------===//

template <typename OpTy> mlir::LogicalResult unary(Node &n);
template <typename OpTy> mlir::LogicalResult binary(Node &n);
template <typename OpTy> mlir::LogicalResult variadic(Node &n);
template <nn::CompareDirection direction>
mlir::LogicalResult importCompare(Node &n);
mlir::LogicalResult importPow(Node &n);
mlir::LogicalResult importClip(Node &n);
mlir::LogicalResult importCast(Node &n);
mlir::LogicalResult importWhere(Node &n);
mlir::LogicalResult importIdentity(Node &n);
mlir::LogicalResult importMatMul(Node &n);
mlir::LogicalResult importGemm(Node &n);
mlir::LogicalResult importReduceMean(Node &n);
mlir::LogicalResult importReduceSum(Node &n);
mlir::LogicalResult importReduceMax(Node &n);
mlir::LogicalResult importReduceMin(Node &n);
template <typename OpTy> mlir::LogicalResult importSoftmax(Node &n);

//===----------------------------------------------------------------------===//
// NNImporters.cpp: activations, convolution, pools, normalisations
//===----------------------------------------------------------------------===//

mlir::LogicalResult importLeakyRelu(Node &n);
mlir::LogicalResult importGelu(Node &n);
mlir::LogicalResult importDropout(Node &n);
mlir::LogicalResult importConv(Node &n);
template <typename OpTy> mlir::LogicalResult importPool(Node &n);
template <typename PoolOp, typename ReduceOp>
mlir::LogicalResult importGlobalPool(Node &n);
mlir::LogicalResult importLayerNorm(Node &n);
mlir::LogicalResult importBatchNorm(Node &n);

//===----------------------------------------------------------------------===//
// TensorImporters.cpp: shapes, constants and data movement
//===----------------------------------------------------------------------===//

mlir::LogicalResult importShape(Node &n);
mlir::LogicalResult importSize(Node &n);
mlir::LogicalResult importConstant(Node &n);
mlir::LogicalResult importConstantOfShape(Node &n);
mlir::LogicalResult importFlatten(Node &n);
mlir::LogicalResult importReshape(Node &n);
mlir::LogicalResult importTranspose(Node &n);
mlir::LogicalResult importConcat(Node &n);
mlir::LogicalResult importSplit(Node &n);
mlir::LogicalResult importSlice(Node &n);
mlir::LogicalResult importSqueeze(Node &n);
mlir::LogicalResult importUnsqueeze(Node &n);
mlir::LogicalResult importGather(Node &n);
mlir::LogicalResult importExpand(Node &n);
mlir::LogicalResult importTile(Node &n);
mlir::LogicalResult importPad(Node &n);
mlir::LogicalResult importTrilu(Node &n);
mlir::LogicalResult importRange(Node &n);

} // namespace loom::onnx_import

#endif // LOOM_LIB_FRONTEND_ONNX_OPIMPORTERS_H
