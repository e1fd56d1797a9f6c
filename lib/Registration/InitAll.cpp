//===- InitAll.cpp - Register Loom's dialects and passes ------------------===//

#include "loom/InitAll.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

void loom::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nn::NNDialect, dist::DistDialect, mlir::func::FuncDialect>();
}

void loom::registerAllPasses() {
  registerLoomPasses();
  // Generic clean-ups the pipelines run between Loom's passes.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
}
