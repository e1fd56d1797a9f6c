//===- Explain.cpp - Saying why a plan, and drawing its timeline ----------===//

#include "Model.h"
#include "loom/Passes/Dist/Schedules.h"
#include "loom/Planner/PipelineModel.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::planner;

namespace {
const char *displayName(Schedule s) {
  switch (s) {
  case Schedule::None:
    return "none";
  case Schedule::GPipe:
    return "GPipe";
  case Schedule::OneFOneB:
    return "1F1B";
  case Schedule::Interleaved:
    return "interleaved 1F1B";
  case Schedule::ZeroBubble:
    return "ZB-H1 (zero bubble)";
  }
  return "?";
}

const char *recomputeText(dist::Recompute r) {
  switch (r) {
  case dist::Recompute::Off:
    return "off";
  case dist::Recompute::Full:
    return "full (each layer's forward runs again in backward)";
  case dist::Recompute::Selective:
    return "selective (matrix products kept, the ops between them run "
           "again in backward)";
  }
  return "?";
}

std::string count(double n) {
  if (n >= 1e18)
    return llvm::formatv("{0:F2} E", n / 1e18).str();
  if (n >= 1e15)
    return llvm::formatv("{0:F2} P", n / 1e15).str();
  if (n >= 1e12)
    return llvm::formatv("{0:F2} T", n / 1e12).str();
  if (n >= 1e9)
    return llvm::formatv("{0:F2} B", n / 1e9).str();
  if (n >= 1e6)
    return llvm::formatv("{0:F2} M", n / 1e6).str();
  if (n >= 1e3)
    return llvm::formatv("{0:F1} K", n / 1e3).str();
  return llvm::formatv("{0:F0}", n).str();
}

/// "850 J", "12.34 kJ", "4.56 MJ".
std::string formatEnergy(double joules) {
  return formatScaled(joules, 1000, {"J", "kJ", "MJ", "GJ", "TJ"}, 2);
}

std::string percent(double part, double whole) {
  return whole > 0 ? llvm::formatv("{0,5:F1} %", 100 * part / whole).str()
                   : "    - ";
}
} // namespace

void Planner::explain(const PlanResult &r, const Cluster &cluster,
                      llvm::raw_ostream &os) const {
  const Plan &p = r.best;
  const Model &m = *model;
  func::FuncOp fn = m.fn;
  os << "plan for @" << fn.getName() << ": " << count(r.parameters)
     << " parameters, batch " << r.batch << ", " << r.devices << " x "
     << cluster.device.name;
  if (cluster.devicesPerNode > 1 || cluster.nodes > 1)
    os << " (" << std::max<int64_t>(1, r.devices / cluster.devicesPerNode)
       << " node(s) of " << cluster.devicesPerNode << ")";
  os << ", " << r.precision << "\n";
  os << llvm::formatv("  mesh            dp={0} x tp={1} x pp={2}", p.dp, p.tp,
                      p.pp);
  os << "  (tp innermost, then dp, then pp)\n";
  os << llvm::formatv("  batch           {0} microbatch(es) of {1} sample(s) "
                      "per data-parallel rank",
                      p.microbatches, p.microbatchSize);
  if (p.pp > 1) {
    os << ", " << displayName(p.schedule) << " schedule";
    if (p.vpp > 1)
      os << " with " << p.vpp << " model chunks per stage";
  }
  os << "\n";
  if (p.devices() < r.devices)
    os << "  devices         " << p.devices() << " of " << r.devices
       << (r.objective == Objective::Time
               ? " (the rest idle: more would only compute redundantly)"
           : r.objective == Objective::Energy
               ? " (the rest idle: more would use more energy per step)"
               : " (the rest idle: more would cost more per step)")
       << "\n";
  if (r.recommendedDevices > 0)
    os << "  devices         " << r.recommendedDevices
       << " would do nearly as well: " << formatSeconds(r.recommendedSeconds)
       << " per step ("
       << llvm::formatv("{0:F2}", r.recommendedSeconds / p.time.total())
       << "x this plan's time) on "
       << llvm::formatv("{0:F0}", 100.0 * r.recommendedDevices / r.devices)
       << "% of the devices\n";
  os << "  ZeRO stage      " << p.zero << "\n";
  os << "  recomputation   " << recomputeText(p.recompute) << "\n";
  if (p.tp > 1)
    os << "  sequence par.   "
       << (p.sequenceParallel ? "on (ops outside the tensor-parallel pairs "
                                "split along the sequence)"
                              : "off")
       << "\n";
  if (p.tp > 1) {
    int64_t split = 0, batched = 0;
    const auto &all = model->strategies(p.tp);
    for (size_t i = 0; i < m.nodes.size() && i < p.assignment.size(); ++i) {
      const Node &node = m.nodes[i];
      if (!node.batchDependent)
        continue;
      ++batched;
      split += all[i][p.assignment[i]].factor >= 0;
    }
    os << "  tensor ops      " << p.candidateName
       << (p.candidateName == "megatron"
               ? " (column-then-row pairs, one all-reduce per pair)"
               : " (per-op shardings chosen by the search)")
       << ": " << split << " of " << batched << " ops split over tp";
    if (split == 0)
      os << " (the tp group computes redundantly: the model is too small "
            "to use these devices)";
    os << "\n";
  }
  os << "  executable      "
     << (p.executable() ? "yes"
                        : "no: a simulated plan (its microbatches split the "
                          "model's batch); plan without --simulate to "
                          "compile one")
     << "\n\n";

  double total = p.time.total();
  os << "predicted step time  " << formatSeconds(total) << "   (MFU "
     << llvm::formatv("{0:F1}", 100 * p.mfu) << " %, "
     << count(p.modelFlopsPerStep)
     << "FLOP per step; seconds=" << llvm::formatv("{0:e}", total) << ")\n";
  os << llvm::formatv("  {0,-24} {1,10} {2}\n", "compute",
                      formatSeconds(p.time.compute),
                      percent(p.time.compute, total));
  os << llvm::formatv("  {0,-24} {1,10} {2}\n", "exposed communication",
                      formatSeconds(p.time.exposedComm),
                      percent(p.time.exposedComm, total));
  os << llvm::formatv("  {0,-24} {1,10} {2}\n", "pipeline bubble",
                      formatSeconds(p.time.bubble),
                      percent(p.time.bubble, total));
  if (cluster.device.powerW > 0) {
    os << "  energy                  " << formatEnergy(p.energyJoules)
       << " per step";
    if (r.tokens > 0)
      os << ", " << formatEnergy(p.energyJoules / r.tokens * 1e6)
         << " per million tokens";
    os << "\n";
  }
  if (cluster.device.pricePerHour > 0) {
    os << "  cost                    " << llvm::format("%.4g", p.cost)
       << " per step";
    if (r.tokens > 0)
      os << ", " << llvm::format("%.4g", p.cost / r.tokens * 1e6)
         << " per million tokens";
    os << " (at " << llvm::format("%g", cluster.device.pricePerHour)
       << " per device-hour)\n";
  }
  os << "\n";

  os << "memory per device (fullest stage)  " << formatBytes(p.memory.total())
     << " of " << formatBytes(p.memoryCapacity) << "\n";
  auto mem = [&](const char *name, double bytes) {
    os << llvm::formatv("  {0,-24} {1,10} {2}\n", name, formatBytes(bytes),
                        percent(bytes, p.memory.total()));
  };
  mem("parameters", p.memory.parameters);
  mem("gradients", p.memory.gradients);
  mem("optimizer state", p.memory.optimizerState);
  mem("activations", p.memory.activations);
  mem("communication buffers", p.memory.commBuffers);
  if (p.memory.updatedState > 0)
    mem("updated state (outputs)", p.memory.updatedState);
  if (p.stageMemory.size() > 1) {
    os << "  per stage               ";
    for (const MemoryUse &m : p.stageMemory)
      os << " " << formatBytes(m.total());
    os << "  (bytes=";
    for (auto [s, m] : llvm::enumerate(p.stageMemory))
      os << (s ? "," : "") << llvm::formatv("{0:F0}", m.total());
    os << ")\n";
  }
  os << "\n";

  os << "communication per device per step\n";
  if (p.comm.empty())
    os << "  none\n";
  else
    os << llvm::formatv("  {0,-24} {1,10} {2,10} {3,8}\n", "collective",
                        "bytes", "time", "calls");
  for (const auto &[kind, v] : p.comm)
    os << llvm::formatv("  {0,-24} {1,10} {2,10} {3,8}\n", kind,
                        formatBytes(v.bytes), formatSeconds(v.seconds),
                        v.calls);
  os << "\n";

  os << "layers\n";
  os << llvm::formatv("  {0,-20} {1,7} {2,8} {3,10} {4,12}\n", "group",
                      "layers", "stages", "params", "fwd/microb.");
  for (const GroupSummary &g : p.groups) {
    std::string stages =
        g.stageBegin == g.stageEnd
            ? std::to_string(g.stageBegin)
            : llvm::formatv("{0}-{1}", g.stageBegin, g.stageEnd).str();
    os << llvm::formatv("  {0,-20} {1,7} {2,8} {3,10} {4,12}\n", g.name,
                        g.layers, stages, count(g.parameters),
                        formatSeconds(g.forwardSeconds));
  }
  os << "\n";

  if (!r.rejected.empty()) {
    os << "runners-up (the best plan of each other mesh shape)\n";
    for (auto [i, q] : llvm::enumerate(r.rejected)) {
      os << llvm::formatv("  {0}. {1}\n", i + 1, q.shape());
      os << "     " << formatSeconds(q.time.total());
      if (q.fits)
        os << llvm::formatv(" ({0:+0.0;-0.0} %)",
                            100 * (q.time.total() / total - 1));
      os << ", lost on " << q.lostOn << "\n";
    }
    os << "\n";
  }
  os << "searched " << r.plansPriced << " plans in "
     << formatSeconds(r.seconds);
  if (r.assignmentsSearched + r.assignmentsCached > 0)
    os << " (per-op tensor-parallel assignments: " << r.assignmentsSearched
       << " searched, " << r.assignmentsCached << " from the cache)";
  os << "\n";
  os << summaryLine(p) << "\n";
}

std::string Planner::summaryLine(const Plan &p) {
  std::string line = llvm::formatv("plan={0} seconds={1:e} memory_bytes={2:F0} "
                                   "mfu={3:F4} devices={4}",
                                   p.spec(), p.time.total(), p.memory.total(),
                                   p.mfu, p.devices())
                         .str();
  if (p.energyJoules > 0)
    line += llvm::formatv(" energy_j={0:e}", p.energyJoules).str();
  if (p.cost > 0)
    line += llvm::formatv(" cost={0:e}", p.cost).str();
  return line;
}

void Planner::trace(const Plan &p, const Cluster &cluster,
                    const PlannerOptions &options,
                    llvm::raw_ostream &os) const {
  int64_t pp = p.pp, mb = p.microbatches;
  bool train = options.train;
  bool overlap = cluster.device.kind == "gpu";
  int64_t v = std::max<int64_t>(1, p.vpp);
  // The order each stage runs its units in: the compiler's own schedules.
  std::vector<llvm::SmallVector<dist::Unit>> order(pp);
  for (int64_t s = 0; s < pp; ++s) {
    if (!train || pp == 1) {
      // Inference, or gradient accumulation: microbatch after microbatch.
      for (int64_t i = 0; i < mb; ++i) {
        order[s].push_back({i, dist::UnitKind::Forward});
        if (train)
          order[s].push_back({i, dist::UnitKind::Backward});
      }
      continue;
    }
    dist::Schedule kind =
        p.schedule == Schedule::GPipe         ? dist::Schedule::GPipe
        : p.schedule == Schedule::Interleaved ? dist::Schedule::Interleaved
        : p.schedule == Schedule::ZeroBubble  ? dist::Schedule::ZeroBubble
                                              : dist::Schedule::OneFOneB;
    std::string why;
    order[s] = dist::scheduleUnits(kind, s, pp, mb, v, why);
  }
  enum Lane { Compute, TensorParallel, DataParallel, Pipeline };
  llvm::json::Array events;
  auto event = [&](llvm::StringRef name, int64_t pid, Lane tid, double start,
                   double dur, llvm::StringRef cat) {
    if (dur <= 0)
      return;
    events.push_back(llvm::json::Object{{"name", name.str()},
                                        {"cat", cat.str()},
                                        {"ph", "X"},
                                        {"pid", pid},
                                        {"tid", (int)tid},
                                        {"ts", start * 1e6},
                                        {"dur", dur * 1e6}});
  };
  // Simulate: a unit starts when its stage is free and its input arrived.
  // Ends by (microbatch, virtual stage): forward, and gradient sent back.
  int64_t parts = pp * v;
  std::vector<std::vector<double>> fEnd(parts, std::vector<double>(mb, -1)),
      bEnd(parts, std::vector<double>(mb, -1));
  std::vector<size_t> next(pp, 0);
  std::vector<double> free(pp, 0), lastBackward(pp, 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (int64_t s = 0; s < pp; ++s) {
      const Plan::StageTimes &t = p.stageTimes[s];
      while (next[s] < order[s].size()) {
        const dist::Unit &w = order[s][next[s]];
        int64_t vs = dist::virtualStage(s, w.chunk, pp);
        bool forward = w.kind == dist::UnitKind::Forward;
        bool weight = w.kind == dist::UnitKind::WeightGrad;
        double ready;
        if (forward)
          ready = vs == 0 ? 0 : fEnd[vs - 1][w.microbatch];
        else if (weight)
          ready = bEnd[vs][w.microbatch];
        else
          ready = vs == parts - 1 ? fEnd[vs][w.microbatch]
                                  : bEnd[vs + 1][w.microbatch];
        if (ready < 0 || (!forward && fEnd[vs][w.microbatch] < 0))
          break;
        double start = std::max(ready, free[s]);
        double compute = forward  ? t.forward
                         : weight ? t.weightGrad
                         : w.kind == dist::UnitKind::InputGrad
                             ? t.backward - t.weightGrad
                             : t.backward;
        compute /= v;
        double tp = weight ? 0 : (forward ? t.tpForward : t.tpBackward) / v;
        double send =
            (forward ? t.p2p - t.p2pBackward : t.p2pBackward) / double(v);
        std::string name = dist::formatUnit(w);
        event(name, s, Compute, start, compute,
              forward ? "forward" : "backward");
        event(name + " tp", s, TensorParallel, start + compute, tp,
              "communication");
        if (p.zero == 3 && !weight)
          event(name + " gather", s, DataParallel, start, t.dpGather / v,
                "communication");
        bool sends = !weight && (forward ? vs < parts - 1 : vs > 0);
        if (sends)
          event(name + " send", s, Pipeline, start + compute + tp, send,
                "communication");
        double end = start + compute + tp + (sends ? send : 0);
        if (!forward)
          lastBackward[s] = start;
        if (forward)
          fEnd[vs][w.microbatch] = end;
        else if (!weight)
          bEnd[vs][w.microbatch] = end;
        free[s] = end;
        ++next[s];
        progress = true;
      }
    }
  }
  double pipelineEnd = 0;
  for (double f : free)
    pipelineEnd = std::max(pipelineEnd, f);
  for (int64_t s = 0; s < pp; ++s) {
    const Plan::StageTimes &t = p.stageTimes[s];
    // The gradient reduction runs beside the last backward on GPUs; the
    // optimizer waits for whatever of it is exposed.
    double syncStart = overlap ? lastBackward[s] : free[s];
    event(p.zero >= 2 ? "reduce_scatter gradients" : "all_reduce gradients", s,
          DataParallel, syncStart, t.dpSync, "communication");
    // ZeRO-1/2 gather the updated parameters after the optimizer.
    bool gatherAfter = p.zero == 1 || p.zero == 2;
    double optStart =
        pipelineEnd + t.dpExposed - (gatherAfter ? t.dpGather : 0);
    event("optimizer", s, Compute, optStart, t.optimizer, "optimizer");
    if (gatherAfter)
      event("all_gather parameters", s, DataParallel, optStart + t.optimizer,
            t.dpGather, "communication");
  }
  for (int64_t s = 0; s < pp; ++s) {
    int64_t firstRank = s * p.dp * p.tp;
    events.push_back(llvm::json::Object{
        {"name", "process_name"},
        {"ph", "M"},
        {"pid", s},
        {"args",
         llvm::json::Object{
             {"name", llvm::formatv("stage {0} (ranks {1}-{2}, one shown)", s,
                                    firstRank, firstRank + p.dp * p.tp - 1)
                          .str()}}}});
    const char *lanes[] = {"compute", "tp communication", "dp communication",
                           "pp send/recv"};
    for (int t = 0; t < 4; ++t)
      events.push_back(
          llvm::json::Object{{"name", "thread_name"},
                             {"ph", "M"},
                             {"pid", s},
                             {"tid", t},
                             {"args", llvm::json::Object{{"name", lanes[t]}}}});
  }
  llvm::json::Object root{
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ms"},
      {"otherData",
       llvm::json::Object{{"plan", p.shape()},
                          {"cluster", cluster.name},
                          {"predicted_step_seconds", p.time.total()}}}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}
