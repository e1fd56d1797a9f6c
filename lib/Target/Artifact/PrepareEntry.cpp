//===- PrepareEntry.cpp - The entry signature every target compiles -------===//

#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Target/Artifact/EntrySignature.h"
#include "loom/Target/Artifact/Passes.h"

namespace loom {
#define GEN_PASS_DEF_PREPAREENTRY
#include "loom/Target/Artifact/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
struct PrepareEntryPass : loom::impl::PrepareEntryBase<PrepareEntryPass> {
  using Base::Base;
  void runOnOperation() override {
    FailureOr<func::FuncOp> entry = findEntry(getOperation());
    // Weightless parameters have nothing to put in parameters.bin.
    if (failed(entry) || failed(nn::checkHasWeightData(*entry)))
      return signalPassFailure();
    FailureOr<EntrySignature> sig = collectEntrySignature(*entry);
    if (failed(sig))
      return signalPassFailure();
    applyEntrySignature(*entry, *sig);
    if (!entryName.empty())
      entry->setSymName(entryName);
  }
};
} // namespace
