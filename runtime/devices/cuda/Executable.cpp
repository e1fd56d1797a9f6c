//===- Executable.cpp - A loaded CUDA program and its runs ----------------===//

#include "devices/cuda/Executable.h"
#include "loom/runtime/Base.h"
#include "loom/runtime/Collectives.h"
#include "loom/runtime/Support.h"
#include <cstring>

using namespace loom::rt;
using namespace loom::rt::cuda;

namespace {
// Schedules are small; the cap keeps a wrong file from reading gigabytes.
constexpr size_t kMaxScheduleBytes = size_t(1) << 30;
constexpr size_t kMaxImageBytes = size_t(1) << 31;
// cuBLASLt's workspace: what its heuristics ask for on Hopper.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

std::string chipOf(int cc) { return "sm_" + std::to_string(cc); }

std::string imageList(const Schedule &s) {
  std::string list;
  for (const KernelImage &image : s.cubins)
    list += (list.empty() ? "" : ", ") + image.chip;
  if (!s.ptx.chip.empty())
    list += (list.empty() ? "" : ", ") + ("PTX for " + s.ptx.chip);
  return list;
}
} // namespace

int loom::rt::cuda::readSchedule(const std::string &path, Schedule &schedule,
                                 std::string &error) {
  std::string text;
  if (!readFileToString(path, kMaxScheduleBytes, text, error))
    return LOOM_ERROR_IO;
  if (!parseSchedule(text, path, schedule, error))
    return LOOM_ERROR_FORMAT;
  return LOOM_OK;
}

std::string loom::rt::cuda::incompatibility(const Schedule &schedule,
                                            const DeviceContext &device,
                                            const std::string &artifact) {
  if (schedule.kernels.empty())
    return "";
  bool isPtx;
  if (chooseImage(schedule, device.cc, isPtx))
    return "";
  return "artifact '" + artifact + "' has kernels for " + imageList(schedule) +
         ", none of which runs on this GPU (" + device.name + ", " +
         chipOf(device.cc) +
         "): recompile it with --target=cuda:" + chipOf(device.cc);
}

Executable::~Executable() {
  const Driver *d = device.driver;
  d->cuCtxSetCurrent(device.context);
  for (size_t i = 0; i < segments.size(); ++i)
    destroyGraph(i);
  gemms.clear();
  std::string ignored;
  if (blasHandle)
    if (const BlasLt *lt = blasLt(ignored))
      lt->cublasLtDestroy(blasHandle);
  for (CUdeviceptr p : {arena, constants, workspace})
    if (p)
      d->cuMemFree(p);
  if (module)
    d->cuModuleUnload(module);
}

int Executable::fail(int status, const std::string &message,
                     std::string &error) const {
  error = message;
  return status;
}

bool Executable::driverCall(CUresult result, const char *call,
                            std::string &error) const {
  if (result == CUDA_SUCCESS)
    return true;
  error = "artifact program '" + path + "': " + call + ": " +
          device.driver->describe(result);
  return false;
}

int Executable::load(const std::string &schedulePath,
                     const std::string &artifact, std::string &error) {
  path = schedulePath;
  if (int status = readSchedule(path, schedule, error))
    return status;
  std::string why = incompatibility(schedule, device, artifact);
  if (!why.empty())
    return fail(LOOM_ERROR_INCOMPATIBLE, why, error);
  const Driver *d = device.driver;
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  if (!schedule.kernels.empty()) {
    bool isPtx;
    const KernelImage *image = chooseImage(schedule, device.cc, isPtx);
    std::string imagePath = dir + image->file, data;
    if (!readFileToString(imagePath, kMaxImageBytes, data, error))
      return LOOM_ERROR_IO;
    // The JIT reads PTX up to its terminating NUL.
    if (isPtx && data.find('\0') != std::string::npos)
      return fail(LOOM_ERROR_FORMAT, "PTX '" + imagePath + "' holds a NUL byte",
                  error);
    char log[4096] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
    CUresult loaded =
        d->cuModuleLoadDataEx(&module, data.c_str(), 2, options, values);
    if (loaded != CUDA_SUCCESS)
      return fail(LOOM_ERROR_FORMAT,
                  "cannot load the kernels of '" + imagePath +
                      "': " + d->describe(loaded) +
                      (*log ? std::string(": ") + log : std::string()),
                  error);
    for (const std::string &name : schedule.kernels) {
      CUfunction f = nullptr;
      CUresult found = d->cuModuleGetFunction(&f, module, name.c_str());
      if (found != CUDA_SUCCESS)
        return fail(LOOM_ERROR_FORMAT,
                    "kernel '" + name + "' is not in '" + imagePath +
                        "': " + d->describe(found),
                    error);
      functions.push_back(f);
    }
  }
  // One byte at least, so that every buffer has a valid address.
  if (!driverCall(
          d->cuMemAlloc(&arena, schedule.arenaBytes ? schedule.arenaBytes : 1),
          "cuMemAlloc (the arena)", error))
    return LOOM_ERROR_OUT_OF_MEMORY;
  if (!driverCall(d->cuMemAlloc(&constants, schedule.constantsBytes
                                                ? schedule.constantsBytes
                                                : 1),
                  "cuMemAlloc (the constants)", error))
    return LOOM_ERROR_OUT_OF_MEMORY;
  if (!schedule.constantsFile.empty()) {
    std::string data, file = dir + schedule.constantsFile;
    if (!readFileToString(file, kMaxImageBytes, data, error))
      return LOOM_ERROR_IO;
    if (data.size() != schedule.constantsBytes)
      return fail(LOOM_ERROR_FORMAT,
                  "'" + file + "' has " + std::to_string(data.size()) +
                      " bytes, the schedule says " +
                      std::to_string(schedule.constantsBytes),
                  error);
    if (!driverCall(
            d->cuMemcpyHtoDAsync(constants, data.data(), data.size(), nullptr),
            "cuMemcpyHtoD (the constants)", error) ||
        !driverCall(d->cuStreamSynchronize(nullptr), "cuStreamSynchronize",
                    error))
      return LOOM_ERROR_IO;
  }
  if (int status = prepareLaunches(error))
    return status;
  if (int status = prepareGemms(error))
    return status;
  addresses.resize(schedule.buffers.size());
  for (size_t i = 0; i < schedule.instructions.size(); ++i) {
    bool collective = schedule.instructions[i].op == Instruction::CollectiveOp;
    if (segments.empty() || collective || segments.back().collective)
      segments.push_back({i, i, collective});
    segments.back().end = i + 1;
  }
  // LOOM_CUDA_GRAPHS=0 queues every instruction on every run (to tell a
  // capture problem from another).
  const char *graphs = getenv("LOOM_CUDA_GRAPHS");
  useGraphs = !(graphs && std::string(graphs) == "0");
  return LOOM_OK;
}

void Executable::destroyGraph(size_t i) {
  Segment &s = segments[i];
  if (s.exec)
    device.driver->cuGraphExecDestroy(s.exec);
  if (s.graph)
    device.driver->cuGraphDestroy(s.graph);
  s.exec = nullptr;
  s.graph = nullptr;
  s.capturedWith.clear();
}

int Executable::runSegment(size_t i, CUstream stream, void *const *buffers,
                           std::string &error) {
  Segment &s = segments[i];
  const Driver *d = device.driver;
  bool same = s.exec &&
              std::equal(s.capturedWith.begin(), s.capturedWith.end(), buffers);
  if (!same) {
    destroyGraph(i);
    if (!driverCall(d->cuStreamBeginCapture(
                        stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                    "cuStreamBeginCapture", error))
      return LOOM_ERROR_IO;
    int status = LOOM_OK;
    for (size_t at = s.begin; at < s.end && !status; ++at)
      status = runInstruction(at, stream, error);
    CUgraph graph = nullptr;
    CUresult ended = d->cuStreamEndCapture(stream, &graph);
    if (status) {
      if (graph)
        d->cuGraphDestroy(graph);
      return status;
    }
    if (!driverCall(ended, "cuStreamEndCapture", error))
      return LOOM_ERROR_IO;
    s.graph = graph;
    if (!driverCall(d->cuGraphInstantiate(&s.exec, graph, 0),
                    "cuGraphInstantiate", error)) {
      destroyGraph(i);
      return LOOM_ERROR_IO;
    }
    s.capturedWith.assign(buffers, buffers + schedule.numArguments);
  }
  return driverCall(d->cuGraphLaunch(s.exec, stream), "cuGraphLaunch", error)
             ? LOOM_OK
             : LOOM_ERROR_IO;
}

int Executable::prepareLaunches(std::string &error) {
  for (const Launch &l : schedule.launches) {
    LaunchParams p;
    for (size_t a = 0; a < l.args.size(); ++a) {
      const KernelArg &arg = l.args[a];
      uint64_t bits = 0;
      switch (arg.kind) {
      case KernelArg::Memref:
        // allocated, aligned, offset, sizes, strides (MLIR's descriptor,
        // expanded by convert-gpu-to-nvvm).
        p.addresses.push_back({p.slots.size(), a});
        p.slots.push_back(0);
        p.addresses.push_back({p.slots.size(), a});
        p.slots.push_back(0);
        p.slots.push_back(uint64_t(arg.offset));
        for (int64_t s : arg.sizes)
          p.slots.push_back(uint64_t(s));
        for (int64_t s : arg.strides)
          p.slots.push_back(uint64_t(s));
        continue;
      case KernelArg::I64:
        bits = uint64_t(arg.i);
        break;
      case KernelArg::I32: {
        int32_t v = int32_t(arg.i);
        std::memcpy(&bits, &v, sizeof(v));
        break;
      }
      case KernelArg::F32: {
        float v = float(arg.f);
        std::memcpy(&bits, &v, sizeof(v));
        break;
      }
      case KernelArg::F64:
        std::memcpy(&bits, &arg.f, sizeof(bits));
        break;
      }
      p.slots.push_back(bits);
    }
    launchParams.push_back(std::move(p));
  }
  return LOOM_OK;
}

int Executable::prepareGemms(std::string &error) {
  if (schedule.gemms.empty())
    return LOOM_OK;
  const BlasLt *lt = blasLt(error);
  if (!lt)
    return LOOM_ERROR_UNSUPPORTED;
  cublasStatus_t created = lt->cublasLtCreate(&blasHandle);
  if (created != CUBLAS_STATUS_SUCCESS)
    return fail(LOOM_ERROR_UNSUPPORTED,
                "cublasLtCreate: " + lt->describe(created), error);
  // Less workspace, slower algorithms; none at all still runs.
  for (size_t bytes : {kWorkspaceBytes, kWorkspaceBytes / 8, size_t(0)}) {
    workspaceBytes = bytes;
    if (!bytes || device.driver->cuMemAlloc(&workspace, bytes) == CUDA_SUCCESS)
      break;
  }
  for (size_t i = 0; i < schedule.gemms.size(); ++i) {
    const Gemm &g = schedule.gemms[i];
    gemms.push_back(std::make_unique<GemmPlan>());
    std::string why;
    if (!gemms.back()->prepare(lt, blasHandle, g, workspaceBytes, why))
      return fail(LOOM_ERROR_UNSUPPORTED,
                  "artifact program '" + path + "': GEMM " + std::to_string(i) +
                      " (" + std::to_string(g.batch) + " x " +
                      std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                      std::to_string(g.k) + "): " + why,
                  error);
  }
  return LOOM_OK;
}

CUfunction Executable::lookup(const std::string &symbol) const {
  for (size_t i = 0; i < schedule.kernels.size(); ++i)
    if (schedule.kernels[i] == symbol)
      return functions[i];
  return nullptr;
}

int Executable::runCollective(const Collective &c, CUdeviceptr src,
                              CUdeviceptr dst, CUstream stream,
                              std::string &error) {
  const Driver *d = device.driver;
  // The runtime's collectives work on host memory: stage through it.
  stagingSrc.resize(c.srcBytes);
  stagingDst.resize(c.dstBytes);
  // (A receive reads nothing, a send writes nothing.)
  if (c.srcBytes && !driverCall(d->cuMemcpyDtoHAsync(stagingSrc.data(), src,
                                                     c.srcBytes, stream),
                                "cuMemcpyDtoHAsync", error))
    return LOOM_ERROR_IO;
  if (!driverCall(d->cuStreamSynchronize(stream), "cuStreamSynchronize", error))
    return LOOM_ERROR_IO;
  const void *in = stagingSrc.data();
  void *out = stagingDst.data();
  const std::vector<int64_t> &v = c.ints;
  auto i32 = [&](size_t i) { return int32_t(v[i]); };
  if (c.kind == "all_reduce")
    loom_coll_all_reduce(in, out, v[0], i32(1), i32(2), i32(3));
  else if (c.kind == "all_gather")
    loom_coll_all_gather(in, out, v[0], v[1], i32(2));
  else if (c.kind == "reduce_scatter")
    loom_coll_reduce_scatter(in, out, v[0], v[1], i32(2), i32(3), i32(4));
  else if (c.kind == "all_to_all")
    loom_coll_all_to_all(in, out, v[0], v[1], v[2], v[3], i32(4));
  else if (c.kind == "broadcast")
    loom_coll_broadcast(in, out, v[0], v[1], i32(2));
  else if (c.kind == "send")
    loom_coll_send(in, v[0], v[1], v[2], i32(3));
  else if (c.kind == "recv")
    loom_coll_recv(out, v[0], v[1], v[2], i32(3));
  else
    loom_coll_take_shard(in, out, v[0], v[1], i32(2));
  if (c.dstBytes && (!driverCall(d->cuMemcpyHtoDAsync(dst, stagingDst.data(),
                                                      c.dstBytes, stream),
                                 "cuMemcpyHtoDAsync", error) ||
                     !driverCall(d->cuStreamSynchronize(stream),
                                 "cuStreamSynchronize", error)))
    return LOOM_ERROR_IO;
  return LOOM_OK;
}

int Executable::launch(CUstream stream, void *const *buffers, size_t numBuffers,
                       std::string &error) {
  if (numBuffers != schedule.numArguments)
    return fail(LOOM_ERROR_INVALID_ARGUMENT,
                "artifact program '" + path + "' takes " +
                    std::to_string(schedule.numArguments) + " buffers, not " +
                    std::to_string(numBuffers),
                error);
  for (size_t b = 0; b < schedule.buffers.size(); ++b) {
    const BufferDesc &desc = schedule.buffers[b];
    switch (desc.space) {
    case Space::Arg:
      addresses[b] = reinterpret_cast<CUdeviceptr>(buffers[desc.index]);
      break;
    case Space::Const:
      addresses[b] = constants + desc.offset;
      break;
    case Space::Arena:
      addresses[b] = arena + desc.offset;
      break;
    }
  }
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment &segment = segments[i];
    int status = LOOM_OK;
    if (stream && useGraphs && !segment.collective) {
      status = runSegment(i, stream, buffers, error);
      // Nothing ran during a failed capture: run the instructions one by
      // one from now on, which fails again if the fault is theirs.
      if (status) {
        useGraphs = false;
        destroyGraph(i);
        status = LOOM_OK;
        for (size_t at = segment.begin; at < segment.end && !status; ++at)
          status = runInstruction(at, stream, error);
      }
    } else {
      for (size_t at = segment.begin; at < segment.end && !status; ++at)
        status = runInstruction(at, stream, error);
    }
    if (status)
      return status;
  }
  return LOOM_OK;
}

int Executable::runInstruction(size_t i, CUstream stream, std::string &error) {
  const Driver *d = device.driver;
  auto at = [&](const Ref &r) { return addresses[r.buffer] + r.offset; };
  std::vector<void *> pointers;
  {
    const Instruction &in = schedule.instructions[i];
    std::string where = "instruction " + std::to_string(i) + ": ";
    bool ok = true;
    switch (in.op) {
    case Instruction::LaunchOp: {
      const Launch &l = schedule.launches[in.index];
      LaunchParams &p = launchParams[in.index];
      for (auto [slot, arg] : p.addresses)
        p.slots[slot] = at(l.args[arg].ref);
      pointers.clear();
      for (uint64_t &slot : p.slots)
        pointers.push_back(&slot);
      ok = driverCall(
          d->cuLaunchKernel(functions[l.kernel], l.grid[0], l.grid[1],
                            l.grid[2], l.block[0], l.block[1], l.block[2],
                            l.shared, stream, pointers.data(), nullptr),
          ("cuLaunchKernel of " + schedule.kernels[l.kernel]).c_str(), error);
      break;
    }
    case Instruction::GemmOp: {
      const Gemm &g = schedule.gemms[in.index];
      const GemmPlan &plan = *gemms[in.index];
      if (!plan.empty()) {
        ok = plan.run(at(g.a.ref), at(g.b.ref), at(g.c.ref), workspace,
                      workspaceBytes, stream, error);
      } else if (g.beta == 0 && g.m && g.n) {
        // k = 0: C = 0 (a dense C, as the compiler only drops the
        // zero fill of one).
        uint64_t words = uint64_t(g.m) * uint64_t(g.n) * uint64_t(g.batch);
        ok = driverCall(
            g.typeC == ElementType::F64
                ? d->cuMemsetD32Async(at(g.c.ref), 0, words * 2, stream)
            : g.typeC == ElementType::F32
                ? d->cuMemsetD32Async(at(g.c.ref), 0, words, stream)
                : d->cuMemsetD16Async(at(g.c.ref), 0, words, stream),
            "cuMemsetAsync", error);
      }
      if (!ok && error.find("artifact program") != 0)
        error = "artifact program '" + path + "': " + where + error;
      break;
    }
    case Instruction::FillOp: {
      const Fill &f = schedule.fills[in.index];
      size_t count = f.bytes / f.size;
      CUdeviceptr dst = at(f.dst);
      ok = driverCall(
          f.size == 1
              ? d->cuMemsetD8Async(dst, (unsigned char)f.pattern, count, stream)
          : f.size == 2 ? d->cuMemsetD16Async(dst, (unsigned short)f.pattern,
                                              count, stream)
                        : d->cuMemsetD32Async(dst, f.pattern, count, stream),
          "cuMemsetAsync", error);
      break;
    }
    case Instruction::CopyOp: {
      const Copy &c = schedule.copies[in.index];
      if (c.bytes)
        ok = driverCall(
            d->cuMemcpyDtoDAsync(at(c.dst), at(c.src), c.bytes, stream),
            "cuMemcpyDtoDAsync", error);
      break;
    }
    case Instruction::CollectiveOp: {
      const Collective &c = schedule.collectives[in.index];
      if (int status = runCollective(c, at(c.src), at(c.dst), stream, error))
        return status;
      break;
    }
    }
    if (!ok)
      return LOOM_ERROR_IO;
  }
  return LOOM_OK;
}
