//===- AutoPlan.cpp - --strategy=auto in loomc ----------------------------===//
//
// Loads the cluster, runs the planner, prints the explanation, the trace
// and the hand plans asked for, and tells the pipeline which mesh and ZeRO
// stage to compile (docs/Planner.md).
//
//===----------------------------------------------------------------------===//

#include "DriverInternal.h"
#include "loom/Planner/Planner.h"
#include "loom/Support/Files.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::driver;

FailureOr<Cluster> loom::driver::loadCluster(Location loc,
                                             const Options &options) {
  Cluster cluster = describeThisMachine();
  if (!options.clusterFile.empty()) {
    llvm::Expected<Cluster> read = readClusterFile(options.clusterFile);
    if (!read)
      return emitError(loc) << llvm::toString(read.takeError());
    cluster = std::move(*read);
  }
  int64_t devices = options.plan.devices.value_or(0);
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

namespace {
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

/// `--plan SPEC --strategy=auto`: the given plan beside the auto plan.
void printComparison(llvm::raw_ostream &os, StringRef spec,
                     FailureOr<planner::PlanResult> &mine, StringRef why,
                     const planner::Plan &autoPlan) {
  using planner::formatBytes;
  using planner::formatSeconds;
  os << "the given plan (--plan " << spec << ")\n";
  if (failed(mine)) {
    os << "  impossible: " << why << "\n\n";
    return;
  }
  const planner::Plan &p = mine->best;
  auto line = [&](StringRef name, const planner::Plan &q) {
    os << llvm::formatv("  {0,-6} {1,10} {2,11} per device  MFU {3,5:F1} %  "
                        "{4}\n",
                        name, formatSeconds(q.time.total()),
                        formatBytes(q.memory.total()), 100 * q.mfu, q.shape());
  };
  if (!p.fits) {
    os << "  does not fit: " << why << "\n\n";
    return;
  }
  line("given", p);
  line("auto", autoPlan);
  double ratio = p.time.total() / autoPlan.time.total();
  if (ratio > 1 + 1e-9)
    os << llvm::formatv("  auto is {0:F2}x faster: the given plan loses on ",
                        ratio)
       << planner::whyWorse(p, autoPlan) << "\n";
  else
    os << "  the given plan is as fast as auto's or faster (auto also "
          "weighs memory and simplicity)\n";
  os << "  " << planner::Planner::summaryLine(p) << "\n\n";
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

} // namespace

FailureOr<AutoDecision>
loom::driver::planAuto(ModuleOp module, const Options &options, Location loc) {
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
  popts.devices = po.devices                    ? *po.devices
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
  // What runs: the model's batch is one microbatch of the step (loomc's
  // --microbatches); a simulated plan splits the model's batch instead.
  if (!po.simulate) {
    if (options.train.enabled)
      popts.graphMicrobatches = options.train.step.gradAccum;
    else
      popts.microbatches = 1;
  }
  if (options.train.recomputeGiven) {
    popts.recompute = dist::symbolizeRecompute(options.train.recompute);
    if (!popts.recompute)
      return emitError(loc) << "--recompute=" << options.train.recompute
                            << ": expected off, full or selective";
  }
  if (options.train.scheduleGiven) {
    popts.schedule = planner::parseSchedule(options.train.schedule);
    if (!popts.schedule || *popts.schedule == planner::Schedule::None)
      return emitError(loc) << "--schedule=" << options.train.schedule
                            << ": expected gpipe, 1f1b, interleaved or zb1p";
    popts.vpp = options.train.chunks();
  }
  if (po.attention == "fused" ||
      (po.attention.empty() && cluster->device.kind == "gpu"))
    popts.fusedAttention = true;
  else if (!po.attention.empty() && po.attention != "materialized")
    return emitError(loc) << "--attention=" << po.attention
                          << ": expected fused or materialized";
  if (po.objective == "energy")
    popts.objective = planner::Objective::Energy;
  else if (po.objective == "cost")
    popts.objective = planner::Objective::Cost;
  else if (po.objective != "time")
    return emitError(loc) << "--objective=" << po.objective
                          << ": expected time, energy or cost";
  if (!options.mesh.empty()) {
    if (po.specGiven)
      return emitError(loc) << "--plan gives the mesh itself (dp=, tp=, "
                               "pp=): drop --mesh "
                            << options.mesh;
    // --strategy=auto --mesh: the mesh fixes dp, tp and pp.
    popts.dp = popts.tp = popts.pp = 1;
    int64_t total = 1;
    for (StringRef part : llvm::split(options.mesh, ',')) {
      auto [name, size] = part.split('=');
      int64_t n = 0;
      StringRef axis = name.trim();
      if (size.trim().getAsInteger(10, n) || n < 1 ||
          (axis != "dp" && axis != "tp" && axis != "pp"))
        return emitError(loc) << "--strategy=auto --mesh " << options.mesh
                              << ": the planner takes axes dp, tp and pp "
                                 "(--plan fixes the rest)";
      (axis == "dp" ? *popts.dp : axis == "tp" ? *popts.tp : *popts.pp) = n;
      if (llvm::MulOverflow(total, n, total) || total > kMaxDevices)
        return emitError(loc) << "--strategy=auto --mesh " << options.mesh
                              << ": more than " << kMaxDevices << " devices";
    }
    popts.devices = total;
  }
  // --plan: the given plan, alone or beside the auto plan.
  std::optional<planner::PlannerOptions> given;
  if (po.specGiven) {
    planner::PlannerOptions s = popts;
    std::string why = planner::parsePlanSpec(po.spec, s);
    if (!why.empty())
      return emitError(loc) << "--plan " << po.spec << ": " << why;
    auto clash = [&](const char *flag, bool set, bool differs) {
      if (set && differs)
        why = std::string("it contradicts ") + flag;
    };
    clash("--zero", popts.zero.has_value(), s.zero != popts.zero);
    clash("--recompute", popts.recompute.has_value(),
          s.recompute != popts.recompute);
    clash("--schedule", popts.schedule.has_value(),
          s.schedule != popts.schedule || s.vpp != popts.vpp);
    if (!why.empty())
      return emitError(loc) << "--plan " << po.spec << ": " << why;
    // A whole mesh given: that many devices, unless --devices says.
    if (s.dp && s.tp && s.pp && !po.devices) {
      // Each is at most kMaxDevices = 2^20: the product fits.
      int64_t total = *s.dp * *s.tp * *s.pp;
      if (total > kMaxDevices)
        return emitError(loc) << "--plan " << po.spec << ": " << total
                              << " devices, more than " << kMaxDevices;
      s.devices = total;
    }
    s.keepRejected = 0;
    s.returnUnfit = true;
    given = s;
  }
  bool compare = given && options.strategy == Strategy::Auto;
  // Beside a whole given mesh, auto plans for the same devices.
  if (compare && !po.devices && options.mesh.empty())
    popts.devices = given->devices;
  const planner::PlannerOptions &chosen = given && !compare ? *given : popts;
  FailureOr<std::unique_ptr<planner::Planner>> planner =
      planner::Planner::create(fn);
  if (failed(planner))
    return failure();
  std::string why;
  FailureOr<planner::PlanResult> result =
      (*planner)->plan(*cluster, chosen, why);
  if (failed(result)) {
    if (given && !compare)
      return emitError(loc) << "--plan " << po.spec << ": " << why;
    return emitError(loc) << "--strategy=auto: " << why;
  }
  const planner::Plan &plan = result->best;
  bool explain = po.explain || po.specGiven;
  if (compare) {
    std::string givenWhy;
    FailureOr<planner::PlanResult> mine =
        (*planner)->plan(*cluster, *given, givenWhy);
    printComparison(llvm::outs(), po.spec, mine, givenWhy, plan);
  }
  // --plan alone on a plan that does not fit: explained, then refused.
  if (!plan.fits) {
    (*planner)->explain(*result, *cluster, llvm::outs());
    return emitError(loc) << "--plan " << po.spec << ": " << why;
  }
  if (explain) {
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
    if (llvm::Error error = writeOutputFile(
            po.traceFile, [&](llvm::raw_ostream &os) -> llvm::Error {
              (*planner)->trace(plan, *cluster, popts, os);
              return llvm::Error::success();
            }))
      return emitError(loc) << "--trace: " << llvm::toString(std::move(error));
  }
  AutoDecision decision;
  decision.zero = plan.zero;
  decision.schedule = plan.schedule == planner::Schedule::None
                          ? "1f1b"
                          : planner::scheduleName(plan.schedule).str();
  decision.virtualStages = plan.vpp;
  decision.recompute = dist::stringifyRecompute(plan.recompute).str();
  if (explain && !options.outputGiven) {
    decision.done = true;
    return decision;
  }

  if (po.simulate) {
    // A simulated plan's microbatches split the model's batch, and GPUs are
    // priced in mixed precision: it is shown, not compiled.
    bool compilable = plan.executable();
    if (options.emit != EmitKind::Plan && !compilable)
      return emitError(loc)
             << "the simulated plan (" << plan.shape()
             << ") splits the model's batch into microbatches, pipeline "
                "stages or recomputation: it is shown (--explain, --trace, "
                "--emit=plan), not compiled; drop --simulate for a plan to "
                "compile (the model's batch is then one microbatch of "
                "--microbatches)";
    (*planner)->markStages(plan);
    decision.meshSpec = meshSpecOf(plan, /*withPipeline=*/true);
  } else {
    // Stage markers for -dist-assign-stages, which keeps them.
    if (plan.pp > 1)
      (*planner)->markStages(plan);
    decision.meshSpec = meshSpecOf(plan, /*withPipeline=*/true);
  }
  if (plan.sequenceParallel && options.emit != EmitKind::Plan)
    return emitError(loc)
           << "the plan (" << plan.shape()
           << ") uses sequence parallelism, which loomc prices but does not "
              "compile yet: it is shown (--explain, --emit=plan), not "
              "compiled; plan with sp=off to compile";
  if (!decision.meshSpec.empty())
    (*planner)->annotate(plan);
  return decision;
}
