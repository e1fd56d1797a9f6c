//===- Chips.cpp - The NVIDIA chips the CUDA target builds for ------------===//

#include "loom/Target/CUDA/Chips.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace loom;

SmallVector<std::string> loom::cuda::defaultChips() {
  return {"sm_80", "sm_90"};
}

int loom::cuda::chipNumber(StringRef chip) {
  StringRef digits = chip;
  if (!digits.consume_front("sm_"))
    return -1;
  digits.consume_back("a");
  int value;
  if (digits.getAsInteger(10, value))
    return -1;
  return value;
}

LogicalResult loom::cuda::checkChip(StringRef chip, Location loc) {
  static const char *const known[] = {"sm_60", "sm_61", "sm_62", "sm_70",
                                      "sm_72", "sm_75", "sm_80", "sm_86",
                                      "sm_87", "sm_89", "sm_90", "sm_90a"};
  if (llvm::is_contained(known, chip))
    return success();
  std::string list;
  for (const char *k : known)
    list += (list.empty() ? "" : ", ") + std::string(k);
  InFlightDiagnostic diag = emitError(loc) << "unknown CUDA chip '" << chip
                                           << "' (known: " << list << ")";
  if (chipNumber(chip) > 90)
    diag << "; newer GPUs run the PTX of sm_90 through the driver's JIT, so "
            "list sm_90";
  return diag;
}

std::string loom::cuda::ptxFeatures(StringRef chip) {
  // PTX 8.0 (CUDA 12.0) covers every chip up to sm_90a.
  (void)chip;
  return "+ptx80";
}
