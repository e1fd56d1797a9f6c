//===- Price.cpp - Pricing one plan ---------------------------------------===//

#include "Price.h"
#include "loom/Planner/PipelineModel.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::planner;

namespace {
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

/// Compute seconds a segment's recomputation adds to its backward pass
/// (full recomputation also repeats the forward's tp collectives).
double recomputeSeconds(const SegmentCost &s, dist::Recompute r) {
  switch (r) {
  case dist::Recompute::Off:
    return 0;
  case dist::Recompute::Full:
    return s.forward;
  case dist::Recompute::Selective:
    return s.selectiveRecompute;
  }
  return 0;
}
} // namespace

Pricing PlanPricer::pricing(int64_t tp, double microbatch, bool sp) const {
  Pricing p;
  p.cluster = &cluster;
  p.tp = tp;
  p.tpLink =
      tp <= cluster.devicesPerNode ? cluster.intraNode : cluster.interNode;
  p.mixed = mixed;
  p.train = options.train;
  p.microbatch = microbatch;
  p.graphBatch = model.graphBatch;
  p.sequenceParallel = sp;
  p.fusedAttention = options.fusedAttention;
  return p;
}

const std::vector<Assignment> &PlanPricer::candidates(int64_t tp) {
  double ref = std::max<double>(1, model.batch / 64);
  return model.candidates(pricing(tp, ref, false), options.megatronOnly,
                          options.cacheDir);
}

std::pair<int64_t, int64_t> PlanPricer::splitOps(int64_t tp,
                                                 const Assignment &a) {
  Key key{tp, a.name, 0, false, 0, 0, 0};
  auto it = splitCache.find(key);
  if (it != splitCache.end())
    return it->second;
  int64_t split = 0, batched = 0;
  const auto &all = model.strategies(tp);
  for (size_t i = 0; i < model.nodes.size() && i < a.choice.size(); ++i) {
    if (!model.nodes[i].batchDependent)
      continue;
    ++batched;
    split += all[i][a.choice[i]].factor >= 0;
  }
  return splitCache[key] = {split, batched};
}

const std::vector<SegmentCost> &
PlanPricer::costs(int64_t tp, const Assignment &a, double microbatch, bool sp) {
  Key key{tp, a.name, microbatch, sp, 0, 0, 0};
  auto it = segmentCache.find(key);
  if (it != segmentCache.end())
    return it->second;
  return segmentCache[key] = model.segmentCosts(pricing(tp, microbatch, sp), a);
}

const std::vector<int> &PlanPricer::stages(int64_t tp, const Assignment &a,
                                           int64_t parts,
                                           dist::Recompute recompute, bool sp) {
  Key key{tp, a.name, 0, sp, parts, 0, (int)recompute};
  auto it = partitionCache.find(key);
  if (it != partitionCache.end())
    return it->second;
  double ref = std::max<double>(1, model.batch / 64);
  const std::vector<SegmentCost> &c = costs(tp, a, ref, sp);
  std::vector<double> times;
  for (const SegmentCost &s : c)
    times.push_back(s.forward + s.backward + s.tpForward + s.tpBackward +
                    recomputeSeconds(s, recompute) +
                    (recompute == dist::Recompute::Full ? s.tpForward : 0));
  return partitionCache[key] = partition(times, parts);
}

const std::vector<StageSums> &PlanPricer::stageSums(int64_t tp,
                                                    const Assignment &a,
                                                    double microbatch, bool sp,
                                                    int64_t pp, int64_t v,
                                                    dist::Recompute recompute) {
  Key key{tp, a.name, microbatch, sp, pp, v, (int)recompute};
  auto it = sumCache.find(key);
  if (it != sumCache.end())
    return it->second;
  const std::vector<SegmentCost> &c = costs(tp, a, microbatch, sp);
  int64_t parts = pp * v;
  const std::vector<int> &bounds = stages(tp, a, parts, recompute, sp);
  std::vector<StageSums> sums(pp);
  for (int64_t s = 0; s < pp; ++s) {
    StageSums &sum = sums[s];
    double saved = 0, inputs = 0, selective = 0;
    for (int64_t chunk = 0; chunk < v; ++chunk) {
      int64_t vs = chunk * pp + s;
      double layerPeak = 0, boundary = 0;
      if (pp > 1 && vs > 0)
        sum.sendsBackward.push_back(c[bounds[vs] - 1].boundaryBytes);
      for (int k = bounds[vs]; k < bounds[vs + 1]; ++k) {
        const SegmentCost &sc = c[k];
        sum.forward += sc.forward;
        sum.backward += sc.backward;
        sum.tpForward += sc.tpForward;
        sum.tpBackward += sc.tpBackward;
        sum.parameters += sc.parameters;
        saved += sc.savedActivations;
        selective += sc.selectiveKept;
        sum.weightGrad += sc.weightGrad;
        sum.weightGradBytes += sc.weightGradBytes;
        sum.recompute += recomputeSeconds(sc, recompute);
        sum.recomputeTp +=
            recompute == dist::Recompute::Full ? sc.tpForward : 0;
        // Full recomputation keeps the input of each layer (the segments
        // of one numbered layer, e.g. a transformer block, are recomputed
        // together) and needs one layer's activations back at a time.
        // Segments outside numbered layers (embeddings, the head) join the
        // layer after them.
        const Segment &seg = model.segments[k];
        bool sameLayer = false;
        if (k > bounds[vs]) {
          const Segment &prev = model.segments[k - 1];
          sameLayer =
              prev.groupIndex < 0 ||
              (seg.group == prev.group && seg.groupIndex == prev.groupIndex);
        }
        if (!sameLayer) {
          inputs += sc.inputBytes;
          layerPeak = 0;
        }
        // Full recomputation brings a layer's activations back at once.
        layerPeak += sc.layerWorkingSet;
        sum.peak = std::max(sum.peak, sc.peakActivations);
        if (recompute == dist::Recompute::Full)
          sum.peak = std::max(sum.peak, layerPeak);
        sum.maxSegmentParameters =
            std::max(sum.maxSegmentParameters, sc.parameters);
        boundary = sc.boundaryBytes;
        for (const auto &[kind, cv] : sc.comm) {
          CommVolume &total = sum.comm[kind + " (tp)"];
          total.bytes += cv.bytes;
          total.seconds += cv.seconds;
          total.calls += cv.calls;
        }
      }
      if (pp > 1 && vs + 1 < parts)
        sum.sendsForward.push_back(boundary);
      sum.maxBoundary = std::max(sum.maxBoundary, boundary);
    }
    sum.kept = recompute == dist::Recompute::Full        ? inputs
               : recompute == dist::Recompute::Selective ? selective
                                                         : saved;
  }
  return sumCache[key] = std::move(sums);
}

bool PlanPricer::evaluate(Plan &plan, const Assignment &a, bool details) {
  int64_t dp = plan.dp, tp = plan.tp, pp = plan.pp, m = plan.microbatches;
  int64_t v = plan.vpp;
  if (model.batch % dp || (model.batch / dp) % m)
    return false;
  if (pp > 1 && !scheduleConstraint(plan.schedule, pp, v, m).empty())
    return false;
  // Sequence parallelism splits what lies between tensor-parallel regions:
  // without any, there is nothing to split around.
  if (plan.sequenceParallel && (tp == 1 || splitOps(tp, a).first == 0))
    return false;
  plan.microbatchSize = model.batch / dp / m;
  double b = plan.microbatchSize;
  bool sp = plan.sequenceParallel;
  const std::vector<SegmentCost> &c = costs(tp, a, b, sp);
  int64_t parts = pp * v;
  if ((int64_t)c.size() < parts)
    return false;
  const std::vector<int> &bounds = stages(tp, a, parts, plan.recompute, sp);
  if ((int64_t)bounds.size() != parts + 1)
    return false;
  auto link = linkCache.find({pp, dp, tp});
  if (link == linkCache.end()) {
    Links l = linksFor(cluster, pp, dp, tp);
    link = linkCache.insert({{pp, dp, tp}, {l.dp, l.pp}}).first;
  }
  Links links{link->second.first, link->second.second};
  bool train = options.train;
  double paramBytes = mixed ? 2 : 4;
  double membw = cluster.device.memoryBandwidthGBps * 1e9;
  double bucket = 25.0 * 1024 * 1024;
  plan.candidateName = a.name;
  if (details) {
    plan.assignment = a.choice;
    plan.stageBounds = bounds;
  }
  plan.stageTimes.assign(pp, {});

  struct StageFigures {
    StageWork work;     // per microbatch, communication included
    double compute = 0; // of work: compute only
    double tailDp = 0, optimizer = 0;
    MemoryUse memory;
    std::map<std::string, CommVolume> comm;
  };
  std::vector<StageFigures> figures(pp);
  double modelFlops = 0;
  for (const SegmentCost &s : c)
    modelFlops += s.forwardFlops;
  modelFlops *= (model.batch / b) * (train ? 3 : 1);
  plan.modelFlopsPerStep = modelFlops;
  const std::vector<StageSums> &allSums =
      stageSums(tp, a, b, sp, pp, v, plan.recompute);

  for (int64_t s = 0; s < pp; ++s) {
    StageFigures &f = figures[s];
    const StageSums &sum = allSums[s];
    double fwd = sum.forward, bwd = sum.backward, tpf = sum.tpForward,
           tpb = sum.tpBackward, params = sum.parameters, rec = sum.recompute,
           recTp = sum.recomputeTp, wgrad = sum.weightGrad, peak = sum.peak,
           maxSegParams = sum.maxSegmentParameters, p2p = 0;
    if (details)
      for (const auto &[kind, cv] : sum.comm) {
        CommVolume &total = f.comm[kind];
        total.bytes = cv.bytes * m;
        total.seconds = cv.seconds * m;
        total.calls = cv.calls * m;
      }
    // Each chunk sends its activations on and, in training, the gradient
    // of its input back; receives wait for the neighbour's send.
    double sendForward = 0, sendBackward = 0;
    auto send = [&](double bytes, double &time) {
      double t =
          bytes / (links.pp.bandwidthGBps * 1e9) + links.pp.latencyUs * 1e-6;
      time += t;
      if (!details)
        return;
      CommVolume &cv = f.comm["send_recv (pp)"];
      cv.bytes += bytes * m;
      cv.seconds += t * m;
      cv.calls += m;
    };
    for (double bytes : sum.sendsForward)
      send(bytes, sendForward);
    if (train)
      for (double bytes : sum.sendsBackward)
        send(bytes, sendBackward);
    p2p = sendForward + sendBackward;
    double maxBoundary = sum.maxBoundary;
    double wgradBytes = sum.weightGradBytes;
    Plan::StageTimes &st = plan.stageTimes[s];
    st.forward = fwd;
    st.backward = train ? bwd + rec : 0;
    st.weightGrad = train ? wgrad : 0;
    st.tpForward = tpf;
    st.tpBackward = train ? tpb + recTp : 0;
    st.p2p = p2p;
    st.p2pBackward = sendBackward;
    f.work.forward = st.forward + st.tpForward + sendForward;
    f.work.backward = st.backward + st.tpBackward + sendBackward;
    f.work.weightGrad = st.weightGrad;
    f.compute = st.forward + st.backward;

    // Memory.
    if (train) {
      TrainingMemory tm = trainingMemoryPerDevice(
          params, dp, plan.zero,
          mixed ? TrainingPrecision::Mixed : TrainingPrecision::FP32,
          options.optimizer);
      f.memory.parameters = tm.parameters;
      f.memory.gradients = tm.gradients;
      f.memory.optimizerState = tm.optimizerState;
      if (!options.simulate)
        f.memory.updatedState = tm.parameters + tm.optimizerState;
    } else {
      f.memory.parameters = params * paramBytes;
    }
    double kept = sum.kept;
    if (train) {
      Schedule sched = pp > 1 ? plan.schedule : Schedule::None;
      f.memory.activations = microbatchesInFlight(sched, s, pp, v, m) * kept +
                             deferredWeightGrads(sched, s, pp, m) * wgradBytes +
                             peak;
    } else {
      f.memory.activations = peak;
    }
    if (train && !options.simulate && m > 1) {
      // Loom's unrolled microbatch loop: the backward units share each
      // weight's transpose (CSE), alive from the first to the last, and
      // each weight's gradient sum sits beside the next unit's gradient.
      f.memory.activations += params * paramBytes;
      f.memory.gradients *= 2;
    }
    double buffers = 0;
    if (tp > 1)
      buffers += 2 * maxBoundary;
    // GPU collectives stage gradients in buckets of their own; the CPU
    // runtime reduces the gradient buffers in place.
    if (train && dp > 1 && cluster.device.kind == "gpu")
      buffers += 2 * std::min(bucket, params * paramBytes);
    if (train && dp > 1 && plan.zero == 3)
      buffers += 2 * maxSegParams * paramBytes;
    f.memory.commBuffers = buffers;

    // Data-parallel synchronisation and the optimizer.
    if (train && dp > 1) {
      double grads = params * paramBytes;
      auto time = [&](CollectiveKind kind, double bytes) {
        return bestCollectiveTime(kind, dp, bytes, links.dp).seconds();
      };
      auto record = [&](CollectiveKind kind, double bytes, double t,
                        int64_t calls) {
        if (!details)
          return;
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
      // GPU collectives run on their own stream beside the backward pass;
      // the CPU runtime's MPI calls block.
      bool overlap = cluster.device.kind == "gpu";
      double hidden = overlap ? bwd + rec : 0;
      double exposedDp = std::max(tSync - hidden, lastBucket);
      if (plan.zero == 3) {
        double g = time(CollectiveKind::AllGather, grads);
        double first =
            time(CollectiveKind::AllGather, maxSegParams * paramBytes);
        exposedDp +=
            overlap
                ? m * (std::max(0.0, g - fwd) + std::max(0.0, g - bwd)) + first
                : 2 * m * g;
        record(CollectiveKind::AllGather, 2 * m * grads, 2 * m * g,
               2 * m * calls);
        st.dpGather = g;
      } else if (plan.zero >= 1) {
        double g = time(CollectiveKind::AllGather, grads);
        exposedDp += g;
        st.dpGather = g;
        record(CollectiveKind::AllGather, grads, g, calls);
      }
      f.tailDp = exposedDp;
      st.dpSync = tSync;
      st.dpExposed = exposedDp;
    }
    if (train) {
      double perParam =
          options.optimizer == OptimizerKind::Adam
              ? (mixed ? 32 : 28)
              : (options.optimizer == OptimizerKind::SGD ? 12 : 20);
      f.optimizer = params / (plan.zero >= 1 ? dp : 1) * perParam / membw;
      st.optimizer = f.optimizer;
    }
  }

  // The slowest stage sets the pipeline's pace; the stage with the longest
  // tail (gradient synchronisation, optimizer) ends the step.
  int slow = 0, tailStage = 0, fullest = 0;
  auto perMicrobatch = [&](const StageFigures &f) {
    return f.work.forward + f.work.backward;
  };
  for (int64_t s = 0; s < pp; ++s) {
    if (perMicrobatch(figures[s]) > perMicrobatch(figures[slow]))
      slow = s;
    if (figures[s].tailDp + figures[s].optimizer >
        figures[tailStage].tailDp + figures[tailStage].optimizer)
      tailStage = s;
    if (figures[s].memory.total() > figures[fullest].memory.total())
      fullest = s;
  }
  const StageFigures &sf = figures[slow];
  const StageFigures &tf = figures[tailStage];
  Schedule sched = pp > 1 ? plan.schedule : Schedule::None;
  plan.time.compute = m * sf.compute + tf.optimizer;
  plan.time.exposedComm = m * (perMicrobatch(sf) - sf.compute) + tf.tailDp;
  plan.time.bubble = bubbleSeconds(sched, pp, v, m, sf.work);
  plan.memory = figures[fullest].memory;
  plan.stageMemory.clear();
  if (details)
    for (const StageFigures &f : figures)
      plan.stageMemory.push_back(f.memory);
  plan.memoryCapacity = cluster.device.memoryGB * 1e9;
  plan.fits =
      plan.memory.total() <= plan.memoryCapacity * options.memoryFraction;
  double peakFlops = pricing(tp, b, sp).matmulPeak();
  double total = plan.time.total();
  plan.mfu = peakFlops > 0 && total > 0
                 ? modelFlops / (total * plan.devices() * peakFlops)
                 : 0;
  // Energy: devices draw their full power while computing and their idle
  // power while they wait (exposed communication, the bubble).
  const DeviceSpec &d = cluster.device;
  double busy = plan.time.compute;
  double waiting = total - busy;
  plan.energyJoules =
      plan.devices() * (d.powerW * busy + d.idlePowerW * waiting);
  plan.cost = plan.devices() * d.pricePerHour * total / 3600;
  plan.comm.clear();
  plan.groups.clear();
  if (!details)
    return true;
  for (auto &[kind, cv] : figures[fullest].comm)
    plan.comm.push_back({kind, cv});
  // Layer groups.
  int64_t lastIndex = -2;
  for (int64_t vs = 0; vs < parts; ++vs) {
    int64_t stage = vs % pp;
    for (int k = bounds[vs]; k < bounds[vs + 1]; ++k) {
      const Segment &seg = model.segments[k];
      if (plan.groups.empty() || plan.groups.back().name != seg.group) {
        GroupSummary g;
        g.name = seg.group;
        g.stageBegin = stage;
        plan.groups.push_back(g);
        lastIndex = -2;
      }
      GroupSummary &g = plan.groups.back();
      g.stageEnd = stage;
      g.parameters += seg.parameters;
      g.forwardSeconds += c[k].forward + c[k].tpForward;
      if (seg.groupIndex != lastIndex || seg.groupIndex < 0)
        ++g.layers;
      lastIndex = seg.groupIndex;
    }
  }
  return true;
}
