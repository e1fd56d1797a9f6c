//===- DeviceCode.cpp - PTX and cubins of a program's kernels -------------===//

#include "DeviceCode.h"
#include "loom/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

using namespace mlir;
using namespace loom::cuda;

FailureOr<Toolkit> loom::cuda::findToolkit(Location loc) {
  std::vector<std::string> candidates;
  // LOOM_CUDA_PATH names the toolkit outright: a wrong one is an error, not
  // a reason to use another toolkit.
  std::optional<std::string> chosen =
      llvm::sys::Process::GetEnv("LOOM_CUDA_PATH");
  if (chosen && !chosen->empty()) {
    candidates.push_back(*chosen);
  } else {
    for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
      if (std::optional<std::string> v = llvm::sys::Process::GetEnv(var))
        if (!v->empty())
          candidates.push_back(*v);
    candidates.push_back("/usr/local/cuda");
  }
  for (const std::string &root : candidates) {
    SmallString<256> ptxas(root), libdevice(root);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::can_execute(ptxas) && llvm::sys::fs::exists(libdevice))
      return Toolkit{root, std::string(ptxas)};
  }
  std::string tried;
  for (const std::string &root : candidates)
    tried += (tried.empty() ? "" : ", ") + root;
  return emitError(loc) << "the cuda target needs the CUDA toolkit's ptxas "
                           "and libdevice, found in none of "
                        << tried
                        << " (set LOOM_CUDA_PATH to the toolkit's root)";
}

namespace {

/// Runs ptxas on `ptx` for `chip`; the cubin, or emits ptxas's messages.
FailureOr<std::string> runPtxas(const Toolkit &toolkit, StringRef ptx,
                                StringRef chip, Location loc) {
  SmallString<128> in, out, errors;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("loom-kernels", "ptx", fd, in))
    return emitError(loc) << "cannot create a temporary file for ptxas";
  llvm::FileRemover removeIn(in);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
    os.close();
    std::error_code ec = os.error();
    // A stream destroyed with its error pending aborts the process.
    os.clear_error();
    if (ec)
      return emitError(loc) << "cannot write '" << in << "': " << ec.message();
  }
  if (llvm::sys::fs::createTemporaryFile("loom-kernels", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("loom-ptxas", "log", errors))
    return emitError(loc) << "cannot create a temporary file for ptxas";
  llvm::FileRemover removeOut(out), removeErrors(errors);
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args{toolkit.ptxas, arch, "-O3", "-o", out, in};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(errors),
                                          StringRef(errors)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(toolkit.ptxas, args, std::nullopt,
                                     redirects, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(errors))
      log = (*buffer)->getBuffer().trim().str();
    return emitError(loc) << "ptxas -arch=" << chip << " rejected the kernels"
                          << (message.empty() ? "" : ": " + message)
                          << (log.empty() ? "" : ":\n" + log);
  }
  auto buffer = llvm::MemoryBuffer::getFile(out, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "ptxas wrote no cubin for " << chip;
  return (*buffer)->getBuffer().str();
}

} // namespace

FailureOr<KernelBinaries> loom::cuda::assembleKernels(ModuleOp module,
                                                      const Toolkit &toolkit) {
  KernelBinaries binaries;
  auto binaryOps = llvm::to_vector(module.getOps<gpu::BinaryOp>());
  if (binaryOps.empty())
    return binaries;
  if (binaryOps.size() != 1 ||
      binaryOps.front().getSymName() != kKernelModuleName)
    return module.emitError("internal error: expected one gpu.binary @")
           << kKernelModuleName;
  gpu::BinaryOp binary = binaryOps.front();
  for (Attribute a : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(a);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (!target || object.getFormat() != gpu::CompilationTarget::Assembly)
      return binary.emitError("internal error: expected NVVM PTX objects");
    StringRef ptx = object.getObject().getValue().rtrim('\0');
    std::string chip = target.getChip().str();
    FailureOr<std::string> cubin =
        runPtxas(toolkit, ptx, chip, binary.getLoc());
    if (failed(cubin))
      return failure();
    // The first chip is the lowest listed: its PTX runs on all of them.
    if (binaries.ptx.empty()) {
      binaries.ptxChip = chip;
      binaries.ptx = ptx.str();
    }
    binaries.cubins.emplace_back(chip, std::move(*cubin));
  }
  binary.erase();
  return binaries;
}
