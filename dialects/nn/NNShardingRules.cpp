//===- NNShardingRules.cpp - Sharding rules of nn ops ---------------------===//
//
// Each op states its dimensions as factors (see ShardingRuleInterface.td).
// Dimensions that an op reads through a window or an offset (convolution
// and pooling windows, slices, pads, concatenation axes) get factors of
// their own marked replicated: splitting them would need halos, which
// partitioning does not derive from a rule. A gathered axis is the one
// data-dependent read that may be split (see GatherOp).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {
/// Dimensions that are each one factor.
TensorFactors each(ArrayRef<int> factors) {
  TensorFactors dims;
  for (int f : factors)
    dims.push_back(f < 0 ? DimFactors{} : DimFactors{f});
  return dims;
}

/// One parallel factor per dimension of `type`.
SmallVector<int> parallelFactors(ShardingRule &rule, ShapedType type) {
  SmallVector<int> factors;
  for (int64_t size : type.getShape())
    factors.push_back(rule.addFactor(size, FactorKind::Parallel));
  return factors;
}

/// Adds a factor unless its extent is statically 1 (returns -1 then).
int addUnlessUnit(ShardingRule &rule, int64_t size, FactorKind kind,
                  ReductionKind reduction = ReductionKind::Sum) {
  if (size == 1)
    return -1;
  return rule.addFactor(size, kind, reduction);
}

DimFactors compound(ArrayRef<int> factors) {
  DimFactors dim;
  for (int f : factors)
    if (f >= 0)
      dim.push_back(f);
  return dim;
}

/// Spatial dimension of a window op: one shared parallel factor when the
/// window is the identity (1 wide, stride 1, unpadded), else separate
/// replicated factors for input and output.
std::pair<int, int> windowFactors(ShardingRule &rule, int64_t in, int64_t out,
                                  bool identity) {
  if (identity && in == out) {
    int f = rule.addFactor(in, FactorKind::Parallel);
    return {f, f};
  }
  return {rule.addFactor(in, FactorKind::Replicated),
          rule.addFactor(out, FactorKind::Replicated)};
}

/// Rule of a one-operand, one-result op mapping input dimension d to
/// result dimension d; `replicated` dimensions must stay whole.
ShardingRule dimwiseRule(RankedTensorType type, ArrayRef<bool> replicated) {
  ShardingRule rule;
  SmallVector<int> factors;
  for (int64_t d = 0; d < type.getRank(); ++d)
    factors.push_back(rule.addFactor(type.getDimSize(d),
                                     replicated[d] ? FactorKind::Replicated
                                                   : FactorKind::Parallel));
  rule.addOperand(each(factors));
  rule.addResult(each(factors));
  return rule;
}

/// Rule of an op whose input and output differ only along some dimensions:
/// dimensions where `same` holds share a parallel factor, the others get
/// separate replicated factors.
ShardingRule reshapedDimsRule(RankedTensorType in,
                              ArrayRef<RankedTensorType> outs,
                              ArrayRef<bool> same,
                              ArrayRef<RankedTensorType> extraIns = {}) {
  ShardingRule rule;
  SmallVector<int> shared(in.getRank(), -1);
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (same[d])
      shared[d] = rule.addFactor(in.getDimSize(d), FactorKind::Parallel);
  auto mapTensor = [&](RankedTensorType t) {
    TensorFactors dims;
    for (int64_t d = 0; d < t.getRank(); ++d)
      dims.push_back(
          {same[d] ? shared[d]
                   : rule.addFactor(t.getDimSize(d), FactorKind::Replicated)});
    return dims;
  };
  rule.addOperand(mapTensor(in));
  for (RankedTensorType t : extraIns)
    rule.addOperand(mapTensor(t));
  for (RankedTensorType t : outs)
    rule.addResult(mapTensor(t));
  return rule;
}

ShardingRule elementwise(Operation *op) {
  return getElementwiseShardingRule(op->getOperandTypes(),
                                    op->getResultTypes());
}
} // namespace

ShardingRule loom::nn::getReduceShardingRule(RankedTensorType input,
                                             ArrayRef<int64_t> axes,
                                             bool keepdims,
                                             ReductionKind kind) {
  ShardingRule rule;
  TensorFactors in, out;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t size = input.getDimSize(d);
    if (llvm::is_contained(axes, d)) {
      int f = addUnlessUnit(rule, size, FactorKind::Reduction, kind);
      in.push_back(compound({f}));
      if (keepdims)
        out.push_back({});
      continue;
    }
    int f = rule.addFactor(size, FactorKind::Parallel);
    in.push_back({f});
    out.push_back({f});
  }
  rule.addOperand(std::move(in));
  rule.addResult(std::move(out));
  return rule;
}

ShardingRule ConstantOp::getShardingRule() {
  return getSourceShardingRule(getOperation()->getOperandTypes(),
                               getOperation()->getResultTypes());
}

ShardingRule ParameterOp::getShardingRule() {
  return getSourceShardingRule(getOperation()->getOperandTypes(),
                               getOperation()->getResultTypes());
}

ShardingRule RangeOp::getShardingRule() {
  return getSourceShardingRule(getOperation()->getOperandTypes(),
                               getOperation()->getResultTypes());
}

ShardingRule GeluOp::getShardingRule() { return elementwise(*this); }
ShardingRule CompareOp::getShardingRule() { return elementwise(*this); }
ShardingRule WhereOp::getShardingRule() { return elementwise(*this); }
ShardingRule CastOp::getShardingRule() { return elementwise(*this); }
ShardingRule BroadcastToOp::getShardingRule() { return elementwise(*this); }

ShardingRule MatmulOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType result = getResult().getType();
  int64_t batchRank = result.getRank() - 2;
  SmallVector<int> batch;
  for (int64_t d = 0; d < batchRank; ++d)
    batch.push_back(rule.addFactor(result.getDimSize(d), FactorKind::Parallel));
  int m = rule.addFactor(result.getDimSize(batchRank), FactorKind::Parallel);
  int n =
      rule.addFactor(result.getDimSize(batchRank + 1), FactorKind::Parallel);
  int k = rule.addFactor(getLhs().getType().getShape().back(),
                         FactorKind::Reduction);
  auto operand = [&](RankedTensorType t, int row, int col) {
    TensorFactors dims;
    int64_t offset = batchRank - (t.getRank() - 2);
    for (int64_t d = 0; d < t.getRank() - 2; ++d) {
      bool broadcast =
          t.getDimSize(d) == 1 && result.getDimSize(d + offset) != 1;
      dims.push_back(broadcast ? DimFactors{} : DimFactors{batch[d + offset]});
    }
    dims.push_back({row});
    dims.push_back({col});
    return dims;
  };
  rule.addOperand(operand(getLhs().getType(), m, k));
  rule.addOperand(operand(getRhs().getType(), k, n));
  TensorFactors out = each(batch);
  out.push_back({m});
  out.push_back({n});
  rule.addResult(std::move(out));
  return rule;
}

ShardingRule Conv2dOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType input = getInput().getType(), filter = getFilter().getType(),
                   result = getResult().getType();
  int64_t groups = getGroups();
  int nF = rule.addFactor(input.getDimSize(0), FactorKind::Parallel);
  int gF = addUnlessUnit(rule, groups, FactorKind::Parallel);
  int64_t o = filter.getDimSize(0);
  int ogF = addUnlessUnit(rule, ShapedType::isDynamic(o) ? o : o / groups,
                          FactorKind::Parallel);
  int cgF = addUnlessUnit(rule, filter.getDimSize(1), FactorKind::Reduction);
  TensorFactors in = {{nF}, compound({gF, cgF})};
  TensorFactors w = {compound({gF, ogF}), compound({cgF})};
  TensorFactors out = {{nF}, compound({gF, ogF})};
  for (int i = 0; i < 2; ++i) {
    bool identity = filter.getDimSize(2 + i) == 1 && getStrides()[i] == 1 &&
                    getPadding()[i] == 0 && getPadding()[2 + i] == 0;
    auto [fi, fo] = windowFactors(rule, input.getDimSize(2 + i),
                                  result.getDimSize(2 + i), identity);
    in.push_back({fi});
    out.push_back({fo});
  }
  for (int i = 0; i < 2; ++i)
    w.push_back(compound({addUnlessUnit(rule, filter.getDimSize(2 + i),
                                        FactorKind::Replicated)}));
  rule.addOperand(std::move(in));
  rule.addOperand(std::move(w));
  if (getBias())
    rule.addOperand({compound({gF, ogF})});
  rule.addResult(std::move(out));
  return rule;
}

/// Rule of a pool, and of its indices `withIndices`. The indices are
/// positions within each (n, c) plane: batch and channel shards compute
/// them as they are, but a shard of the plane would number its own
/// positions, so spatial dimensions stay whole even for identity windows.
static ShardingRule poolRule(RankedTensorType input, RankedTensorType result,
                             const PoolWindow &window,
                             bool withIndices = false) {
  ShardingRule rule;
  int nF = rule.addFactor(input.getDimSize(0), FactorKind::Parallel);
  int cF = rule.addFactor(input.getDimSize(1), FactorKind::Parallel);
  TensorFactors in = {{nF}, {cF}}, out = {{nF}, {cF}};
  size_t spatial = window.rank();
  for (size_t i = 0; i < spatial; ++i) {
    bool identity = !withIndices && window.kernel[i] == 1 &&
                    window.strides[i] == 1 && window.padding[i] == 0 &&
                    window.padding[spatial + i] == 0;
    auto [fi, fo] = windowFactors(rule, input.getDimSize(2 + i),
                                  result.getDimSize(2 + i), identity);
    in.push_back({fi});
    out.push_back({fo});
  }
  rule.addOperand(std::move(in));
  rule.addResult(out);
  if (withIndices)
    rule.addResult(out);
  return rule;
}

ShardingRule MaxPoolOp::getShardingRule() {
  return poolRule(getInput().getType(), getResult().getType(), getWindow());
}

ShardingRule MaxPoolWithIndicesOp::getShardingRule() {
  return poolRule(getInput().getType(), getResult().getType(), getWindow(),
                  /*withIndices=*/true);
}

ShardingRule AvgPoolOp::getShardingRule() {
  return poolRule(getInput().getType(), getResult().getType(), getWindow());
}

ShardingRule GlobalAvgPool2dOp::getShardingRule() {
  return getReduceShardingRule(getInput().getType(), {2, 3}, true,
                               ReductionKind::Mean);
}

ShardingRule GlobalMaxPool2dOp::getShardingRule() {
  return getReduceShardingRule(getInput().getType(), {2, 3}, true,
                               ReductionKind::Max);
}

static SmallVector<bool> onlyAxis(int64_t rank, int64_t axis) {
  SmallVector<bool> replicated(rank, false);
  replicated[axis] = true;
  return replicated;
}

ShardingRule SoftmaxOp::getShardingRule() {
  RankedTensorType t = getInput().getType();
  return dimwiseRule(t, onlyAxis(t.getRank(), getAxis()));
}

ShardingRule LogSoftmaxOp::getShardingRule() {
  RankedTensorType t = getInput().getType();
  return dimwiseRule(t, onlyAxis(t.getRank(), getAxis()));
}

ShardingRule LayerNormOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType t = getInput().getType();
  int64_t axis = getAxis();
  SmallVector<int> factors;
  for (int64_t d = 0; d < t.getRank(); ++d)
    factors.push_back(
        rule.addFactor(t.getDimSize(d), d >= axis ? FactorKind::Replicated
                                                  : FactorKind::Parallel));
  rule.addOperand(each(factors));
  TensorFactors normalized = each(ArrayRef<int>(factors).drop_front(axis));
  if (getScale())
    rule.addOperand(normalized);
  if (getBias())
    rule.addOperand(normalized);
  rule.addResult(each(factors));
  return rule;
}

ShardingRule BatchNormOp::getShardingRule() {
  ShardingRule rule;
  SmallVector<int> factors = parallelFactors(rule, getInput().getType());
  rule.addOperand(each(factors));
  for (int i = 0; i < 4; ++i)
    rule.addOperand({{factors[1]}});
  rule.addResult(each(factors));
  return rule;
}

ShardingRule CrossEntropyOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType logits = getLogits().getType();
  int64_t classAxis = getClassAxis();
  // Without ignore_index each shard's mean is over equally many positions,
  // so the mean of shard means is the mean. With it, shard counts differ.
  FactorKind positionKind =
      getIgnoreIndex() ? FactorKind::Replicated : FactorKind::Reduction;
  SmallVector<int> factors;
  for (int64_t d = 0; d < logits.getRank(); ++d)
    factors.push_back(
        d == classAxis
            ? rule.addFactor(logits.getDimSize(d), FactorKind::Replicated)
            : addUnlessUnit(rule, logits.getDimSize(d), positionKind,
                            ReductionKind::Mean));
  rule.addOperand(each(factors));
  SmallVector<int> labelFactors(factors);
  labelFactors.erase(labelFactors.begin() + classAxis);
  rule.addOperand(each(labelFactors));
  rule.addResult({});
  return rule;
}

ShardingRule GatherOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType data = getData().getType(), indices = getIndices().getType();
  int64_t axis = getAxis();
  SmallVector<int> dataF, indexF;
  // The gathered axis is a sum reduction: a device holding rows [lo, hi)
  // looks up the indices that fall there and yields zeros for the others,
  // so the devices' results add up to the lookup (Megatron's vocabulary-
  // parallel embedding; -dist-partition writes the masked lookup).
  for (int64_t d = 0; d < data.getRank(); ++d)
    dataF.push_back(
        rule.addFactor(data.getDimSize(d), d == axis ? FactorKind::Reduction
                                                     : FactorKind::Parallel));
  indexF = parallelFactors(rule, indices);
  rule.addOperand(each(dataF));
  rule.addOperand(each(indexF));
  SmallVector<int> out(ArrayRef<int>(dataF).take_front(axis));
  llvm::append_range(out, indexF);
  llvm::append_range(out, ArrayRef<int>(dataF).drop_front(axis + 1));
  rule.addResult(each(out));
  return rule;
}

ShardingRule ScatterAddOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType updates = getUpdates().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  int64_t axis = getAxis(), ir = indices.getRank();
  // The scattered positions are a sum reduction: the op is linear in its
  // updates, so devices holding some of the positions (a data-parallel
  // batch) produce partial results that add up. The scattered-into axis
  // stays whole: a device holding only some rows would have to drop the
  // updates that fall elsewhere.
  SmallVector<int> updateF, indexF, out;
  for (int64_t d = 0; d < updates.getRank(); ++d) {
    bool scattered = d >= axis && d < axis + ir;
    int f =
        rule.addFactor(updates.getDimSize(d), scattered ? FactorKind::Reduction
                                                        : FactorKind::Parallel);
    updateF.push_back(f);
    if (scattered)
      indexF.push_back(f);
    else
      out.push_back(f);
  }
  out.insert(out.begin() + axis,
             rule.addFactor(getResult().getType().getDimSize(axis),
                            FactorKind::Replicated));
  rule.addOperand(each(updateF));
  rule.addOperand(each(indexF));
  rule.addResult(each(out));
  return rule;
}

ShardingRule ReshapeOp::getShardingRule() {
  ShardingRule rule;
  ArrayRef<int64_t> a = getInput().getType().getShape();
  ArrayRef<int64_t> b = getResult().getType().getShape();
  TensorFactors in(a.size()), out(b.size());
  // Size-1 dimensions take no factor; the others are grouped into runs of
  // equal element count, and each run is refined into factors whose prefix
  // products hit every dimension boundary on both sides.
  SmallVector<size_t> ai, bi;
  for (size_t d = 0; d < a.size(); ++d)
    if (a[d] != 1)
      ai.push_back(d);
  for (size_t d = 0; d < b.size(); ++d)
    if (b[d] != 1)
      bi.push_back(d);
  auto replicate = [&](ArrayRef<size_t> dimsA, ArrayRef<size_t> dimsB) {
    for (size_t d : dimsA)
      in[d] = {rule.addFactor(a[d], FactorKind::Replicated)};
    for (size_t d : dimsB)
      out[d] = {rule.addFactor(b[d], FactorKind::Replicated)};
  };
  bool degenerate = llvm::any_of(a, [](int64_t d) { return d <= 0; }) ||
                    llvm::any_of(b, [](int64_t d) { return d <= 0; });
  size_t p = 0, q = 0;
  while (!degenerate && p < ai.size() && q < bi.size()) {
    size_t p0 = p, q0 = q;
    int64_t pa = a[ai[p++]], pb = b[bi[q++]];
    SmallVector<int64_t> boundaries = {pa, pb};
    while (pa != pb && (pa < pb ? p < ai.size() : q < bi.size())) {
      if (pa < pb)
        boundaries.push_back(pa *= a[ai[p++]]);
      else
        boundaries.push_back(pb *= b[bi[q++]]);
    }
    ArrayRef<size_t> groupA = ArrayRef<size_t>(ai).slice(p0, p - p0);
    ArrayRef<size_t> groupB = ArrayRef<size_t>(bi).slice(q0, q - q0);
    llvm::sort(boundaries);
    boundaries.erase(std::unique(boundaries.begin(), boundaries.end()),
                     boundaries.end());
    bool chain = pa == pb;
    for (size_t k = 1; k < boundaries.size(); ++k)
      chain &= boundaries[k] % boundaries[k - 1] == 0;
    if (!chain) {
      replicate(groupA, groupB);
      continue;
    }
    SmallVector<int> factors;
    int64_t prev = 1;
    for (int64_t boundary : boundaries) {
      factors.push_back(rule.addFactor(boundary / prev, FactorKind::Parallel));
      prev = boundary;
    }
    auto assign = [&](ArrayRef<int64_t> shape, ArrayRef<size_t> group,
                      TensorFactors &dims) {
      int64_t product = 1;
      size_t next = 0;
      for (size_t d : group) {
        product *= shape[d];
        while (next < boundaries.size() && boundaries[next] <= product)
          dims[d].push_back(factors[next++]);
      }
    };
    assign(a, groupA, in);
    assign(b, groupB, out);
  }
  replicate(ArrayRef<size_t>(ai).drop_front(p),
            ArrayRef<size_t>(bi).drop_front(q));
  rule.addOperand(std::move(in));
  rule.addResult(std::move(out));
  return rule;
}

ShardingRule TransposeOp::getShardingRule() {
  ShardingRule rule;
  SmallVector<int> factors = parallelFactors(rule, getInput().getType());
  rule.addOperand(each(factors));
  SmallVector<int> out;
  for (int64_t p : getPermutation())
    out.push_back(factors[p]);
  rule.addResult(each(out));
  return rule;
}

ShardingRule ConcatOp::getShardingRule() {
  RankedTensorType first =
      cast<RankedTensorType>(getInputs().front().getType());
  SmallVector<bool> same(first.getRank(), true);
  same[getAxis()] = false;
  SmallVector<RankedTensorType> rest;
  for (Value v : getInputs().drop_front())
    rest.push_back(cast<RankedTensorType>(v.getType()));
  return reshapedDimsRule(first, {getResult().getType()}, same, rest);
}

ShardingRule SliceOp::getShardingRule() {
  RankedTensorType in = getInput().getType();
  SmallVector<bool> same;
  for (int64_t d = 0; d < in.getRank(); ++d)
    same.push_back(getOffsets()[d] == 0 && getStrides()[d] == 1 &&
                   getSizes()[d] == in.getDimSize(d));
  return reshapedDimsRule(in, {getResult().getType()}, same);
}

ShardingRule SplitOp::getShardingRule() {
  RankedTensorType in = getInput().getType();
  SmallVector<bool> same(in.getRank(), true);
  same[getAxis()] = false;
  SmallVector<RankedTensorType> outs;
  for (Value v : getResults())
    outs.push_back(cast<RankedTensorType>(v.getType()));
  return reshapedDimsRule(in, outs, same);
}

ShardingRule PadOp::getShardingRule() {
  RankedTensorType in = getInput().getType();
  SmallVector<bool> same;
  for (int64_t d = 0; d < in.getRank(); ++d)
    same.push_back(getLow()[d] == 0 && getHigh()[d] == 0);
  return reshapedDimsRule(in, {getResult().getType()}, same);
}

ShardingRule SqueezeOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType in = getInput().getType();
  TensorFactors inDims, outDims;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (llvm::is_contained(getAxes(), d)) {
      inDims.push_back({});
      continue;
    }
    int f = rule.addFactor(in.getDimSize(d), FactorKind::Parallel);
    inDims.push_back({f});
    outDims.push_back({f});
  }
  rule.addOperand(std::move(inDims));
  rule.addResult(std::move(outDims));
  return rule;
}

ShardingRule UnsqueezeOp::getShardingRule() {
  ShardingRule rule;
  RankedTensorType out = getResult().getType();
  TensorFactors inDims, outDims;
  for (int64_t d = 0; d < out.getRank(); ++d) {
    if (llvm::is_contained(getAxes(), d)) {
      outDims.push_back({});
      continue;
    }
    int f = rule.addFactor(out.getDimSize(d), FactorKind::Parallel);
    inDims.push_back({f});
    outDims.push_back({f});
  }
  rule.addOperand(std::move(inDims));
  rule.addResult(std::move(outDims));
  return rule;
}

ShardingRule TriluOp::getShardingRule() {
  RankedTensorType t = getInput().getType();
  SmallVector<bool> replicated(t.getRank(), false);
  replicated[t.getRank() - 1] = replicated[t.getRank() - 2] = true;
  return dimwiseRule(t, replicated);
}
