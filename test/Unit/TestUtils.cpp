//===- TestUtils.cpp - Helpers for Loom's unit tests ----------------------===//

#include "TestUtils.h"
#include "loom/InitAll.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

std::unique_ptr<MLIRContext> loom::test::makeContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

OwningOpRef<ModuleOp>
loom::test::parseBody(MLIRContext &context,
                      const std::vector<std::string> &argTypes,
                      const std::string &body) {
  std::string text = "func.func @f(";
  for (size_t i = 0; i < argTypes.size(); ++i) {
    if (i)
      text += ", ";
    text += "%";
    text += char('a' + i);
    text += ": " + argTypes[i];
  }
  text += ") {\n" + body + "\n  return\n}\n";
  return parseSourceString<ModuleOp>(text, &context);
}

Operation *loom::test::firstOp(ModuleOp module) {
  auto fn = *module.getOps<func::FuncOp>().begin();
  return &fn.getBody().front().front();
}

std::vector<std::string> loom::test::registeredOps(MLIRContext &context,
                                                   StringRef ns) {
  std::vector<std::string> names;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == ns)
      names.push_back(name.getStringRef().str());
  return names;
}
