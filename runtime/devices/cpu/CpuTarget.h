//===- CpuTarget.h - An artifact's target against the host CPU --*- C++ -*-===//
//
// A program compiled for CPU features this machine lacks dies of SIGILL in
// the middle of a run; checking the manifest's target at load time turns
// that into a message that says what is missing.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_DEVICES_CPU_CPUTARGET_H
#define LOOM_RUNTIME_DEVICES_CPU_CPUTARGET_H

#include <string>
#include <string_view>
#include <vector>

namespace loom::rt {

/// The architecture this runtime was compiled for ("x86_64", "aarch64"),
/// or "" when it is not one the runtime knows.
std::string_view hostArchitecture();

/// The canonical architecture of a target triple ("amd64-..." and
/// "x86_64-..." both give "x86_64").
std::string canonicalArchitecture(std::string_view triple);

/// The features of `features` (LLVM spellings, "+avx2" or "avx2") that the
/// host CPU lacks. Features the runtime cannot test, and "-feature" entries,
/// are skipped.
std::vector<std::string>
missingCpuFeatures(const std::vector<std::string> &features);

} // namespace loom::rt

#endif // LOOM_RUNTIME_DEVICES_CPU_CPUTARGET_H
