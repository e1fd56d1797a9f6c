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
  if (options.train.recomputeGiven)
    popts.recompute = options.train.recompute != "off";
  // The planner prices GPipe and 1F1B; ZB-H1 and interleaved 1F1B run with
  // 1F1B's memory and are priced as it (their smaller bubble is not
  // modelled yet).
  if (options.train.scheduleGiven)
    popts.schedule = options.train.schedule == "gpipe"
                         ? planner::Schedule::GPipe
                         : planner::Schedule::OneFOneB;
  if (!options.mesh.empty()) {
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
                              << ": the planner takes axes dp, tp and pp";
      (axis == "dp" ? *popts.dp : axis == "tp" ? *popts.tp : *popts.pp) = n;
      if (llvm::MulOverflow(total, n, total) || total > kMaxDevices)
        return emitError(loc) << "--strategy=auto --mesh " << options.mesh
                              << ": more than " << kMaxDevices << " devices";
    }
    popts.devices = total;
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
    if (llvm::Error error = writeOutputFile(
            po.traceFile, [&](llvm::raw_ostream &os) -> llvm::Error {
              (*planner)->trace(plan, *cluster, popts, os);
              return llvm::Error::success();
            }))
      return emitError(loc) << "--trace: " << llvm::toString(std::move(error));
  }
  AutoDecision decision;
  decision.zero = plan.zero;
  decision.schedule =
      plan.schedule == planner::Schedule::GPipe ? "gpipe" : "1f1b";
  decision.recompute = plan.recompute ? "full" : "off";
  if (po.explain && !options.outputGiven) {
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
  if (!decision.meshSpec.empty())
    (*planner)->annotate(plan);
  return decision;
}
