//===- Pipelined.cpp - Compiling a pipelined training step ----------------===//
//
// A mesh with a `pp` axis of size P > 1 compiles the step once up to its
// optimizer updates, then once per stage from a copy of that module
// (loom/Pipelines/Pipelines.h). The stages bind together, so they share
// one list of communicator groups. The artifact is a directory of stage
// artifacts under a manifest that maps every rank to its stage
// (docs/Artifact.md, "Pipelined artifacts").
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Driver/Driver.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Support/Files.h"
#include "loom/Target/Artifact/ArtifactWriter.h"
#include "loom/Target/Target.h"
#include "loom/runtime/ABI.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace loom;
using namespace loom::driver;

/// The axis whose coordinate is a rank's stage.
static constexpr llvm::StringLiteral kPipelineAxis = "pp";

int64_t loom::driver::pipelineStages(ModuleOp module) {
  for (auto mesh : module.getOps<dist::MeshOp>())
    if (dist::MeshAxisAttr axis = mesh.getAxis(kPipelineAxis))
      return axis.getSize();
  return 1;
}

LogicalResult loom::driver::splitPipelinedStep(
    ModuleOp module, const Options &options, const TrainOptions &train,
    StringRef strategy, SmallVectorImpl<OwningOpRef<ModuleOp>> &stageModules) {
  MLIRContext *ctx = module.getContext();
  Location loc = FileLineColLoc::get(ctx, options.inputFile, 0, 0);
  int64_t stages = pipelineStages(module);
  if (!train.enabled)
    return emitError(loc) << "--mesh with pp=" << stages
                          << ": pipeline stages run training steps; add "
                             "--train (or drop the pp axis for inference)";
  int64_t microbatches = train.step.gradAccum, chunks = train.chunks();
  if (train.schedule == "interleaved" && microbatches % stages != 0)
    return emitError(loc) << "--schedule=interleaved sends microbatches "
                             "through the model chunks in groups of one per "
                             "stage: --microbatches="
                          << microbatches
                          << " is not a multiple of pp=" << stages;
  if (microbatches < stages && train.schedule != "gpipe")
    llvm::errs() << "loomc: note: " << microbatches << " microbatch(es) on "
                 << stages
                 << " stages leave most of the pipeline idle; pass "
                    "--microbatches="
                 << 2 * stages << " or more\n";
  {
    PassManager pm(ctx);
    buildPipelinedStepPipeline(pm, strategy, stages * chunks, train.step);
    if (failed(pm.run(module)))
      return failure();
  }
  bool partition = options.emit != EmitKind::Plan;
  for (int64_t s = 0; s < stages; ++s) {
    OwningOpRef<ModuleOp> stage = module.clone();
    PassManager pm(ctx);
    buildStagePipeline(pm, s, stages, chunks, train.schedule, train.recompute,
                       partition);
    if (failed(pm.run(*stage)))
      return failure();
    stageModules.push_back(std::move(stage));
  }
  return success();
}

/// Every stage gets the same groups in the same order (the union, in the
/// order the stages first use them): binding splits the world once per
/// group, on every rank alike.
static void seedGroups(MutableArrayRef<OwningOpRef<ModuleOp>> stages) {
  SmallVector<Attribute> groups;
  for (OwningOpRef<ModuleOp> &stage : stages)
    stage->walk([&](Operation *op) {
      if (auto axes = op->getAttrOfType<ArrayAttr>("mesh_axes"))
        if (!llvm::is_contained(groups, axes))
          groups.push_back(axes);
    });
  for (OwningOpRef<ModuleOp> &stage : stages)
    (*stage)->setAttr(dist::kCommGroupsAttrName,
                      ArrayAttr::get(stage->getContext(), groups));
}

/// The stage of each rank: its coordinate along the pipeline axis (ranks
/// are laid onto the mesh first axis major).
static SmallVector<int64_t> rankStages(dist::MeshOp mesh) {
  SmallVector<int64_t> sizes;
  int64_t devices = 1, axis = 0;
  for (auto [i, a] : llvm::enumerate(mesh.getAxes())) {
    auto meshAxis = cast<dist::MeshAxisAttr>(a);
    sizes.push_back(meshAxis.getSize());
    devices *= meshAxis.getSize();
    if (meshAxis.getName() == kPipelineAxis)
      axis = i;
  }
  int64_t inner = 1;
  for (size_t i = axis + 1; i < sizes.size(); ++i)
    inner *= sizes[i];
  SmallVector<int64_t> stages;
  for (int64_t r = 0; r < devices; ++r)
    stages.push_back((r / inner) % sizes[axis]);
  return stages;
}

LogicalResult
loom::driver::emitPipelined(MutableArrayRef<OwningOpRef<ModuleOp>> stages,
                            const Options &options, llvm::raw_ostream *os) {
  if (os) {
    for (auto [s, stage] : llvm::enumerate(stages)) {
      *os << "// ----- pipeline stage " << s << " of " << stages.size()
          << " -----\n";
      if (failed(emit(*stage, options, *os)))
        return failure();
    }
    return success();
  }
  ModuleOp first = *stages.front();
  Location loc = first.getLoc();
  StringRef out = StringRef(options.outputFile).rtrim('/');
  if (llvm::sys::fs::exists(out)) {
    SmallString<128> manifest(out);
    llvm::sys::path::append(manifest, LOOM_MANIFEST_FILE);
    if (!llvm::sys::fs::is_directory(out) || !llvm::sys::fs::exists(manifest))
      return emitError(loc) << "refusing to replace '" << out
                            << "': it exists and is not a Loom artifact";
  }
  auto meshes = first.getOps<dist::MeshOp>();
  if (meshes.empty())
    return emitError(loc) << "a pipelined step needs its mesh";
  SmallVector<int64_t> ranks = rankStages(*meshes.begin());
  auto pipeline =
      first->getAttrOfType<dist::PipelineAttr>(dist::kPipelineAttrName);
  seedGroups(stages);

  // Through a symbolic link, the directory it points to is replaced.
  std::string outPath = resolveOutputPath(out);
  out = outPath;
  std::string tmp =
      (out + ".tmp-pipeline-" + Twine(llvm::sys::Process::getProcessId()))
          .str();
  llvm::sys::fs::remove_directories(tmp);
  if (std::error_code ec = llvm::sys::fs::create_directories(tmp))
    return emitError(loc) << "cannot create '" << tmp << "': " << ec.message();
  auto cleanup = [&] {
    llvm::sys::fs::remove_directories(tmp);
    return failure();
  };
  llvm::json::Array stageDirs;
  for (auto [s, stage] : llvm::enumerate(stages)) {
    std::string name = "stage-" + std::to_string(s);
    FailureOr<std::unique_ptr<Target>> target =
        createTarget(options.target, options.targetOptions, loc);
    if (failed(target))
      return cleanup();
    ArtifactOptions artifactOptions;
    artifactOptions.modelName =
        llvm::sys::path::filename(options.inputFile).str();
    artifactOptions.checkIndices = options.checkIndices;
    SmallString<128> dir(tmp);
    llvm::sys::path::append(dir, name);
    if (failed(compileArtifact(*stage, dir, **target, artifactOptions)))
      return cleanup();
    stageDirs.push_back(name);
  }
  llvm::json::Object manifest{
      {"format", "loom-artifact"},
      {"format_version", LOOM_ARTIFACT_FORMAT_PIPELINE},
      {"runtime_abi", LOOM_RUNTIME_ABI_TRANSFERS},
      {"producer", "loomc " LOOM_VERSION},
      {"model", llvm::sys::path::filename(options.inputFile)},
      {"pipeline",
       llvm::json::Object{{"axis", pipeline.getAxis()},
                          {"schedule", pipeline.getSchedule()},
                          {"microbatches", pipeline.getMicrobatches()},
                          {"recompute", pipeline.getRecompute()},
                          {"chunks", pipeline.getChunks()},
                          {"stages", std::move(stageDirs)},
                          {"rank_stage", llvm::json::Array(ranks)}}}};
  std::string text;
  llvm::raw_string_ostream textOs(text);
  textOs << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)))
         << "\n";
  SmallString<128> path(tmp);
  llvm::sys::path::append(path, LOOM_MANIFEST_FILE);
  std::error_code ec;
  {
    llvm::raw_fd_ostream file(path, ec);
    if (!ec) {
      file << text;
      file.close();
      ec = file.error();
    }
    file.clear_error();
  }
  if (ec)
    return emitError(loc) << "cannot write '" << path << "': " << ec.message(),
           cleanup();
  std::string old;
  if (llvm::sys::fs::exists(out)) {
    old = (out + ".old-" + Twine(llvm::sys::Process::getProcessId())).str();
    if (std::error_code e = llvm::sys::fs::rename(out, old))
      return emitError(loc)
                 << "cannot replace '" << out << "': " << e.message(),
             cleanup();
  }
  if (std::error_code e = llvm::sys::fs::rename(tmp, out)) {
    if (!old.empty())
      llvm::sys::fs::rename(old, out);
    return emitError(loc) << "cannot create '" << out << "': " << e.message(),
           cleanup();
  }
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  return success();
}
