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

/// The factory registered under `name`, or null.
static TargetFactory lookupFactory(StringRef name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.targets.find(name);
  return it == r.targets.end() ? TargetFactory() : it->getValue().factory;
}

llvm::Error loom::checkTargetName(StringRef name) {
  if (lookupFactory(name))
    return llvm::Error::success();
  std::string known;
  for (auto &[n, description] : getRegisteredTargets())
    known += (known.empty() ? "" : ", ") + n;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown target '" + name +
                                     "' (available: " + known + ")");
}

FailureOr<std::unique_ptr<Target>>
loom::createTarget(StringRef name, const TargetOptions &options, Location loc) {
  if (TargetFactory factory = lookupFactory(name))
    return factory(options, loc);
  return emitError(loc) << llvm::toString(checkTargetName(name));
}
