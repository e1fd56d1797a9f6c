//===- EntrySignature.h - The tensors an artifact's entry takes -*- C++ -*-===//
//
// Every target compiles one public function on static shapes into an entry
// that takes its buffers in one order: the parameters (moved out of the
// body, one per name), then the inputs, then the outputs. This header
// describes those tensors as the manifest lists them, and the rewrite that
// makes the function take its parameters as leading arguments.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_ARTIFACT_ENTRYSIGNATURE_H
#define LOOM_TARGET_ARTIFACT_ENTRYSIGNATURE_H

#include "loom/Dialect/Dist/DistDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace loom {

/// One tensor of the entry's signature.
struct TensorSpec {
  std::string name;
  /// The per-device type (the whole tensor's when not split).
  mlir::RankedTensorType type;
  /// Parameters only: the initial value (the whole, global tensor).
  mlir::ElementsAttr value;
  /// Parameters only: where the value starts in the parameter file, and its
  /// bytes there (the global tensor's; 0 for zero-initialised state).
  uint64_t offset = 0;
  uint64_t nbytes = 0;
  /// Which block of the global tensor a device holds; null when whole.
  dist::ShardingAttr sharding = {};
  mlir::RankedTensorType globalType = {};
  /// Training state that starts as zeros (no bytes in the parameter file).
  bool zeroInit = false;
  /// Training state: the output that replaces it after a step.
  std::string update;
};

/// The entry's tensors in call order.
struct EntrySignature {
  llvm::SmallVector<TensorSpec> params, inputs, outputs;
};

/// The module's one public function with a body, or an error.
mlir::FailureOr<mlir::func::FuncOp> findEntry(mlir::ModuleOp module);

/// The signature `fn` will have once its parameters are arguments, without
/// changing `fn`: checks that every argument and result is a tensor of
/// static shape and a supported element type, and that each parameter has
/// one type and layout. Errors are emitted at `fn`.
mlir::FailureOr<EntrySignature> collectEntrySignature(mlir::func::FuncOp fn);

/// Rewrites `fn` to the signature `collectEntrySignature` returned: its
/// parameters become leading arguments (a split parameter's argument being
/// the device's block), layouts move out of the argument attributes,
/// arguments are marked read-only for bufferization, parameters no step
/// updates are marked `nn.immutable`, and resource-backed constants become
/// dense attributes.
void applyEntrySignature(mlir::func::FuncOp fn, const EntrySignature &sig);

/// The manifest's name of an element type ("float32", "int64", "bool",
/// ...), or "" for a type no artifact carries.
std::string dtypeName(mlir::Type type);

/// The bytes of an elements attribute as the runtime lays them out:
/// row-major, a byte per bool, 4-bit integers one per byte.
std::string tensorBytes(mlir::ElementsAttr attr);

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_ENTRYSIGNATURE_H
