//===- Validate.cpp - Checks of loomc's options before any work -----------===//

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Driver/Options.h"
#include "llvm/ADT/Twine.h"

using namespace loom;
using namespace loom::driver;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error loom::driver::validate(const Options &options) {
  const PlanOptions &plan = options.plan;
  if (plan.devices && *plan.devices < 1)
    return fail("--devices " + llvm::Twine(*plan.devices) +
                ": expected a positive number of devices");
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
  if (train.virtualStages < 0)
    return fail("--virtual-stages=" + llvm::Twine(train.virtualStages) +
                ": expected a positive number of model chunks per stage");
  if (train.virtualStages > 1 && train.schedule != "interleaved")
    return fail("--virtual-stages=" + llvm::Twine(train.virtualStages) +
                ": model chunks per stage are for --schedule=interleaved");
  if (train.recompute != "off" && !train.enabled)
    return fail("--recompute applies to training: add --train");
  if (llvm::Error error = checkTargetName(options.target))
    return error;
  if (options.emit == EmitKind::Artifact && options.outputFile == "-")
    return fail("--emit=artifact writes a directory; name it with -o "
                "MODEL.loom");
  return llvm::Error::success();
}
