//===- RuntimeTestUtils.h - Helpers for the runtime's tests -----*- C++ -*-===//

#ifndef LOOM_TEST_UNIT_RUNTIME_RUNTIMETESTUTILS_H
#define LOOM_TEST_UNIT_RUNTIME_RUNTIMETESTUTILS_H

#include "loom/runtime/Json.h"
#include <string>
#include <vector>

namespace loom::rt::test {

/// A fresh directory under $TMPDIR (or /tmp), removed with its contents
/// when the object goes away.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return dirPath; }
  /// path() + "/" + name.
  std::string file(const std::string &name) const;

private:
  std::string dirPath;
};

/// Writes `contents` to `path`, replacing it; false on failure.
bool writeFile(const std::string &path, const std::string &contents);
/// The contents of `path`, or "" if it cannot be read.
std::string readFile(const std::string &path);
bool fileExists(const std::string &path);
/// Names of the entries of `dir`, sorted, without "." and "..".
std::vector<std::string> listDirectory(const std::string &dir);
/// Removes `path` and everything below it.
void removeTree(const std::string &path);

/// {"name": ..., "dtype": ..., "shape": [...]}.
json::Value tensorJson(const std::string &name, const std::string &dtype,
                       const std::vector<int64_t> &shape);

/// The manifest of the "affine" test program (TestProgram.c): parameter
/// p float32[3] at offset 0, input x float32[2,3], outputs y float32[2,3]
/// and count int64[].
json::Value affineManifest();
/// parameters.bin for affineManifest(): p = {0.5, 2, -1}.
std::string affineParameters();

/// Writes an artifact directory `dir`: manifest.json from `manifest`,
/// parameters.bin from `parameters` unless null, and program.so as a copy
/// of `program` unless null.
bool writeArtifact(const std::string &dir, const json::Value &manifest,
                   const std::string *parameters,
                   const char *program = LOOM_TEST_PROGRAM);

} // namespace loom::rt::test

#endif // LOOM_TEST_UNIT_RUNTIME_RUNTIMETESTUTILS_H
