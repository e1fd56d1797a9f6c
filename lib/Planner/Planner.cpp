//===- Planner.cpp - The joint search over parallel plans -----------------===//

#include "Model.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Passes/Dist/Megatron.h"
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

std::string Plan::shape() const {
  std::string s = llvm::formatv("dp={0} tp={1} pp={2}", dp, tp, pp).str();
  s += llvm::formatv(" mb={0} b={1} zero={2} recompute={3}", microbatches,
                     microbatchSize, zero, recompute ? "full" : "off")
           .str();
  if (schedule != Schedule::None)
    s += schedule == Schedule::GPipe ? " gpipe" : " 1f1b";
  if (tp > 1)
    s += " tp-ops=" + candidateName;
  return s;
}

std::string loom::planner::formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return llvm::formatv(u == 0 ? "{0:F0} {1}" : "{0:F1} {1}", bytes, units[u])
      .str();
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

/// The links of dp and pp groups: tp innermost, then dp, then pp (the
/// order Megatron lays ranks out), laid onto the cluster like --mesh.
struct Links {
  LinkSpec dp, pp;
};

Links linksFor(const Cluster &cluster, int64_t pp, int64_t dp, int64_t tp) {
  Cluster any = cluster;
  any.strictDeviceCount = false; // the device count is the planner's
  // A well-formed spec of positive sizes always lays out.
  std::vector<MeshAxisSpec> axes = llvm::cantFail(
      layMesh(llvm::formatv("pp={0},dp={1},tp={2}", pp, dp, tp).str(), any));
  return {axes[1].link, axes[0].link};
}

/// Splits `times` into `parts` contiguous runs minimising the largest sum;
/// returns the start of each run and the end.
std::vector<int> partition(const std::vector<double> &times, int parts) {
  int n = times.size();
  double lo = 0, hi = 0;
  for (double t : times) {
    lo = std::max(lo, t);
    hi += t;
  }
  auto pack = [&](double limit, std::vector<int> *bounds) {
    int used = 1;
    double sum = 0;
    if (bounds)
      bounds->assign(1, 0);
    for (int i = 0; i < n; ++i) {
      int remainingStages = parts - used;
      int remainingItems = n - i;
      bool mustCut = bounds && remainingItems <= remainingStages && i > 0 &&
                     (bounds->back() != i);
      if ((sum + times[i] > limit && i > 0 && sum > 0) || mustCut) {
        ++used;
        sum = 0;
        if (bounds)
          bounds->push_back(i);
      }
      sum += times[i];
    }
    if (bounds)
      bounds->push_back(n);
    return used;
  };
  for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; ++it) {
    double mid = (lo + hi) / 2;
    if (pack(mid, nullptr) <= parts)
      hi = mid;
    else
      lo = mid;
  }
  std::vector<int> bounds;
  pack(hi, &bounds);
  // Fewer runs than stages: split the longest runs.
  while ((int)bounds.size() - 1 < parts) {
    int best = -1;
    for (size_t r = 0; r + 1 < bounds.size(); ++r)
      if (bounds[r + 1] - bounds[r] >= 2 &&
          (best < 0 ||
           bounds[r + 1] - bounds[r] > bounds[best + 1] - bounds[best]))
        best = r;
    if (best < 0)
      break;
    bounds.insert(bounds.begin() + best + 1,
                  (bounds[best] + bounds[best + 1]) / 2);
  }
  return bounds;
}

struct Search {
  Model &model;
  const Cluster &cluster;
  const PlannerOptions &options;
  int64_t devices;
  bool mixed;
  std::map<std::string, std::vector<SegmentCost>> segmentCache;
  std::map<std::string, std::vector<int>> partitionCache;

  Pricing pricing(int64_t tp, double microbatch) const {
    Pricing p;
    p.cluster = &cluster;
    p.tp = tp;
    p.tpLink =
        tp <= cluster.devicesPerNode ? cluster.intraNode : cluster.interNode;
    p.mixed = mixed;
    p.train = options.train;
    p.microbatch = microbatch;
    p.graphBatch = model.graphBatch;
    return p;
  }

  /// The assignment candidates of `tp`, priced at a batch independent of
  /// the device count so they are shared by every plan.
  const std::vector<Assignment> &candidates(int64_t tp) {
    double ref = std::max<double>(1, model.batch / 64);
    return model.candidates(pricing(tp, ref), options.megatronOnly,
                            options.cacheDir);
  }

  const std::vector<SegmentCost> &costs(int64_t tp, const Assignment &a,
                                        double microbatch) {
    std::string key =
        llvm::formatv("{0}/{1}/{2}", tp, a.name, microbatch).str();
    auto it = segmentCache.find(key);
    if (it != segmentCache.end())
      return it->second;
    return segmentCache[key] = model.segmentCosts(pricing(tp, microbatch), a);
  }

  const std::vector<int> &stages(int64_t tp, const Assignment &a, int64_t pp,
                                 bool recompute) {
    std::string key =
        llvm::formatv("{0}/{1}/{2}/{3}", tp, a.name, pp, recompute).str();
    auto it = partitionCache.find(key);
    if (it != partitionCache.end())
      return it->second;
    double ref = std::max<double>(1, model.batch / 64);
    const std::vector<SegmentCost> &c = costs(tp, a, ref);
    std::vector<double> times;
    for (const SegmentCost &s : c)
      times.push_back(s.forward + s.backward + s.tpForward + s.tpBackward +
                      (recompute ? s.forward + s.tpForward : 0));
    return partitionCache[key] = partition(times, pp);
  }

  /// Prices `plan` (its shape fields set). Returns false when impossible.
  bool evaluate(Plan &plan, const Assignment &a) {
    int64_t dp = plan.dp, tp = plan.tp, pp = plan.pp, m = plan.microbatches;
    if (model.batch % dp || (model.batch / dp) % m)
      return false;
    plan.microbatchSize = model.batch / dp / m;
    double b = plan.microbatchSize;
    const std::vector<SegmentCost> &c = costs(tp, a, b);
    if ((int64_t)c.size() < pp)
      return false;
    const std::vector<int> &bounds = stages(tp, a, pp, plan.recompute);
    if ((int64_t)bounds.size() != pp + 1)
      return false;
    Links links = linksFor(cluster, pp, dp, tp);
    bool train = options.train;
    double paramBytes = mixed ? 2 : 4;
    double membw = cluster.device.memoryBandwidthGBps * 1e9;
    double bucket = 25.0 * 1024 * 1024;
    plan.candidateName = a.name;
    plan.assignment = a.choice;
    plan.stageBounds = bounds;
    plan.stageTimes.assign(pp, {});

    struct StageFigures {
      double compute = 0, exposed = 0, perMicrobatch = 0;
      double tail = 0, tailDp = 0, optimizer = 0;
      MemoryUse memory;
      std::map<std::string, CommVolume> comm;
    };
    std::vector<StageFigures> figures(pp);
    double modelFlops = 0;
    for (const SegmentCost &s : c)
      modelFlops += s.forwardFlops;
    modelFlops *= (model.batch / b) * (train ? 3 : 1);
    plan.modelFlopsPerStep = modelFlops;

    for (int64_t s = 0; s < pp; ++s) {
      StageFigures &f = figures[s];
      double layerPeak = 0;
      double fwd = 0, bwd = 0, tpf = 0, tpb = 0, params = 0, saved = 0,
             inputs = 0, peak = 0, boundary = 0, maxSegParams = 0;
      for (int k = bounds[s]; k < bounds[s + 1]; ++k) {
        const SegmentCost &sc = c[k];
        fwd += sc.forward;
        bwd += sc.backward;
        tpf += sc.tpForward;
        tpb += sc.tpBackward;
        params += sc.parameters;
        saved += sc.savedActivations;
        // Recomputation keeps the input of each layer (the segments of one
        // numbered layer, e.g. a transformer block, are recomputed
        // together) and needs one layer's activations back at a time.
        // Segments outside numbered layers (embeddings, the head) join the
        // layer after them.
        const Segment &seg = model.segments[k];
        bool sameLayer = false;
        if (k > bounds[s]) {
          const Segment &prev = model.segments[k - 1];
          sameLayer =
              prev.groupIndex < 0 ||
              (seg.group == prev.group && seg.groupIndex == prev.groupIndex);
        }
        if (!sameLayer) {
          inputs += sc.inputBytes;
          layerPeak = 0;
        }
        layerPeak += sc.peakActivations;
        peak = std::max(peak, layerPeak);
        maxSegParams = std::max(maxSegParams, sc.parameters);
        boundary = sc.boundaryBytes;
        for (const auto &[kind, v] : sc.comm) {
          CommVolume &cv = f.comm[kind + " (tp)"];
          cv.bytes += v.bytes * m;
          cv.seconds += v.seconds * m;
          cv.calls += v.calls * m;
        }
      }
      // Recomputation runs the forward again, with its tp collectives.
      double rec = plan.recompute ? fwd : 0;
      double recTp = plan.recompute ? tpf : 0;
      double p2p = 0;
      if (pp > 1) {
        double t = boundary / (links.pp.bandwidthGBps * 1e9) +
                   links.pp.latencyUs * 1e-6;
        p2p = train ? 2 * t : t;
        CommVolume &cv = f.comm["send_recv (pp)"];
        cv.bytes += boundary * m * (train ? 2 : 1);
        cv.seconds += p2p * m;
        cv.calls += m * (train ? 2 : 1);
      }
      Plan::StageTimes &st = plan.stageTimes[s];
      st.forward = fwd;
      st.backward = train ? bwd + rec : 0;
      st.tpForward = tpf;
      st.tpBackward = train ? tpb + recTp : 0;
      st.p2p = p2p;
      f.compute = st.forward + st.backward;
      f.exposed = st.tpForward + st.tpBackward + st.p2p;
      f.perMicrobatch = f.compute + f.exposed;

      // Memory.
      if (train) {
        TrainingMemory tm = trainingMemoryPerDevice(
            params, dp, plan.zero,
            mixed ? TrainingPrecision::Mixed : TrainingPrecision::FP32,
            options.optimizer);
        f.memory.parameters = tm.parameters;
        f.memory.gradients = tm.gradients;
        f.memory.optimizerState = tm.optimizerState;
      } else {
        f.memory.parameters = params * paramBytes;
      }
      double inflight = 1;
      if (train && pp > 1)
        inflight =
            plan.schedule == Schedule::GPipe ? m : std::min<double>(m, pp - s);
      double kept = plan.recompute ? inputs : saved;
      f.memory.activations = inflight * kept + peak;
      double buffers = 0;
      if (tp > 1)
        buffers += 2 * boundary;
      if (train && dp > 1) {
        buffers += 2 * std::min(bucket, params * paramBytes);
        if (plan.zero == 3)
          buffers += 2 * maxSegParams * paramBytes;
      }
      f.memory.commBuffers = buffers;

      // Data-parallel synchronisation and the optimizer.
      if (train && dp > 1) {
        double grads = params * paramBytes;
        auto time = [&](CollectiveKind kind, double bytes) {
          return bestCollectiveTime(kind, dp, bytes, links.dp).seconds();
        };
        auto record = [&](CollectiveKind kind, double bytes, double t,
                          int64_t calls) {
          CommVolume &cv = f.comm[std::string(collectiveName(kind)) + " (dp)"];
          cv.bytes += bytes;
          cv.seconds += t;
          cv.calls += calls;
        };
        CollectiveKind sync = plan.zero >= 2 ? CollectiveKind::ReduceScatter
                                             : CollectiveKind::AllReduce;
        double tSync = time(sync, grads);
        double lastBucket = time(sync, std::min(bucket, grads));
        int64_t calls = std::max<int64_t>(1, std::ceil(grads / bucket));
        record(sync, grads, tSync, calls);
        // GPU collectives run on their own stream beside the backward
        // pass; the CPU runtime's MPI calls block.
        bool overlap = cluster.device.kind == "gpu";
        double hidden = overlap ? bwd + rec : 0;
        double exposedDp = std::max(tSync - hidden, lastBucket);
        if (plan.zero == 3) {
          double g = time(CollectiveKind::AllGather, grads);
          double first =
              time(CollectiveKind::AllGather, maxSegParams * paramBytes);
          exposedDp +=
              overlap ? m * (std::max(0.0, g - fwd) + std::max(0.0, g - bwd)) +
                            first
                      : 2 * m * g;
          record(CollectiveKind::AllGather, 2 * m * grads, 2 * m * g,
                 2 * m * calls);
        } else if (plan.zero >= 1) {
          double g = time(CollectiveKind::AllGather, grads);
          exposedDp += g;
          plan.stageTimes[s].dpGather = g;
          record(CollectiveKind::AllGather, grads, g, calls);
        }
        f.tailDp = exposedDp;
        plan.stageTimes[s].dpSync = tSync;
        plan.stageTimes[s].dpExposed = exposedDp;
        if (plan.zero == 3)
          plan.stageTimes[s].dpGather = time(CollectiveKind::AllGather, grads);
      }
      if (train) {
        double perParam =
            options.optimizer == OptimizerKind::Adam
                ? (mixed ? 32 : 28)
                : (options.optimizer == OptimizerKind::SGD ? 12 : 20);
        f.optimizer = params / (plan.zero >= 1 ? dp : 1) * perParam / membw;
        plan.stageTimes[s].optimizer = f.optimizer;
      }
      f.tail = f.tailDp + f.optimizer;
    }

    int slow = 0, tailStage = 0, fullest = 0;
    for (int64_t s = 0; s < pp; ++s) {
      if (figures[s].perMicrobatch > figures[slow].perMicrobatch)
        slow = s;
      if (figures[s].tail > figures[tailStage].tail)
        tailStage = s;
      if (figures[s].memory.total() > figures[fullest].memory.total())
        fullest = s;
    }
    const StageFigures &sf = figures[slow];
    const StageFigures &tf = figures[tailStage];
    plan.time.compute = m * sf.compute + tf.optimizer;
    plan.time.exposedComm = m * sf.exposed + tf.tailDp;
    plan.time.bubble = (pp - 1) * sf.perMicrobatch;
    plan.memory = figures[fullest].memory;
    plan.stageMemory.clear();
    for (const StageFigures &f : figures)
      plan.stageMemory.push_back(f.memory);
    plan.memoryCapacity = cluster.device.memoryGB * 1e9;
    plan.fits =
        plan.memory.total() <= plan.memoryCapacity * options.memoryFraction;
    double peak = pricing(tp, b).matmulPeak();
    double total = plan.time.total();
    plan.mfu =
        peak > 0 && total > 0 ? modelFlops / (total * devices * peak) : 0;
    plan.comm.clear();
    for (auto &[kind, v] : figures[fullest].comm)
      plan.comm.push_back({kind, v});
    // Layer groups.
    plan.groups.clear();
    int64_t lastIndex = -2;
    for (int64_t s = 0; s < pp; ++s)
      for (int k = bounds[s]; k < bounds[s + 1]; ++k) {
        const Segment &seg = model.segments[k];
        if (plan.groups.empty() || plan.groups.back().name != seg.group) {
          GroupSummary g;
          g.name = seg.group;
          g.stageBegin = s;
          plan.groups.push_back(g);
          lastIndex = -2;
        }
        GroupSummary &g = plan.groups.back();
        g.stageEnd = s;
        g.parameters += seg.parameters;
        g.forwardSeconds += c[k].forward + c[k].tpForward;
        if (seg.groupIndex != lastIndex || seg.groupIndex < 0)
          ++g.layers;
        lastIndex = seg.groupIndex;
      }
    return true;
  }
};

/// Why `loser` is slower than `winner`: its largest excess term.
std::string lostOn(const Plan &loser, const Plan &winner) {
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

bool better(const Plan &a, const Plan &b) {
  double ta = a.time.total(), tb = b.time.total();
  if (std::fabs(ta - tb) > 1e-9 * std::max(ta, tb))
    return ta < tb;
  // Ties: the simpler plan.
  auto rank = [](const Plan &p) {
    return std::make_tuple(p.pp, p.recompute, p.zero, p.microbatches, p.tp);
  };
  return rank(a) < rank(b);
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
  int64_t devices = options.devices ? options.devices : cluster.numDevices();
  Search search{m, cluster, options, devices, mixed, {}, {}};
  PlanResult result;
  result.devices = devices;
  result.parameters = m.numParameters;
  result.batch = m.batch;
  result.precision =
      search.mixed ? "mixed (bf16 compute, fp32 master)" : "fp32";
  std::optional<Plan> best;
  std::map<std::tuple<int64_t, int64_t, int64_t>, Plan> bestPerShape;
  std::optional<Plan> smallest; // the least memory, when nothing fits
  int segmentsWithWork = 0;
  for (const Segment &s : m.segments)
    segmentsWithWork += s.hasMatmul;

  for (int64_t tp : divisors(devices)) {
    // Tensor-parallel groups stay inside a node.
    if (options.tp
            ? tp != *options.tp
            : tp > cluster.devicesPerNode || cluster.devicesPerNode % tp != 0)
      continue;
    const std::vector<Assignment> &cands = search.candidates(tp);
    for (int64_t pp : divisors(devices / tp)) {
      // Pipelines run when the graph is one microbatch of the step (loomc
      // compiles the rest); --simulate prices any.
      bool runnable = options.simulate || options.graphMicrobatches;
      if (options.pp
              ? pp != *options.pp
              : (pp > 1 && (!runnable || pp > std::max(1, segmentsWithWork))))
        continue;
      int64_t dp = devices / tp / pp;
      if (options.dp && dp != *options.dp)
        continue;
      if (m.batch % dp)
        continue;
      for (int64_t mb : divisors(m.batch / dp)) {
        if (options.microbatches && mb != *options.microbatches)
          continue;
        if (options.graphMicrobatches && mb != *options.graphMicrobatches)
          continue;
        for (int recompute = 0; recompute < 2; ++recompute) {
          if (options.recompute ? (bool)recompute != *options.recompute
                                : recompute && (!runnable || !options.train))
            continue;
          for (const Assignment &a : cands) {
            for (Schedule sched : {Schedule::OneFOneB, Schedule::GPipe}) {
              if (pp == 1 && sched == Schedule::GPipe)
                continue;
              if (pp > 1 && options.schedule && sched != *options.schedule)
                continue;
              for (int64_t zero = 0; zero < 4; ++zero) {
                if (options.zero ? zero != *options.zero
                                 : zero > 0 && (dp == 1 || !options.train))
                  continue;
                Plan plan;
                plan.dp = dp;
                plan.tp = tp;
                plan.pp = pp;
                plan.microbatches = mb;
                plan.zero = zero;
                plan.recompute = recompute;
                plan.schedule = pp > 1 ? sched : Schedule::None;
                plan.simulated = options.simulate;
                if (!search.evaluate(plan, a))
                  continue;
                ++result.plansPriced;
                if (!plan.fits) {
                  if (!smallest ||
                      plan.memory.total() < smallest->memory.total())
                    smallest = plan;
                  continue;
                }
                auto key = std::make_tuple(dp, tp, pp);
                auto it = bestPerShape.find(key);
                if (it == bestPerShape.end() || better(plan, it->second))
                  bestPerShape[key] = plan;
                if (!best || better(plan, *best))
                  best = plan;
              }
            }
          }
        }
      }
    }
  }
  result.assignmentsSearched = m.searched;
  result.assignmentsCached = m.cached;
  m.searched = m.cached = 0;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!best) {
    if (smallest)
      why = llvm::formatv("no plan fits in device memory: the smallest ({0}) "
                          "needs {1} per device; a device of '{2}' has {3} "
                          "({4:P0} usable)",
                          smallest->shape(),
                          formatBytes(smallest->memory.total()), cluster.name,
                          formatBytes(cluster.device.memoryGB * 1e9),
                          options.memoryFraction)
                .str();
    else
      why = llvm::formatv("no plan shape divides the batch of {0} over {1} "
                          "device(s) under the given restrictions",
                          m.batch, devices)
                .str();
    return failure();
  }
  result.best = *best;
  std::vector<Plan> others;
  for (auto &[key, plan] : bestPerShape)
    if (key != std::make_tuple(best->dp, best->tp, best->pp))
      others.push_back(plan);
  llvm::sort(others, better);
  for (Plan &p : others) {
    if ((int)result.rejected.size() >= options.keepRejected)
      break;
    p.lostOn = lostOn(p, *best);
    result.rejected.push_back(p);
  }
  if ((int)result.rejected.size() < options.keepRejected && smallest) {
    smallest->lostOn = lostOn(*smallest, *best);
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
  for (const Node &node : m.nodes) {
    int64_t stage = 0;
    while (stage + 1 < plan.pp && plan.stageBounds[stage + 1] <= node.segment)
      ++stage;
    if (plan.pp > 1)
      node.op->setAttr(dist::kStageAttrName, b.getI64IntegerAttr(stage));
  }
  auto module = m.fn->getParentOfType<ModuleOp>();
  StringRef schedule = plan.schedule == Schedule::GPipe      ? "gpipe"
                       : plan.schedule == Schedule::OneFOneB ? "1f1b"
                                                             : "none";
  if (module)
    module->setAttr(dist::kPlanAttrName,
                    dist::PlanAttr::get(ctx, plan.dp, plan.tp, plan.pp,
                                        plan.microbatches, plan.zero,
                                        b.getBoolAttr(plan.recompute), schedule,
                                        APFloat(plan.time.total())));
}
