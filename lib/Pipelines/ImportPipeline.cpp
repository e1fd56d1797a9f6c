//===- ImportPipeline.cpp - What every imported model goes through --------===//
//
// A library of its own: the ONNX importer runs it and needs nothing else of
// lib/Pipelines.
//
//===----------------------------------------------------------------------===//

#include "loom/Passes/NN/Passes.h"
#include "loom/Pipelines/Pipelines.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void loom::buildImportCleanupPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createNNRecognizeIdioms());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
