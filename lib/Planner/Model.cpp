//===- Model.cpp - The planner's view of a model --------------------------===//

#include "Model.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/Dist/Megatron.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::planner;

//===----------------------------------------------------------------------===//
// Pricing
//===----------------------------------------------------------------------===//

namespace {
/// FLOP/s of `dtype`; Planner::plan checks the cluster has the peaks it
/// prices with (float32, and bfloat16 in mixed precision).
double peakFlops(const Cluster &c, llvm::StringRef dtype) {
  return c.device.peakTFLOPs.lookup(dtype) * 1e12;
}

double opOverhead(const Cluster &c) {
  // A kernel launch on a GPU; a loop entry on a CPU.
  return c.device.kind == "gpu" ? 4e-6 : 0.5e-6;
}
} // namespace

double Pricing::matmulSeconds(const Strategy &s, bool batchDependent) const {
  double k = batchDependent ? scale() : 1.0;
  double count = s.mmCount, m = s.mmM;
  if (s.mmScale == 1)
    count = std::max(1.0, count * k);
  else if (s.mmScale == 2)
    m = std::max(1.0, m * k);
  double flops = 2 * count * m * s.mmN * s.mmK;
  // Skinny products run like small ones.
  double size = std::cbrt(m * s.mmN * s.mmK);
  size = std::min(size, 8 * std::min({m, s.mmN, s.mmK}));
  const DeviceSpec &d = cluster->device;
  double rate;
  if (!mixed && !d.matmulTFLOPsBySize.empty()) {
    // Measured by `loomc calibrate`: interpolate in log(size).
    const auto &curve = d.matmulTFLOPsBySize;
    if (size <= curve.front().first) {
      rate = curve.front().second * size / curve.front().first;
    } else if (size >= curve.back().first) {
      rate = curve.back().second;
    } else {
      size_t i = 1;
      while (curve[i].first < size)
        ++i;
      double t = std::log(size / curve[i - 1].first) /
                 std::log(curve[i].first / curve[i - 1].first);
      rate = curve[i - 1].second + t * (curve[i].second - curve[i - 1].second);
    }
    rate *= 1e12;
  } else {
    rate = matmulPeak() * 0.85 * size / (size + 128);
  }
  double memory = s.bytes * floatBytesScale() * k /
                  (cluster->device.memoryBandwidthGBps * 1e9);
  return std::max(flops / rate, memory) + opOverhead(*cluster);
}

double Pricing::matmulPeak() const {
  return peakFlops(*cluster, mixed ? "bfloat16" : "float32");
}

double Pricing::opSeconds(const Strategy &s, bool batchDependent) const {
  if (s.matmul)
    return matmulSeconds(s, batchDependent);
  double k = batchDependent ? scale() : 1.0;
  if (s.flops == 0 && s.bytes == 0)
    return 0;
  double compute = s.flops * k / peakFlops(*cluster, "float32");
  double memory = s.bytes * floatBytesScale() * k /
                  (cluster->device.memoryBandwidthGBps * 1e9);
  return std::max(compute, memory) + opOverhead(*cluster);
}

double Pricing::backwardSeconds(const Strategy &s, bool batchDependent) const {
  // A matmul's backward is two matmuls of its size. A memory-bound op's
  // reads its saved inputs and the output gradient and writes the input
  // gradients (and reduces broadcast operands): three times its bytes.
  if (s.matmul)
    return 2 * matmulSeconds(s, batchDependent);
  double k = batchDependent ? scale() : 1.0;
  if (s.flops == 0 && s.bytes == 0)
    return 0;
  double compute = 2 * s.flops * k / peakFlops(*cluster, "float32");
  double memory = 3 * s.bytes * floatBytesScale() * k /
                  (cluster->device.memoryBandwidthGBps * 1e9);
  return std::max(compute, memory) + 2 * opOverhead(*cluster);
}

double Pricing::collective(CollectiveKind kind, double bytes,
                           SegmentCost *record, bool backward) const {
  double t = bestCollectiveTime(kind, tp, bytes, tpLink).seconds();
  if (record) {
    (backward ? record->tpBackward : record->tpForward) += t;
    CommVolume &c = record->comm[collectiveName(kind)];
    c.bytes += bytes;
    c.seconds += t;
    c.calls += 1;
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Building the graph
//===----------------------------------------------------------------------===//

namespace {
bool isView(Operation *op) {
  return isa<nn::ReshapeOp, nn::TransposeOp, nn::SqueezeOp, nn::UnsqueezeOp,
             nn::SplitOp, nn::SliceOp, nn::BroadcastToOp>(op);
}

/// `h.12.attn.c_attn.weight` -> ("h", 12); `wte.weight` -> ("wte", -1).
std::pair<std::string, int64_t> groupOf(llvm::StringRef name) {
  llvm::SmallVector<llvm::StringRef> parts;
  name.split(parts, '.');
  std::string prefix;
  for (size_t i = 0; i < parts.size(); ++i) {
    int64_t index;
    if (!parts[i].empty() && llvm::all_of(parts[i], llvm::isDigit) &&
        !parts[i].getAsInteger(10, index))
      return {prefix.empty() ? std::string("layer") : prefix, index};
    if (i + 1 == parts.size())
      break;
    if (!prefix.empty())
      prefix += ".";
    prefix += parts[i].str();
  }
  return {prefix.empty() ? name.str() : prefix, -1};
}
} // namespace

LogicalResult Model::build(func::FuncOp function) {
  fn = function;
  Block &body = fn.getBody().front();
  auto addValue = [&](Value v, ValueInfo info) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return success();
    if (!type.hasStaticShape()) {
      Operation *at = v.getDefiningOp();
      InFlightDiagnostic diag = at ? at->emitError() : fn.emitError();
      diag << "the planner needs static shapes; this value is " << type;
      if (!at)
        diag << " (argument " << cast<BlockArgument>(v).getArgNumber()
             << "; fix it with --input-shape)";
      return failure();
    }
    info.bytes = getTensorBytes(type);
    info.elements = type.getNumElements();
    info.isFloat = isa<FloatType>(type.getElementType());
    info.value = v;
    valueIds[v] = values.size();
    values.push_back(std::move(info));
    return success();
  };

  // The batch: dimension 0 of the first data input, as the data strategy.
  for (BlockArgument arg : fn.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (fn.getArgAttr(arg.getArgNumber(), nn::kParameterArgAttrName) || !type ||
        type.getRank() == 0)
      continue;
    if (ShapedType::isDynamic(type.getDimSize(0)))
      return fn.emitError()
             << "the planner needs the batch size: dimension 0 "
                "of argument "
             << arg.getArgNumber() << " is dynamic (fix it with --input-shape)";
    batch = type.getDimSize(0);
    break;
  }
  if (batch <= 0)
    return fn.emitError() << "the planner needs a batched input (dimension 0 "
                             "of a tensor argument): @"
                          << fn.getName() << " has none";

  for (BlockArgument arg : fn.getArguments()) {
    ValueInfo info;
    if (auto name = fn.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), nn::kParameterArgAttrName)) {
      info.kind = ValueInfo::Parameter;
      info.name = name.getValue().str();
    } else {
      info.kind = ValueInfo::Data;
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (type && type.getRank() > 0 && type.getDimSize(0) == batch)
        info.batchDim = 0;
    }
    if (failed(addValue(arg, info)))
      return failure();
  }

  std::string structure;
  llvm::raw_string_ostream hashText(structure);
  hashText << "batch " << batch << "\n";
  for (Operation &op : body.without_terminator()) {
    hashText << op.getName().getStringRef();
    for (Type t : op.getResultTypes())
      hashText << " " << t;
    for (NamedAttribute a : op.getAttrs())
      if (!isa<ElementsAttr>(a.getValue()) && a.getName() != "name")
        hashText << " " << a.getName().getValue() << "=" << a.getValue();
    hashText << "\n";
    if (auto param = dyn_cast<nn::ParameterOp>(op)) {
      ValueInfo info;
      info.kind = ValueInfo::Parameter;
      info.name = param.getName().str();
      if (failed(addValue(param.getResult(), info)))
        return failure();
      continue;
    }
    if (isa<nn::ConstantOp>(op)) {
      if (failed(addValue(op.getResult(0), ValueInfo{})))
        return failure();
      continue;
    }
    Node node;
    node.op = &op;
    int batchDim = -1;
    for (Value operand : op.getOperands()) {
      auto it = valueIds.find(operand);
      int id = it == valueIds.end() ? -1 : it->second;
      node.operands.push_back(id);
      if (id < 0)
        continue;
      const ValueInfo &v = values[id];
      bool dependent = v.batchDim >= 0 || v.kind == ValueInfo::Activation;
      if (dependent && !node.batchDependent) {
        node.batchDependent = true;
        batchDim = -2; // dependent, dimension unknown yet
      }
      if (v.batchDim >= 0 && batchDim == -2)
        batchDim = node.operands.size() - 1; // operand index, resolved below
    }
    // Follow the batch factor through the op's rule.
    std::optional<ShardingRule> rule;
    if (auto r = dyn_cast<ShardingRuleOpInterface>(op))
      rule = r.getShardingRule();
    int batchFactor = -1;
    if (batchDim >= 0 && rule) {
      const ValueInfo &v = values[node.operands[batchDim]];
      if (batchDim < (int)rule->getOperands().size() &&
          v.batchDim < (int)rule->getOperands()[batchDim].size() &&
          !rule->getOperands()[batchDim][v.batchDim].empty())
        batchFactor = rule->getOperands()[batchDim][v.batchDim][0];
    }
    for (auto [r, result] : llvm::enumerate(op.getResults())) {
      ValueInfo info;
      info.kind =
          node.batchDependent ? ValueInfo::Activation : ValueInfo::Constant;
      info.producer = nodes.size();
      info.view = isView(&op);
      if (batchFactor >= 0 && r < rule->getResults().size()) {
        const TensorFactors &dims = rule->getResults()[r];
        for (auto [d, factors] : llvm::enumerate(dims))
          if (!factors.empty() && factors[0] == batchFactor)
            info.batchDim = d;
      }
      if (failed(addValue(result, info)))
        return failure();
      auto it = valueIds.find(result);
      node.results.push_back(it == valueIds.end() ? -1 : it->second);
    }
    for (auto [k, id] : llvm::enumerate(node.operands))
      if (id >= 0)
        values[id].uses.push_back({(int)nodes.size(), (int)k});
    nodes.push_back(std::move(node));
  }
  hash = llvm::xxh3_64bits(structure);

  for (const ValueInfo &v : values)
    if (v.kind == ValueInfo::Parameter)
      numParameters += v.elements;
  buildSegments();
  return success();
}

void Model::buildSegments() {
  int n = nodes.size();
  // Activations live across the cut after node i (def <= i < last use).
  std::vector<int> live(n + 1, 0);
  std::vector<std::pair<int, int>> spans(values.size(), {0, -1});
  for (auto [id, v] : llvm::enumerate(values)) {
    if (v.kind != ValueInfo::Activation &&
        !(v.kind == ValueInfo::Data && v.batchDim >= 0))
      continue;
    if (v.uses.empty())
      continue;
    int def = v.producer;
    int last = v.uses.back().first;
    spans[id] = {def, last};
    if (def + 1 <= last) {
      live[std::max(def, 0)] += 1;
      live[last] -= 1;
    }
  }
  int running = 0;
  int start = 0;
  auto close = [&](int end, int boundary) {
    Segment seg;
    seg.begin = start;
    seg.end = end;
    seg.boundary = boundary;
    segments.push_back(seg);
    start = end;
  };
  for (int i = 0; i < n; ++i) {
    running += live[i];
    if (!nodes[i].batchDependent || i + 1 == n || running != 1)
      continue;
    // Close only segments that compute something of their own or hold
    // parameters (an embedding).
    bool heavy = false;
    for (int j = start; j <= i && !heavy; ++j) {
      heavy = isa<nn::MatmulOp, nn::Conv2dOp>(nodes[j].op);
      for (int id : nodes[j].operands)
        heavy |= id >= 0 && values[id].kind == ValueInfo::Parameter &&
                 values[id].uses.front().first == j;
    }
    if (!heavy)
      continue;
    int boundary = -1;
    for (auto [id, span] : llvm::enumerate(spans))
      if (span.first <= i && i < span.second)
        boundary = id;
    close(i + 1, boundary);
  }
  if (start < n || segments.empty())
    close(n, -1);

  for (Segment &seg : segments) {
    std::string text;
    llvm::raw_string_ostream os(text);
    for (int i = seg.begin; i < seg.end; ++i) {
      os << nodes[i].op->getName().getStringRef();
      for (Type t : nodes[i].op->getResultTypes())
        os << " " << t;
      for (NamedAttribute a : nodes[i].op->getAttrs())
        if (!isa<ElementsAttr>(a.getValue()))
          os << " " << a.getName().getValue() << "=" << a.getValue();
      for (int id : nodes[i].operands) {
        if (id < 0) {
          os << " -";
          continue;
        }
        const ValueInfo &v = values[id];
        if (v.producer >= seg.begin && v.producer < i)
          os << " n" << (v.producer - seg.begin);
        else
          os << " k" << (int)v.kind << "/" << v.bytes << "/" << v.batchDim;
      }
      os << "\n";
    }
    seg.structure = llvm::xxh3_64bits(text);
  }

  std::string previous = "input";
  int64_t previousIndex = -1;
  for (auto [k, seg] : llvm::enumerate(segments)) {
    std::string group;
    int64_t index = -1;
    for (int i = seg.begin; i < seg.end; ++i) {
      nodes[i].segment = k;
      seg.hasMatmul |= isa<nn::MatmulOp, nn::Conv2dOp>(nodes[i].op);
      for (int id : nodes[i].operands) {
        if (id < 0 || values[id].kind != ValueInfo::Parameter ||
            values[id].uses.front().first != i)
          continue;
        seg.parameters += values[id].elements;
        if (group.empty())
          std::tie(group, index) = groupOf(values[id].name);
      }
    }
    if (group.empty()) {
      group = previous;
      index = previousIndex;
    }
    seg.group = group;
    seg.groupIndex = index;
    previous = group;
    previousIndex = index;
  }
}

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

namespace {
void fillMatmul(Strategy &s, nn::MatmulOp mm, RankedTensorType lhs,
                RankedTensorType rhs, int lhsBatchDim) {
  s.matmul = true;
  int64_t rank = lhs.getRank();
  s.mmM = rank >= 2 ? lhs.getDimSize(rank - 2) : 1;
  s.mmK = lhs.getDimSize(rank - 1);
  s.mmN = rhs.getRank() >= 2 ? rhs.getDimSize(rhs.getRank() - 1) : 1;
  s.mmCount = 1;
  for (int64_t d = 0; d + 2 < rank; ++d)
    s.mmCount *= lhs.getDimSize(d);
  if (rhs.getRank() <= 2) {
    // One GEMM over every row.
    s.mmM *= s.mmCount;
    s.mmCount = 1;
    s.mmScale = lhsBatchDim >= 0 ? 2 : 0;
  } else {
    s.mmScale = lhsBatchDim < 0 ? 0 : lhsBatchDim == rank - 2 ? 2 : 1;
  }
}

RankedTensorType divided(Type t, Layout l, int64_t tp) {
  auto type = cast<RankedTensorType>(t);
  if (l.kind != Layout::Sharded)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  shape[l.dim] /= tp;
  return RankedTensorType::get(shape, type.getElementType());
}
} // namespace

const std::vector<SmallVector<Strategy, 4>> &Model::strategies(int64_t tp) {
  auto found = strategyCache.find(tp);
  if (found != strategyCache.end())
    return found->second;
  std::vector<SmallVector<Strategy, 4>> all(nodes.size());
  for (auto [i, node] : llvm::enumerate(nodes)) {
    Operation *op = node.op;
    auto costOp = dyn_cast<CostOpInterface>(op);
    auto price = [&](Strategy &s) {
      SmallVector<Type> operandTypes, resultTypes;
      for (auto [k, t] : llvm::enumerate(op->getOperandTypes()))
        operandTypes.push_back(isa<RankedTensorType>(t) && k < s.operands.size()
                                   ? divided(t, s.operands[k], tp)
                                   : t);
      for (auto [k, t] : llvm::enumerate(op->getResultTypes()))
        resultTypes.push_back(isa<RankedTensorType>(t) && k < s.results.size()
                                  ? divided(t, s.results[k], tp)
                                  : t);
      FailureOr<OpCost> cost = failure();
      if (costOp)
        cost = costOp.computeCost(operandTypes, resultTypes);
      if (succeeded(cost)) {
        s.flops = cost->flops + 4 * cost->transcendentals;
        s.bytes = cost->bytesRead + cost->bytesWritten;
      }
      if (auto mm = dyn_cast<nn::MatmulOp>(op)) {
        int lhs = node.operands[0];
        fillMatmul(s, mm, cast<RankedTensorType>(operandTypes[0]),
                   cast<RankedTensorType>(operandTypes[1]),
                   lhs >= 0 ? values[lhs].batchDim : -1);
      }
    };
    Strategy whole;
    whole.operands.assign(op->getNumOperands(), Layout{});
    whole.results.assign(op->getNumResults(), Layout{});
    price(whole);
    all[i].push_back(whole);
    auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
    if (tp == 1 || !node.batchDependent || !ruleOp)
      continue;
    ShardingRule rule = ruleOp.getShardingRule();
    if (rule.getOperands().size() != op->getNumOperands() ||
        rule.getResults().size() != op->getNumResults())
      continue;
    auto place = [&](const TensorFactors &dims,
                     int f) -> std::optional<Layout> {
      for (auto [d, factors] : llvm::enumerate(dims)) {
        auto at = llvm::find(factors, f);
        if (at == factors.end())
          continue;
        // Only the major factor of a dimension splits it in blocks.
        for (auto g = factors.begin(); g != at; ++g)
          if (rule.getFactor(*g).size != 1)
            return std::nullopt;
        return Layout{Layout::Sharded, (int8_t)d};
      }
      return Layout{};
    };
    for (int f = 0; f < rule.getNumFactors(); ++f) {
      const ShardingFactor &factor = rule.getFactor(f);
      if (factor.kind == FactorKind::Replicated || factor.size < tp ||
          factor.size % tp != 0 ||
          (factor.kind == FactorKind::Reduction &&
           factor.reduction != ReductionKind::Sum))
        continue;
      Strategy s;
      s.factor = f;
      bool ok = true;
      for (const TensorFactors &dims : rule.getOperands()) {
        std::optional<Layout> l = place(dims, f);
        ok &= l.has_value();
        s.operands.push_back(l.value_or(Layout{}));
      }
      for (const TensorFactors &dims : rule.getResults()) {
        std::optional<Layout> l = place(dims, f);
        ok &= l.has_value();
        Layout r = l.value_or(Layout{});
        if (r.kind == Layout::Replicated)
          r.kind = factor.kind == FactorKind::Reduction ? Layout::Partial
                                                        : Layout::Replicated;
        s.results.push_back(r);
      }
      // Integer operands (indices) cannot be summed over.
      for (auto [k, l] : llvm::enumerate(s.operands))
        if (l.kind == Layout::Sharded && node.operands[k] >= 0 &&
            !values[node.operands[k]].isFloat &&
            factor.kind == FactorKind::Reduction)
          ok = false;
      if (!ok)
        continue;
      price(s);
      all[i].push_back(s);
    }
  }
  return strategyCache[tp] = std::move(all);
}

//===----------------------------------------------------------------------===//
// Pricing an assignment
//===----------------------------------------------------------------------===//

double Model::valueBytes(const Pricing &p, int v) const {
  const ValueInfo &info = values[v];
  double bytes = info.bytes * (info.isFloat ? p.floatBytesScale() : 1.0);
  if (info.kind == ValueInfo::Activation || info.batchDim >= 0)
    bytes *= p.scale();
  return bytes;
}

double Model::edgeSeconds(const Pricing &p, int v, Layout from, Layout to,
                          SegmentCost *record) {
  if (from == to)
    return 0;
  double bytes = valueBytes(p, v);
  bool backward = p.train && values[v].needsGrad();
  std::optional<CollectiveKind> fwd, bwd;
  using K = Layout::Kind;
  if (from.kind == K::Partial) {
    if (to.kind == K::Replicated) {
      fwd = CollectiveKind::AllReduce;
    } else {
      fwd = CollectiveKind::ReduceScatter;
      bwd = CollectiveKind::AllGather;
    }
  } else if (from.kind == K::Sharded && to.kind == K::Replicated) {
    fwd = CollectiveKind::AllGather;
    bwd = CollectiveKind::ReduceScatter;
  } else if (from.kind == K::Replicated && to.kind == K::Sharded) {
    bwd = CollectiveKind::AllGather;
  } else if (from.kind == K::Sharded && to.kind == K::Sharded) {
    fwd = bwd = CollectiveKind::AllToAll;
  }
  double seconds = 0;
  if (fwd)
    seconds += p.collective(*fwd, bytes, record, /*backward=*/false);
  if (bwd && backward)
    seconds += p.collective(*bwd, bytes, record, /*backward=*/true);
  return seconds;
}

double Model::nodeSeconds(const Pricing &p, int i, const Strategy &s) {
  const Node &node = nodes[i];
  double forward = p.opSeconds(s, node.batchDependent);
  double t = forward;
  if (!p.train || !node.batchDependent)
    return t;
  t += p.backwardSeconds(s, node.batchDependent);
  return t + partialGradientSeconds(p, i, s, nullptr);
}

double Model::partialGradientSeconds(const Pricing &p, int i, const Strategy &s,
                                     SegmentCost *record) {
  // A whole operand of a split op gets partial gradients: an all-reduce.
  if (!p.train || !nodes[i].batchDependent || s.factor < 0)
    return 0;
  double t = 0;
  for (auto [k, id] : llvm::enumerate(nodes[i].operands))
    if (id >= 0 && values[id].needsGrad() &&
        s.operands[k].kind == Layout::Replicated)
      t += p.collective(CollectiveKind::AllReduce, valueBytes(p, id), record,
                        /*backward=*/true);
  return t;
}

std::optional<Layout> Model::producedLayout(int64_t tp,
                                            const std::vector<int> &choice,
                                            int v, int user) {
  const ValueInfo &info = values[v];
  const auto &all = strategies(tp);
  if (v == entering)
    return enteringLayout;
  switch (info.kind) {
  case ValueInfo::Data:
  case ValueInfo::Constant:
    return std::nullopt;
  case ValueInfo::Parameter: {
    auto [first, operand] = info.uses.front();
    if (first == user)
      return std::nullopt;
    return all[first][choice[first]].operands[operand];
  }
  case ValueInfo::Activation: {
    const Node &producer = nodes[info.producer];
    for (auto [r, id] : llvm::enumerate(producer.results))
      if (id == v)
        return all[info.producer][choice[info.producer]].results[r];
    return std::nullopt;
  }
  }
  return std::nullopt;
}

double Model::localSeconds(const Pricing &p, std::vector<int> &choice, int i,
                           int s) {
  int saved = choice[i];
  choice[i] = s;
  const auto &all = strategies(p.tp);
  const Strategy &st = all[i][s];
  double t = nodeSeconds(p, i, st);
  const Node &node = nodes[i];
  for (auto [k, v] : llvm::enumerate(node.operands)) {
    if (v < 0)
      continue;
    if (std::optional<Layout> from = producedLayout(p.tp, choice, v, i))
      t += edgeSeconds(p, v, *from, st.operands[k]);
    // This node stores the parameter for its other users.
    const ValueInfo &info = values[v];
    if (info.kind == ValueInfo::Parameter && info.uses.front().first == i)
      for (auto [u, operand] : llvm::drop_begin(info.uses))
        t += edgeSeconds(p, v, st.operands[k],
                         all[u][choice[u]].operands[operand]);
  }
  for (auto [r, v] : llvm::enumerate(node.results)) {
    if (v < 0)
      continue;
    for (auto [u, operand] : values[v].uses)
      if (inScope(u))
        t += edgeSeconds(p, v, st.results[r],
                         all[u][choice[u]].operands[operand]);
    if (v == leaving)
      t += edgeSeconds(p, v, st.results[r], leavingLayout);
  }
  choice[i] = saved;
  return t;
}

double Model::incomingSeconds(const Pricing &p, const std::vector<int> &choice,
                              int i) {
  const Strategy &st = strategies(p.tp)[i][choice[i]];
  double t = nodeSeconds(p, i, st);
  for (auto [k, v] : llvm::enumerate(nodes[i].operands))
    if (v >= 0)
      if (std::optional<Layout> from = producedLayout(p.tp, choice, v, i))
        t += edgeSeconds(p, v, *from, st.operands[k]);
  for (auto [r, v] : llvm::enumerate(nodes[i].results))
    if (v >= 0 && v == leaving)
      t += edgeSeconds(p, v, st.results[r], leavingLayout);
  return t;
}

int Model::bestIncoming(const Pricing &p, std::vector<int> &choice, int i) {
  int bestIndex = 0;
  double best = INFINITY;
  for (size_t s = 0; s < strategies(p.tp)[i].size(); ++s) {
    choice[i] = s;
    double t = incomingSeconds(p, choice, i);
    if (t < best * (1 - 1e-9)) {
      best = t;
      bestIndex = s;
    }
  }
  return choice[i] = bestIndex;
}

double Model::totalSeconds(const Pricing &p, const std::vector<int> &choice) {
  double t = 0;
  for (size_t i = 0; i < nodes.size(); ++i)
    t += incomingSeconds(p, choice, i);
  return t;
}

std::vector<int> Model::greedy(const Pricing &p,
                               const std::vector<int> *forced) {
  std::vector<int> choice(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (forced && (*forced)[i] >= 0)
      choice[i] = (*forced)[i];
    else
      bestIncoming(p, choice, i);
  }
  return choice;
}

double Model::solveSegment(const Pricing &p, int k, std::optional<Layout> in,
                           std::optional<Layout> out,
                           std::vector<int> &choice) {
  const Segment &seg = segments[k];
  scopeBegin = seg.begin;
  scopeEnd = seg.end;
  entering = in && k > 0 ? segments[k - 1].boundary : -1;
  enteringLayout = in.value_or(Layout{});
  leaving = out ? seg.boundary : -1;
  leavingLayout = out.value_or(Layout{});
  // Greedy in program order, then descent, inside the segment.
  for (int i = seg.begin; i < seg.end; ++i)
    bestIncoming(p, choice, i);
  refine(p, choice, std::vector<bool>(nodes.size(), false));
  double cost = 0;
  for (int i = seg.begin; i < seg.end; ++i)
    cost += incomingSeconds(p, choice, i);
  scopeBegin = scopeEnd = entering = leaving = -1;
  return cost;
}

std::vector<int> Model::chainProgramme(const Pricing &p,
                                       const std::vector<int> &start) {
  int numSegments = segments.size();
  // The layouts a boundary may take.
  auto options = [&](int k) {
    std::vector<std::optional<Layout>> list;
    int v = segments[k].boundary;
    if (k + 1 == numSegments || v < 0) {
      list.push_back(std::nullopt); // the model's output: as produced
      return list;
    }
    list.push_back(Layout{});
    auto type = cast<RankedTensorType>(values[v].value.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) % p.tp == 0 && type.getDimSize(d) >= p.tp)
        list.push_back(Layout{Layout::Sharded, (int8_t)d});
    return list;
  };
  struct Solved {
    double cost;
    std::vector<int> local;
  };
  std::map<std::tuple<uint64_t, int, int, int, int>, Solved> memo;
  auto key = [](std::optional<Layout> l) {
    return l ? std::make_pair((int)l->kind, (int)l->dim)
             : std::make_pair(-1, -1);
  };
  std::vector<int> scratch = start;
  auto solve = [&](int k, std::optional<Layout> in,
                   std::optional<Layout> out) -> const Solved & {
    auto [ik, id] = key(in);
    auto [ok, od] = key(out);
    auto mk = std::make_tuple(segments[k].structure, ik * 16 + id, ok * 16 + od,
                              k == 0 ? 1 : 0, k + 1 == numSegments ? 1 : 0);
    auto it = memo.find(mk);
    if (it != memo.end())
      return it->second;
    double cost = solveSegment(p, k, in, out, scratch);
    Solved s{cost, std::vector<int>(scratch.begin() + segments[k].begin,
                                    scratch.begin() + segments[k].end)};
    return memo[mk] = std::move(s);
  };
  // best[k][b]: the cheapest chain up to segment k leaving in option b.
  std::vector<std::vector<double>> best(numSegments);
  std::vector<std::vector<int>> from(numSegments);
  std::vector<std::vector<std::optional<Layout>>> opts(numSegments);
  for (int k = 0; k < numSegments; ++k) {
    opts[k] = options(k);
    best[k].assign(opts[k].size(), INFINITY);
    from[k].assign(opts[k].size(), -1);
    for (size_t b = 0; b < opts[k].size(); ++b) {
      if (k == 0) {
        best[k][b] = solve(k, std::nullopt, opts[k][b]).cost;
        continue;
      }
      for (size_t a = 0; a < opts[k - 1].size(); ++a) {
        double c = best[k - 1][a] + solve(k, opts[k - 1][a], opts[k][b]).cost;
        if (c < best[k][b]) {
          best[k][b] = c;
          from[k][b] = a;
        }
      }
    }
  }
  std::vector<int> choice = start;
  int b = std::min_element(best.back().begin(), best.back().end()) -
          best.back().begin();
  for (int k = numSegments - 1; k >= 0; --k) {
    std::optional<Layout> in;
    if (k > 0)
      in = opts[k - 1][from[k][b]];
    const Solved &s = solve(k, in, opts[k][b]);
    std::copy(s.local.begin(), s.local.end(),
              choice.begin() + segments[k].begin);
    if (k > 0)
      b = from[k][b];
  }
  return choice;
}

void Model::refine(const Pricing &p, std::vector<int> &choice,
                   const std::vector<bool> &fixed) {
  const auto &all = strategies(p.tp);
  for (int sweep = 0; sweep < 12; ++sweep) {
    bool changed = false;
    int begin = scopeBegin < 0 ? 0 : scopeBegin;
    int end = scopeBegin < 0 ? nodes.size() : scopeEnd;
    for (int i = begin; i < end; ++i) {
      if (fixed[i] || all[i].size() < 2)
        continue;
      double current = localSeconds(p, choice, i, choice[i]);
      int bestIndex = choice[i];
      double best = current;
      for (size_t s = 0; s < all[i].size(); ++s) {
        if ((int)s == choice[i])
          continue;
        double t = localSeconds(p, choice, i, s);
        if (t < best - 1e-12 - 1e-9 * best) {
          best = t;
          bestIndex = s;
        }
      }
      if (bestIndex != choice[i]) {
        choice[i] = bestIndex;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
}

namespace {
constexpr int kCacheVersion = 1;

std::string cachePath(const std::string &dir, uint64_t graph,
                      const std::string &key) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(
      path, llvm::formatv(
                "{0:x-16}-{1:x-16}.json", graph,
                llvm::xxh3_64bits(key + "/v" + std::to_string(kCacheVersion)))
                .str());
  return std::string(path);
}
} // namespace

/// Reads assignments cached for this graph and key; empty when absent or
/// not valid for this graph's strategies.
static std::vector<Assignment>
readCached(const std::string &path, size_t numNodes,
           const std::vector<SmallVector<Strategy, 4>> &all) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return {};
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return {};
  }
  std::vector<Assignment> result;
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Array *list = root ? root->getArray("candidates") : nullptr;
  if (!list)
    return {};
  for (const llvm::json::Value &entry : *list) {
    const llvm::json::Object *o = entry.getAsObject();
    const llvm::json::Array *choice = o ? o->getArray("choice") : nullptr;
    std::optional<llvm::StringRef> name =
        o ? o->getString("name") : std::nullopt;
    if (!choice || !name || choice->size() != numNodes)
      return {};
    Assignment a{name->str(), {}};
    for (auto [i, v] : llvm::enumerate(*choice)) {
      std::optional<int64_t> s = v.getAsInteger();
      if (!s || *s < 0 || *s >= (int64_t)all[i].size())
        return {};
      a.choice.push_back(*s);
    }
    result.push_back(std::move(a));
  }
  return result;
}

static void writeCached(const std::string &path,
                        const std::vector<Assignment> &assignments) {
  llvm::json::Array list;
  for (const Assignment &a : assignments) {
    llvm::json::Array choice;
    for (int c : a.choice)
      choice.push_back(c);
    list.push_back(
        llvm::json::Object{{"name", a.name}, {"choice", std::move(choice)}});
  }
  llvm::json::Object root{{"version", kCacheVersion},
                          {"candidates", std::move(list)}};
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return;
  // Written whole or not at all; a cache that cannot be written is skipped.
  if (llvm::Error error =
          llvm::writeToOutput(path, [&](llvm::raw_ostream &os) -> llvm::Error {
            os << llvm::json::Value(std::move(root));
            return llvm::Error::success();
          }))
    llvm::consumeError(std::move(error));
}

const std::vector<Assignment> &Model::candidates(const Pricing &p,
                                                 bool megatronOnly,
                                                 const std::string &cacheDir) {
  std::string key = llvm::formatv("{0}/{1}/{2}/{3}/{4}/{5}/{6}", p.tp,
                                  p.tpLink.bandwidthGBps, p.tpLink.latencyUs,
                                  p.mixed, p.train, megatronOnly, p.microbatch)
                        .str();
  auto found = candidateCache.find(key);
  if (found != candidateCache.end())
    return found->second;
  std::vector<Assignment> result;
  if (p.tp == 1) {
    result.push_back({"none", std::vector<int>(nodes.size(), 0)});
    return candidateCache[key] = std::move(result);
  }
  const auto &all = strategies(p.tp);
  std::string path = cacheDir.empty() ? "" : cachePath(cacheDir, hash, key);
  if (!path.empty()) {
    result = readCached(path, nodes.size(), all);
    if (!result.empty()) {
      ++cached;
      return candidateCache[key] = std::move(result);
    }
  }
  ++searched;
  // Megatron's pairing: weight matmuls fixed column or row, the rest fitted.
  llvm::DenseMap<Operation *, int> dims = dist::megatronWeightDims(fn);
  std::vector<int> forced(nodes.size(), -1);
  std::vector<bool> fixed(nodes.size(), false);
  for (auto [i, node] : llvm::enumerate(nodes)) {
    auto mm = dyn_cast<nn::MatmulOp>(node.op);
    if (!mm)
      continue;
    int v = node.operands[1];
    bool weight =
        v >= 0 &&
        (values[v].kind == ValueInfo::Parameter ||
         (values[v].kind == ValueInfo::Constant && values[v].isFloat));
    auto it = dims.find(node.op);
    if (it == dims.end()) {
      if (weight) {
        forced[i] = 0;
        fixed[i] = true;
      }
      continue;
    }
    for (auto [s, st] : llvm::enumerate(all[i]))
      if (st.operands[1] == Layout{Layout::Sharded, (int8_t)it->second}) {
        forced[i] = s;
        fixed[i] = true;
      }
  }
  std::vector<int> megatron = greedy(p, &forced);
  refine(p, megatron, fixed);
  result.push_back({"megatron", megatron});
  if (!megatronOnly) {
    std::vector<bool> none(nodes.size(), false);
    std::vector<int> best;
    double bestTime = INFINITY;
    auto consider = [&](std::vector<int> seed) {
      refine(p, seed, none);
      double t = totalSeconds(p, seed);

      if (t < bestTime) {
        bestTime = t;
        best = std::move(seed);
      }
    };
    consider(greedy(p, nullptr));
    consider(chainProgramme(p, std::vector<int>(nodes.size(), 0)));
    consider(megatron);
    consider(std::vector<int>(nodes.size(), 0));
    if (best != megatron)
      result.push_back({"searched", best});
  }
  if (!path.empty())
    writeCached(path, result);
  return candidateCache[key] = std::move(result);
}

std::vector<SegmentCost> Model::segmentCosts(const Pricing &p,
                                             const Assignment &a) {
  const auto &all = strategies(p.tp);
  std::vector<int> choice = a.choice;
  const auto &whole = strategies(1);
  std::vector<SegmentCost> costs(segments.size());
  auto localBytes = [&](int v, Layout l) {
    double b = valueBytes(p, v);
    return l.kind == Layout::Sharded ? b / p.tp : b;
  };
  for (auto [k, seg] : llvm::enumerate(segments)) {
    SegmentCost &c = costs[k];
    llvm::DenseSet<int> inputs;
    for (int i = seg.begin; i < seg.end; ++i) {
      const Node &node = nodes[i];
      const Strategy &st = all[i][choice[i]];
      double forward = p.opSeconds(st, node.batchDependent);
      c.forward += forward;
      if (p.train && node.batchDependent)
        c.backward += p.backwardSeconds(st, node.batchDependent);
      partialGradientSeconds(p, i, st, &c);
      const Strategy &w = whole[i][0];
      double global = w.flops; // a matmul's Cost counts 2 m n k
      c.forwardFlops += global * (node.batchDependent ? p.scale() : 1.0);
      for (auto [o, v] : llvm::enumerate(node.operands)) {
        if (v < 0)
          continue;
        const ValueInfo &info = values[v];
        if (std::optional<Layout> from = producedLayout(p.tp, choice, v, i))
          edgeSeconds(p, v, *from, st.operands[o], &c);
        if (info.kind == ValueInfo::Parameter && info.uses.front().first == i)
          c.parameters += info.elements /
                          (st.operands[o].kind == Layout::Sharded ? p.tp : 1);
        if ((info.kind == ValueInfo::Activation || info.batchDim >= 0) &&
            (info.producer < seg.begin) && inputs.insert(v).second)
          c.inputBytes += localBytes(v, Layout{});
      }
      if (!node.batchDependent)
        continue;
      for (auto [r, v] : llvm::enumerate(node.results))
        if (v >= 0 && !values[v].view)
          c.peakActivations += localBytes(v, st.results[r]);
    }
    c.savedActivations = p.train ? c.peakActivations : 0;
    if (seg.boundary >= 0) {
      std::optional<Layout> l = producedLayout(p.tp, choice, seg.boundary, -1);
      c.boundaryBytes = localBytes(seg.boundary, l.value_or(Layout{}));
    }
  }
  return costs;
}

llvm::DenseMap<Operation *, int> Model::weightDims(int64_t tp,
                                                   const Assignment &a) {
  llvm::DenseMap<Operation *, int> dims;
  if (tp == 1)
    return dims;
  const auto &all = strategies(tp);
  for (auto [i, node] : llvm::enumerate(nodes)) {
    if (!isa<nn::MatmulOp>(node.op) || node.operands[1] < 0)
      continue;
    Layout l = all[i][a.choice[i]].operands[1];
    if (l.kind == Layout::Sharded &&
        cast<RankedTensorType>(node.op->getOperand(1).getType()).getRank() == 2)
      dims[node.op] = l.dim;
  }
  return dims;
}
