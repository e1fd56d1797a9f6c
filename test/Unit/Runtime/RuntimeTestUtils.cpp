//===- RuntimeTestUtils.cpp - Helpers for the runtime's tests -------------===//

#include "RuntimeTestUtils.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <ftw.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::test;

TempDir::TempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base && *base ? base : "/tmp") + "/loom-rt-test-XXXXXX";
  if (::mkdtemp(pattern.data()))
    dirPath = pattern;
}

TempDir::~TempDir() {
  if (!dirPath.empty())
    removeTree(dirPath);
}

std::string TempDir::file(const std::string &name) const {
  return dirPath + "/" + name;
}

bool test::writeFile(const std::string &path, const std::string &contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  return static_cast<bool>(out);
}

std::string test::readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool test::fileExists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> test::listDirectory(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *entry = ::readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void test::removeTree(const std::string &path) {
  ::nftw(
      path.c_str(),
      [](const char *file, const struct stat *, int, struct FTW *) {
        ::remove(file);
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

json::Value test::tensorJson(const std::string &name, const std::string &dtype,
                             const std::vector<int64_t> &shape) {
  json::Value tensor = json::Value::object();
  tensor.set("name", json::Value::string(name));
  tensor.set("dtype", json::Value::string(dtype));
  json::Value dims = json::Value::array();
  for (int64_t dim : shape)
    dims.push_back(json::Value::integer(dim));
  tensor.set("shape", std::move(dims));
  return tensor;
}

json::Value test::affineManifest() {
  json::Value manifest = json::Value::object();
  manifest.set("format", json::Value::string("loom-artifact"));
  manifest.set("format_version", json::Value::integer(1));
  manifest.set("runtime_abi", json::Value::integer(1));
  manifest.set("producer", json::Value::string("hand-written test"));
  manifest.set("model", json::Value::string("affine.onnx"));
  json::Value target = json::Value::object();
  target.set("triple", json::Value::string("x86_64-unknown-linux-gnu"));
  target.set("cpu", json::Value::string("generic"));
  target.set("features", json::Value::array());
  manifest.set("target", std::move(target));
  manifest.set("library", json::Value::string("program.so"));
  manifest.set("entry", json::Value::string("loom_entry"));
  manifest.set("parameter_file", json::Value::string("parameters.bin"));
  json::Value parameter = tensorJson("p", "float32", {3});
  parameter.set("offset", json::Value::integer(0));
  parameter.set("nbytes", json::Value::integer(12));
  json::Value parameters = json::Value::array();
  parameters.push_back(std::move(parameter));
  manifest.set("parameters", std::move(parameters));
  json::Value inputs = json::Value::array();
  inputs.push_back(tensorJson("x", "float32", {2, 3}));
  manifest.set("inputs", std::move(inputs));
  json::Value outputs = json::Value::array();
  outputs.push_back(tensorJson("y", "float32", {2, 3}));
  outputs.push_back(tensorJson("count", "int64", {}));
  manifest.set("outputs", std::move(outputs));
  return manifest;
}

std::string test::affineParameters() {
  const float p[3] = {0.5f, 2.0f, -1.0f};
  return std::string(reinterpret_cast<const char *>(p), sizeof(p));
}

bool test::writeArtifact(const std::string &dir, const json::Value &manifest,
                         const std::string *parameters, const char *program) {
  ::mkdir(dir.c_str(), 0777);
  if (!writeFile(dir + "/manifest.json", json::serialize(manifest, 2)))
    return false;
  if (parameters && !writeFile(dir + "/parameters.bin", *parameters))
    return false;
  // A copy rather than a link, as loomc writes it: dlopen identifies
  // libraries by file, and each artifact should be its own. Replaced by
  // rename, never rewritten in place: a library still mapped by this
  // process (dlclose may keep it) must not change under it.
  if (program) {
    std::string temp = dir + "/program.so.tmp";
    if (!writeFile(temp, readFile(program)) ||
        std::rename(temp.c_str(), (dir + "/program.so").c_str()) != 0)
      return false;
  }
  return true;
}
