//===- Driver.cpp - The loomc compiler driver -----------------------------===//

#include "loom/Driver/Driver.h"
#include "loom/CostModel/Cluster.h"
#include "loom/CostModel/CostReport.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "loom/InitAll.h"
#include "loom/Passes/Passes.h"
#include "loom/Target/CPUTarget.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
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
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  result.module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  return result;
}

/// Creates `dist.mesh @mesh` from `--mesh`, laid onto the cluster.
static LogicalResult createMesh(ModuleOp module, const Options &options) {
  Location loc =
      FileLineColLoc::get(module.getContext(), options.inputFile, 0, 0);
  Cluster cluster = describeThisMachine();
  if (!options.clusterFile.empty()) {
    llvm::Expected<Cluster> read = readClusterFile(options.clusterFile);
    if (!read)
      return emitError(loc) << llvm::toString(read.takeError());
    cluster = std::move(*read);
  }
  llvm::Expected<std::vector<MeshAxisSpec>> axes =
      layMesh(options.mesh, cluster);
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
  b.create<dist::MeshOp>(module.getLoc(), "mesh", b.getArrayAttr(attrs));
  return success();
}

/// The strategy to apply: explicit, or `data` with a mesh, or `manual` when
/// the input declares one.
static Strategy effectiveStrategy(ModuleOp module, const Options &options) {
  if (options.strategy != Strategy::None)
    return options.strategy;
  if (!options.mesh.empty())
    return Strategy::Data;
  // A plan in the input is partitioned for what runs or shows the
  // partitioned program; `--emit=nn` and `--emit=cost` show it as written.
  bool global = options.emit == EmitKind::NN || options.emit == EmitKind::Cost;
  if (!module.getOps<dist::MeshOp>().empty() && !global)
    return Strategy::Manual;
  return Strategy::None;
}

LogicalResult loom::driver::runPipeline(ModuleOp module,
                                        const Options &options) {
  MLIRContext *ctx = module->getContext();
  Location loc = FileLineColLoc::get(ctx, options.inputFile, 0, 0);
  {
    PassManager pm(ctx);
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(module)))
      return failure();
  }
  Strategy strategy = effectiveStrategy(module, options);
  bool wantsMesh =
      options.emit == EmitKind::Plan || options.emit == EmitKind::SPMD;
  const TrainOptions &train = options.train;
  if (!train.enabled && train.step.zero != 0)
    return emitError(loc) << "--zero applies to training: add --train";
  if (train.enabled && train.step.zero != 0 && strategy == Strategy::None)
    return emitError(loc) << "--zero=" << train.step.zero
                          << " shards over the data-parallel mesh axes: "
                             "pass --mesh (e.g. --mesh dp=2)";
  if (strategy == Strategy::None) {
    if (wantsMesh)
      return emitError(loc) << "--emit=plan and --emit=spmd need a mesh: "
                               "pass --mesh (e.g. --mesh dp=2,tp=2)";
    if (!train.enabled)
      return success();
    PassManager pm(ctx);
    pm.addPass(createNNBuildTrainingStep(train.step));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
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
    if (options.mesh.empty())
      return emitError(loc)
             << "--strategy="
             << (strategy == Strategy::Data ? "data" : "megatron")
             << " needs --mesh (e.g. --mesh dp=2,tp=2)";
    if (failed(createMesh(module, options)))
      return failure();
  }
  PassManager pm(ctx);
  if (strategy != Strategy::Manual) {
    DistApplyStrategyOptions strategyOptions;
    strategyOptions.strategy = strategy == Strategy::Data ? "data" : "megatron";
    pm.addPass(createDistApplyStrategy(strategyOptions));
  }
  if (train.enabled) {
    pm.addPass(createNNBuildTrainingStep(train.step));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  pm.addPass(createDistPropagateSharding());
  if (train.enabled)
    pm.addPass(createDistTieStateLayouts());
  pm.addPass(createDistInsertReshards());
  if (options.emit != EmitKind::Plan) {
    pm.addPass(createDistPartition());
    pm.addPass(createDistLowerReshards());
    pm.addPass(createDistSimplifyCollectives());
    pm.addPass(createDistBucketCollectives());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  return pm.run(module);
}

LogicalResult loom::driver::emit(ModuleOp module, const Options &options,
                                 llvm::raw_ostream &os) {
  switch (options.emit) {
  case EmitKind::Plan:
  case EmitKind::SPMD:
  case EmitKind::NN: {
    OpPrintingFlags flags;
    if (options.elideWeights)
      flags.elideLargeElementsAttrs(16).elideLargeResourceString(64);
    module.print(os, flags);
    os << '\n';
    return success();
  }
  case EmitKind::Linalg:
  case EmitKind::LLVM:
    if (failed(
            cpu::lowerToLLVMDialect(module, options.emit == EmitKind::Linalg)))
      return failure();
    module.print(os, OpPrintingFlags().elideLargeElementsAttrs(16));
    os << '\n';
    return success();
  case EmitKind::Artifact:
    emitError(module.getLoc()) << "artifacts are directories; use -o";
    return failure();
  case EmitKind::Cost: {
    CostSummary summary = printCostReport(module, os, /*perOp=*/true);
    if (summary.numPriced == 0 && summary.numUnpriced == 0)
      os << "no functions to price\n";
    return success();
  }
  }
  llvm_unreachable("unknown emit kind");
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

namespace {
llvm::cl::OptionCategory inputCategory("Input");
llvm::cl::OptionCategory outputCategory("Output");
llvm::cl::OptionCategory distCategory("Distribution");
llvm::cl::OptionCategory trainCategory("Training");
/// The training options' defaults are the pass's.
const NNBuildTrainingStepOptions kStep;

struct CommandLine {
  llvm::cl::opt<std::string> input{
      llvm::cl::Positional, llvm::cl::desc("<model.onnx | input.mlir>"),
      llvm::cl::init("-"), llvm::cl::cat(inputCategory)};
  llvm::cl::list<std::string> inputShapes{
      "input-shape",
      llvm::cl::desc("Fix the dimensions of an ONNX model input "
                     "(repeatable; ? leaves a dimension unknown)"),
      llvm::cl::value_desc("NAME=2x64"), llvm::cl::cat(inputCategory)};
  llvm::cl::opt<std::string> parameterInputs{
      "parameter-inputs",
      llvm::cl::desc("ONNX graph inputs whose whole name matches this POSIX "
                     "extended regex are weights without data (default: the "
                     "model's loom.parameter_inputs metadata)"),
      llvm::cl::value_desc("REGEX"), llvm::cl::cat(inputCategory)};
  llvm::cl::opt<bool> listOperators{
      "list-onnx-operators",
      llvm::cl::desc("Print the ONNX operators loomc imports and exit"),
      llvm::cl::cat(inputCategory)};
  llvm::cl::opt<std::string> output{
      "o", llvm::cl::desc("Output file (default: standard output)"),
      llvm::cl::value_desc("file"), llvm::cl::init("-"),
      llvm::cl::cat(outputCategory)};
  llvm::cl::opt<EmitKind> emit{
      "emit", llvm::cl::desc("What to write"), llvm::cl::init(EmitKind::NN),
      llvm::cl::values(
          clEnumValN(EmitKind::NN, "nn", "the verified, simplified nn module"),
          clEnumValN(EmitKind::Cost, "cost",
                     "FLOPs and bytes per op and per function"),
          clEnumValN(EmitKind::Linalg, "linalg",
                     "the module lowered to linalg on tensors, fused"),
          clEnumValN(EmitKind::LLVM, "llvm",
                     "the module lowered to the LLVM dialect"),
          clEnumValN(EmitKind::Artifact, "artifact",
                     "a .loom directory for loomrun (default for -o X.loom)"),
          clEnumValN(EmitKind::Plan, "plan",
                     "the global program with every value's layout and "
                     "explicit reshards (needs a mesh)"),
          clEnumValN(EmitKind::SPMD, "spmd",
                     "the program one device runs, with its collectives "
                     "(needs a mesh)")),
      llvm::cl::cat(outputCategory)};
  llvm::cl::opt<bool> elideWeights{
      "elide-weights",
      llvm::cl::desc("Print large constants and weights as placeholders "
                     "(readable, but not parseable back)"),
      llvm::cl::cat(outputCategory)};

  llvm::cl::opt<std::string> mesh{
      "mesh",
      llvm::cl::desc("Devices as named mesh axes, major to minor; the "
                     "innermost axes go on the fastest links"),
      llvm::cl::value_desc("dp=2,tp=2"), llvm::cl::cat(distCategory)};
  llvm::cl::opt<Strategy> strategy{
      "strategy", llvm::cl::desc("How to split the model over the mesh"),
      llvm::cl::init(Strategy::None),
      llvm::cl::values(
          clEnumValN(Strategy::Data, "data",
                     "split the batch over every mesh axis (default with "
                     "--mesh)"),
          clEnumValN(Strategy::Megatron, "megatron",
                     "split MLP and attention blocks column-then-row over "
                     "axis \"tp\", the batch over the other axes"),
          clEnumValN(Strategy::Manual, "manual",
                     "keep the layouts of the input MLIR (default when it "
                     "declares a dist.mesh)")),
      llvm::cl::cat(distCategory)};
  llvm::cl::opt<std::string> cluster{
      "cluster",
      llvm::cl::desc("Cluster description (JSON, see docs/Cluster.md); "
                     "default: this machine"),
      llvm::cl::value_desc("file"), llvm::cl::cat(distCategory)};

  llvm::cl::opt<bool> train{
      "train",
      llvm::cl::desc("Compile one training step (forward, backward, "
                     "optimizer) instead of inference"),
      llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> loss{
      "loss",
      llvm::cl::desc("The loss: a scalar output of the model, or "
                     "cross_entropy (with --logits and --labels)"),
      llvm::cl::value_desc("OUTPUT|cross_entropy"),
      llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> logits{
      "logits", llvm::cl::desc("With --loss=cross_entropy: the logits output"),
      llvm::cl::value_desc("OUTPUT"), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> labels{
      "labels",
      llvm::cl::desc("With --loss=cross_entropy: the name of the integer "
                     "labels input to add (default: labels)"),
      llvm::cl::value_desc("NAME"), llvm::cl::init(kStep.labels),
      llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> optimizer{
      "optimizer", llvm::cl::desc("sgd or adamw (default)"),
      llvm::cl::init(kStep.optimizer), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> lr{"lr", llvm::cl::desc("Learning rate (1e-3)"),
                           llvm::cl::init(kStep.lr),
                           llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> momentum{"momentum", llvm::cl::desc("SGD momentum (0)"),
                                 llvm::cl::init(kStep.momentum),
                                 llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> beta1{"beta1", llvm::cl::desc("AdamW beta1 (0.9)"),
                              llvm::cl::init(kStep.beta1),
                              llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> beta2{"beta2", llvm::cl::desc("AdamW beta2 (0.999)"),
                              llvm::cl::init(kStep.beta2),
                              llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> eps{"eps", llvm::cl::desc("AdamW epsilon (1e-8)"),
                            llvm::cl::init(kStep.eps),
                            llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> weightDecay{
      "weight-decay",
      llvm::cl::desc("Weight decay: decoupled for AdamW, L2 for SGD (0)"),
      llvm::cl::init(kStep.weightDecay), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> lrSchedule{
      "lr-schedule", llvm::cl::desc("constant (default) or cosine"),
      llvm::cl::init(kStep.lrSchedule), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<int64_t> warmup{
      "warmup", llvm::cl::desc("Linear warm-up steps (0)"),
      llvm::cl::init(kStep.warmup), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<int64_t> decaySteps{
      "decay-steps",
      llvm::cl::desc("Cosine: steps from the end of warm-up to --min-lr"),
      llvm::cl::init(kStep.decaySteps), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> minLr{
      "min-lr", llvm::cl::desc("Cosine: the final rate (0)"),
      llvm::cl::init(kStep.minLr), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<int64_t> gradAccum{
      "grad-accum",
      llvm::cl::desc("Microbatches per step: the inputs take K times the "
                     "model's batch (1)"),
      llvm::cl::init(kStep.gradAccum), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<double> clipGradNorm{
      "clip-grad-norm",
      llvm::cl::desc("Clip the global gradient norm to this (0: off)"),
      llvm::cl::init(kStep.clipGradNorm), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<int64_t> zero{
      "zero",
      llvm::cl::desc("ZeRO stage: shard optimizer state (1), also gradients "
                     "(2), also parameters (3) over the data axes"),
      llvm::cl::init(kStep.zero), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> freeze{
      "freeze",
      llvm::cl::desc("Do not train parameters whose whole name matches this "
                     "POSIX extended regex"),
      llvm::cl::value_desc("REGEX"), llvm::cl::cat(trainCategory)};

  llvm::cl::opt<std::string> cpu{
      "cpu",
      llvm::cl::desc("CPU to compile artifacts for: native (default) or an "
                     "LLVM CPU name such as x86-64-v3"),
      llvm::cl::init("native"), llvm::cl::cat(outputCategory)};

  /// The first training option given without --train, or "".
  std::string trainingOptionWithoutTrain() const {
    if (train)
      return "";
    for (const llvm::cl::Option *o :
         std::initializer_list<const llvm::cl::Option *>{
             &loss, &logits, &labels, &optimizer, &lr, &momentum, &beta1,
             &beta2, &eps, &weightDecay, &lrSchedule, &warmup, &decaySteps,
             &minLr, &gradAccum, &clipGradNorm, &zero, &freeze})
      if (o->getNumOccurrences())
        return ("--" + o->ArgStr).str();
    return "";
  }

  Options toOptions() const {
    Options options;
    options.inputFile = input;
    options.outputFile = output;
    options.emit = emit;
    // `-o model.loom` builds an artifact unless --emit says otherwise.
    if (emit.getNumOccurrences() == 0 &&
        llvm::sys::path::extension(StringRef(output).rtrim('/')) == ".loom")
      options.emit = EmitKind::Artifact;
    options.cpu = cpu;
    options.elideWeights = elideWeights;
    options.mesh = mesh;
    options.strategy = strategy;
    options.clusterFile = cluster;
    options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
    options.parameterInputs = parameterInputs;
    options.train.enabled = train;
    NNBuildTrainingStepOptions &t = options.train.step;
    t.loss = loss;
    t.logits = logits;
    t.labels = labels;
    t.optimizer = optimizer;
    t.lr = lr;
    t.momentum = momentum;
    t.beta1 = beta1;
    t.beta2 = beta2;
    t.eps = eps;
    t.weightDecay = weightDecay;
    t.lrSchedule = lrSchedule;
    t.warmup = warmup;
    t.decaySteps = decaySteps;
    t.minLr = minLr;
    t.gradAccum = gradAccum;
    t.clipGradNorm = clipGradNorm;
    t.zero = zero;
    t.freeze = freeze;
    return options;
  }
};

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

void printVersion(llvm::raw_ostream &os) {
  os << "loomc " LOOM_VERSION " (MLIR " LLVM_VERSION_STRING ")\n";
}
} // namespace

int loom::driver::loomcMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  CommandLine cl;
  llvm::cl::HideUnrelatedOptions(
      {&inputCategory, &outputCategory, &distCategory, &trainCategory});
  llvm::cl::SetVersionPrinter(printVersion);
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "loomc: compile a model into a distributed training program\n",
          &llvm::errs()))
    return ExitCode::Failure;
  if (cl.listOperators) {
    for (StringRef op : onnx_import::supportedOperators())
      llvm::outs() << op << "\n";
    return ExitCode::Success;
  }
  std::string misplaced = cl.trainingOptionWithoutTrain();
  if (!misplaced.empty()) {
    llvm::errs() << "loomc: error: " << misplaced
                 << " applies to training: add --train\n";
    return ExitCode::Failure;
  }
  Options options = cl.toOptions();

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
  if (failed(runPipeline(*module, options)))
    return ExitCode::Failure;

  if (options.emit == EmitKind::Artifact) {
    if (options.outputFile == "-") {
      llvm::errs() << "loomc: error: --emit=artifact writes a directory; "
                      "name it with -o MODEL.loom\n";
      return ExitCode::Failure;
    }
    cpu::CompileOptions compileOptions;
    compileOptions.cpu = options.cpu;
    compileOptions.modelName =
        llvm::sys::path::filename(options.inputFile).str();
    if (failed(
            cpu::compileArtifact(*module, options.outputFile, compileOptions)))
      return ExitCode::Failure;
    return ExitCode::Success;
  }

  // llvm::writeToOutput writes a temporary beside the target and renames it
  // at the end, so a failure never leaves a partial or clobbered output.
  LogicalResult emitted = success();
  if (llvm::Error error = llvm::writeToOutput(
          options.outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
            emitted = emit(*module, options, os);
            if (failed(emitted))
              return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                             "nothing written");
            return llvm::Error::success();
          })) {
    llvm::errs() << "loomc: error: cannot write '" << options.outputFile
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return ExitCode::Failure;
  }
  return ExitCode::Success;
}
