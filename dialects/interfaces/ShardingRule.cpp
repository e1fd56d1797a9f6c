//===- ShardingRule.cpp - Factor-based sharding rules ---------------------===//

#include "loom/Interfaces/ShardingRule.h"
#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace loom;

int ShardingRule::addFactor(int64_t size, FactorKind kind,
                            ReductionKind reduction) {
  factors.push_back({size, kind, reduction});
  return factors.size() - 1;
}

std::string ShardingRule::factorName(int i) {
  static const char letters[] = "ijklmnopqrstuvwxyzabcdefgh";
  if (i < 26)
    return std::string(1, letters[i]);
  return "f" + std::to_string(i);
}

static void printTensors(llvm::raw_ostream &os,
                         llvm::ArrayRef<TensorFactors> tensors) {
  os << '(';
  llvm::interleaveComma(tensors, os, [&](const TensorFactors &dims) {
    os << '[';
    llvm::interleaveComma(dims, os, [&](const DimFactors &dim) {
      if (dim.empty()) {
        os << '1';
        return;
      }
      llvm::interleave(
          dim, os, [&](int f) { os << ShardingRule::factorName(f); }, "*");
    });
    os << ']';
  });
  os << ')';
}

std::string ShardingRule::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  printTensors(os, operands);
  os << " -> ";
  printTensors(os, results);
  os << " {";
  llvm::interleaveComma(llvm::seq<int>(0, factors.size()), os, [&](int i) {
    os << factorName(i) << '=';
    if (ShapedType::isDynamic(factors[i].size))
      os << '?';
    else
      os << factors[i].size;
  });
  os << '}';
  auto printKind = [&](FactorKind kind, llvm::StringRef label) {
    SmallVector<int> ids;
    for (auto [i, f] : llvm::enumerate(factors))
      if (f.kind == kind)
        ids.push_back(i);
    if (ids.empty())
      return;
    os << ' ' << label << "={";
    llvm::interleaveComma(ids, os, [&](int i) {
      os << factorName(i);
      if (kind == FactorKind::Reduction &&
          factors[i].reduction != ReductionKind::Sum)
        os << ':' << stringifyReductionKind(factors[i].reduction);
    });
    os << '}';
  };
  printKind(FactorKind::Reduction, "reduction");
  printKind(FactorKind::Replicated, "replicated");
  return text;
}

LogicalResult ShardingRule::verify(Operation *op, std::string *why) const {
  llvm::raw_string_ostream os(*why);
  SmallVector<bool> inResult(factors.size(), false);
  SmallVector<bool> used(factors.size(), false);
  auto check = [&](llvm::ArrayRef<TensorFactors> mapping, TypeRange types,
                   llvm::StringRef what, bool isResult) -> bool {
    if (mapping.size() != types.size()) {
      os << "rule has " << mapping.size() << ' ' << what << "s, op has "
         << types.size();
      return false;
    }
    for (auto [idx, dims, type] : llvm::enumerate(mapping, types)) {
      auto shaped = dyn_cast<ShapedType>(type);
      int64_t rank = shaped && shaped.hasRank() ? shaped.getRank() : 0;
      if ((int64_t)dims.size() != rank) {
        os << what << ' ' << idx << " has rank " << rank
           << " but the rule maps " << dims.size() << " dimensions";
        return false;
      }
      for (auto [d, dim] : llvm::enumerate(dims)) {
        int64_t product = 1;
        bool dynamic = false;
        for (int f : dim) {
          if (f < 0 || f >= (int)factors.size()) {
            os << "factor index " << f << " out of range";
            return false;
          }
          used[f] = true;
          inResult[f] |= isResult;
          if (ShapedType::isDynamic(factors[f].size))
            dynamic = true;
          else
            product *= factors[f].size;
        }
        int64_t size = shaped.getDimSize(d);
        if (ShapedType::isDynamic(size) || dynamic)
          continue;
        if (product != size) {
          os << what << ' ' << idx << " dimension " << d << " has size " << size
             << " but its factors multiply to " << product;
          return false;
        }
      }
    }
    return true;
  };
  if (!check(operands, op->getOperandTypes(), "operand", false) ||
      !check(results, op->getResultTypes(), "result", true))
    return failure();
  for (auto [i, f] : llvm::enumerate(factors)) {
    if (!used[i]) {
      os << "factor " << factorName(i) << " maps no dimension";
      return failure();
    }
    if (f.kind == FactorKind::Reduction && inResult[i]) {
      os << "reduction factor " << factorName(i) << " appears in a result";
      return failure();
    }
    if (f.kind == FactorKind::Parallel && !inResult[i]) {
      os << "parallel factor " << factorName(i) << " appears in no result";
      return failure();
    }
  }
  return success();
}

ShardingRule loom::getElementwiseShardingRule(TypeRange operandTypes,
                                              TypeRange resultTypes) {
  ShardingRule rule;
  auto resultType = cast<ShapedType>(resultTypes.front());
  int64_t rank = resultType.getRank();
  SmallVector<int> dimFactor(rank);
  for (int64_t d = 0; d < rank; ++d)
    dimFactor[d] =
        rule.addFactor(resultType.getDimSize(d), FactorKind::Parallel);
  auto mapTensor = [&](Type type) {
    auto shaped = cast<ShapedType>(type);
    TensorFactors dims;
    int64_t offset = rank - shaped.getRank();
    for (int64_t d = 0; d < shaped.getRank(); ++d) {
      int64_t size = shaped.getDimSize(d);
      int64_t resultSize = resultType.getDimSize(d + offset);
      // A size-1 dimension broadcast to a larger one takes no factor.
      if (size == 1 && resultSize != 1)
        dims.push_back({});
      else
        dims.push_back({dimFactor[d + offset]});
    }
    return dims;
  };
  for (Type type : operandTypes)
    rule.addOperand(mapTensor(type));
  for (Type type : resultTypes)
    rule.addResult(mapTensor(type));
  return rule;
}

ShardingRule loom::getSourceShardingRule(TypeRange operandTypes,
                                         TypeRange resultTypes) {
  assert(operandTypes.empty() && "source ops take no operands");
  return getElementwiseShardingRule(operandTypes, resultTypes);
}
