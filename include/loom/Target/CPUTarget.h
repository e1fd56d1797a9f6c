//===- CPUTarget.h - Compile nn modules to native CPU artifacts -*- C++ -*-===//
//
// The CPU backend: nn -> linalg -> bufferized loops and BLAS calls -> LLVM ->
// a shared object, packaged with a manifest and the parameters as a `.loom`
// artifact directory that the runtime (libloom_runtime, loomrun) loads
// without MLIR or LLVM. docs/Artifact.md describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CPUTARGET_H
#define LOOM_TARGET_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace loom::cpu {

/// The runtime ABI the artifacts of this compiler need (manifest
/// `runtime_abi`; LOOM_RUNTIME_ABI_VERSION in the runtime).
constexpr int kRuntimeABIVersion = 3;
constexpr int kArtifactFormatVersion = 1;

struct CompileOptions {
  /// `native` (the compiling machine) or an LLVM CPU name.
  std::string cpu = "native";
  /// The model file, recorded in the manifest.
  std::string modelName;
};

/// Lowers the nn module in place to the LLVM dialect, exactly as the artifact
/// build does (after moving parameters to arguments): for `--emit=llvm` and
/// tests. `stopAfterLinalg` stops after -convert-nn-to-linalg and fusion.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module,
                                       bool stopAfterLinalg = false);

/// Compiles `module` (one public function on static shapes) into the
/// artifact directory `outputDir`, replacing it only when everything
/// succeeded. Errors are emitted as diagnostics.
mlir::LogicalResult compileArtifact(mlir::ModuleOp module,
                                    llvm::StringRef outputDir,
                                    const CompileOptions &options);

} // namespace loom::cpu

#endif // LOOM_TARGET_CPUTARGET_H
