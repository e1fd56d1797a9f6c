//===- Signature.cpp - The manifest against the compiled program ----------===//
//
// The manifest tells the runtime how large each buffer is; the program
// assumes the sizes it was compiled for. A manifest edited by hand, or
// copied beside another build's program.so, would have the program read or
// write out of bounds. Compiled CPU programs export their entry's signature
// (ENTRY_signature, a JSON string: docs/Artifact.md), checked here once the
// library is loaded and before anything runs.
//
//===----------------------------------------------------------------------===//

#include "core/ArtifactChecks.h"
#include "core/Program.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <cstring>

using namespace loom::rt;

namespace {
/// A signature larger than this is not one (the cap also bounds the scan
/// for its terminating NUL).
constexpr size_t kMaxSignatureBytes = 64u << 20;

struct SignedTensor {
  std::string name;
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> shape;
  int64_t nbytes = 0;
};

/// The list `key` of the signature; false with a reason when malformed.
bool readList(const json::Value &root, const char *key,
              std::vector<SignedTensor> &out, std::string &why) {
  const json::Value *list = root.find(key);
  if (!list || !list->isArray()) {
    why = std::string("'") + key + "' is not a list";
    return false;
  }
  for (const json::Value &v : list->getArray()) {
    const json::Value *name = v.find("name");
    const json::Value *dtype = v.find("dtype");
    const json::Value *shape = v.find("shape");
    const json::Value *nbytes = v.find("nbytes");
    if (!name || !name->isString() || !dtype || !dtype->isString() || !shape ||
        !shape->isArray() || !nbytes || !nbytes->isInteger()) {
      why = std::string("an entry of '") + key +
            "' lacks its name, dtype, shape or nbytes";
      return false;
    }
    SignedTensor t;
    t.name = name->getString();
    t.dtype = loom_dtype_from_name(dtype->getString().c_str());
    for (const json::Value &d : shape->getArray()) {
      if (!d.isInteger()) {
        why = "the shape of '" + t.name + "' is not a list of integers";
        return false;
      }
      t.shape.push_back(d.getInteger());
    }
    t.nbytes = nbytes->getInteger();
    out.push_back(std::move(t));
  }
  return true;
}

std::string describe(loom_dtype dtype, const std::vector<int64_t> &shape,
                     int64_t nbytes) {
  return formatTensorType(dtype, shape) + " (" + std::to_string(nbytes) +
         " bytes)";
}

/// Compares one list of the manifest with the signature's.
bool compare(const std::vector<TensorSpec> &manifest,
             const std::vector<SignedTensor> &signature, const char *kind,
             const char *kinds, const std::string &library,
             std::string &error) {
  if (manifest.size() != signature.size()) {
    error = "the manifest lists " + std::to_string(manifest.size()) + " " +
            kinds + ", but '" + library + "' was compiled for " +
            std::to_string(signature.size());
    return false;
  }
  for (size_t i = 0; i < manifest.size(); ++i) {
    const TensorSpec &m = manifest[i];
    const SignedTensor &s = signature[i];
    if (m.name != s.name) {
      error = std::string(kind) + " " + std::to_string(i) + " is named '" +
              m.name + "' in the manifest, but '" + s.name + "' in '" +
              library + "'";
      return false;
    }
    if (m.dtype != s.dtype || m.shape != s.shape ||
        static_cast<int64_t>(m.nbytes) != s.nbytes) {
      error = std::string(kind) + " '" + m.name + "' is " +
              describe(m.dtype, m.shape, static_cast<int64_t>(m.nbytes)) +
              " in the manifest, but '" + library + "' was compiled for " +
              describe(s.dtype, s.shape, s.nbytes);
      return false;
    }
  }
  return true;
}
} // namespace

bool loom::rt::checkSignatureText(const Manifest &manifest,
                                  std::string_view text,
                                  const std::string &library,
                                  const std::string &symbol,
                                  std::string &error) {
  json::Value root;
  json::ParseError parseError;
  std::string why;
  if (!json::parse(text, root, parseError))
    why = "invalid JSON at " + parseError.format();
  else if (!root.isObject() || !root.find("version") ||
           !root.find("version")->isInteger())
    why = "it has no 'version'";
  else if (root.find("version")->getInteger() != LOOM_SIGNATURE_VERSION)
    why = "it has version " +
          std::to_string(root.find("version")->getInteger()) +
          "; this runtime reads version " +
          std::to_string(LOOM_SIGNATURE_VERSION);
  std::vector<SignedTensor> params, inputs, outputs;
  if (why.empty() && readList(root, "parameters", params, why) &&
      readList(root, "inputs", inputs, why))
    readList(root, "outputs", outputs, why);
  if (!why.empty()) {
    error = "the signature '" + symbol + "' of '" + library +
            "' is malformed: " + why;
    return false;
  }
  std::string mismatch;
  if (!compare(manifest.parameters, params, "parameter", "parameters", library,
               mismatch) ||
      !compare(manifest.inputs, inputs, "input", "inputs", library, mismatch) ||
      !compare(manifest.outputs, outputs, "output", "outputs", library,
               mismatch)) {
    error = "the manifest does not match the compiled program: " + mismatch;
    return false;
  }
  return true;
}

bool loom::rt::checkProgramSignature(const loom_program &program,
                                     std::string &error, loom_status &status) {
  const Manifest &manifest = program.manifest;
  // Other devices' executables are not libraries (docs/Artifact.md).
  if (manifest.targetDevice != LOOM_DEFAULT_DEVICE_KIND)
    return true;
  std::string library = joinPath(program.artifactDir, manifest.library);
  std::string symbol = manifest.entry + LOOM_SIGNATURE_SUFFIX;
  std::string prefix = "artifact '" + program.artifactDir + "': ";
  status = LOOM_ERROR_FORMAT;
  void *address = nullptr;
  char message[1024] = "";
  if (loom_executable_lookup(program.executable, symbol.c_str(), &address,
                             message, sizeof(message)) != LOOM_OK ||
      !address) {
    if (manifest.formatVersion < LOOM_ARTIFACT_FORMAT_CHECKSUMS)
      return true;
    error = prefix + "program library '" + library + "' does not export '" +
            symbol + "', the signature format_version " +
            std::to_string(manifest.formatVersion) +
            " programs carry: recompile it with a matching loomc";
    return false;
  }
  const char *text = static_cast<const char *>(address);
  size_t length = ::strnlen(text, kMaxSignatureBytes);
  if (length == kMaxSignatureBytes) {
    error = prefix + "the signature '" + symbol + "' of '" + library +
            "' is malformed: it is not a NUL-terminated string";
    return false;
  }
  if (!checkSignatureText(manifest, std::string_view(text, length), library,
                          symbol, error)) {
    error = prefix + error;
    return false;
  }
  return true;
}
