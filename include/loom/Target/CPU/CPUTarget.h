//===- CPUTarget.h - The CPU target -----------------------------*- C++ -*-===//
//
// `--target=cpu`: fused linalg -> bufferized loops and BLAS kernel calls ->
// LLVM -> a shared object (`program.so`) that the runtime's CPU device
// loads, with the runtime's thread pool running outlined parallel loops.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CPU_CPUTARGET_H
#define LOOM_TARGET_CPU_CPUTARGET_H

namespace loom::cpu {

/// Registers the `cpu` target (loom/Target/Target.h).
void registerCPUTarget();

} // namespace loom::cpu

#endif // LOOM_TARGET_CPU_CPUTARGET_H
