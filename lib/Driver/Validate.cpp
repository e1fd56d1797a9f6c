//===- Validate.cpp - Checks of loomc's options before any work -----------===//

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Driver/Options.h"
#include "loom/Support/Files.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace loom;
using namespace loom::driver;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `--flag=value: expected ...` for a floating-point flag that is not a
/// finite number in [low, high] (or (low, high] when `lowOpen`).
static llvm::Error checkReal(llvm::StringRef flag, double value, double low,
                             double high, bool lowOpen,
                             llvm::StringRef expected) {
  if (std::isfinite(value) && (lowOpen ? value > low : value >= low) &&
      value <= high)
    return llvm::Error::success();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%g", value);
  return fail("--" + flag + "=" + text + ": expected " + expected);
}

/// The floating-point training flags: finite, in their meaningful ranges
/// (the training pass checks the same, but inf and NaN slip through
/// comparisons).
static llvm::Error checkTrainingNumbers(const TrainingStepPipelineOptions &t) {
  constexpr double kHuge = 1e30;
  struct Real {
    const char *flag;
    double value, low, high;
    bool lowOpen;
    const char *expected;
  } reals[] = {
      {"lr", t.lr, 0, kHuge, true, "a positive finite learning rate"},
      {"momentum", t.momentum, 0, std::nextafter(1.0, 0.0), false,
       "a number in [0, 1)"},
      {"beta1", t.beta1, 0, std::nextafter(1.0, 0.0), false,
       "a number in [0, 1)"},
      {"beta2", t.beta2, 0, std::nextafter(1.0, 0.0), false,
       "a number in [0, 1)"},
      {"eps", t.eps, 0, kHuge, true, "a positive finite number"},
      {"weight-decay", t.weightDecay, 0, kHuge, false,
       "a finite number, not negative"},
      {"min-lr", t.minLr, 0, kHuge, false, "a finite number, not negative"},
      {"clip-grad-norm", t.clipGradNorm, 0, kHuge, false,
       "a finite number, not negative (0: off)"},
  };
  for (const Real &r : reals)
    if (llvm::Error error =
            checkReal(r.flag, r.value, r.low, r.high, r.lowOpen, r.expected))
      return error;
  return llvm::Error::success();
}

llvm::Error loom::driver::validate(const Options &options) {
  const PlanOptions &plan = options.plan;
  if (plan.devices && (*plan.devices < 1 || *plan.devices > kMaxDevices))
    return fail("--devices " + llvm::Twine(*plan.devices) +
                ": expected a positive number of devices, at most " +
                llvm::Twine(kMaxDevices));
  if (!plan.precision.empty() && plan.precision != "fp32" &&
      plan.precision != "mixed")
    return fail("--precision=" + plan.precision + ": expected fp32 or mixed");
  if (plan.handPlans && !plan.explain)
    return fail("--hand-plans adds to --explain: add --explain");
  if (options.train.zeroGiven && !options.train.enabled)
    return fail("--zero applies to training: add --train");
  const TrainOptions &train = options.train;
  if (!dist::symbolizeSchedule(train.schedule))
    return fail("--schedule=" + train.schedule +
                ": expected gpipe, 1f1b, interleaved or zb1p");
  if (!dist::symbolizeRecompute(train.recompute))
    return fail("--recompute=" + train.recompute +
                ": expected off, full or selective");
  if (train.virtualStages < 0 || train.virtualStages > 4096)
    return fail("--virtual-stages=" + llvm::Twine(train.virtualStages) +
                ": expected a positive number of model chunks per stage "
                "(at most 4096)");
  if (train.virtualStages > 1 && train.schedule != "interleaved")
    return fail("--virtual-stages=" + llvm::Twine(train.virtualStages) +
                ": model chunks per stage are for --schedule=interleaved");
  if (train.recompute != "off" && !train.enabled)
    return fail("--recompute applies to training: add --train");
  if (llvm::Error error = checkTrainingNumbers(train.step))
    return error;
  if (llvm::Error error = checkTargetName(options.target))
    return error;
  if (options.emit == EmitKind::Artifact && options.outputFile == "-")
    return fail("--emit=artifact writes a directory; name it with -o "
                "MODEL.loom");
  return llvm::Error::success();
}

llvm::Error loom::driver::checkFiles(const Options &options) {
  // Every output goes into a directory that exists: found out now, not
  // after the compilation.
  if (options.emit != EmitKind::Artifact)
    if (llvm::Error error = checkOutputDirectory(options.outputFile, ""))
      return error;
  if (llvm::Error error =
          checkOutputDirectory(options.plan.traceFile, "--trace"))
    return error;
  // No output replaces an input.
  struct Named {
    llvm::StringRef path, flag;
  };
  Named inputs[] = {{options.inputFile, ""},
                    {options.renameParameters, "--rename-parameters"},
                    {options.clusterFile, "--cluster"}};
  Named outputs[] = {{options.outputFile, "-o"},
                     {options.plan.traceFile, "--trace"}};
  for (const Named &out : outputs)
    for (const Named &in : inputs)
      if (llvm::Error error =
              checkOutputIsNotInput(out.path, out.flag, in.path, in.flag))
        return error;
  return llvm::Error::success();
}
