/*===- TestPlugins.c - Plugins for the runtime's plugin loaders -----------===*\
|*                                                                            *|
|* Built three times into the directory of libloom_runtime.so, where the      *|
|* runtime looks for plugins first:                                           *|
|*  - libloom_device_testcpu.so: the built-in CPU device's table under        *|
|*    another kind, so that the device conformance tests also run a device    *|
|*    loaded as a plugin (LOOM_TEST_DEVICE_PLUGIN);                           *|
|*  - libloom_device_testold.so: a device of an older device ABI, to be       *|
|*    refused (LOOM_TEST_OLD_DEVICE);                                         *|
|*  - libloom_comm_oldabi.so: a communicator backend of backend ABI 1 (no     *|
|*    streams), to be refused (LOOM_TEST_OLD_COMM_BACKEND).                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "loom/runtime/CommBackend.h"
#include "loom/runtime/DeviceBackend.h"

#define EXPORT __attribute__((visibility("default")))

#if defined(LOOM_TEST_DEVICE_PLUGIN)
/* Resolved against the runtime, which the loader made global. */
EXPORT const loom_device_ops *loom_device_testcpu(void) {
  static loom_device_ops ops;
  ops = *loom_device_cpu();
  ops.kind = "testcpu";
  return &ops;
}
#elif defined(LOOM_TEST_OLD_DEVICE)
EXPORT const loom_device_ops *loom_device_testold(void) {
  static loom_device_ops ops;
  ops.abi_version = LOOM_DEVICE_ABI_VERSION - 1;
  ops.kind = "testold";
  return &ops;
}
#elif defined(LOOM_TEST_OLD_COMM_BACKEND)
/* Only the version is read before the plugin is refused. */
EXPORT const loom_comm_backend_ops *loom_comm_backend_oldabi(void) {
  static loom_comm_backend_ops ops;
  ops.abi_version = 1;
  ops.name = "oldabi";
  return &ops;
}
#else
#error "define which plugin to build"
#endif
