//===- ArtifactChecks.h - Checks of files and signature --------*- C++ -*-===//
//
// A manifest that parses may still describe files that are not there as it
// says (truncated, bit-flipped) or a program compiled for other tensors;
// either makes a run read or write out of bounds. The loader checks the
// files' sizes and CRC-32s before it maps or loads any of them, and the
// program's exported signature once the library is loaded, before any run.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_CORE_ARTIFACTCHECKS_H
#define LOOM_RUNTIME_CORE_ARTIFACTCHECKS_H

#include "core/Manifest.h"
#include <string>
#include <string_view>

struct loom_program;

namespace loom::rt {

/// Checks the size and CRC-32 of every file the manifest's `files` lists
/// (only `onlyPath` when not null) in artifact `dir`. An artifact without
/// `files` (format_version 4 and older) passes, with a warning on stderr
/// (once per process).
bool checkArtifactFiles(const Manifest &manifest, const std::string &dir,
                        const std::string *onlyPath, std::string &error,
                        loom_status &status);

/// Checks the manifest's parameters, inputs and outputs against `text`,
/// the signature `symbol` of program library `library` (JSON,
/// docs/Artifact.md): the same number, names, dtypes, shapes and bytes.
bool checkSignatureText(const Manifest &manifest, std::string_view text,
                        const std::string &library, const std::string &symbol,
                        std::string &error);

/// Checks the manifest's parameters, inputs and outputs against the
/// signature the loaded program library exports beside its entry (CPU
/// programs; required from format_version 5).
bool checkProgramSignature(const loom_program &program, std::string &error,
                           loom_status &status);

} // namespace loom::rt

#endif // LOOM_RUNTIME_CORE_ARTIFACTCHECKS_H
