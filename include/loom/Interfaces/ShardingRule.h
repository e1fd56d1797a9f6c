//===- ShardingRule.h - Factor-based sharding rules -------------*- C++ -*-===//
//
// A sharding rule states an op's dimensions as named factors; see
// ShardingRuleInterface.td for the semantics. This header holds the value
// type and the helpers ops use to build their rules.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_INTERFACES_SHARDINGRULE_H
#define LOOM_INTERFACES_SHARDINGRULE_H

#include "loom/Interfaces/LoomEnums.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace loom {

/// What splitting a factor across devices means for the op.
enum class FactorKind {
  /// Appears in a result: splitting it splits the result.
  Parallel,
  /// Appears only in operands: splitting it leaves partial results.
  Reduction,
  /// Must not be split: the op needs the whole extent on each device.
  Replicated,
};

struct ShardingFactor {
  /// Extent of the factor; ShapedType::kDynamic when unknown.
  int64_t size;
  FactorKind kind;
  /// How partial results combine; meaningful for Reduction factors only.
  ReductionKind reduction = ReductionKind::Sum;
};

/// The factors composing one tensor dimension, major to minor. Empty for a
/// dimension of size 1 that takes part in no factor (a broadcast dimension,
/// a kept reduced dimension).
using DimFactors = llvm::SmallVector<int, 2>;
using TensorFactors = llvm::SmallVector<DimFactors, 4>;

class ShardingRule {
public:
  /// Adds a factor and returns its index.
  int addFactor(int64_t size, FactorKind kind,
                ReductionKind reduction = ReductionKind::Sum);

  /// Appends the mapping of the next operand / result.
  void addOperand(TensorFactors dims) { operands.push_back(std::move(dims)); }
  void addResult(TensorFactors dims) { results.push_back(std::move(dims)); }

  llvm::ArrayRef<ShardingFactor> getFactors() const { return factors; }
  const ShardingFactor &getFactor(int i) const { return factors[i]; }
  int getNumFactors() const { return factors.size(); }
  llvm::ArrayRef<TensorFactors> getOperands() const { return operands; }
  llvm::ArrayRef<TensorFactors> getResults() const { return results; }

  /// Name of factor `i` in printed rules: i, j, k, ... then f26, f27, ...
  static std::string factorName(int i);

  /// Shardy-like text: `([i, k], [k, j]) -> ([i, j]) {i=2, j=4, k=8}
  /// reduction={k}`. Dimensions made of several factors print as `i*j`,
  /// dimensions with no factor as `1`; non-sum reductions as `k:max`.
  std::string str() const;

  /// Checks the rule against `op`: one entry per operand/result, one per
  /// dimension, factor indices in range, each static dimension equal to the
  /// product of its factors, and factor kinds consistent with where the
  /// factor appears. Used by unit tests and debug checks, since a mismatch
  /// is a bug in the op's rule, not in the user's program.
  mlir::LogicalResult verify(mlir::Operation *op, std::string *why) const;

private:
  llvm::SmallVector<ShardingFactor> factors;
  llvm::SmallVector<TensorFactors> operands;
  llvm::SmallVector<TensorFactors> results;
};

/// Builds the rule of an n-ary elementwise op with numpy/ONNX broadcasting:
/// one parallel factor per result dimension; an operand dimension maps to the
/// result's factor unless it is a broadcast size-1 dimension.
ShardingRule getElementwiseShardingRule(mlir::TypeRange operandTypes,
                                        mlir::TypeRange resultTypes);

/// Builds the rule of an op whose results are computed from nothing but its
/// attributes (constants, ranges): every result dimension is parallel.
ShardingRule getSourceShardingRule(mlir::TypeRange operandTypes,
                                   mlir::TypeRange resultTypes);

} // namespace loom

#endif // LOOM_INTERFACES_SHARDINGRULE_H
