//===- Model.cpp - The planner's view of a model --------------------------===//
//
// Building the graph from a forward function (values, their roles and
// bytes, the layers cut where one activation crosses) and each op's
// tensor-parallel strategies from its sharding rule and cost. Search.cpp
// prices and chooses among them.
//
//===----------------------------------------------------------------------===//

#include "Model.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Dialect/NN/NNParameterArgs.h"
#include "loom/Interfaces/Interfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace loom;
using namespace loom::planner;

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
    batch = graphBatch = type.getDimSize(0);
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
  findAttention();
  findSaved();
  return success();
}

void Model::findSaved() {
  // What each op's gradient reads (the rules of NNGradients.cpp, in
  // bytes): nothing for linear ops; the other operand of a product; the
  // result of softmax and of exp-like functions; the operands otherwise.
  auto linear = [](Operation *op) {
    return isa<nn::NegOp, nn::AddOp, nn::SubOp, nn::CastOp, nn::ReduceSumOp,
               nn::ReduceMeanOp, nn::ConcatOp, nn::SliceOp, nn::SplitOp,
               nn::BroadcastToOp, nn::ReshapeOp, nn::TransposeOp, nn::SqueezeOp,
               nn::UnsqueezeOp, nn::PadOp, nn::AvgPoolOp, nn::GatherOp,
               nn::WhereOp, nn::CompareOp, nn::TriluOp>(op);
  };
  auto readsResult = [](Operation *op) {
    return isa<nn::SoftmaxOp, nn::LogSoftmaxOp, nn::ExpOp, nn::SigmoidOp,
               nn::TanhOp, nn::SqrtOp, nn::RsqrtOp, nn::ReciprocalOp>(op);
  };
  auto needsGrad = [&](int v) { return v >= 0 && values[v].needsGrad(); };
  auto mark = [&](int v) {
    if (v >= 0 && values[v].kind == ValueInfo::Activation)
      saved[v] = true;
  };
  saved.assign(values.size(), false);
  // Users before producers: a view's source is kept when the view is.
  for (int i = nodes.size() - 1; i >= 0; --i) {
    const Node &node = nodes[i];
    for (int r : node.results)
      if (r >= 0 && saved[r] && values[r].view && !node.operands.empty() &&
          node.operands[0] >= 0)
        saved[node.operands[0]] = true;
    if (linear(node.op) || !node.batchDependent)
      continue;
    if (readsResult(node.op)) {
      for (int r : node.results)
        mark(r);
      continue;
    }
    if (isa<nn::MatmulOp, nn::MulOp, nn::Conv2dOp>(node.op) &&
        node.operands.size() == 2) {
      // d(a b) = da b + a db: each operand for the other's gradient.
      if (needsGrad(node.operands[1]))
        mark(node.operands[0]);
      if (needsGrad(node.operands[0]))
        mark(node.operands[1]);
      continue;
    }
    if (isa<nn::DivOp>(node.op) && node.operands.size() == 2) {
      // d(a / b) = da / b - a db / b^2.
      if (needsGrad(node.operands[1]))
        mark(node.operands[0]);
      mark(node.operands[1]);
      continue;
    }
    for (int v : node.operands)
      mark(v);
  }
}

void Model::findAttention() {
  // softmax(Q K^T) V: a product of two activations whose result is square
  // in its last two dimensions, a chain of single-use ops of that shape,
  // and a product taking the chain's end as its left operand.
  attention.assign(nodes.size(), AttentionRole::None);
  auto isActivation = [&](int v) {
    return v >= 0 && values[v].kind == ValueInfo::Activation;
  };
  for (auto [i, node] : llvm::enumerate(nodes)) {
    if (!isa<nn::MatmulOp>(node.op) || !isActivation(node.operands[0]) ||
        !isActivation(node.operands[1]) || node.results.empty() ||
        node.results[0] < 0)
      continue;
    auto type = cast<RankedTensorType>(values[node.results[0]].value.getType());
    int64_t rank = type.getRank();
    if (rank < 3 || type.getDimSize(rank - 1) != type.getDimSize(rank - 2))
      continue;
    std::vector<int> chain;
    int v = node.results[0];
    int end = -1;
    for (int step = 0; step < 64; ++step) {
      if (values[v].uses.size() != 1)
        break;
      auto [user, operand] = values[v].uses.front();
      const Node &next = nodes[user];
      if (isa<nn::MatmulOp>(next.op)) {
        if (operand == 0)
          end = user;
        break;
      }
      if (next.results.size() != 1 || next.results[0] < 0 ||
          values[next.results[0]].value.getType() != type)
        break;
      chain.push_back(user);
      v = next.results[0];
    }
    if (end < 0)
      continue;
    attention[i] = AttentionRole::Scores;
    for (int c : chain)
      attention[c] = AttentionRole::Inner;
    attention[end] = AttentionRole::Output;
  }
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
    seg.structure = structureHash(seg, /*layerOps=*/false);
    seg.layerShape = structureHash(seg, /*layerOps=*/true);
  }

  // Parameters and a name for each segment, from its parameters.
  std::vector<std::string> names(segments.size());
  for (auto [k, seg] : llvm::enumerate(segments)) {
    for (int i = seg.begin; i < seg.end; ++i) {
      nodes[i].segment = k;
      seg.hasMatmul |= isa<nn::MatmulOp, nn::Conv2dOp>(nodes[i].op);
      for (int id : nodes[i].operands) {
        if (id < 0 || values[id].kind != ValueInfo::Parameter ||
            values[id].uses.front().first != i)
          continue;
        seg.parameters += values[id].elements;
        if (names[k].empty())
          names[k] = values[id].name;
      }
    }
  }
  groupSegments(names);
}

namespace {
/// The longest common prefix of `a` and `b`, cut back to before a trailing
/// digit run and separators: ("h.0.attn.w", "h.1.attn.w") -> "h";
/// ("h0.ln1.w", "h1.ln1.w") -> "h"; ("layers.0", "layers.1") -> "layers".
std::string commonStem(llvm::StringRef a, llvm::StringRef b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n])
    ++n;
  llvm::StringRef stem = a.take_front(n);
  stem = stem.rtrim("0123456789");
  stem = stem.rtrim("._-/:");
  return stem.str();
}
/// The name the repetitions of a block share when their parameters are
/// numbered in order: names[first], names[first + step], ... are
/// `STEM<sep>N<rest>` with N counting up by one and the same rest (the
/// stem of `h.0.ln_1.weight`, `h.1.ln_1.weight` is `h`); "" otherwise.
std::string numberedStem(llvm::ArrayRef<std::string> names, int first, int end,
                         int step) {
  if (first + step >= end || names[first].empty() ||
      names[first + step].empty())
    return "";
  std::string stem = commonStem(names[first], names[first + step]);
  int64_t base = -1;
  std::string rest;
  for (int j = first, r = 0; j < end; j += step, ++r) {
    llvm::StringRef name = names[j];
    if (stem.empty() || !name.starts_with(stem))
      return "";
    llvm::StringRef tail = name.drop_front(stem.size()).ltrim("._-/:");
    size_t digits = 0;
    while (digits < tail.size() && llvm::isDigit(tail[digits]))
      ++digits;
    int64_t number;
    if (!digits || tail.take_front(digits).getAsInteger(10, number))
      return "";
    if (r == 0) {
      base = number;
      rest = tail.drop_front(digits).str();
    } else if (number != base + r || tail.drop_front(digits) != rest) {
      return "";
    }
  }
  return stem;
}
} // namespace

uint64_t Model::structureHash(const Segment &seg, bool layerOps) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (int i = seg.begin; i < seg.end; ++i) {
    // Layers: the products and the ops holding parameters, which every
    // repetition of a block has whatever else an exporter put around them
    // (a causal mask computed in the first layer).
    if (layerOps && !isa<nn::MatmulOp, nn::Conv2dOp>(nodes[i].op) &&
        llvm::none_of(nodes[i].operands, [&](int id) {
          return id >= 0 && values[id].kind == ValueInfo::Parameter;
        }))
      continue;
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
      if (v.producer >= seg.begin && v.producer < i && !layerOps)
        os << " n" << (v.producer - seg.begin);
      else
        os << " k" << (int)v.kind << "/" << v.bytes << "/" << v.batchDim;
    }
    os << "\n";
  }
  return llvm::xxh3_64bits(text);
}

void Model::groupSegments(llvm::ArrayRef<std::string> names) {
  // Layers are repeated blocks of segments: the longest runs where the
  // segments' structures repeat with some period k (a GPT block is two
  // segments, attention and MLP), whatever the exporter named them. A
  // block's group name is what its parameter names share; segments outside
  // repeated blocks take their parameters' leading name (`wte`) or join the
  // group before them.
  int n = segments.size();
  std::vector<int> period(n, 0), blockStart(n, -1), blockIndex(n, -1);
  constexpr int kMaxPeriod = 16;
  int i = 0;
  while (i < n) {
    int bestK = 0, bestEnd = i;
    for (int k = 1; k <= kMaxPeriod && i + 2 * k <= n; ++k) {
      // Extend while segment j repeats segment j - k.
      int end = i + k;
      while (end < n &&
             segments[end].layerShape == segments[end - k].layerShape)
        ++end;
      // Whole repetitions only, at least two, each with a product.
      int reps = (end - i) / k;
      bool heavy = false;
      for (int j = i; j < i + k; ++j)
        heavy |= segments[j].hasMatmul;
      if (reps >= 2 && heavy && i + reps * k > bestEnd) {
        bestK = k;
        bestEnd = i + reps * k;
      }
    }
    if (!bestK) {
      ++i;
      continue;
    }
    for (int j = i; j < bestEnd; ++j) {
      period[j] = bestK;
      blockStart[j] = i;
      blockIndex[j] = (j - i) / bestK;
    }
    i = bestEnd;
  }
  std::string previous = "input", blockName;
  int64_t previousIndex = -1;
  for (int k = 0; k < n; ++k) {
    Segment &seg = segments[k];
    if (period[k]) {
      int start = blockStart[k], p = period[k];
      if (k == start) {
        blockName.clear();
        int end = start;
        while (end < n && blockStart[end] == start)
          ++end;
        for (int j = start; j < start + p && blockName.empty(); ++j)
          blockName = numberedStem(names, j, end, p);
        if (blockName.empty())
          blockName = "block" + std::to_string(start);
      }
      seg.group = blockName;
      seg.groupIndex = blockIndex[k];
    } else if (!names[k].empty()) {
      seg.group = groupOf(names[k]).first;
      seg.groupIndex = -1;
    } else {
      seg.group = previous;
      seg.groupIndex = previousIndex;
    }
    previous = seg.group;
    previousIndex = seg.groupIndex;
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
