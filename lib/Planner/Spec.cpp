//===- Spec.cpp - Parsing --plan=SPEC -------------------------------------===//

#include "loom/Planner/Planner.h"
#include "loom/Support/Limits.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace loom;
using namespace loom::planner;

namespace {
constexpr const char *kKeys = "dp, tp, pp, vpp, microbatches, "
                              "microbatch-size, schedule, zero, recompute, "
                              "sp, tp-ops";

std::string positive(llvm::StringRef key, llvm::StringRef value,
                     std::optional<int64_t> &out, int64_t limit) {
  int64_t n = 0;
  if (value.getAsInteger(10, n) || n < 1 || n > limit)
    return (key + "=" + value + ": expected a whole number from 1 to " +
            llvm::Twine(limit))
        .str();
  out = n;
  return "";
}
} // namespace

std::string loom::planner::parsePlanSpec(llvm::StringRef spec,
                                         PlannerOptions &o) {
  if (spec.trim().empty())
    return "empty plan: give KEY=VALUE pairs separated by commas (" +
           std::string(kKeys) + ")";
  llvm::StringSet<> seen;
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, ',');
  for (llvm::StringRef part : parts) {
    auto [rawKey, rawValue] = part.split('=');
    llvm::StringRef key = rawKey.trim(), value = rawValue.trim();
    if (key.empty() || !part.contains('=') || value.empty())
      return ("'" + part.trim() + "': expected KEY=VALUE").str();
    if (!seen.insert(key).second)
      return ("'" + key + "' is given twice").str();
    std::string why;
    if (key == "dp")
      why = positive(key, value, o.dp, kMaxDevices);
    else if (key == "tp")
      why = positive(key, value, o.tp, kMaxDevices);
    else if (key == "pp")
      why = positive(key, value, o.pp, kMaxDevices);
    else if (key == "vpp")
      why = positive(key, value, o.vpp, 64);
    else if (key == "microbatches" || key == "mb")
      why = positive(key, value, o.microbatches, int64_t(1) << 30);
    else if (key == "microbatch-size")
      why = positive(key, value, o.microbatchSize, int64_t(1) << 30);
    else if (key == "schedule") {
      o.schedule = parseSchedule(value);
      if (!o.schedule || *o.schedule == Schedule::None)
        why = ("schedule=" + value +
               ": expected gpipe, 1f1b, interleaved or zb1p")
                  .str();
    } else if (key == "zero") {
      int64_t z = 0;
      if (value.getAsInteger(10, z) || z < 0 || z > 3)
        why = ("zero=" + value + ": expected 0, 1, 2 or 3").str();
      else
        o.zero = z;
    } else if (key == "recompute") {
      o.recompute = dist::symbolizeRecompute(value);
      if (!o.recompute)
        why =
            ("recompute=" + value + ": expected off, full or selective").str();
    } else if (key == "sp") {
      if (value == "on" || value == "true" || value == "1")
        o.sequenceParallel = true;
      else if (value == "off" || value == "false" || value == "0")
        o.sequenceParallel = false;
      else
        why = ("sp=" + value + ": expected on or off").str();
    } else if (key == "tp-ops") {
      if (value == "megatron")
        o.megatronOnly = true;
      else if (value == "searched")
        o.searchedOnly = true;
      else
        why = ("tp-ops=" + value + ": expected megatron or searched").str();
    } else {
      why = ("unknown key '" + key + "' (keys: " + kKeys + ")").str();
    }
    if (!why.empty())
      return why;
  }
  if (o.microbatches && o.microbatchSize)
    return "give microbatches or microbatch-size, not both";
  if (o.vpp && *o.vpp > 1 && !o.schedule)
    o.schedule = Schedule::Interleaved;
  if (o.vpp && *o.vpp > 1 && *o.schedule != Schedule::Interleaved)
    return "vpp=" + std::to_string(*o.vpp) +
           ": only the interleaved schedule runs several model chunks per "
           "stage";
  if (o.schedule && *o.schedule == Schedule::Interleaved && !o.vpp)
    o.vpp = 2;
  if (o.pp && *o.pp == 1 && o.schedule)
    return "schedule=" + scheduleName(*o.schedule).str() +
           " needs pp > 1 (a pipeline)";
  if (o.sequenceParallel && *o.sequenceParallel && o.tp && *o.tp == 1)
    return "sp=on splits along the sequence over tp: it needs tp > 1";
  return "";
}
