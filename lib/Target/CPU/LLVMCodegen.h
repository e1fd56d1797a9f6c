//===- LLVMCodegen.h - From the LLVM dialect to an object file --*- C++ -*-===//

#ifndef LOOM_LIB_TARGET_CPU_LLVMCODEGEN_H
#define LOOM_LIB_TARGET_CPU_LLVMCODEGEN_H

#include "HostMachine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallString.h"

namespace loom::cpu {

/// Translates `module` (the LLVM dialect, its program function named
/// `programName` taking buffers of `bufferTypes`) to LLVM IR, adds the
/// `loom_entry` wrapper, its `signature` (exported as loom_entry_signature)
/// and the parallel dispatch of outlined kernels, optimises for `host` and
/// emits an object file.
mlir::FailureOr<llvm::SmallString<0>>
emitObject(mlir::ModuleOp module, llvm::StringRef programName,
           llvm::ArrayRef<mlir::RankedTensorType> bufferTypes,
           llvm::StringRef signature, HostMachine &host);

/// Links `object` into a shared object with the system's C compiler
/// driver, and returns its bytes.
mlir::FailureOr<std::string> linkSharedObject(llvm::StringRef object,
                                              mlir::Location loc);

} // namespace loom::cpu

#endif // LOOM_LIB_TARGET_CPU_LLVMCODEGEN_H
