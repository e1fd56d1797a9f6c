//===- Executable.h - A loaded CUDA program and its runs --------*- C++ -*-===//
//
// Loading reads and checks the schedule, loads the kernel image that runs
// on this GPU (its cubin, or the PTX through the driver's JIT), finds every
// kernel, uploads the constants, allocates the arena and cuBLASLt's
// workspace and plans every GEMM, so that a run only resolves addresses and
// queues work.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_DEVICES_CUDA_EXECUTABLE_H
#define LOOM_RUNTIME_DEVICES_CUDA_EXECUTABLE_H

#include "devices/cuda/CudaApi.h"
#include "devices/cuda/Gemm.h"
#include "devices/cuda/Schedule.h"
#include <memory>
#include <string>
#include <vector>

namespace loom::rt::cuda {

/// What an executable needs of its device.
struct DeviceContext {
  const Driver *driver = nullptr;
  CUcontext context = nullptr;
  /// Compute capability, major * 10 + minor.
  int cc = 0;
  std::string name;
};

/// Reads and checks `path` (program.cuda.json); the status and `error`
/// when it is not a schedule this runtime reads.
int readSchedule(const std::string &path, Schedule &schedule,
                 std::string &error);

/// Why a GPU of `device` cannot run `schedule` (the message of
/// LOOM_ERROR_INCOMPATIBLE), or "".
std::string incompatibility(const Schedule &schedule,
                            const DeviceContext &device,
                            const std::string &artifact);

class Executable {
public:
  explicit Executable(const DeviceContext &device) : device(device) {}
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;
  ~Executable();

  /// Loads the program of `path` in `artifact`; a status and `error`.
  int load(const std::string &path, const std::string &artifact,
           std::string &error);

  /// Queues a run on `stream` over the entry's buffers.
  int launch(CUstream stream, void *const *buffers, size_t numBuffers,
             std::string &error);

  /// The kernel named `symbol`.
  CUfunction lookup(const std::string &symbol) const;

private:
  int fail(int status, const std::string &message, std::string &error) const;
  bool driverCall(CUresult result, const char *call, std::string &error) const;
  int prepareLaunches(std::string &error);
  int prepareGemms(std::string &error);
  int runCollective(const Collective &c, CUdeviceptr src, CUdeviceptr dst,
                    CUstream stream, std::string &error);
  /// Queues instruction `i` on `stream`.
  int runInstruction(size_t i, CUstream stream, std::string &error);
  /// Queues instructions [begin, end) as a CUDA graph, captured on the
  /// first run with these entry buffers and replayed after.
  int runSegment(size_t segment, CUstream stream, void *const *buffers,
                 std::string &error);
  void destroyGraph(size_t segment);

  DeviceContext device;
  std::string path;
  Schedule schedule;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
  CUdeviceptr arena = 0, constants = 0, workspace = 0;
  size_t workspaceBytes = 0;
  cublasLtHandle_t blasHandle = nullptr;
  std::vector<std::unique_ptr<GemmPlan>> gemms;
  /// Per launch: its parameter slots (8 bytes each) and which hold buffer
  /// addresses: slot, argument.
  struct LaunchParams {
    std::vector<uint64_t> slots;
    std::vector<std::pair<size_t, size_t>> addresses;
  };
  std::vector<LaunchParams> launchParams;
  /// Host copies of a collective's buffers.
  std::vector<unsigned char> stagingSrc, stagingDst;
  /// The address of every buffer in the current run.
  std::vector<CUdeviceptr> addresses;
  /// Runs of instructions between collectives (which wait on the host),
  /// each a graph once captured, for the entry buffers it was captured
  /// with.
  struct Segment {
    size_t begin = 0, end = 0;
    bool collective = false;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    std::vector<void *> capturedWith;
  };
  std::vector<Segment> segments;
  bool useGraphs = true;
};

} // namespace loom::rt::cuda

#endif // LOOM_RUNTIME_DEVICES_CUDA_EXECUTABLE_H
