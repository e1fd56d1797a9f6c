//===- DynamicLibrary.cpp - Loading programs and plugins ------------------===//

#include "io/DynamicLibrary.h"
#include "loom/runtime/Base.h"
#include "loom/runtime/Support.h"
#include <dlfcn.h>

using namespace loom::rt;

namespace {
/// Any symbol of this library: dladdr names the file it came from.
void *anchor() { return reinterpret_cast<void *>(&loom_runtime_version); }
} // namespace

void loom::rt::promoteRuntimeToGlobalScope() {
  Dl_info info;
  if (!::dladdr(anchor(), &info) || !info.dli_fname)
    return;
  if (void *self =
          ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
    ::dlclose(self); // The promotion outlives this extra reference.
}

std::string loom::rt::runtimeLibraryPath() {
  Dl_info info;
  if (!::dladdr(anchor(), &info) || !info.dli_fname)
    return std::string();
  return info.dli_fname;
}

std::string loom::rt::besideRuntime(const std::string &file) {
  std::string path = runtimeLibraryPath();
  if (path.empty())
    return std::string();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? file
                                    : joinPath(path.substr(0, slash), file);
}

bool loom::rt::isPluginName(const std::string &name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}
