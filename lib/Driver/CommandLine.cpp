//===- CommandLine.cpp - loomc's flags ------------------------------------===//
//
// The flags, grouped as `loomc --help` shows them, and their translation
// into driver::Options; checks that need the model stay with the stages.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/CommandLine.h"
#include "DriverInternal.h"
#include "loom/Frontend/ONNX/ONNXImporter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace loom;
using namespace loom::driver;

namespace loom::driver {
/// `--target=NAME[:CHIP,...]`.
struct TargetSpec {
  std::string name = "cpu";
  std::vector<std::string> chips;
};
} // namespace loom::driver

namespace llvm::cl {
/// Parses `NAME[:CHIP,...]` (the chips of a GPU target).
template <> class parser<TargetSpec> : public basic_parser<TargetSpec> {
public:
  explicit parser(Option &option) : basic_parser(option) {}
  bool parse(Option &option, StringRef, StringRef value, TargetSpec &spec) {
    auto [name, chips] = value.split(':');
    spec.name = name.trim().str();
    spec.chips.clear();
    if (spec.name.empty())
      return option.error("expected a target name, e.g. --target=cpu");
    if (value.contains(':')) {
      for (StringRef chip : llvm::split(chips, ',')) {
        if (chip.trim().empty())
          return option.error("'" + value + "': empty chip name");
        spec.chips.push_back(chip.trim().str());
      }
    }
    return false;
  }
  StringRef getValueName() const override { return "NAME[:CHIP,...]"; }
  void printOptionDiff(const Option &option, const TargetSpec &value,
                       const OptionValue<TargetSpec> &, size_t width) const {
    printOptionName(option, width);
    outs() << "= " << value.name << "\n";
  }
};
} // namespace llvm::cl

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
  llvm::cl::opt<std::string> renameParameters{
      "rename-parameters",
      llvm::cl::desc("A JSON object mapping parameter names to the names "
                     "checkpoints and exports should use (an exporter's "
                     "names to the module's)"),
      llvm::cl::value_desc("FILE.json"), llvm::cl::cat(inputCategory)};
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
  llvm::cl::opt<std::string> planSpec{
      "plan",
      llvm::cl::desc("Price and explain this plan (keys left out are "
                     "searched): dp, tp, pp, vpp, microbatches or "
                     "microbatch-size, schedule=gpipe|1f1b|interleaved|zb1p, "
                     "zero=0-3, recompute=off|full|selective, sp=on|off, "
                     "tp-ops=megatron|searched; with --strategy=auto it is "
                     "compared with the auto plan"),
      llvm::cl::value_desc("dp=8,tp=8,pp=4,..."), llvm::cl::cat(distCategory)};
  llvm::cl::opt<std::string> objective{
      "objective",
      llvm::cl::desc("What the planner minimises: time (per step, default), "
                     "energy (per step; needs device.power_w) or cost (per "
                     "step; needs device.price_per_hour); energy and cost "
                     "may leave devices idle"),
      llvm::cl::init("time"), llvm::cl::cat(distCategory)};
  llvm::cl::opt<std::string> attention{
      "attention",
      llvm::cl::desc("How the planner prices attention cores: fused (one "
                     "kernel, scores never stored: FlashAttention, cuDNN "
                     "SDPA; the default on GPUs) or materialized (the "
                     "separate ops, as the CPU target runs them; the default "
                     "on CPUs)"),
      llvm::cl::cat(distCategory)};
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
  llvm::cl::opt<int64_t> microbatches{
      "microbatches",
      llvm::cl::desc("Pipeline microbatches per step (--grad-accum by "
                     "another name): the inputs take M times the model's "
                     "batch"),
      llvm::cl::init(0), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> schedule{
      "schedule",
      llvm::cl::desc("Pipeline schedule on a mesh with a pp axis: gpipe, "
                     "1f1b (default), interleaved (Megatron's, with "
                     "--virtual-stages) or zb1p (zero bubble, ZB-H1)"),
      llvm::cl::init("1f1b"), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<int64_t> virtualStages{
      "virtual-stages",
      llvm::cl::desc("Model chunks per pipeline stage for "
                     "--schedule=interleaved (2)"),
      llvm::cl::init(0), llvm::cl::cat(trainCategory)};
  llvm::cl::opt<std::string> recompute{
      "recompute",
      llvm::cl::desc("Activation recomputation: off (default), full (keep "
                     "each layer's input, rerun the layer in backward) or "
                     "selective (keep matrix products, rerun the cheap ops)"),
      llvm::cl::init("off"), llvm::cl::cat(trainCategory)};
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

  llvm::cl::opt<TargetSpec> target{
      "target",
      llvm::cl::desc("What to compile for: cpu (default), or a GPU target "
                     "with its chips, cuda[:sm_80,sm_90]"),
      llvm::cl::value_desc("NAME[:CHIP,...]"), llvm::cl::cat(outputCategory)};
  llvm::cl::opt<std::string> cpu{
      "cpu",
      llvm::cl::desc("CPU to compile host code for: native (default) or an "
                     "LLVM CPU name such as x86-64-v3"),
      llvm::cl::init("native"), llvm::cl::cat(outputCategory)};
  llvm::cl::opt<bool> emulateCUDAKernels{
      "emulate-cuda-kernels",
      llvm::cl::desc("With --target=cpu: run the kernels --target=cuda would "
                     "make as host loops (checks them without a GPU)"),
      llvm::cl::cat(outputCategory)};

  llvm::cl::opt<bool> checkIndices{
      "check-indices",
      llvm::cl::desc("Make the compiled program stop with a message at a "
                     "gather or scatter_add index out of range instead of "
                     "clamping it (debugging; costs a compare per index)"),
      llvm::cl::cat(outputCategory)};

  /// The first training option given without --train, or "".
  std::string trainingOptionWithoutTrain() const {
    if (train)
      return "";
    for (const llvm::cl::Option *o :
         std::initializer_list<const llvm::cl::Option *>{
             &loss,       &logits,        &labels,     &optimizer,
             &lr,         &momentum,      &beta1,      &beta2,
             &eps,        &weightDecay,   &lrSchedule, &warmup,
             &decaySteps, &minLr,         &gradAccum,  &microbatches,
             &schedule,   &virtualStages, &recompute,  &clipGradNorm,
             &zero,       &freeze})
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
    options.target = target.getValue().name;
    options.targetGiven = target.getNumOccurrences() > 0;
    options.targetOptions.chips = target.getValue().chips;
    options.targetOptions.cpu = cpu;
    options.targetOptions.emulateCUDAKernels = emulateCUDAKernels;
    options.elideWeights = elideWeights;
    options.checkIndices = checkIndices;
    options.mesh = mesh;
    options.strategy = strategy;
    options.clusterFile = cluster;
    options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
    options.parameterInputs = parameterInputs;
    options.renameParameters = renameParameters;
    options.outputGiven =
        output.getNumOccurrences() > 0 || emit.getNumOccurrences() > 0;
    if (devices.getNumOccurrences())
      options.plan.devices = devices;
    options.plan.explain = explain;
    options.plan.traceFile = trace;
    options.plan.simulate = simulate;
    options.plan.precision = precision;
    options.plan.handPlans = handPlans;
    options.plan.spec = planSpec;
    options.plan.specGiven = planSpec.getNumOccurrences() > 0;
    options.plan.objective = objective;
    options.plan.attention = attention;
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
    t.gradAccum = microbatches.getNumOccurrences() ? microbatches : gradAccum;
    options.train.schedule = schedule;
    options.train.scheduleGiven = schedule.getNumOccurrences() > 0;
    options.train.recomputeGiven = recompute.getNumOccurrences() > 0;
    options.train.virtualStages = virtualStages;
    options.train.recompute = recompute;
    t.clipGradNorm = clipGradNorm;
    t.zero = zero;
    t.freeze = freeze;
    return options;
  }
};

void printVersion(llvm::raw_ostream &os) {
  os << "loomc " LOOM_VERSION " (MLIR " LLVM_VERSION_STRING ")\n";
}
} // namespace

int loom::driver::parseCommandLine(int argc, char **argv, Options &options) {
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
  options = cl.toOptions();
  return -1;
}
