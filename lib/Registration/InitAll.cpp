//===- InitAll.cpp - Register Loom's dialects and passes ------------------===//

#include "loom/InitAll.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Passes.h"
#include "loom/Passes/NN/Passes.h"
#include "loom/Passes/Training/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Transforms/Passes.h"

void loom::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nn::NNDialect, dist::DistDialect, mlir::func::FuncDialect>();
  // The backends lower through upstream dialects (linalg, bufferization,
  // LLVM ...) and need their interface implementations.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
}

void loom::registerAllPasses() {
  registerNNPasses();
  registerDistPasses();
  registerTrainingPasses();
  registerLoomConversionPasses();
  // The backend pipelines are written with upstream pass names.
  mlir::registerAllPasses();
}
