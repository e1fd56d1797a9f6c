//===- Target.cpp - The registry of compilation targets -------------------===//

#include "loom/Target/Target.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include <mutex>

using namespace mlir;
using namespace loom;

Target::~Target() = default;

namespace {
struct Entry {
  std::string description;
  TargetFactory factory;
};
struct Registry {
  std::mutex mutex;
  llvm::StringMap<Entry> targets;
};
Registry &registry() {
  static Registry instance;
  return instance;
}
} // namespace

void loom::registerTarget(StringRef name, StringRef description,
                          TargetFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.targets.try_emplace(name, Entry{description.str(), std::move(factory)});
}

std::vector<std::pair<std::string, std::string>> loom::getRegisteredTargets() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::pair<std::string, std::string>> names;
  for (auto &entry : r.targets)
    names.emplace_back(entry.getKey().str(), entry.getValue().description);
  llvm::sort(names);
  return names;
}

FailureOr<std::unique_ptr<Target>>
loom::createTarget(StringRef name, const TargetOptions &options, Location loc) {
  TargetFactory factory;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.targets.find(name);
    if (it != r.targets.end())
      factory = it->getValue().factory;
  }
  if (factory)
    return factory(options, loc);
  // Targets on the roadmap that this build does not have yet.
  if (name == "cuda")
    return emitError(loc) << "the cuda target is not built yet";
  std::string known;
  for (auto &[n, description] : getRegisteredTargets())
    known += (known.empty() ? "" : ", ") + n;
  return emitError(loc) << "unknown target '" << name
                        << "' (available: " << known << ")";
}
