//===- ArtifactFormat.h - Names the compiler and runtime share --*- C++ -*-===//

#ifndef LOOM_TARGET_ARTIFACT_ARTIFACTFORMAT_H
#define LOOM_TARGET_ARTIFACT_ARTIFACTFORMAT_H

namespace loom {

/// The manifest's `format`.
inline constexpr const char *kArtifactFormatName = "loom-artifact";
/// The files of an artifact directory.
inline constexpr const char *kManifestFileName = "manifest.json";
inline constexpr const char *kParameterFileName = "parameters.bin";
/// The symbol the runtime calls: `void loom_entry(void **buffers)`.
inline constexpr const char *kEntrySymbol = "loom_entry";
/// What the compiled function is called inside the executable (the entry
/// wraps it).
inline constexpr const char *kProgramName = "loom_program";

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_ARTIFACTFORMAT_H
