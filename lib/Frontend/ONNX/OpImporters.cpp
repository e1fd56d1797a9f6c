//===- OpImporters.cpp - The table of ONNX operator importers -------------===//
//
// The one registration table: every ONNX operator the importer converts, the
// oldest opset whose semantics it implements, and its function. The functions
// live by family in MathImporters.cpp, NNImporters.cpp and
// TensorImporters.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpImporters.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

namespace {
const OpImporter kImporters[] = {
    {"Abs", 6, unary<nn::AbsOp>},
    {"Add", 7, binary<nn::AddOp>},
    {"AveragePool", 7, importPool<nn::AvgPoolOp>},
    {"BatchNormalization", 9, importBatchNorm},
    {"Cast", 6, importCast},
    {"Clip", 6, importClip},
    {"Concat", 4, importConcat},
    {"Constant", 9, importConstant},
    {"ConstantOfShape", 9, importConstantOfShape},
    {"Conv", 1, importConv},
    {"Cos", 7, unary<nn::CosOp>},
    {"Div", 7, binary<nn::DivOp>},
    {"Dropout", 1, importDropout},
    {"Equal", 7, importCompare<nn::CompareDirection::EQ>},
    {"Erf", 9, unary<nn::ErfOp>},
    {"Exp", 6, unary<nn::ExpOp>},
    {"Expand", 8, importExpand},
    {"Flatten", 1, importFlatten},
    {"Gather", 1, importGather},
    {"Gelu", 20, importGelu},
    {"Gemm", 7, importGemm},
    {"GlobalAveragePool", 1,
     importGlobalPool<nn::GlobalAvgPool2dOp, nn::ReduceMeanOp>},
    {"GlobalMaxPool", 1,
     importGlobalPool<nn::GlobalMaxPool2dOp, nn::ReduceMaxOp>},
    {"Greater", 7, importCompare<nn::CompareDirection::GT>},
    {"GreaterOrEqual", 12, importCompare<nn::CompareDirection::GE>},
    {"Identity", 1, importIdentity},
    {"LayerNormalization", 17, importLayerNorm},
    {"LeakyRelu", 6, importLeakyRelu},
    {"Less", 7, importCompare<nn::CompareDirection::LT>},
    {"LessOrEqual", 12, importCompare<nn::CompareDirection::LE>},
    {"Log", 6, unary<nn::LogOp>},
    {"LogSoftmax", 1, importSoftmax<nn::LogSoftmaxOp>},
    {"MatMul", 1, importMatMul},
    {"Max", 8, variadic<nn::MaxOp>},
    {"MaxPool", 8, importPool<nn::MaxPoolOp>},
    {"Min", 8, variadic<nn::MinOp>},
    {"Mul", 7, binary<nn::MulOp>},
    {"Neg", 6, unary<nn::NegOp>},
    {"Pad", 2, importPad},
    {"Pow", 7, importPow},
    {"Range", 11, importRange},
    {"Reciprocal", 6, unary<nn::ReciprocalOp>},
    {"ReduceMax", 1, importReduceMax},
    {"ReduceMean", 1, importReduceMean},
    {"ReduceMin", 1, importReduceMin},
    {"ReduceSum", 1, importReduceSum},
    {"Relu", 6, unary<nn::ReluOp>},
    {"Reshape", 5, importReshape},
    {"Shape", 1, importShape},
    {"Sigmoid", 6, unary<nn::SigmoidOp>},
    {"Sin", 7, unary<nn::SinOp>},
    {"Size", 1, importSize},
    {"Slice", 1, importSlice},
    {"Softmax", 1, importSoftmax<nn::SoftmaxOp>},
    {"Split", 2, importSplit},
    {"Sqrt", 6, unary<nn::SqrtOp>},
    {"Squeeze", 1, importSqueeze},
    {"Sub", 7, binary<nn::SubOp>},
    {"Tanh", 6, unary<nn::TanhOp>},
    {"Tile", 6, importTile},
    {"Transpose", 1, importTranspose},
    {"Trilu", 14, importTrilu},
    {"Unsqueeze", 1, importUnsqueeze},
    {"Where", 9, importWhere},
};
} // namespace

const OpImporter *loom::onnx_import::lookupOpImporter(StringRef opType) {
  for (const OpImporter &importer : kImporters)
    if (importer.opType == opType)
      return &importer;
  return nullptr;
}

ArrayRef<StringRef> loom::onnx_import::supportedOperators() {
  static const SmallVector<StringRef> names = [] {
    SmallVector<StringRef> result;
    for (const OpImporter &importer : kImporters)
      result.push_back(importer.opType);
    return result;
  }();
  return names;
}
