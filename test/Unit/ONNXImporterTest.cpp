//===- ONNXImporterTest.cpp - The importer's library API ------------------===//

#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "TestUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "onnx/onnx_pb.h"
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

TEST(ONNXImporter, RejectsExternalDataWithoutAModelDirectory) {
  // y = x + w, with w stored externally.
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto *graph = model.mutable_graph();
  onnx::NodeProto *add = graph->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("y");
  for (const char *name : {"x", "y"}) {
    onnx::ValueInfoProto *value =
        std::string(name) == "x" ? graph->add_input() : graph->add_output();
    value->set_name(name);
    auto *tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(4);
  }
  onnx::TensorProto *w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto *location = w->add_external_data();
  location->set_key("location");
  location->set_value("w.bin");

  auto context = loom::test::makeContext();
  std::string message;
  ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  ImportResult result = importModelBytes(*context, model.SerializeAsString(),
                                         /*modelDir=*/"", "bytes", {});
  EXPECT_EQ(result.status, ImportStatus::Invalid);
  EXPECT_NE(message.find("the model was not read from a file, so there is no "
                         "directory to read 'w.bin' from"),
            std::string::npos)
      << message;
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
