//===- loom-artifact-fuzz.cpp - libFuzzer target for the artifact loader --===//
//
// What the loader checks before anything runs, from untrusted bytes: the
// manifest (with its `files`) and the signature a program library exports.
// An input is a manifest, a NUL byte, then a signature; when the manifest
// parses, the signature is checked against it. Neither may crash, and a
// check that passes must mean the tensors agree.
//
//===----------------------------------------------------------------------===//

#include "core/ArtifactChecks.h"
#include "core/Manifest.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace loom::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  size_t nul = input.find('\0');
  std::string_view manifestText = input.substr(0, nul);
  std::string_view signature = nul == std::string_view::npos
                                   ? std::string_view()
                                   : input.substr(nul + 1);

  Manifest manifest;
  std::string error;
  loom_status status = LOOM_OK;
  if (!parseManifest(manifestText, "fuzz.loom/manifest.json", "fuzz.loom",
                     manifest, error, status))
    return 0;
  if (checkSignatureText(manifest, signature, "fuzz.loom/program.so",
                         "loom_entry_signature", error) &&
      signature.empty())
    std::abort(); // an empty signature cannot describe any program
  return 0;
}
