//===- ONNXImporterTest.cpp - The importer's library API ------------------===//

#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "TestUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace loom::onnx_import;

namespace {
TEST(ONNXImporter, ParsesInputShapes) {
  ImportOptions options;
  std::string error;
  ASSERT_TRUE(succeeded(parseInputShape("input_ids=2x?x128", options, error)));
  EXPECT_EQ(options.inputShapes["input_ids"],
            (llvm::SmallVector<int64_t>{2, ShapedType::kDynamic, 128}));
  ASSERT_TRUE(succeeded(parseInputShape("lr=scalar", options, error)));
  EXPECT_TRUE(options.inputShapes["lr"].empty());
  EXPECT_TRUE(failed(parseInputShape("x=2x-1", options, error)));
  EXPECT_NE(error.find("'-1' is not a dimension"), std::string::npos) << error;
  EXPECT_TRUE(failed(parseInputShape("=2", options, error)));
  EXPECT_TRUE(failed(parseInputShape("x", options, error)));
}

TEST(ONNXImporter, ReportsMalformedBytesAsInvalid) {
  auto context = loom::test::makeContext();
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &d) {
    messages.push_back(d.str());
    return success();
  });
  ImportResult result =
      importModelBytes(*context, "\x08\x07garbage", "", "bytes", {});
  EXPECT_EQ(result.status, ImportStatus::Invalid);
  EXPECT_FALSE(result.module);
  ASSERT_FALSE(messages.empty());
}

TEST(ONNXImporter, SupportedOperatorsAreSortedAndCoverTheIssueList) {
  llvm::ArrayRef<llvm::StringRef> ops = supportedOperators();
  EXPECT_TRUE(llvm::is_sorted(ops));
  for (llvm::StringRef required : {"MatMul",
                                   "Gemm",
                                   "Add",
                                   "Sub",
                                   "Mul",
                                   "Div",
                                   "Pow",
                                   "Sqrt",
                                   "Reciprocal",
                                   "Neg",
                                   "Abs",
                                   "Exp",
                                   "Log",
                                   "Erf",
                                   "Tanh",
                                   "Relu",
                                   "LeakyRelu",
                                   "Sigmoid",
                                   "Gelu",
                                   "Softmax",
                                   "LogSoftmax",
                                   "ReduceMean",
                                   "ReduceSum",
                                   "ReduceMax",
                                   "LayerNormalization",
                                   "BatchNormalization",
                                   "Conv",
                                   "MaxPool",
                                   "AveragePool",
                                   "GlobalAveragePool",
                                   "Flatten",
                                   "Gather",
                                   "Reshape",
                                   "Transpose",
                                   "Split",
                                   "Concat",
                                   "Slice",
                                   "Squeeze",
                                   "Unsqueeze",
                                   "Shape",
                                   "Size",
                                   "Constant",
                                   "ConstantOfShape",
                                   "Identity",
                                   "Cast",
                                   "Equal",
                                   "Less",
                                   "Greater",
                                   "Where",
                                   "Trilu",
                                   "Expand",
                                   "Range",
                                   "Pad",
                                   "Dropout",
                                   "Max",
                                   "Min",
                                   "Clip",
                                   "Tile"})
    EXPECT_TRUE(llvm::is_contained(ops, required)) << required.str();
}
} // namespace
