//===- BackendPlugins.cpp - Loading communicator backend plugins ----------===//
//
// A backend NAME other than the built-in MPI is the plugin
// libloom_comm_NAME.so exporting loom_comm_backend_NAME (CommBackend.h),
// loaded with dlopen so that the runtime never links CUDA or NCCL. A plugin
// of another LOOM_COMM_BACKEND_ABI_VERSION is refused before any of its
// functions is called.
//
//===----------------------------------------------------------------------===//

#include "comm/Comm.h"
#include "io/DynamicLibrary.h"
#include "loom/runtime/Support.h"
#include <dlfcn.h>
#include <unistd.h>

using namespace loom::rt;

/// Loads libloom_comm_<name>.so: beside libloom_runtime.so first (an
/// installed tree keeps them together), then the library search path.
const loom_comm_backend_ops *
loom::rt::loadBackendPlugin(const std::string &name, std::string &error) {
  if (!isPluginName(name)) {
    error = "unknown communicator backend " + quoteForMessage(name) +
            " (known: mpi, nccl, self)";
    return nullptr;
  }
  std::string file = "libloom_comm_" + name + ".so";
  std::string symbol = "loom_comm_backend_" + name;
  std::string runtimePath = runtimeLibraryPath();
  std::string beside = besideRuntime(file);
  // Plugins may call into the runtime (loom_dtype_size, ...).
  promoteRuntimeToGlobalScope();
  void *handle = nullptr;
  std::string path;
  if (!beside.empty() && ::access(beside.c_str(), F_OK) == 0) {
    path = beside;
    handle = ::dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *message = ::dlerror();
      error = "cannot load the '" + name + "' communicator backend '" + beside +
              "': " + (message ? message : "unknown dlopen error");
      return nullptr;
    }
  } else {
    path = file;
    handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *message = ::dlerror();
      error = "the '" + name + "' communicator backend needs the plugin " +
              file + ", which is neither beside " +
              (runtimePath.empty() ? std::string("libloom_runtime.so")
                                   : runtimePath) +
              " nor loadable from the library search path (" +
              (message ? message : "unknown dlopen error") + ")";
      if (name == "nccl")
        error += "; build runtime/comm/nccl on a machine with CUDA and NCCL";
      return nullptr;
    }
  }
  // Plugins stay loaded: CUDA-based libraries do not survive unloading.
  void *entry = ::dlsym(handle, symbol.c_str());
  if (!entry) {
    error = "communicator backend plugin '" + path + "' does not export '" +
            symbol + "'";
    return nullptr;
  }
  const loom_comm_backend_ops *ops =
      reinterpret_cast<loom_comm_backend_entry>(entry)();
  if (!ops) {
    error = "communicator backend plugin '" + path + "' returned no backend";
    return nullptr;
  }
  if (ops->abi_version != LOOM_COMM_BACKEND_ABI_VERSION) {
    error = "communicator backend plugin '" + path +
            "' implements backend ABI " + std::to_string(ops->abi_version) +
            ", but this runtime needs " +
            std::to_string(LOOM_COMM_BACKEND_ABI_VERSION) +
            ": rebuild the plugin with this runtime";
    return nullptr;
  }
  if (!ops->group_create || !ops->group_destroy || !ops->all_reduce ||
      !ops->all_gather || !ops->reduce_scatter || !ops->all_to_all ||
      !ops->broadcast) {
    error = "communicator backend plugin '" + path +
            "' leaves some of its operations NULL";
    return nullptr;
  }
  return ops;
}
