//===- ManifestReader.h - Reading manifest.json, key by key -----*- C++ -*-===//
//
// Shared by Manifest.cpp (versions, target, mesh, tensors) and
// ManifestTraining.cpp (updates and the training object): every check
// fails with a message naming the file and the key.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_CORE_MANIFESTREADER_H
#define LOOM_RUNTIME_CORE_MANIFESTREADER_H

#include "core/Manifest.h"
#include "loom/runtime/Json.h"
#include <string>
#include <vector>

namespace loom::rt::detail {

class ManifestReader {
public:
  ManifestReader(const std::string &manifestPath,
                 const std::string &artifactDir, std::string &error,
                 loom_status &status)
      : manifestPath(manifestPath), artifactDir(artifactDir), error(error),
        status(status) {}

  bool read(const json::Value &root, Manifest &manifest);

private:
  bool fail(const std::string &message, loom_status code = LOOM_ERROR_FORMAT) {
    error = manifestPath + ": " + message;
    status = code;
    return false;
  }

  bool wrongType(const std::string &keyPath, const char *expected,
                 const json::Value &value) {
    return fail("'" + keyPath + "' must be " + expected + ", found " +
                json::kindName(value.kind()));
  }

  /// The member `key` of `object`; null (and, if `required`, an error) when
  /// absent. JSON null counts as absent, so writers may emit null for
  /// "not set".
  const json::Value *member(const json::Value &object, const char *key,
                            const std::string &keyPath, bool required) {
    const json::Value *value = object.find(key);
    if (value && !value->isNull())
      return value;
    if (required)
      fail("missing key '" + keyPath + "'");
    return nullptr;
  }

  bool getString(const json::Value &object, const char *key,
                 const std::string &keyPath, bool required, std::string &out) {
    const json::Value *value = member(object, key, keyPath, required);
    if (!value)
      return !required;
    if (!value->isString())
      return wrongType(keyPath, "a string", *value);
    out = value->getString();
    return true;
  }

  bool getInteger(const json::Value &object, const char *key,
                  const std::string &keyPath, int64_t &out) {
    const json::Value *value = member(object, key, keyPath, true);
    if (!value)
      return false;
    if (!value->isInteger())
      return wrongType(keyPath, "an integer", *value);
    out = value->getInteger();
    return true;
  }

  bool getNumber(const json::Value &object, const char *key,
                 const std::string &keyPath, bool required, double &out) {
    const json::Value *value = member(object, key, keyPath, required);
    if (!value)
      return !required;
    if (!value->isNumber())
      return wrongType(keyPath, "a number", *value);
    out = value->getNumber();
    return true;
  }

  bool getOptionalInteger(const json::Value &object, const char *key,
                          const std::string &keyPath, int64_t min,
                          int64_t &out) {
    const json::Value *value = member(object, key, keyPath, false);
    if (!value)
      return true;
    if (!value->isInteger())
      return wrongType(keyPath, "an integer", *value);
    if (value->getInteger() < min)
      return fail("'" + keyPath + "' is " +
                  std::to_string(value->getInteger()) +
                  "; it must be at least " + std::to_string(min));
    out = value->getInteger();
    return true;
  }

  bool checkRelativePath(const std::string &keyPath, const std::string &path);
  bool readUpdates(Manifest &manifest);
  bool readTraining(const json::Value &root, Manifest &manifest);
  /// The index of the tensor named by the string at `key` of `object`.
  bool tensorIndex(const json::Value &object, const char *key,
                   const std::string &keyPath, bool required,
                   const std::vector<TensorSpec> &tensors, const char *list,
                   int64_t &index);
  bool readTarget(const json::Value &root, Manifest &manifest);
  bool readFiles(const json::Value &root, Manifest &manifest);
  bool readMesh(const json::Value &root, Manifest &manifest);
  /// A list of mesh axis names at `keyPath` into `axes`; each axis at most
  /// once, also across `seen` (axes already used by the same tensor).
  bool readAxisList(const json::Value &value, const std::string &keyPath,
                    const Manifest &manifest, std::vector<bool> &seen,
                    std::vector<int> &axes, bool isGroup = false);
  bool readGroups(const json::Value &root, Manifest &manifest);
  bool readCollectives(const json::Value &root, Manifest &manifest);
  bool readSharding(const json::Value &value, const std::string &keyPath,
                    const Manifest &manifest, TensorSpec &tensor);
  bool readTensors(const json::Value &root, const char *key, bool isParameter,
                   bool required, const Manifest &manifest,
                   std::vector<TensorSpec> &tensors);
  bool readTensor(const json::Value &value, const std::string &keyPath,
                  bool isParameter, const Manifest &manifest,
                  TensorSpec &tensor);

  const std::string &manifestPath;
  const std::string &artifactDir;
  std::string &error;
  loom_status &status;
};

} // namespace loom::rt::detail

#endif // LOOM_RUNTIME_CORE_MANIFESTREADER_H
