//===- Driver.cpp - The loomc compiler driver -----------------------------===//

#include "loom/Driver/Driver.h"
#include "loom/CostModel/Cluster.h"
#include "loom/CostModel/CostReport.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "loom/InitAll.h"
#include "loom/Passes/Dist/Passes.h"
#include "loom/Passes/Training/Passes.h"
#include "loom/Planner/Planner.h"
#include "loom/Target/CPUTarget.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
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

/// The cluster loomc plans for: --cluster or this machine, resized by
/// --devices.
static FailureOr<Cluster> loadCluster(Location loc, const Options &options) {
  Cluster cluster = describeThisMachine();
  if (!options.clusterFile.empty()) {
    llvm::Expected<Cluster> read = readClusterFile(options.clusterFile);
    if (!read)
      return emitError(loc) << llvm::toString(read.takeError());
    cluster = std::move(*read);
  }
  int64_t devices = options.plan.devices;
  if (devices > 0) {
    if (devices % cluster.devicesPerNode != 0 &&
        devices > cluster.devicesPerNode)
      return emitError(loc)
             << "--devices " << devices << ": not a whole number of nodes of "
             << cluster.devicesPerNode << " device(s) ('" << cluster.name
             << "')";
    if (devices <= cluster.devicesPerNode) {
      cluster.nodes = 1;
      cluster.devicesPerNode = devices;
    } else {
      cluster.nodes = devices / cluster.devicesPerNode;
    }
    cluster.strictDeviceCount = true;
  }
  return cluster;
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
  if (!module.getOps<dist::MeshOp>().empty())
    return global ? Strategy::None : Strategy::Manual;
  const PlanOptions &plan = options.plan;
  if (plan.explain || plan.simulate || !plan.traceFile.empty())
    return Strategy::Auto;
  // Without a plan to show, the global forms stay global, and one device
  // needs no plan.
  if (global || (plan.devices <= 1 && options.clusterFile.empty()))
    return Strategy::None;
  return Strategy::Auto;
}

namespace {
/// What the auto strategy decided for the rest of the pipeline.
struct AutoDecision {
  /// Planning was all that was asked for (--explain alone, or a plan that
  /// is not executable): nothing left to compile.
  bool done = false;
  std::string meshSpec;
  int64_t zero = 0;
};

std::string meshSpecOf(const planner::Plan &plan, bool withPipeline) {
  std::string spec;
  auto add = [&](const char *name, int64_t size) {
    if (size == 1)
      return;
    spec += (spec.empty() ? "" : ",") + std::string(name) + "=" +
            std::to_string(size);
  };
  if (withPipeline)
    add("pp", plan.pp);
  add("dp", plan.dp);
  add("tp", plan.tp);
  return spec;
}

/// Reports one hand plan for --hand-plans.
void printHand(llvm::raw_ostream &os, StringRef name,
               FailureOr<planner::PlanResult> &hand, StringRef why,
               double autoSeconds) {
  os << llvm::formatv("  {0,-10} ", name);
  if (failed(hand)) {
    os << "none: " << why << "\n";
    return;
  }
  double t = hand->best.time.total();
  os << llvm::formatv("{0,10}  auto/hand {1:F3}  {2}  seconds={3:e}\n",
                      planner::formatSeconds(t), autoSeconds / t,
                      hand->best.shape(), t);
}

/// Plans the model (--strategy=auto), prints what was asked, and writes the
/// plan's layouts when it is to be compiled.
FailureOr<AutoDecision> planAuto(ModuleOp module, const Options &options,
                                 Location loc) {
  const PlanOptions &po = options.plan;
  FailureOr<Cluster> cluster = loadCluster(loc, options);
  if (failed(cluster))
    return failure();
  func::FuncOp fn;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal()) {
      fn = f;
      break;
    }
  if (!fn)
    return emitError(loc) << "nothing to plan: the module has no public "
                             "function with a body";
  planner::PlannerOptions popts;
  popts.train = options.train.enabled;
  popts.simulate = po.simulate;
  popts.cacheDir = po.cacheDir;
  popts.devices = po.devices > 0                ? po.devices
                  : options.clusterFile.empty() ? 1
                                                : cluster->numDevices();
  if (po.precision == "mixed" ||
      (po.precision.empty() && po.simulate && cluster->device.kind == "gpu" &&
       cluster->device.peakTFLOPs.lookup("bfloat16") > 0))
    popts.precision = TrainingPrecision::Mixed;
  if (options.train.step.optimizer == nn::Optimizer::SGD)
    popts.optimizer = options.train.step.momentum != 0
                          ? OptimizerKind::SGDMomentum
                          : OptimizerKind::SGD;
  if (options.train.zeroGiven)
    popts.zero = options.train.step.zero;
  if (!po.simulate)
    popts.microbatches = 1; // --grad-accum multiplies the batch instead
  if (!options.mesh.empty()) {
    // --strategy=auto --mesh: the mesh fixes dp and tp.
    popts.dp = popts.tp = 1;
    int64_t total = 1;
    for (StringRef part : llvm::split(options.mesh, ',')) {
      auto [name, size] = part.split('=');
      int64_t n = 0;
      if (size.trim().getAsInteger(10, n) || n < 1 ||
          (name.trim() != "dp" && name.trim() != "tp"))
        return emitError(loc) << "--strategy=auto --mesh " << options.mesh
                              << ": the planner takes axes dp and tp only";
      (name.trim() == "dp" ? *popts.dp : *popts.tp) = n;
      total *= n;
    }
    popts.devices = total;
    popts.pp = 1;
  }
  FailureOr<std::unique_ptr<planner::Planner>> planner =
      planner::Planner::create(fn);
  if (failed(planner))
    return failure();
  std::string why;
  FailureOr<planner::PlanResult> result =
      (*planner)->plan(*cluster, popts, why);
  if (failed(result))
    return emitError(loc) << "--strategy=auto: " << why;
  const planner::Plan &plan = result->best;
  if (po.explain) {
    (*planner)->explain(*result, *cluster, llvm::outs());
    if (po.handPlans) {
      llvm::outs() << "hand plans under the same model\n";
      planner::PlannerOptions data = popts;
      data.tp = 1;
      data.pp = 1;
      FailureOr<planner::PlanResult> dataPlan =
          (*planner)->plan(*cluster, data, why);
      printHand(llvm::outs(), "data", dataPlan, why, plan.time.total());
      planner::PlannerOptions megatron = popts;
      megatron.megatronOnly = true;
      megatron.zero = 0;
      FailureOr<planner::PlanResult> megatronPlan =
          (*planner)->plan(*cluster, megatron, why);
      printHand(llvm::outs(), "megatron", megatronPlan, why, plan.time.total());
    }
  }
  if (!po.traceFile.empty()) {
    if (llvm::Error error = llvm::writeToOutput(
            po.traceFile, [&](llvm::raw_ostream &os) -> llvm::Error {
              (*planner)->trace(plan, *cluster, popts, os);
              return llvm::Error::success();
            }))
      return emitError(loc) << "--trace: cannot write '" << po.traceFile
                            << "': " << llvm::toString(std::move(error));
  }
  AutoDecision decision;
  decision.zero = plan.zero;
  if (po.explain && !options.outputGiven) {
    decision.done = true;
    return decision;
  }
  if (!plan.executable() || po.simulate) {
    if (options.emit != EmitKind::Plan && !(plan.executable() && !po.explain)) {
      if (!plan.executable())
        return emitError(loc)
               << "the plan (" << plan.shape()
               << ") has pipeline stages or recomputation, which the runtime "
                  "does not execute yet: use --explain, --trace or "
                  "--emit=plan, or drop --simulate for an executable plan";
    }
    (*planner)->markStages(plan);
    decision.meshSpec = meshSpecOf(plan, /*withPipeline=*/true);
  } else {
    decision.meshSpec = meshSpecOf(plan, /*withPipeline=*/false);
  }
  if (!decision.meshSpec.empty())
    (*planner)->annotate(plan);
  return decision;
}
} // namespace

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
  TrainOptions train = options.train;
  if (!train.enabled && train.step.zero != 0)
    return emitError(loc) << "--zero applies to training: add --train";
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
    meshSpec = decision->meshSpec;
    // One device: the single-device path.
    if (meshSpec.empty())
      strategy = Strategy::None;
    applied = "planned";
  }
  if (strategy == Strategy::None) {
    if (wantsMesh && options.strategy != Strategy::Auto &&
        options.plan.devices <= 1 && options.clusterFile.empty())
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
  PassManager pm(ctx);
  if (strategy != Strategy::Manual) {
    DistApplyStrategyOptions strategyOptions;
    strategyOptions.strategy = applied;
    pm.addPass(createDistApplyStrategy(strategyOptions));
  }
  // A simulated plan is shown, not compiled: no training step to build.
  bool simulated = module->hasAttr(dist::kPlanAttrName);
  if (train.enabled && !simulated)
    buildTrainingStepPipeline(pm, train.step);
  pm.addPass(createDistPropagateSharding());
  if (train.enabled && !simulated)
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
/// The training options' defaults are the passes'.
const TrainingStepPipelineOptions kStep;

/// A flag taking one of a few names: a bad value is reported with the
/// names allowed.
template <typename T> struct NamedValueParser : llvm::cl::parser<T> {
  using llvm::cl::parser<T>::parser;
  bool parse(llvm::cl::Option &option, StringRef, StringRef arg, T &value) {
    std::string allowed;
    for (auto [i, v] : llvm::enumerate(this->Values)) {
      if (v.Name == arg) {
        value = v.V.getValue();
        return false;
      }
      if (i > 0)
        allowed += i + 1 == this->Values.size() ? " or " : ", ";
      allowed += v.Name.str();
    }
    return option.error("must be " + allowed + ", not '" + arg + "'");
  }
};

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
                     "declares a dist.mesh)"),
          clEnumValN(Strategy::Auto, "auto",
                     "search for the fastest plan that fits (default "
                     "without --mesh): dp x tp x pp, per-op shardings, "
                     "ZeRO stage, microbatches, recomputation")),
      llvm::cl::cat(distCategory)};
  llvm::cl::opt<int64_t> devices{
      "devices",
      llvm::cl::desc("Plan for this many devices of the cluster's kind "
                     "(default: all of --cluster's, else one)"),
      llvm::cl::init(0), llvm::cl::cat(distCategory)};
  llvm::cl::opt<bool> explain{
      "explain",
      llvm::cl::desc("Print the plan: step time split into compute, exposed "
                     "communication and bubble, memory per device, bytes "
                     "per collective, MFU, and the runners-up"),
      llvm::cl::cat(distCategory)};
  llvm::cl::opt<std::string> trace{
      "trace",
      llvm::cl::desc("Write a Chrome trace (chrome://tracing, Perfetto) of "
                     "one simulated step of the plan"),
      llvm::cl::value_desc("FILE.json"), llvm::cl::cat(distCategory)};
  llvm::cl::opt<bool> simulate{
      "simulate",
      llvm::cl::desc("Plan without executing: also pipeline stages, "
                     "recomputation and (on GPUs) mixed precision"),
      llvm::cl::cat(distCategory)};
  llvm::cl::opt<std::string> precision{
      "precision",
      llvm::cl::desc("What the planner prices: fp32 or mixed (default: "
                     "mixed on GPUs with --simulate, else fp32)"),
      llvm::cl::cat(distCategory)};
  llvm::cl::opt<std::string> planCache{
      "plan-cache",
      llvm::cl::desc("Directory caching the planner's per-op assignments "
                     "(default: $LOOM_PLAN_CACHE, else "
                     "$XDG_CACHE_HOME/loom/plans or ~/.cache/loom/plans; "
                     "off: none)"),
      llvm::cl::value_desc("DIR|off"), llvm::cl::cat(distCategory)};
  llvm::cl::opt<bool> handPlans{
      "hand-plans",
      llvm::cl::desc("With --explain: also price the best hand plans (data "
                     "parallel with the best ZeRO stage; Megatron tp x pp x "
                     "dp) under the same model"),
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
  llvm::cl::opt<nn::Optimizer, false, NamedValueParser<nn::Optimizer>>
      optimizer{"optimizer", llvm::cl::desc("sgd or adamw (default)"),
                llvm::cl::values(clEnumValN(nn::Optimizer::SGD, "sgd", ""),
                                 clEnumValN(nn::Optimizer::AdamW, "adamw", "")),
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
  llvm::cl::opt<nn::LRSchedule, false, NamedValueParser<nn::LRSchedule>>
      lrSchedule{
          "lr-schedule", llvm::cl::desc("constant (default) or cosine"),
          llvm::cl::values(clEnumValN(nn::LRSchedule::Constant, "constant", ""),
                           clEnumValN(nn::LRSchedule::Cosine, "cosine", "")),
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
    options.outputGiven =
        output.getNumOccurrences() > 0 || emit.getNumOccurrences() > 0;
    options.plan.devices = devices;
    options.plan.explain = explain;
    options.plan.traceFile = trace;
    options.plan.simulate = simulate;
    options.plan.precision = precision;
    options.plan.handPlans = handPlans;
    options.plan.cacheDir = planCache;
    if (planCache.getNumOccurrences() == 0) {
      llvm::SmallString<256> dir;
      if (const char *env = std::getenv("LOOM_PLAN_CACHE")) {
        dir = env;
      } else if (const char *xdg = std::getenv("XDG_CACHE_HOME")) {
        dir = xdg;
        llvm::sys::path::append(dir, "loom", "plans");
      } else if (const char *home = std::getenv("HOME")) {
        dir = home;
        llvm::sys::path::append(dir, ".cache", "loom", "plans");
      }
      options.plan.cacheDir = std::string(dir);
    }
    if (options.plan.cacheDir == "off")
      options.plan.cacheDir.clear();
    options.train.zeroGiven = zero.getNumOccurrences() > 0;
    options.train.enabled = train;
    TrainingStepPipelineOptions &t = options.train.step;
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
  if (argc > 1 && StringRef(argv[1]) == "calibrate")
    return calibrateMain(argc, argv);
  CommandLine cl;
  llvm::cl::HideUnrelatedOptions(
      {&inputCategory, &outputCategory, &distCategory, &trainCategory});
  llvm::cl::SetVersionPrinter(printVersion);
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "loomc: compile a model into a distributed training program\n\n"
          "  loomc calibrate -o FILE: measure this machine as a cluster "
          "description (see loomc calibrate --help)\n",
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
  if (cl.devices < 0 || (cl.devices.getNumOccurrences() && cl.devices == 0)) {
    llvm::errs() << "loomc: error: --devices " << cl.devices
                 << ": expected a positive number of devices\n";
    return ExitCode::Failure;
  }
  if (!cl.precision.empty() && cl.precision != "fp32" &&
      cl.precision != "mixed") {
    llvm::errs() << "loomc: error: --precision=" << cl.precision
                 << ": expected fp32 or mixed\n";
    return ExitCode::Failure;
  }
  if (cl.handPlans && !cl.explain) {
    llvm::errs() << "loomc: error: --hand-plans adds to --explain: add "
                    "--explain\n";
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
  if (failed(runPipeline(*module, options)))
    return ExitCode::Failure;
  // --explain alone: the explanation was the output.
  if (options.plan.explain && !options.outputGiven)
    return ExitCode::Success;

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
