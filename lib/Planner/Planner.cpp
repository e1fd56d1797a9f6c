//===- Planner.cpp - The joint search over parallel plans -----------------===//

#include "Model.h"
#include "Price.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Passes/Dist/Megatron.h"
#include "loom/Planner/PipelineModel.h"
#include "llvm/Support/FormatVariadic.h"
#include <chrono>
#include <cmath>
#include <map>

using namespace mlir;
using namespace loom;
using namespace loom::planner;

Planner::Planner() : model(std::make_unique<Model>()) {}
Planner::~Planner() = default;

FailureOr<std::unique_ptr<Planner>> Planner::create(func::FuncOp fn) {
  // Megatron's split of a fused projection needs one matmul per part.
  dist::unfuseSplitProjections(fn);
  std::unique_ptr<Planner> planner(new Planner());
  if (failed(planner->model->build(fn)))
    return failure();
  return planner;
}

std::string Plan::spec() const {
  std::string s = llvm::formatv("dp={0},tp={1},pp={2}", dp, tp, pp).str();
  if (vpp > 1)
    s += llvm::formatv(",vpp={0}", vpp).str();
  s += llvm::formatv(",microbatches={0},microbatch-size={1}", microbatches,
                     microbatchSize)
           .str();
  if (schedule != Schedule::None)
    s += ",schedule=" + scheduleName(schedule).str();
  s += llvm::formatv(",zero={0},recompute={1}", zero,
                     dist::stringifyRecompute(recompute))
           .str();
  if (tp > 1)
    s += std::string(",sp=") + (sequenceParallel ? "on" : "off") +
         ",tp-ops=" + candidateName;
  return s;
}

std::string Plan::shape() const {
  std::string s = llvm::formatv("dp={0} tp={1} pp={2}", dp, tp, pp).str();
  if (vpp > 1)
    s += llvm::formatv(" vpp={0}", vpp).str();
  s += llvm::formatv(" mb={0} b={1} zero={2} recompute={3}", microbatches,
                     microbatchSize, zero, dist::stringifyRecompute(recompute))
           .str();
  if (schedule != Schedule::None)
    s += " " + scheduleName(schedule).str();
  if (sequenceParallel)
    s += " sp";
  if (tp > 1)
    s += " tp-ops=" + candidateName;
  return s;
}

std::string loom::planner::formatScaled(double value, double base,
                                        llvm::ArrayRef<const char *> units,
                                        int decimals) {
  size_t u = 0;
  while (std::fabs(value) >= base && u + 1 < units.size()) {
    value /= base;
    ++u;
  }
  std::string format =
      u == 0 ? "{0:F0} {1}" : "{0:F" + std::to_string(decimals) + "} {1}";
  return llvm::formatv(format.c_str(), value, units[u]).str();
}

std::string loom::planner::formatBytes(double bytes) {
  return formatScaled(bytes, 1024, {"B", "KiB", "MiB", "GiB", "TiB"}, 1);
}

std::string loom::planner::formatSeconds(double s) {
  if (s >= 1)
    return llvm::formatv("{0:F2} s", s).str();
  if (s >= 1e-3)
    return llvm::formatv("{0:F1} ms", s * 1e3).str();
  return llvm::formatv("{0:F0} us", s * 1e6).str();
}

namespace {
std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i * i != n)
        d.push_back(n / i);
    }
  llvm::sort(d);
  return d;
}

} // namespace

std::string loom::planner::whyWorse(const Plan &loser, const Plan &winner) {
  if (!loser.fits)
    return "memory: needs " + formatBytes(loser.memory.total()) +
           " per device, more than " + formatBytes(loser.memoryCapacity) +
           " allows";
  struct Term {
    const char *name;
    double delta;
  } terms[] = {
      {"compute", loser.time.compute - winner.time.compute},
      {"exposed communication",
       loser.time.exposedComm - winner.time.exposedComm},
      {"pipeline bubble", loser.time.bubble - winner.time.bubble},
  };
  const Term *worst = &terms[0];
  for (const Term &t : terms)
    if (t.delta > worst->delta)
      worst = &t;
  return std::string(worst->name) + " (+" + formatSeconds(worst->delta) + ")";
}

namespace {

double objectiveOf(const Plan &p, Objective o) {
  switch (o) {
  case Objective::Time:
    return p.time.total();
  case Objective::Energy:
    return p.energyJoules;
  case Objective::Cost:
    return p.cost;
  }
  return p.time.total();
}

/// Whether `a` is better than `b` for `objective`; ties go to the faster,
/// then the one on fewer devices, then the simpler plan.
bool better(const Plan &a, const Plan &b, Objective objective) {
  for (Objective o : {objective, Objective::Time}) {
    double ta = objectiveOf(a, o), tb = objectiveOf(b, o);
    if (std::fabs(ta - tb) > 1e-9 * std::max(ta, tb))
      return ta < tb;
  }
  auto rank = [](const Plan &p) {
    return std::make_tuple(p.devices(), p.pp, p.vpp, (int)p.recompute,
                           p.sequenceParallel, p.zero, p.microbatches, p.tp);
  };
  return rank(a) < rank(b);
}

/// The device counts a plan may use out of `devices`: the count itself,
/// then (leaving the rest idle) its divisors that are a part of one node or
/// whole nodes, largest first.
std::vector<int64_t> deviceCounts(int64_t devices, int64_t perNode) {
  std::vector<int64_t> counts;
  std::vector<int64_t> d = divisors(devices);
  for (auto it = d.rbegin(); it != d.rend(); ++it)
    if (*it <= perNode || *it % perNode == 0)
      counts.push_back(*it);
  return counts;
}

/// One search at a fixed device count.
struct Search {
  Model &model;
  const Cluster &cluster;
  const PlannerOptions &options;
  PlanPricer &pricer;
  PlanResult &result;
  std::optional<Plan> best;
  std::map<std::tuple<int64_t, int64_t, int64_t>, Plan> bestPerShape;
  std::optional<Plan> smallest; // the least memory, when nothing fits
  /// Whether some plan divided everything (fitting or not).
  bool anyShape = false;

  bool consider(Plan &plan, const Assignment &a) {
    if (!pricer.evaluate(plan, a, /*details=*/false))
      return false;
    anyShape = true;
    ++result.plansPriced;
    // Only plans that are kept are priced again with their details.
    if (!plan.fits) {
      if (!smallest || plan.memory.total() < smallest->memory.total()) {
        pricer.evaluate(plan, a, /*details=*/true);
        smallest = plan;
      }
      return true;
    }
    auto key = std::make_tuple(plan.dp, plan.tp, plan.pp);
    auto it = bestPerShape.find(key);
    bool shapeBest =
        it == bestPerShape.end() || better(plan, it->second, options.objective);
    bool overall = !best || better(plan, *best, options.objective);
    if (!shapeBest && !overall)
      return true;
    pricer.evaluate(plan, a, /*details=*/true);
    if (shapeBest)
      bestPerShape[key] = plan;
    if (overall)
      best = plan;
    return true;
  }

  void run(int64_t devices) {
    int segmentsWithWork = 0;
    for (const Segment &s : model.segments)
      segmentsWithWork += s.hasMatmul;
    bool train = options.train;
    // Pipelines run when the graph is one microbatch of the step (loomc
    // compiles the rest); --simulate prices any.
    bool runnable = options.simulate || options.graphMicrobatches;
    for (int64_t tp : divisors(devices)) {
      // Tensor-parallel groups stay inside a node.
      if (options.tp
              ? tp != *options.tp
              : tp > cluster.devicesPerNode || cluster.devicesPerNode % tp != 0)
        continue;
      const std::vector<Assignment> &cands = pricer.candidates(tp);
      for (int64_t pp : divisors(devices / tp)) {
        if (options.pp ? pp != *options.pp
                       : (pp > 1 && (!runnable || !train ||
                                     pp > std::max(1, segmentsWithWork))))
          continue;
        int64_t dp = devices / tp / pp;
        if ((options.dp && dp != *options.dp) || model.batch % dp)
          continue;
        for (int64_t mb : divisors(model.batch / dp)) {
          if (options.microbatches && mb != *options.microbatches)
            continue;
          if (options.graphMicrobatches && mb != *options.graphMicrobatches)
            continue;
          if (options.microbatchSize &&
              model.batch / dp / mb != *options.microbatchSize)
            continue;
          for (dist::Recompute rec :
               {dist::Recompute::Off, dist::Recompute::Full,
                dist::Recompute::Selective}) {
            if (options.recompute
                    ? rec != *options.recompute
                    : rec != dist::Recompute::Off && (!runnable || !train))
              continue;
            for (const Assignment &a : cands) {
              if (options.searchedOnly && tp > 1 && a.name != "searched")
                continue;
              shapes(dp, tp, pp, mb, rec, a, segmentsWithWork);
            }
          }
        }
      }
    }
  }

  /// Schedules, chunks, sequence parallelism and ZeRO stages of one shape.
  void shapes(int64_t dp, int64_t tp, int64_t pp, int64_t mb,
              dist::Recompute rec, const Assignment &a, int segmentsWithWork) {
    bool train = options.train;
    for (Schedule sched : {Schedule::OneFOneB, Schedule::GPipe,
                           Schedule::Interleaved, Schedule::ZeroBubble}) {
      if (pp == 1 && sched != Schedule::OneFOneB)
        continue;
      if (pp > 1 && options.schedule && sched != *options.schedule)
        continue;
      std::vector<int64_t> chunks{1};
      if (pp > 1 && sched == Schedule::Interleaved) {
        chunks.clear();
        for (int64_t v : {2, 3, 4, 6, 8})
          if (options.vpp ? v == *options.vpp
                          : v * pp <= std::max(1, segmentsWithWork))
            chunks.push_back(v);
      } else if (options.vpp && *options.vpp != 1) {
        continue;
      }
      for (int64_t v : chunks)
        for (int sp = 0; sp < 2; ++sp) {
          if (options.sequenceParallel ? (bool)sp != *options.sequenceParallel
                                       : sp && (tp == 1 || !options.simulate))
            continue;
          for (int64_t zero = 0; zero < 4; ++zero) {
            if (options.zero ? zero != *options.zero
                             : zero > 0 && (dp == 1 || !train))
              continue;
            Plan plan;
            plan.dp = dp;
            plan.tp = tp;
            plan.pp = pp;
            plan.vpp = v;
            plan.microbatches = mb;
            plan.zero = zero;
            plan.recompute = rec;
            plan.sequenceParallel = sp;
            plan.schedule = pp > 1 ? sched : Schedule::None;
            plan.simulated = options.simulate;
            consider(plan, a);
          }
        }
    }
  }
};

/// Why no plan matched the restrictions, with the numbers.
std::string whyNoShape(const Model &m, const PlannerOptions &o, int64_t devices,
                       int segmentsWithWork) {
  auto fixed = [](const std::optional<int64_t> &v) { return v.value_or(1); };
  int64_t product = fixed(o.dp) * fixed(o.tp) * fixed(o.pp);
  std::string fixedText;
  for (auto [name, v] :
       {std::pair<const char *, std::optional<int64_t>>{"dp", o.dp},
        {"tp", o.tp},
        {"pp", o.pp}})
    if (v)
      fixedText += (fixedText.empty() ? "" : " x ") + std::string(name) + "=" +
                   std::to_string(*v);
  if (o.dp && o.tp && o.pp && product != devices)
    return llvm::formatv("{0} is {1} devices, not the {2} planned for "
                         "(--devices, the cluster, or --mesh)",
                         fixedText, product, devices)
        .str();
  if (devices % product)
    return fixedText.find(" x ") == std::string::npos
               ? llvm::formatv("{0} does not divide the {1} devices", fixedText,
                               devices)
                     .str()
               : llvm::formatv("{0} = {1} does not divide the {2} devices",
                               fixedText, product, devices)
                     .str();
  if (o.dp && m.batch % *o.dp)
    return llvm::formatv("dp={0} does not divide the batch of {1}", *o.dp,
                         m.batch)
        .str();
  if (o.pp && *o.pp > std::max(1, segmentsWithWork))
    return llvm::formatv("pp={0}: the model has {1} layer(s) with a matrix "
                         "product to cut into stages",
                         *o.pp, segmentsWithWork)
        .str();
  if (o.pp && o.vpp && *o.pp * *o.vpp > std::max(1, segmentsWithWork))
    return llvm::formatv("pp={0} x vpp={1}: {2} model chunks, but the model "
                         "has {3} layer(s) with a matrix product",
                         *o.pp, *o.vpp, *o.pp * *o.vpp, segmentsWithWork)
        .str();
  if (o.sequenceParallel && *o.sequenceParallel && o.tp && *o.tp == 1)
    return "sequence parallelism splits over tp: it needs tp > 1";
  if (o.dp && m.batch % *o.dp == 0) {
    int64_t perRank = m.batch / *o.dp;
    if (o.microbatches && perRank % *o.microbatches)
      return llvm::formatv("microbatches={0} does not divide the {1} "
                           "sample(s) per data-parallel rank (batch {2} / "
                           "dp={3})",
                           *o.microbatches, perRank, m.batch, *o.dp)
          .str();
    if (o.microbatchSize && perRank % *o.microbatchSize)
      return llvm::formatv("microbatch-size={0} does not divide the {1} "
                           "sample(s) per data-parallel rank (batch {2} / "
                           "dp={3})",
                           *o.microbatchSize, perRank, m.batch, *o.dp)
          .str();
    if (o.microbatches && o.graphMicrobatches &&
        *o.microbatches != *o.graphMicrobatches)
      return llvm::formatv("microbatches={0}: the model's batch is one "
                           "microbatch of a step of --microbatches {1}",
                           *o.microbatches, *o.graphMicrobatches)
          .str();
    if (o.pp && o.schedule) {
      int64_t mb = o.microbatches ? *o.microbatches
                   : o.microbatchSize && perRank % *o.microbatchSize == 0
                       ? perRank / *o.microbatchSize
                       : 0;
      if (mb > 0) {
        std::string why =
            scheduleConstraint(*o.schedule, *o.pp, o.vpp.value_or(1), mb);
        if (!why.empty())
          return why;
      }
    }
  }
  if (o.vpp && *o.vpp > 1 && o.schedule && *o.schedule != Schedule::Interleaved)
    return "only the interleaved schedule runs several model chunks (vpp) "
           "per stage";
  if (!o.train && o.pp && *o.pp > 1)
    return "pipeline stages are planned for training only";
  return llvm::formatv("no plan shape divides the batch of {0} over {1} "
                       "device(s) under the given restrictions",
                       m.batch, devices)
      .str();
}
} // namespace

FailureOr<PlanResult> Planner::plan(const Cluster &cluster,
                                    const PlannerOptions &options,
                                    std::string &why) {
  auto start = std::chrono::steady_clock::now();
  Model &m = *model;
  m.batch = m.graphBatch * options.graphMicrobatches.value_or(1);
  bool mixed = options.precision == TrainingPrecision::Mixed;
  for (llvm::StringRef dtype : {"float32", mixed ? "bfloat16" : "float32"})
    if (cluster.device.peakTFLOPs.lookup(dtype) <= 0) {
      why = ("cluster '" + cluster.name + "' gives no " + dtype +
             " peak (device.peak_tflops." + dtype + ")" +
             (mixed ? ", which mixed precision is priced with" : ""))
                .str();
      return failure();
    }
  if (options.objective == Objective::Energy && cluster.device.powerW <= 0) {
    why = "--objective=energy: cluster '" + cluster.name +
          "' gives no device.power_w";
    return failure();
  }
  if (options.objective == Objective::Cost &&
      cluster.device.pricePerHour <= 0) {
    why = "--objective=cost: cluster '" + cluster.name +
          "' gives no device.price_per_hour";
    return failure();
  }
  int64_t devices = options.devices ? options.devices : cluster.numDevices();
  PlanPricer pricer(m, cluster, options, mixed);
  PlanResult result;
  result.devices = devices;
  result.parameters = m.numParameters;
  result.batch = m.batch;
  result.objective = options.objective;
  result.tokens = m.batch;
  for (const ValueInfo &v : m.values)
    if (v.kind == ValueInfo::Data && v.batchDim == 0) {
      auto type = cast<RankedTensorType>(v.value.getType());
      if (type.getRank() >= 2 && !type.getElementType().isa<FloatType>())
        result.tokens = double(m.batch) * type.getDimSize(1);
      break;
    }
  result.precision = mixed ? "mixed (bf16 compute, fp32 master)" : "fp32";
  int segmentsWithWork = 0;
  for (const Segment &s : m.segments)
    segmentsWithWork += s.hasMatmul;

  // The full count first; fewer devices (the rest idle) when the objective
  // is energy or cost, when the full count finds no plan, or when its plan
  // computes redundantly (a tp group with nothing split).
  bool fixedShape = options.dp || options.tp || options.pp;
  std::vector<int64_t> counts =
      fixedShape ? std::vector<int64_t>{devices}
                 : deviceCounts(devices, cluster.devicesPerNode);
  Search overall{m, cluster, options, pricer, result, {}, {}, {}, false};
  std::string firstWhy;
  for (auto [i, n] : llvm::enumerate(counts)) {
    if (i > 0 && overall.best && options.objective == Objective::Time) {
      const Plan &b = *overall.best;
      Assignment a{b.candidateName, b.assignment};
      if (b.tp == 1 || pricer.splitOps(b.tp, a).first > 0)
        break;
    }
    Search search{m, cluster, options, pricer, result, {}, {}, {}, false};
    search.run(n);
    if (i == 0 && !search.best && !search.anyShape)
      firstWhy = whyNoShape(m, options, n, segmentsWithWork);
    for (auto &[key, plan] : search.bestPerShape) {
      auto it = overall.bestPerShape.find(key);
      if (it == overall.bestPerShape.end() ||
          better(plan, it->second, options.objective))
        overall.bestPerShape[key] = plan;
    }
    if (search.best && (!overall.best ||
                        better(*search.best, *overall.best, options.objective)))
      overall.best = search.best;
    if (search.smallest &&
        (!overall.smallest ||
         search.smallest->memory.total() < overall.smallest->memory.total()))
      overall.smallest = search.smallest;
  }
  // A model that uses its devices poorly: recommend the fewest devices
  // that do nearly as well (such searches are small: poor use comes from
  // small models).
  if (overall.best && options.objective == Objective::Time &&
      counts.size() > 1 && overall.best->mfu < 0.1 &&
      overall.best->devices() == devices) {
    double target = overall.best->time.total() * 1.1;
    for (auto it = counts.rbegin(); it != counts.rend() && *it < devices;
         ++it) {
      Search fewer{m, cluster, options, pricer, result, {}, {}, {}, false};
      fewer.run(*it);
      if (fewer.best && fewer.best->time.total() <= target) {
        result.recommendedDevices = *it;
        result.recommendedSeconds = fewer.best->time.total();
        break;
      }
    }
  }
  result.assignmentsSearched = m.searched;
  result.assignmentsCached = m.cached;
  m.searched = m.cached = 0;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::optional<Plan> &best = overall.best;
  std::optional<Plan> &smallest = overall.smallest;
  if (!best) {
    if (smallest) {
      const MemoryUse &u = smallest->memory;
      why = llvm::formatv(
                "no plan fits in device memory: the smallest ({0}) needs {1} "
                "per device (parameters {2}, gradients {3}, optimizer state "
                "{4}, activations {5}, communication buffers {6}); a device "
                "of '{7}' has {8} ({9:P0} usable)",
                smallest->shape(), formatBytes(u.total()),
                formatBytes(u.parameters), formatBytes(u.gradients),
                formatBytes(u.optimizerState), formatBytes(u.activations),
                formatBytes(u.commBuffers), cluster.name,
                formatBytes(cluster.device.memoryGB * 1e9),
                options.memoryFraction)
                .str();
      if (options.returnUnfit) {
        result.best = *smallest;
        return result;
      }
    } else {
      why = firstWhy.empty() ? whyNoShape(m, options, devices, segmentsWithWork)
                             : firstWhy;
    }
    return failure();
  }
  result.best = *best;
  std::vector<Plan> others;
  for (auto &[key, plan] : overall.bestPerShape)
    if (key != std::make_tuple(best->dp, best->tp, best->pp))
      others.push_back(plan);
  llvm::sort(others, [&](const Plan &a, const Plan &b) {
    return better(a, b, options.objective);
  });
  for (Plan &p : others) {
    if ((int)result.rejected.size() >= options.keepRejected)
      break;
    p.lostOn = whyWorse(p, *best);
    result.rejected.push_back(p);
  }
  if ((int)result.rejected.size() < options.keepRejected && smallest) {
    smallest->lostOn = whyWorse(*smallest, *best);
    result.rejected.push_back(*smallest);
  }
  return result;
}

void Planner::annotate(const Plan &plan) {
  if (plan.tp == 1)
    return;
  Model &m = *model;
  MLIRContext *ctx = m.fn.getContext();
  ctx->getOrLoadDialect<dist::DistDialect>();
  auto meshRef = FlatSymbolRefAttr::get(ctx, "mesh");
  auto tp = StringAttr::get(ctx, "tp");
  Assignment a{plan.candidateName, plan.assignment};
  auto empty = dist::DimShardingAttr::get(ctx, {}, false);
  auto split = dist::DimShardingAttr::get(ctx, {tp}, false);
  for (auto [op, dim] : m.weightDims(plan.tp, a)) {
    SmallVector<dist::DimShardingAttr> dims{empty, empty};
    dims[dim] = split;
    dist::setRecordedSharding(
        op->getOperand(1), dist::ShardingAttr::get(ctx, meshRef, dims, {},
                                                   loom::ReductionKind::Sum));
  }
}

void Planner::markStages(const Plan &plan) {
  Model &m = *model;
  MLIRContext *ctx = m.fn.getContext();
  ctx->getOrLoadDialect<dist::DistDialect>();
  Builder b(ctx);
  // Interleaved plans mark virtual stages (model order), as
  // -dist-assign-stages counts them.
  int64_t parts = plan.pp * plan.vpp;
  for (const Node &node : m.nodes) {
    int64_t stage = 0;
    while (stage + 1 < parts && plan.stageBounds[stage + 1] <= node.segment)
      ++stage;
    if (plan.pp > 1)
      node.op->setAttr(dist::kStageAttrName, b.getI64IntegerAttr(stage));
  }
  auto module = m.fn->getParentOfType<ModuleOp>();
  if (module)
    module->setAttr(
        dist::kPlanAttrName,
        dist::PlanAttr::get(
            ctx, plan.dp, plan.tp, plan.pp, plan.microbatches, plan.zero,
            b.getBoolAttr(plan.recompute != dist::Recompute::Off),
            scheduleName(plan.schedule), APFloat(plan.time.total())));
}
