//===- HostMachine.h - The CPU an artifact is compiled for ------*- C++ -*-===//

#ifndef LOOM_LIB_TARGET_CPU_HOSTMACHINE_H
#define LOOM_LIB_TARGET_CPU_HOSTMACHINE_H

#include "mlir/IR/Location.h"
#include "llvm/Target/TargetMachine.h"
#include <memory>
#include <string>
#include <vector>

namespace loom::cpu {

/// An LLVM target machine for the CPU `--cpu` names, and the features of it
/// that the runtime checks before running a program.
struct HostMachine {
  std::unique_ptr<llvm::TargetMachine> machine;
  std::string triple, cpu;
  std::vector<std::string> features;
};

/// The machine for `cpuOption` (`native` or an LLVM CPU name), or an error
/// at `loc`.
mlir::FailureOr<HostMachine> makeHostMachine(llvm::StringRef cpuOption,
                                             mlir::Location loc);

} // namespace loom::cpu

#endif // LOOM_LIB_TARGET_CPU_HOSTMACHINE_H
