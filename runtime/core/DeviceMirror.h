//===- DeviceMirror.h - A program's tensors in device memory ----*- C++ -*-===//
//
// On devices whose buffers are not host memory (GPUs), the host keeps the
// parameters as on the CPU (mapped file, owned blocks, what training and
// checkpoints use) and the mirror holds a device buffer per parameter,
// input and output. A run uploads the parameters that changed since the
// last (the parameter-update hook marks them) and the inputs, launches on
// the device addresses, and reads the outputs back.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_CORE_DEVICEMIRROR_H
#define LOOM_RUNTIME_CORE_DEVICEMIRROR_H

#include "loom/runtime/Device.h"
#include <string>
#include <vector>

struct loom_program;

namespace loom::rt {

class DeviceMirror {
public:
  DeviceMirror() = default;
  DeviceMirror(const DeviceMirror &) = delete;
  DeviceMirror &operator=(const DeviceMirror &) = delete;
  ~DeviceMirror() { release(); }

  /// Whether the program runs through the mirror.
  bool active() const { return isActive; }

  /// Allocates the buffers of `program`, whose device is not host memory;
  /// a status and `error`.
  int init(const loom_program &program, std::string &error);
  void release();

  /// Host parameter memory [data, data + bytes) changed, moved or goes
  /// away: the parameters there are uploaded again before the next run.
  void invalidate(const void *data, size_t bytes);

  /// Queues the uploads of stale parameters and of `inputs` on the
  /// program's stream and fills `buffers` with the device addresses.
  int stage(const loom_program &program, const void *const *inputs,
            std::vector<void *> &buffers, std::string &error);
  /// Queues the reads of the outputs into `outputs`.
  int collect(const loom_program &program, void *const *outputs,
              std::string &error);

private:
  bool isActive = false;
  std::vector<loom_buffer *> parameters, inputs, outputs;
  /// The host memory each parameter was last uploaded from (null: stale).
  std::vector<const void *> uploadedFrom;
  std::vector<size_t> parameterBytes;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_CORE_DEVICEMIRROR_H
