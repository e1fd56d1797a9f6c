//===- PipelineModel.h - Closed forms of the pipeline schedules -*- C++ -*-===//
//
// The step time and the microbatches in flight of each schedule the
// compiler executes (passes/Dist/Schedules.cpp), for stages of equal
// per-microbatch work: what the planner prices every candidate with.
// test/Unit/PipelineModelTest.cpp checks each against a simulation of the
// executed unit orders.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLANNER_PIPELINEMODEL_H
#define LOOM_PLANNER_PIPELINEMODEL_H

#include "loom/Planner/Planner.h"

namespace loom::planner {

/// One stage's work for one microbatch (all its chunks together), p2p
/// sends included. `backward` is the whole backward pass; `weightGrad` the
/// part of it that computes weight gradients, which ZB-H1 defers.
struct StageWork {
  double forward = 0, backward = 0, weightGrad = 0;
};

/// Seconds from the first forward to the last backward of a step of `m`
/// microbatches over `pp` stages (`vpp` chunks each, interleaved only).
double pipelineSeconds(Schedule schedule, int64_t pp, int64_t vpp, int64_t m,
                       const StageWork &work);
/// The part of pipelineSeconds that is not work: fill and drain.
double bubbleSeconds(Schedule schedule, int64_t pp, int64_t vpp, int64_t m,
                     const StageWork &work);

/// How many microbatches' saved activations stage `s` holds at its peak,
/// in units of one microbatch's activations of the whole stage (a chunk of
/// the interleaved schedule counts 1/vpp).
double microbatchesInFlight(Schedule schedule, int64_t s, int64_t pp,
                            int64_t vpp, int64_t m);
/// ZB-H1: how many microbatches' deferred weight gradients stage `s` holds
/// when its activations peak (what they need: the weight products' inputs
/// and output gradients); the sum is the stage's peak.
double deferredWeightGrads(Schedule schedule, int64_t s, int64_t pp, int64_t m);

/// Why `schedule` cannot run `m` microbatches over `pp` x `vpp` stages, or
/// "" when it can.
std::string scheduleConstraint(Schedule schedule, int64_t pp, int64_t vpp,
                               int64_t m);

} // namespace loom::planner

#endif // LOOM_PLANNER_PIPELINEMODEL_H
