//===- ONNXImporter.h - ONNX models to the nn dialect -----------*- C++ -*-===//
//
// Reads an ONNX model (a file, or bytes plus the directory external data is
// resolved against) into a module holding one `func.func @main` of `nn` ops.
// All input is untrusted: every problem becomes a diagnostic on the context,
// never an assertion or a crash.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_FRONTEND_ONNX_ONNXIMPORTER_H
#define LOOM_FRONTEND_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <string>

namespace loom::onnx_import {

struct ImportOptions {
  /// Fixed shapes for model inputs, by input name; ShapedType::kDynamic
  /// leaves a dimension unknown.
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
  /// A POSIX extended regex: graph inputs (without an initializer) whose
  /// whole name matches become weightless parameters, `func.func` arguments
  /// carrying `nn.parameter = "NAME"` (see nn::kParameterArgAttrName). They
  /// need static shapes and a float type. Empty: the model's metadata
  /// `loom.parameter_inputs`, if it has that key, decides.
  std::string parameterInputs;
  /// Run the clean-up pipeline (folding, idiom recognition, CSE) after
  /// import. Tests of the raw import turn it off.
  bool cleanup = true;
  /// Return the running statistics training-mode BatchNormalization
  /// computes for its parameters as `state:NAME` results (NNState.h), so a
  /// training step keeps them. Inference leaves them out.
  bool stateResults = false;
};

enum class ImportStatus {
  Success,
  /// The model is malformed or violates a containment rule.
  Invalid,
  /// The model is valid but uses operators, variants or dtypes Loom does not
  /// support (loomc exits with code 3).
  Unsupported,
};

struct ImportResult {
  ImportStatus status = ImportStatus::Invalid;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Imports the model at `path`; external data is read from its directory.
ImportResult importModelFile(mlir::MLIRContext &context, llvm::StringRef path,
                             const ImportOptions &options);

/// Imports a serialized model held in memory. `modelDir` is where external
/// data lives (empty: external data is rejected); `displayName` names the
/// model in diagnostics.
ImportResult importModelBytes(mlir::MLIRContext &context, llvm::StringRef bytes,
                              llvm::StringRef modelDir,
                              llvm::StringRef displayName,
                              const ImportOptions &options);

/// Parses `NAME=2x64` (a `?` leaves a dimension unknown) into `options`.
mlir::LogicalResult parseInputShape(llvm::StringRef spec,
                                    ImportOptions &options, std::string &error);

/// ONNX operator types the importer converts (default domain).
llvm::ArrayRef<llvm::StringRef> supportedOperators();

} // namespace loom::onnx_import

#endif // LOOM_FRONTEND_ONNX_ONNXIMPORTER_H
