//===- CostReport.cpp - Tabulate op costs ---------------------------------===//

#include "loom/CostModel/CostReport.h"
#include "loom/Interfaces/Interfaces.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace loom;

namespace {
std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    StringRef name = file.getFilename().getValue();
    name = name.substr(name.find_last_of('/') + 1);
    return (name + ":" + Twine(file.getLine()) + ":" + Twine(file.getColumn()))
        .str();
  }
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  return "-";
}

std::string typeText(Type type) {
  if (!type)
    return "-";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

void add(CostSummary &into, const CostSummary &from) {
  into.total += from.total;
  for (auto [type, flops] : from.flopsByType)
    into.flopsByType[type] += flops;
  into.numPriced += from.numPriced;
  into.numUnpriced += from.numUnpriced;
}

constexpr const char *kRow =
    "  {0,-24} {1,-20} {2,14} {3,12} {4,12} {5,12} {6}\n";
} // namespace

CostSummary loom::printCostReport(Operation *root, llvm::raw_ostream &os,
                                  bool perOp) {
  CostSummary all;
  root->walk([&](FunctionOpInterface fn) {
    CostSummary summary;
    std::string rows;
    llvm::raw_string_ostream rowStream(rows);
    fn.walk([&](Operation *op) {
      if (op == fn.getOperation() || !op->getDialect() ||
          op->hasTrait<OpTrait::IsTerminator>())
        return;
      auto costOp = dyn_cast<CostOpInterface>(op);
      FailureOr<OpCost> cost = failure();
      if (costOp)
        cost = costOp.getCost();
      if (failed(cost)) {
        ++summary.numUnpriced;
        if (perOp)
          rowStream << llvm::formatv("  {0,-24} {1,-20} not priced ({2})\n",
                                     op->getName().getStringRef(),
                                     locationText(op->getLoc()),
                                     costOp ? "dynamic shape" : "no cost");
        return;
      }
      ++summary.numPriced;
      summary.total += *cost;
      if (cost->computeType)
        summary.flopsByType[cost->computeType] += cost->flops;
      if (perOp)
        rowStream << llvm::formatv(
            kRow, op->getName().getStringRef(), locationText(op->getLoc()),
            (int64_t)cost->flops, (int64_t)cost->transcendentals,
            cost->bytesRead, cost->bytesWritten, typeText(cost->computeType));
    });
    os << "cost of @" << fn.getName() << " ("
       << summary.numPriced + summary.numUnpriced << " ops)\n";
    if (perOp)
      os << llvm::formatv(kRow, "op", "location", "flops", "trans", "read",
                          "written", "dtype")
         << rows;
    os << "  total: " << (int64_t)summary.total.flops << " FLOPs";
    if (!summary.flopsByType.empty()) {
      os << " (";
      llvm::interleaveComma(summary.flopsByType, os, [&](auto entry) {
        os << entry.first << ": " << (int64_t)entry.second;
      });
      os << ")";
    }
    os << ", " << (int64_t)summary.total.transcendentals << " transcendentals, "
       << summary.total.bytesRead << " B read, " << summary.total.bytesWritten
       << " B written";
    if (summary.numUnpriced)
      os << ", " << summary.numUnpriced << " op(s) not priced";
    os << "\n";
    add(all, summary);
  });
  return all;
}
