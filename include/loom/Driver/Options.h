//===- Options.h - What loomc is asked to do --------------------*- C++ -*-===//
//
// Every option of loomc in one struct, so that tests and the Python
// bindings drive the same code as the command line; validate() checks what
// can be checked before a model is read.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DRIVER_OPTIONS_H
#define LOOM_DRIVER_OPTIONS_H

#include "loom/Pipelines/Pipelines.h"
#include "loom/Target/Target.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace loom::driver {

/// What loomc writes.
enum class EmitKind {
  /// The verified, canonicalised nn module.
  NN,
  /// A per-function table of FLOPs and bytes.
  Cost,
  /// The module lowered to linalg/tensor/arith/math (after fusion).
  Linalg,
  /// The module lowered to the LLVM dialect.
  LLVM,
  /// A `.loom` artifact directory for loomrun (the default for `-o X.loom`).
  Artifact,
  /// The global program with every value's layout and explicit reshards.
  Plan,
  /// The program one device runs: per-device types and collectives.
  SPMD,
};

/// How loomc distributes a model (`--strategy`).
enum class Strategy {
  /// Single device, unless the input carries layouts (then `Manual`).
  None,
  Data,
  Megatron,
  /// The layouts already in the input MLIR.
  Manual,
  /// The planner's choice (lib/Planner): the default without --mesh.
  Auto,
};

/// `--train`: whether to build a training step, and its options.
struct TrainOptions {
  bool enabled = false;
  TrainingStepPipelineOptions step;
  /// Whether --zero was given (the planner chooses the stage otherwise).
  bool zeroGiven = false;
  /// Pipeline schedule (--schedule) and recomputation (--recompute), for a
  /// mesh with a `pp` axis.
  std::string schedule = "1f1b";
  std::string recompute = "off";
  /// Model chunks per stage (--virtual-stages; 0: 2 for the interleaved
  /// schedule, else 1).
  int64_t virtualStages = 0;
  /// Whether --schedule and --recompute were given (the planner chooses
  /// them otherwise).
  bool scheduleGiven = false, recomputeGiven = false;

  /// The chunks per stage the schedule runs.
  int64_t chunks() const {
    if (virtualStages > 0)
      return virtualStages;
    return schedule == "interleaved" ? 2 : 1;
  }
};

/// What the planner reports and how far it may go.
struct PlanOptions {
  /// Devices to plan for; none for every device of the cluster (one device
  /// without --cluster).
  std::optional<int64_t> devices;
  /// Print the explanation of the plan (to the output when nothing else is
  /// asked for, else to standard output).
  bool explain = false;
  /// A Chrome trace of one simulated step.
  std::string traceFile;
  /// Allow plans that are not executable yet (pipeline stages,
  /// recomputation): planning only.
  bool simulate = false;
  /// `fp32`, `mixed`, or "" (mixed on GPUs with --simulate, else fp32).
  std::string precision;
  /// Print how the hand plans (data parallel with the best ZeRO stage;
  /// Megatron tp x pp x dp grid) fare under the same model.
  bool handPlans = false;
  /// Where the planner caches per-op assignments; "" for nowhere.
  std::string cacheDir;
  /// `--plan=SPEC`: the plan to price (docs/Planner.md).
  std::string spec;
  bool specGiven = false;
  /// `--objective`: time, energy or cost.
  std::string objective = "time";
  /// `--attention`: fused, materialized, or "" (fused on GPUs).
  std::string attention;
};

struct Options {
  /// An ONNX model (.onnx) or an nn module (.mlir, or - for stdin).
  std::string inputFile = "-";
  std::string outputFile = "-";
  EmitKind emit = EmitKind::NN;
  /// Print large constants and weights as placeholders (readable, not
  /// parseable back).
  bool elideWeights = false;
  /// `--check-indices`: compiled programs stop at a gather or scatter_add
  /// index out of range instead of clamping it (debugging).
  bool checkIndices = false;
  /// `NAME=2x64` fixes the dimensions of an ONNX model input.
  std::vector<std::string> inputShapes;
  /// A regex naming the ONNX graph inputs that are weightless parameters.
  std::string parameterInputs;
  /// A JSON file mapping parameter names to new ones (--rename-parameters).
  std::string renameParameters;
  /// The target (`--target=NAME[:CHIP,...]`) and the CPU host code is
  /// compiled for (`native` or an LLVM CPU name).
  std::string target = "cpu";
  TargetOptions targetOptions;
  /// Whether --target was given (else a GPU cluster picks `cuda`).
  bool targetGiven = false;
  /// `dp=2,tp=2`: mesh axes, major to minor.
  std::string mesh;
  Strategy strategy = Strategy::None;
  /// A cluster description (JSON); empty for this machine.
  std::string clusterFile;
  TrainOptions train;
  PlanOptions plan;
  /// Whether -o or --emit was given (else --explain is the output).
  bool outputGiven = false;
};

/// Exit codes of loomc.
enum ExitCode { Success = 0, Failure = 1, Unsupported = 3 };

/// Checks what does not need the model: flag values and combinations, the
/// target's name. The message names the flag (`--devices 0: ...`).
llvm::Error validate(const Options &options);

/// Checks the files `options` names before any work: each output goes into
/// an existing directory (an artifact's parent directories are created) and
/// replaces no input (the model, --rename-parameters, --cluster).
llvm::Error checkFiles(const Options &options);

} // namespace loom::driver

#endif // LOOM_DRIVER_OPTIONS_H
