//===- Planner.h - Searching for a parallel training plan -------*- C++ -*-===//
//
// The automatic planner (docs/Planner.md). It reads a model's forward
// function, prices every op under every way of splitting it over a tensor-
// parallel group (the op's sharding rule), picks per-op shardings that
// minimise time (a greedy pass per seed, then coordinate descent, so the
// Megatron pairing is one of the seeds it must beat), and searches jointly
// over the mesh factorisation dp x tp x pp, pipeline stage boundaries (a
// dynamic programme over the model's layers), microbatch count, ZeRO stage,
// recomputation and pipeline schedule, under each device's memory. Every
// candidate is priced by one analytic model: roofline op times with a matmul
// efficiency curve, alpha-beta collectives per mesh axis, overlap of the
// data-parallel reduction with the backward pass, pipeline bubbles, and
// memory per device by kind.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLANNER_PLANNER_H
#define LOOM_PLANNER_PLANNER_H

#include "loom/CostModel/Cluster.h"
#include "loom/CostModel/CommCost.h"
#include "loom/Dialect/Dist/DistDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom::planner {

/// The pipeline schedules the compiler executes (passes/Dist/Schedules.cpp);
/// None without a pipeline.
enum class Schedule { None, GPipe, OneFOneB, Interleaved, ZeroBubble };
/// loomc's spelling: "gpipe", "1f1b", "interleaved", "zb1p", "none".
llvm::StringRef scheduleName(Schedule s);
std::optional<Schedule> parseSchedule(llvm::StringRef name);

/// What a plan is chosen for.
enum class Objective { Time, Energy, Cost };

/// What to plan and which plans are allowed.
struct PlannerOptions {
  /// Plan a training step (forward, backward, optimizer); else inference.
  bool train = true;
  /// Allow plans the runtime cannot execute yet (pp > 1, recomputation) and
  /// mixed precision on GPUs: for --simulate and the scale studies.
  bool simulate = false;
  TrainingPrecision precision = TrainingPrecision::FP32;
  OptimizerKind optimizer = OptimizerKind::Adam;
  /// Devices to plan for; 0 means every device of the cluster.
  int64_t devices = 0;
  /// Restrictions (unset: searched). `vpp` is the model chunks per stage of
  /// the interleaved schedule; `microbatchSize` the samples per microbatch
  /// per data-parallel rank.
  std::optional<int64_t> dp, tp, pp, vpp, zero, microbatches, microbatchSize;
  /// The graph is one microbatch of a step of this many (loomc
  /// --microbatches): the global batch is the graph's times this, and the
  /// plan uses exactly this many microbatches. Unset: the graph's batch is
  /// the step's, and microbatches split it.
  std::optional<int64_t> graphMicrobatches;
  /// The pipeline schedule to price (unset: all are searched).
  std::optional<Schedule> schedule;
  std::optional<dist::Recompute> recompute;
  /// Sequence parallelism over tp (Korthikanti et al. 2022); unset: searched
  /// where it may be (tp > 1, and under --simulate: loomc does not compile
  /// it yet).
  std::optional<bool> sequenceParallel;
  /// Per-op tensor parallelism restricted to the Megatron pairing.
  bool megatronOnly = false;
  /// Only the searched per-op assignment (when it differs from Megatron's).
  bool searchedOnly = false;
  Objective objective = Objective::Time;
  /// Attention cores (softmax(Q K^T) V) priced as one fused kernel that
  /// stores no scores (FlashAttention, cuDNN SDPA), as GPU training runs
  /// them; else as the separate ops the CPU target runs.
  bool fusedAttention = false;
  /// When no plan fits, return the one needing least memory (its `fits`
  /// false, `why` set) instead of failing: --plan explains it.
  bool returnUnfit = false;
  /// Fraction of device memory a plan may use (the rest is the framework's,
  /// the allocator's fragmentation, kernels' workspaces).
  double memoryFraction = 0.9;
  /// Keep the best plan per distinct (dp, tp, pp) shape for --explain.
  int keepRejected = 3;
  /// Where per-op tensor-parallel assignments are cached, keyed by the
  /// graph's hash (ops, shapes, batch), the tp degree and its link, the
  /// precision and the workload; "" for no cache. They do not depend on the
  /// device count, so planning the model again for another one is fast.
  std::string cacheDir;
};

/// Seconds of one step by where they go.
struct StepTime {
  double compute = 0;     // forward, backward, recomputation, optimizer
  double exposedComm = 0; // tensor-parallel, p2p and the data-parallel part
                          // not hidden behind the backward pass
  double bubble = 0;      // pipeline fill and drain
  double total() const { return compute + exposedComm + bubble; }
};

/// Bytes per device by kind (the worst pipeline stage).
struct MemoryUse {
  double parameters = 0, gradients = 0, optimizerState = 0;
  double activations = 0, commBuffers = 0;
  /// Loom's compiled step returns the updated parameters and optimizer
  /// state as new buffers beside the old (plans it compiles; not the
  /// simulated ones, priced as the systems they compare with run).
  double updatedState = 0;
  double total() const {
    return parameters + gradients + optimizerState + activations + commBuffers +
           updatedState;
  }
};

/// A collective kind's bytes per device per step and its time.
struct CommVolume {
  double bytes = 0;
  double seconds = 0;
  int64_t calls = 0;
};

/// One layer group of the explanation: consecutive layers of one kind.
struct GroupSummary {
  std::string name;
  int64_t layers = 0;
  int stageBegin = 0, stageEnd = 0;
  double parameters = 0;
  /// How the group's matmuls split over tp ("column+row", "replicated", ..).
  std::string tensorParallel;
  double forwardSeconds = 0; // per microbatch, all layers of the group
};

struct Plan {
  int64_t dp = 1, tp = 1, pp = 1, microbatches = 1, zero = 0;
  /// Model chunks per pipeline stage (interleaved schedule; else 1).
  int64_t vpp = 1;
  dist::Recompute recompute = dist::Recompute::Off;
  bool sequenceParallel = false;
  Schedule schedule = Schedule::None;
  /// Samples per microbatch per data-parallel rank.
  int64_t microbatchSize = 1;
  /// The per-op tensor-parallel assignment: its name ("megatron",
  /// "searched", "none") and the strategy index of each op.
  std::string candidateName = "none";
  std::vector<int> assignment;

  StepTime time;
  /// Joules per step of the devices the plan uses, and what the step costs
  /// at the cluster's price (0 when the cluster gives none).
  double energyJoules = 0, cost = 0;
  /// Devices the plan uses (dp x tp x pp); the rest of the count idle.
  int64_t devices() const { return dp * tp * pp; }
  MemoryUse memory;
  /// Each pipeline stage's (memory is the fullest's).
  std::vector<MemoryUse> stageMemory;
  double memoryCapacity = 0;
  bool fits = true;
  double mfu = 0;
  double modelFlopsPerStep = 0;
  /// Collective kind name -> volume.
  std::vector<std::pair<std::string, CommVolume>> comm;
  /// Segment index where each virtual stage starts (size pp x vpp + 1;
  /// stage s runs virtual stages s, s + pp, ...).
  std::vector<int> stageBounds;
  /// Per pipeline stage: seconds of one microbatch's parts, and the tail.
  struct StageTimes {
    double forward = 0, backward = 0; // compute (backward: + recomputation)
    double tpForward = 0, tpBackward = 0;
    double p2p = 0, p2pBackward = 0; // sends: all, and the gradients back
    double weightGrad = 0;           // of backward: the weight-gradient part
    double dpSync = 0;               // the gradient reduction (all of it)
    double dpGather = 0;             // one parameter gather (ZeRO-3: per pass)
    double dpExposed = 0; // what of the data-parallel traffic is exposed
    double optimizer = 0;
  };
  std::vector<StageTimes> stageTimes;
  std::vector<GroupSummary> groups;
  /// For rejected plans: the term that made it lose against the chosen one.
  std::string lostOn;

  /// Planned under --simulate: its microbatches split the model's batch
  /// (else the model's batch is one microbatch).
  bool simulated = false;

  /// Whether loomc can compile it as planned: not with sequence
  /// parallelism, and not a simulated one that splits the model's batch,
  /// cuts stages or recomputes.
  bool executable() const {
    return !sequenceParallel &&
           (!simulated || (pp == 1 && recompute == dist::Recompute::Off &&
                           microbatches == 1));
  }
  /// `dp=4 tp=2 pp=1 mb=8 b=2 zero=1 recompute=off`, as --plan spells it
  /// with spaces for commas.
  std::string shape() const;
  /// The same as a --plan SPEC: `dp=4,tp=2,pp=1,...`.
  std::string spec() const;
};

struct PlanResult {
  Plan best;
  std::vector<Plan> rejected;
  int64_t plansPriced = 0;
  double seconds = 0;
  double parameters = 0;
  int64_t batch = 0;
  int64_t devices = 0;
  /// Tokens per step (the batch times the first data input's dimension 1,
  /// when it has one), for energy per token.
  double tokens = 0;
  Objective objective = Objective::Time;
  std::string precision;
  /// Tensor-parallel assignments searched now and read from the cache.
  int64_t assignmentsSearched = 0, assignmentsCached = 0;
  /// When the plan uses its devices poorly (MFU under 10%): the fewest
  /// devices whose best plan is within 10% of its time, and that time (0:
  /// no recommendation).
  int64_t recommendedDevices = 0;
  double recommendedSeconds = 0;
};

class Model;

/// A model ready to plan: its forward function analysed once, so that
/// planning again for another device count or cluster is fast.
class Planner {
public:
  /// Analyses `fn` (a public function of the module, its inputs' dimension
  /// 0 the global batch). Emits an error at the culprit and fails when the
  /// function cannot be planned (dynamic shapes, no batch).
  static mlir::FailureOr<std::unique_ptr<Planner>>
  create(mlir::func::FuncOp fn);
  ~Planner();

  /// Searches for the fastest plan that fits. Fails with a message naming
  /// why no plan fits (the smallest memory need among the plans tried).
  mlir::FailureOr<PlanResult>
  plan(const Cluster &cluster, const PlannerOptions &options, std::string &why);

  /// Writes the plan's tensor-parallel layouts onto the parameters of the
  /// function it was created from (`dist.sharding` on each matmul weight),
  /// against mesh `@mesh` with axis `tp`.
  void annotate(const Plan &plan);
  /// Marks each op with its pipeline stage (`loom.stage`) and the module
  /// with the plan's shape (`loom.plan`).
  void markStages(const Plan &plan);

  /// The explanation of --explain; its last line is summaryLine.
  void explain(const PlanResult &result, const Cluster &cluster,
               llvm::raw_ostream &os) const;
  /// `plan=SPEC seconds=.. memory_bytes=.. mfu=.. devices=..` (and
  /// `energy_j=`, `cost=` when the cluster gives power and price).
  static std::string summaryLine(const Plan &plan);
  /// A Chrome trace of one simulated step of `plan`, one process per
  /// pipeline stage (a representative rank), lanes for compute, tensor-
  /// parallel and data-parallel communication.
  void trace(const Plan &plan, const Cluster &cluster,
             const PlannerOptions &options, llvm::raw_ostream &os) const;

private:
  Planner();
  std::unique_ptr<Model> model;
};

/// Reads a --plan SPEC (`dp=8,tp=8,pp=4,schedule=interleaved,...`) into
/// the restrictions of `options`; returns why it is malformed, or "".
std::string parsePlanSpec(llvm::StringRef spec, PlannerOptions &options);

/// Why `loser` is worse than `winner`: the term it loses most on.
std::string whyWorse(const Plan &loser, const Plan &winner);

/// "1.5 GiB", "850 MiB".
std::string formatBytes(double bytes);
/// "1.23 s", "45.6 ms", "789 us".
std::string formatSeconds(double seconds);

} // namespace loom::planner

#endif // LOOM_PLANNER_PLANNER_H
