//===- DeviceMirror.cpp - A program's tensors in device memory ------------===//

#include "core/DeviceMirror.h"
#include "core/Program.h"

using namespace loom::rt;

namespace {
int allocate(loom_device *device, size_t bytes, const std::string &what,
             loom_buffer *&buffer, std::string &error) {
  char message[1024] = "";
  if (int status = loom_buffer_allocate(device, bytes, &buffer, message,
                                        sizeof(message))) {
    error = "cannot allocate " + std::to_string(bytes) +
            " bytes of device memory for " + what + ": " + message;
    return status;
  }
  return LOOM_OK;
}
} // namespace

int DeviceMirror::init(const loom_program &program, std::string &error) {
  release();
  const Manifest &manifest = program.manifest;
  auto make = [&](const std::vector<TensorSpec> &specs, const char *kind,
                  std::vector<loom_buffer *> &out) {
    out.assign(specs.size(), nullptr);
    for (size_t i = 0; i < specs.size(); ++i)
      if (int status = allocate(program.device, specs[i].nbytes,
                                std::string(kind) + " '" + specs[i].name + "'",
                                out[i], error))
        return status;
    return int(LOOM_OK);
  };
  if (int status = make(manifest.parameters, "parameter", parameters))
    return status;
  if (int status = make(manifest.inputs, "input", inputs))
    return status;
  if (int status = make(manifest.outputs, "output", outputs))
    return status;
  uploadedFrom.assign(parameters.size(), nullptr);
  parameterBytes.clear();
  for (const TensorSpec &p : manifest.parameters)
    parameterBytes.push_back(p.nbytes);
  isActive = true;
  return LOOM_OK;
}

void DeviceMirror::release() {
  for (auto *list : {&parameters, &inputs, &outputs}) {
    for (loom_buffer *b : *list)
      loom_buffer_free(b);
    list->clear();
  }
  uploadedFrom.clear();
  isActive = false;
}

void DeviceMirror::invalidate(const void *data, size_t bytes) {
  // Empty ranges still name an address.
  uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  uintptr_t end = begin + (bytes ? bytes : 1);
  for (size_t i = 0; i < uploadedFrom.size(); ++i) {
    auto from = reinterpret_cast<uintptr_t>(uploadedFrom[i]);
    uintptr_t to = from + (parameterBytes[i] ? parameterBytes[i] : 1);
    if (from && from < end && begin < to)
      uploadedFrom[i] = nullptr;
  }
}

int DeviceMirror::stage(const loom_program &program, const void *const *in,
                        std::vector<void *> &buffers, std::string &error) {
  char message[1024] = "";
  size_t slot = 0;
  for (size_t i = 0; i < parameters.size(); ++i, ++slot) {
    buffers[slot] = loom_buffer_data(parameters[i]);
    const void *host = program.parameterData[i];
    if (uploadedFrom[i] == host || !parameterBytes[i])
      continue;
    if (int status =
            loom_buffer_write(program.stream, parameters[i], 0, host,
                              parameterBytes[i], message, sizeof(message))) {
      error = "cannot upload parameter '" +
              program.manifest.parameters[i].name + "': " + message;
      return status;
    }
    uploadedFrom[i] = host;
  }
  for (size_t i = 0; i < inputs.size(); ++i, ++slot) {
    buffers[slot] = loom_buffer_data(inputs[i]);
    size_t bytes = program.manifest.inputs[i].nbytes;
    if (!bytes)
      continue;
    if (int status = loom_buffer_write(program.stream, inputs[i], 0, in[i],
                                       bytes, message, sizeof(message))) {
      error = "cannot upload input '" + program.manifest.inputs[i].name +
              "': " + message;
      return status;
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i, ++slot)
    buffers[slot] = loom_buffer_data(outputs[i]);
  return LOOM_OK;
}

int DeviceMirror::collect(const loom_program &program, void *const *out,
                          std::string &error) {
  char message[1024] = "";
  for (size_t i = 0; i < outputs.size(); ++i) {
    size_t bytes = program.manifest.outputs[i].nbytes;
    if (!bytes)
      continue;
    if (int status = loom_buffer_read(program.stream, outputs[i], 0, out[i],
                                      bytes, message, sizeof(message))) {
      error = "cannot read output '" + program.manifest.outputs[i].name +
              "': " + message;
      return status;
    }
  }
  return LOOM_OK;
}
