//===- DynamicLibrary.h - Loading programs and plugins ----------*- C++ -*-===//
//
// What every dlopen of the runtime needs: compiled programs and plugins
// (device kinds, communicator backends) resolve runtime symbols against
// libloom_runtime, and plugins are looked for beside it first.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_IO_DYNAMICLIBRARY_H
#define LOOM_RUNTIME_IO_DYNAMICLIBRARY_H

#include <string>

namespace loom::rt {

/// Makes this library's symbols visible to libraries loaded later
/// (programs, plugins), even when it was itself loaded RTLD_LOCAL (e.g. by
/// Python's ctypes).
void promoteRuntimeToGlobalScope();

/// The file libloom_runtime was loaded from; "" when unknown.
std::string runtimeLibraryPath();

/// `file` in the directory of libloom_runtime; "" when that is unknown.
std::string besideRuntime(const std::string &file);

/// Whether `name` is a plugin name: [a-z0-9_]+.
bool isPluginName(const std::string &name);

} // namespace loom::rt

#endif // LOOM_RUNTIME_IO_DYNAMICLIBRARY_H
