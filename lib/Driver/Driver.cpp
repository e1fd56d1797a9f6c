//===- Driver.cpp - The loomc compiler driver -----------------------------===//
//
// The stages of loomc: load (ONNX import or MLIR), plan and distribute,
// build the training step, emit. The flags live in CommandLine.cpp, the
// planner's part in AutoPlan.cpp, the outputs in Emit.cpp.
//
//===----------------------------------------------------------------------===//

#include "loom/Driver/Driver.h"
#include "DriverInternal.h"
#include "loom/CostModel/Cluster.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "loom/InitAll.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Support/Files.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace loom;
using namespace loom::driver;

LoadResult loom::driver::loadInput(MLIRContext &context,
                                   llvm::SourceMgr &sourceMgr,
                                   const Options &options) {
  LoadResult result;
  // File-level problems are reported at the file itself.
  Location fileLoc = FileLineColLoc::get(&context, options.inputFile, 0, 0);
  StringRef ext = llvm::sys::path::extension(options.inputFile);
  if (ext == ".onnx") {
    onnx_import::ImportOptions importOptions;
    for (const std::string &spec : options.inputShapes) {
      std::string error;
      if (failed(onnx_import::parseInputShape(spec, importOptions, error))) {
        emitError(fileLoc) << error;
        return result;
      }
    }
    importOptions.parameterInputs = options.parameterInputs;
    importOptions.stateResults = options.train.enabled;
    onnx_import::ImportResult imported =
        onnx_import::importModelFile(context, options.inputFile, importOptions);
    result.module = std::move(imported.module);
    if (imported.status == onnx_import::ImportStatus::Unsupported)
      result.code = ExitCode::Unsupported;
    return result;
  }
  if (!options.inputShapes.empty() || !options.parameterInputs.empty()) {
    emitError(fileLoc) << (options.inputShapes.empty() ? "--parameter-inputs"
                                                       : "--input-shape")
                       << " applies to ONNX models only";
    return result;
  }
  if (options.inputFile != "-" && ext != ".mlir") {
    emitError(fileLoc) << "cannot read '" << options.inputFile
                       << "': loomc reads ONNX models (.onnx) and nn-dialect "
                          "modules (.mlir)";
    return result;
  }
  std::string message;
  auto file = openInputFile(options.inputFile, &message);
  if (!file) {
    emitError(fileLoc) << message;
    return result;
  }
  // The parser recurses per level of nesting: too deep a text would
  // overflow the stack instead of failing.
  if (std::optional<NestingExcess> deep =
          checkMLIRNesting(file->getBuffer(), kMaxMLIRNesting)) {
    llvm::errs() << file->getBufferIdentifier() << ":" << deep->line << ":"
                 << deep->column << ": error: brackets nest deeper than "
                 << kMaxMLIRNesting << " levels, more than loomc reads\n";
    return result;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  result.module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  return result;
}

LogicalResult loom::driver::renameParameters(ModuleOp module, StringRef path) {
  Location loc = FileLineColLoc::get(module.getContext(), path, 0, 0);
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      readRegularFile(path, kMaxJSONFileBytes);
  if (!file)
    return emitError(loc) << "--rename-parameters: cannot read '" << path
                          << "': " << llvm::toString(file.takeError());
  if (std::optional<NestingExcess> deep =
          checkJSONNesting((*file)->getBuffer(), kMaxJSONNesting))
    return emitError(loc) << "--rename-parameters: not JSON of a map: arrays "
                             "and objects nest deeper than "
                          << kMaxJSONNesting << " levels (line " << deep->line
                          << ", column " << deep->column << ")";
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return emitError(loc) << "--rename-parameters: not JSON: "
                          << llvm::toString(json.takeError());
  const llvm::json::Object *map = json->getAsObject();
  if (!map)
    return emitError(loc) << "--rename-parameters: expected an object of "
                             "\"old name\": \"new name\" pairs";
  llvm::StringMap<SmallVector<nn::ParameterOp>> byName;
  module.walk([&](nn::ParameterOp op) { byName[op.getName()].push_back(op); });
  llvm::StringSet<> newNames;
  for (const auto &[from, to] : *map) {
    std::optional<StringRef> name = to.getAsString();
    if (!name || name->empty())
      return emitError(loc) << "--rename-parameters: the new name of '"
                            << from.str() << "' must be a non-empty string";
    if (!byName.count(from.str()))
      return emitError(loc) << "--rename-parameters: the model has no "
                               "parameter '"
                            << from.str() << "'";
    if ((byName.count(*name) && !map->get(*name)) ||
        !newNames.insert(*name).second)
      return emitError(loc) << "--rename-parameters: '" << *name
                            << "' would name two parameters";
  }
  for (const auto &[from, to] : *map)
    for (nn::ParameterOp op : byName[from.str()])
      op.setName(*to.getAsString());
  return success();
}

/// Creates `dist.mesh @mesh` from `spec`, laid onto the cluster.
static LogicalResult createMesh(ModuleOp module, const Options &options,
                                StringRef spec) {
  Location loc =
      FileLineColLoc::get(module.getContext(), options.inputFile, 0, 0);
  FailureOr<Cluster> cluster = loadCluster(loc, options);
  if (failed(cluster))
    return failure();
  llvm::Expected<std::vector<MeshAxisSpec>> axes = layMesh(spec, *cluster);
  if (!axes)
    return emitError(loc) << llvm::toString(axes.takeError());
  if (!module.getOps<dist::MeshOp>().empty())
    return emitError(loc) << "--mesh: the input already declares a mesh; "
                             "use --strategy=manual to keep its layouts";
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<dist::DistDialect>();
  SmallVector<Attribute> attrs;
  for (const MeshAxisSpec &a : *axes)
    attrs.push_back(dist::MeshAxisAttr::get(
        ctx, a.name, a.size,
        a.intraNode ? dist::LinkKind::IntraNode : dist::LinkKind::InterNode,
        APFloat(a.link.bandwidthGBps), APFloat(a.link.latencyUs)));
  OpBuilder b(module.getBodyRegion());
  auto mesh =
      b.create<dist::MeshOp>(module.getLoc(), "mesh", b.getArrayAttr(attrs));
  // The passes take a mesh for verified (its device count fits).
  return mlir::verify(mesh);
}

/// The strategy to apply: explicit, or `data` with a mesh, or `manual` when
/// the input declares one.
static Strategy effectiveStrategy(ModuleOp module, const Options &options) {
  if (options.strategy != Strategy::None)
    return options.strategy;
  // --plan is the planner's, mesh included.
  if (options.plan.specGiven)
    return Strategy::Auto;
  if (!options.mesh.empty())
    return Strategy::Data;
  // A plan in the input is partitioned for what runs or shows the
  // partitioned program; `--emit=nn` and `--emit=cost` show it as written.
  bool global = options.emit == EmitKind::NN || options.emit == EmitKind::Cost;
  if (!module.getOps<dist::MeshOp>().empty())
    return global ? Strategy::None : Strategy::Manual;
  const PlanOptions &plan = options.plan;
  if (plan.explain || plan.simulate || plan.specGiven ||
      !plan.traceFile.empty())
    return Strategy::Auto;
  // Without a plan to show, the global forms stay global, and one device
  // needs no plan.
  if (global || (plan.devices.value_or(0) <= 1 && options.clusterFile.empty()))
    return Strategy::None;
  return Strategy::Auto;
}

LogicalResult loom::driver::runPipeline(
    ModuleOp module, const Options &options,
    SmallVectorImpl<OwningOpRef<ModuleOp>> *stageModules) {
  MLIRContext *ctx = module->getContext();
  Location loc = FileLineColLoc::get(ctx, options.inputFile, 0, 0);
  {
    PassManager pm(ctx);
    buildSimplifyPipeline(pm);
    if (failed(pm.run(module)))
      return failure();
  }
  Strategy strategy = effectiveStrategy(module, options);
  // The explanation and the trace are the planner's: without it they would
  // silently not be written.
  if (strategy != Strategy::Auto &&
      (options.plan.explain || options.plan.specGiven ||
       !options.plan.traceFile.empty()))
    return emitError(loc)
           << (options.plan.explain     ? "--explain"
               : options.plan.specGiven ? "--plan"
                                        : "--trace")
           << " shows the planner's plan, but --strategy="
           << (strategy == Strategy::Data       ? "data"
               : strategy == Strategy::Megatron ? "megatron"
                                                : "manual")
           << " plans nothing: add --strategy=auto (with --mesh, the planner "
              "keeps its axes)";
  bool wantsMesh =
      options.emit == EmitKind::Plan || options.emit == EmitKind::SPMD;
  TrainOptions train = options.train;
  train.step.recompute =
      dist::symbolizeRecompute(train.recompute).value_or(dist::Recompute::Off);
  if (train.enabled && train.step.zero != 0 && strategy == Strategy::None)
    return emitError(loc) << "--zero=" << train.step.zero
                          << " shards over the data-parallel mesh axes: "
                             "pass --mesh (e.g. --mesh dp=2)";
  std::string meshSpec = options.mesh;
  std::string applied;
  if (strategy == Strategy::Auto) {
    FailureOr<AutoDecision> decision = planAuto(module, options, loc);
    if (failed(decision))
      return failure();
    if (decision->done)
      return success();
    if (train.enabled && !train.zeroGiven)
      train.step.zero = decision->zero;
    if (train.enabled && !train.scheduleGiven) {
      train.schedule = decision->schedule;
      train.virtualStages = decision->virtualStages;
    }
    if (train.enabled && !train.recomputeGiven) {
      train.recompute = decision->recompute;
      train.step.recompute = dist::symbolizeRecompute(train.recompute)
                                 .value_or(dist::Recompute::Off);
    }
    meshSpec = decision->meshSpec;
    // One device: the single-device path.
    if (meshSpec.empty())
      strategy = Strategy::None;
    applied = "planned";
  }
  if (strategy == Strategy::None) {
    if (wantsMesh && options.strategy != Strategy::Auto &&
        options.plan.devices.value_or(0) <= 1 && options.clusterFile.empty())
      return emitError(loc) << "--emit=plan and --emit=spmd need a mesh: "
                               "pass --mesh (e.g. --mesh dp=2,tp=2)";
    if (!train.enabled)
      return success();
    PassManager pm(ctx);
    buildTrainingStepPipeline(pm, train.step);
    return pm.run(module);
  }
  if (strategy == Strategy::Manual) {
    if (!options.mesh.empty())
      return emitError(loc)
             << "--strategy=manual takes the mesh from the input; drop --mesh";
    if (module.getOps<dist::MeshOp>().empty())
      return emitError(loc) << "--strategy=manual needs an input that "
                               "declares a dist.mesh and layouts";
  } else {
    if (meshSpec.empty())
      return emitError(loc)
             << "--strategy="
             << (strategy == Strategy::Data ? "data" : "megatron")
             << " needs --mesh (e.g. --mesh dp=2,tp=2)";
    if (failed(createMesh(module, options, meshSpec)))
      return failure();
    if (applied.empty())
      applied = strategy == Strategy::Data ? "data" : "megatron";
  }
  // A simulated plan is shown with its stage markers, not split.
  if (pipelineStages(module) > 1 && !options.plan.simulate) {
    if (!stageModules)
      return emitError(loc) << "a pipelined step needs the pipelined driver";
    return splitPipelinedStep(module, options, train, applied, *stageModules);
  }
  DistributionOptions distribution;
  distribution.strategy = strategy == Strategy::Manual ? "manual" : applied;
  distribution.partition = options.emit != EmitKind::Plan;
  // A simulated plan is shown, not compiled: no training step to build.
  if (train.enabled && !module->hasAttr(dist::kPlanAttrName))
    distribution.train = train.step;
  PassManager pm(ctx);
  buildDistributionPipeline(pm, distribution);
  return pm.run(module);
}

namespace {
/// Prints diagnostics located in a model file (line 0) or at a named part
/// of it; leaves the others to the source manager's handler.
LogicalResult printModelDiagnostic(Diagnostic &diag) {
  Location loc = diag.getLocation();
  std::string name;
  if (auto named = dyn_cast<NameLoc>(loc)) {
    name = named.getName().str();
    loc = named.getChildLoc();
  }
  auto file = dyn_cast<FileLineColLoc>(loc);
  if (!file || file.getLine() != 0)
    return failure();
  auto print = [&](Diagnostic &d) {
    llvm::errs() << file.getFilename().getValue() << ": ";
    static const char *severity[] = {"note", "warning", "error", "remark"};
    llvm::errs() << severity[static_cast<int>(d.getSeverity())] << ": ";
    if (!name.empty())
      llvm::errs() << name << ": ";
    llvm::errs() << d.str() << "\n";
  };
  print(diag);
  for (Diagnostic &note : diag.getNotes())
    print(note);
  return success();
}
} // namespace

void loom::driver::chooseTargetForCluster(Options &options) {
  if (options.clusterFile.empty())
    return;
  // An unreadable file is reported where the cluster is read.
  llvm::Expected<Cluster> cluster = readClusterFile(options.clusterFile);
  if (!cluster) {
    llvm::consumeError(cluster.takeError());
    return;
  }
  if (cluster->device.kind != "gpu")
    return;
  if (!options.targetGiven) {
    options.target = "cuda";
    return;
  }
  if (options.target == "cpu" && options.emit == EmitKind::Artifact)
    llvm::errs() << "loomc: note: the devices of '" << options.clusterFile
                 << "' are GPUs, but --target=cpu builds a CPU program\n";
}

static int runLoomc(int argc, char **argv) {
  registerAllTargets();
  Options options;
  if (int code = parseCommandLine(argc, argv, options); code >= 0)
    return code;
  chooseTargetForCluster(options);
  if (llvm::Error error = validate(options)) {
    llvm::errs() << "loomc: error: " << llvm::toString(std::move(error))
                 << "\n";
    return ExitCode::Failure;
  }
  if (llvm::Error error = checkFiles(options)) {
    llvm::errs() << "loomc: error: " << llvm::toString(std::move(error))
                 << "\n";
    return ExitCode::Failure;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Diagnostics name the culprit; a dump of the whole function does not help.
  context.printOpOnDiagnostic(false);
  // Diagnostics in .mlir input print as `file:line:col: error: ...` with the
  // source line; those about a model file (or a node in it) as
  // `model.onnx: error: node 'n' (Op): ...`.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler sourceDiagnostics(sourceMgr, &context);
  ScopedDiagnosticHandler modelDiagnostics(&context, printModelDiagnostic);
  LoadResult loaded = loadInput(context, sourceMgr, options);
  if (!loaded.module)
    return loaded.code;
  OwningOpRef<ModuleOp> module = std::move(loaded.module);
  if (!options.renameParameters.empty() &&
      failed(renameParameters(*module, options.renameParameters)))
    return ExitCode::Failure;
  SmallVector<OwningOpRef<ModuleOp>> stages;
  if (failed(runPipeline(*module, options, &stages)))
    return ExitCode::Failure;
  if (!stages.empty() && options.emit == EmitKind::Artifact)
    return failed(emitPipelined(stages, options, nullptr)) ? ExitCode::Failure
                                                           : ExitCode::Success;
  // --explain or --plan alone: the explanation was the output.
  if ((options.plan.explain || options.plan.specGiven) && !options.outputGiven)
    return ExitCode::Success;
  if (options.emit == EmitKind::Artifact)
    return failed(emitArtifact(*module, options)) ? ExitCode::Failure
                                                  : ExitCode::Success;

  // A regular file is written to a temporary beside it, renamed over it at
  // the end, so a failure never leaves a partial or clobbered output; a
  // device or FIFO is written in place; a failed write is an error.
  LogicalResult emitted = success();
  if (llvm::Error error = writeOutputFile(
          options.outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
            emitted = stages.empty() ? emit(*module, options, os)
                                     : emitPipelined(stages, options, &os);
            if (failed(emitted))
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "nothing written");
            return llvm::Error::success();
          })) {
    // Nothing written: the diagnostics said why.
    if (failed(emitted)) {
      llvm::consumeError(std::move(error));
      return ExitCode::Failure;
    }
    llvm::errs() << "loomc: error: " << llvm::toString(std::move(error))
                 << "\n";
    return ExitCode::Failure;
  }
  return ExitCode::Success;
}

int loom::driver::loomcMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  checkStandardOutputAtExit("loomc");
  int code = argc > 1 && StringRef(argv[1]) == "calibrate"
                 ? calibrateMain(argc, argv)
                 : runLoomc(argc, argv);
  // Whatever went to standard output (the output, --explain, --help) must
  // have arrived: a full disk or a closed pipe is an error, not success.
  if (llvm::Error error = checkStandardOutput()) {
    llvm::errs() << "loomc: error: " << llvm::toString(std::move(error))
                 << "\n";
    return ExitCode::Failure;
  }
  return code;
}
