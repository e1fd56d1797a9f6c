//===- loom-onnx-fuzz.cpp - libFuzzer target for the ONNX importer --------===//
//
// Feeds arbitrary bytes to the importer as a model, with the clean-up
// pipeline on. Any crash, sanitizer report, leak or out-of-memory is a bug:
// bad input must end in a diagnostic. External data is off (no directory),
// so the fuzzer never touches the file system.
//
//===----------------------------------------------------------------------===//

#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "loom/InitAll.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  loom::onnx_import::ImportOptions options;
  loom::onnx_import::ImportResult result = loom::onnx_import::importModelBytes(
      context, llvm::StringRef(reinterpret_cast<const char *>(data), size),
      /*modelDir=*/"", "fuzz.onnx", options);
  (void)result;
  return 0;
}
