//===- ArtifactFormat.h - Names the compiler and runtime share --*- C++ -*-===//
//
// The runtime's ABI header holds every fact both sides must agree on (dtype
// codes, symbol names, file names, versions); the compiler includes it
// without linking the runtime. This header adds what only the compiler
// names.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_ARTIFACT_ARTIFACTFORMAT_H
#define LOOM_TARGET_ARTIFACT_ARTIFACTFORMAT_H

#include "loom/runtime/ABI.h"

namespace loom {

/// What the compiled function is called inside the executable (the entry,
/// LOOM_ENTRY_SYMBOL, wraps it).
inline constexpr const char *kProgramName = "loom_program";

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_ARTIFACTFORMAT_H
