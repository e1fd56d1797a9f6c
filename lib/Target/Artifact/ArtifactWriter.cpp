//===- ArtifactWriter.cpp - Write a compiled .loom artifact ---------------===//

#include "loom/Target/Artifact/ArtifactWriter.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Support/Files.h"
#include "loom/Target/Artifact/ArtifactFormat.h"
#include "loom/Target/Artifact/Manifest.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace loom;

namespace {

LogicalResult writeFile(StringRef path, StringRef data, Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
    os.clear_error();
  }
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message();
  return success();
}

/// The parameters' initial values at their offsets, 64-byte aligned;
/// zero-initialised state has no bytes.
LogicalResult writeParameters(StringRef path, ArrayRef<TensorSpec> params,
                              Location loc) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  uint64_t written = 0;
  for (const TensorSpec &p : params) {
    if (ec)
      break;
    if (p.zeroInit)
      continue;
    os.write_zeros(p.offset - written);
    std::string bytes = tensorBytes(p.value);
    if (bytes.size() != p.nbytes)
      return emitError(loc)
             << "parameter '" << p.name << "' has " << bytes.size()
             << " bytes of data, expected " << p.nbytes;
    os << bytes;
    written = p.offset + p.nbytes;
  }
  os.close();
  if (ec || os.has_error()) {
    emitError(loc) << "cannot write '" << path
                   << "': " << (ec ? ec : os.error()).message();
    os.clear_error();
    return failure();
  }
  return success();
}

/// Adds the size and CRC-32 of the file at `path` (artifact file `name`) to
/// the manifest's file list, read back from disk.
LogicalResult recordFile(StringRef path, StringRef name,
                         ManifestContents &contents, Location loc) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read back '" << path
                          << "': " << buffer.getError().message();
  StringRef data = (*buffer)->getBuffer();
  contents.files.push_back({name.str(), data.size(),
                            llvm::crc32(llvm::arrayRefFromStringRef(data))});
  return success();
}

/// Shapes of the entry's buffers in call order (parameters, inputs,
/// outputs).
SmallVector<RankedTensorType> bufferTypes(const EntrySignature &sig) {
  SmallVector<RankedTensorType> types;
  for (ArrayRef<TensorSpec> group : {sig.params, sig.inputs, sig.outputs})
    for (const TensorSpec &s : group)
      types.push_back(s.type);
  return types;
}

/// Moves the complete directory `tmpDir` to `base`, replacing what is
/// there; a failure leaves `base` as it was.
LogicalResult swapInto(StringRef tmpDir, StringRef base, Location loc) {
  std::string old;
  if (llvm::sys::fs::exists(base)) {
    old = (base + ".old-" + Twine(llvm::sys::Process::getProcessId())).str();
    if (std::error_code ec = llvm::sys::fs::rename(base, old))
      return emitError(loc)
             << "cannot replace '" << base << "': " << ec.message();
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpDir, base)) {
    if (!old.empty())
      llvm::sys::fs::rename(old, base);
    return emitError(loc) << "cannot create '" << base << "': " << ec.message();
  }
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  return success();
}

} // namespace

LogicalResult loom::compileArtifact(ModuleOp module, StringRef outputDir,
                                    Target &target,
                                    const ArtifactOptions &options) {
  Location loc = module.getLoc();
  FailureOr<func::FuncOp> entry = findEntry(module);
  // Weightless parameters have nothing to put in parameters.bin.
  if (failed(entry) || failed(nn::checkHasWeightData(*entry)))
    return failure();
  FailureOr<EntrySignature> sig = collectEntrySignature(*entry);
  if (failed(sig))
    return failure();

  // An existing output is replaced only if it is an artifact.
  if (llvm::sys::fs::exists(outputDir)) {
    SmallString<128> manifest(outputDir);
    llvm::sys::path::append(manifest, LOOM_MANIFEST_FILE);
    if (!llvm::sys::fs::is_directory(outputDir) ||
        !llvm::sys::fs::exists(manifest))
      return emitError(loc) << "refusing to replace '" << outputDir
                            << "': it exists and is not a Loom artifact";
  }

  PassManager pm(module.getContext());
  ToLinalgPipelineOptions toLinalg;
  toLinalg.entryName = kProgramName;
  toLinalg.checkIndices = options.checkIndices;
  buildToLinalgPipeline(pm, toLinalg);
  target.buildLoweringPipeline(pm);
  if (failed(pm.run(module)))
    return failure();

  ManifestContents contents = readManifestContents(module);
  contents.modelName = options.modelName;
  FailureOr<SerializedExecutable> executable = target.serialize(
      module, kProgramName, bufferTypes(*sig), writeSignature(*sig));
  if (failed(executable))
    return failure();
  contents.library = executable->library;
  contents.runtimeABI = executable->runtimeABI;

  // Build everything in a fresh directory beside the output, then swap it
  // in, so a failure leaves any previous artifact untouched.
  // Through a symbolic link, the directory it points to is replaced.
  std::string base = resolveOutputPath(outputDir.rtrim('/'));
  std::string tmpDir =
      base + ".tmp-" + std::to_string(llvm::sys::Process::getProcessId());
  llvm::sys::fs::remove_directories(tmpDir);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmpDir))
    return emitError(loc) << "cannot create '" << tmpDir
                          << "': " << ec.message();
  auto inTmp = [&](StringRef name) {
    SmallString<128> p(tmpDir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  bool written = true;
  for (const ExecutableFile &file : executable->files)
    written = written && succeeded(writeFile(inTmp(file.name), file.data, loc));
  if (written && !sig->params.empty())
    written = succeeded(
        writeParameters(inTmp(LOOM_PARAMETERS_FILE), sig->params, loc));
  // The manifest records every file as it landed on disk.
  for (const ExecutableFile &file : executable->files)
    written = written &&
              succeeded(recordFile(inTmp(file.name), file.name, contents, loc));
  if (written && !sig->params.empty())
    written = succeeded(recordFile(inTmp(LOOM_PARAMETERS_FILE),
                                   LOOM_PARAMETERS_FILE, contents, loc));
  written = written &&
            succeeded(writeFile(inTmp(LOOM_MANIFEST_FILE),
                                writeManifest(*sig, contents, target), loc)) &&
            succeeded(swapInto(tmpDir, base, loc));
  if (!written) {
    llvm::sys::fs::remove_directories(tmpDir);
    return failure();
  }
  return success();
}
