//===- Search.cpp - Pricing and choosing tensor-parallel strategies -------===//
//
// Prices ops, layout changes and whole assignments of strategies on a
// device and a tp group's link, and searches a tp degree's assignment: a
// greedy pass and coordinate descent, the dynamic programme over the chain
// of layers, the Megatron pairing as a seed; results cached on disk per
// graph. Also the per-segment costs and weight layouts of an assignment.
//
//===----------------------------------------------------------------------===//

#include "Model.h"
#include "loom/Dialect/Dist/Sharding.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Dist/Megatron.h"
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
                           SegmentCost *record, bool backward,
                           bool activation) const {
  if (sequenceParallel && activation && kind == CollectiveKind::AllReduce)
    return collective(CollectiveKind::ReduceScatter, bytes, record, backward) +
           collective(CollectiveKind::AllGather, bytes, record, backward);
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
  bool activation = values[v].kind == ValueInfo::Activation;
  if (fwd)
    seconds +=
        p.collective(*fwd, bytes, record, /*backward=*/false, activation);
  if (bwd && backward)
    seconds += p.collective(*bwd, bytes, record, /*backward=*/true, activation);
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
                        /*backward=*/true,
                        values[id].kind == ValueInfo::Activation);
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
  // (Fused attention and sequence parallelism price the chosen assignment,
  // not the search: they are not part of the key.)
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
  // Sequence parallelism splits what runs whole over tp along the sequence.
  bool sp = p.sequenceParallel && p.tp > 1;
  for (auto [k, seg] : llvm::enumerate(segments)) {
    SegmentCost &c = costs[k];
    llvm::DenseSet<int> inputs;
    // Liveness inside the segment: bytes of values not kept for backward
    // that are alive, and when each dies.
    double transient = 0, forwardPeak = 0, backwardPeak = 0;
    std::vector<std::pair<int, double>> dies;
    for (int i = seg.begin; i < seg.end; ++i) {
      const Node &node = nodes[i];
      const Strategy &st = all[i][choice[i]];
      bool heavy = isa<nn::MatmulOp, nn::Conv2dOp>(node.op);
      double spScale = sp && node.batchDependent && !heavy && st.factor < 0
                           ? 1.0 / p.tp
                           : 1.0;
      AttentionRole role =
          p.fusedAttention ? attention[i] : AttentionRole::None;
      if (role == AttentionRole::Inner) {
        // Inside the fused kernel: no time of its own, nothing stored (its
        // arithmetic still counts as the model's).
        c.forwardFlops += whole[i][0].flops * p.scale();
        continue;
      }
      Strategy fused = st;
      if (role == AttentionRole::Scores || role == AttentionRole::Output) {
        // The scores never reach memory: the products move Q, K, V and the
        // output only.
        int scores =
            role == AttentionRole::Scores ? node.results[0] : node.operands[0];
        Layout l =
            role == AttentionRole::Scores ? st.results[0] : st.operands[0];
        fused.bytes = std::max(
            0.0, fused.bytes - values[scores].bytes /
                                   (l.kind == Layout::Sharded ? p.tp : 1));
      }
      double forward = p.opSeconds(fused, node.batchDependent) * spScale;
      c.forward += forward;
      double backward = 0;
      if (p.train && node.batchDependent)
        backward = p.backwardSeconds(fused, node.batchDependent) * spScale;
      // Fused backward computes the scores again.
      if (role == AttentionRole::Scores)
        backward += forward;
      c.backward += backward;
      bool hasWeight = false;
      for (int v : node.operands)
        hasWeight |= v >= 0 && (values[v].kind == ValueInfo::Parameter ||
                                (values[v].kind == ValueInfo::Constant &&
                                 values[v].isFloat && heavy));
      if (heavy && hasWeight && backward > 0) {
        // One of a product's two backward products makes the weight's
        // gradient; it needs the input and the output gradient.
        c.weightGrad += backward / 2;
        if (node.operands[0] >= 0)
          c.weightGradBytes += localBytes(node.operands[0], st.operands[0]);
        for (auto [r, v] : llvm::enumerate(node.results))
          if (v >= 0)
            c.weightGradBytes += localBytes(v, st.results[r]);
      }
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
          c.parameters +=
              info.elements /
              (storedSharded(p.tp, choice, v, st.operands[o]) ? p.tp : 1);
        if ((info.kind == ValueInfo::Activation || info.batchDim >= 0) &&
            (info.producer < seg.begin) && inputs.insert(v).second)
          c.inputBytes += localBytes(v, Layout{});
      }
      if (!node.batchDependent)
        continue;
      double produced = 0, gradients = 0;
      for (auto [r, v] : llvm::enumerate(node.results))
        if (v >= 0 && !values[v].view && role != AttentionRole::Scores) {
          double bytes = localBytes(v, st.results[r]);
          if (sp && st.results[r].kind == Layout::Replicated)
            bytes /= p.tp;
          produced += bytes;
          if (saved[v] && p.train) {
            c.savedActivations += bytes;
          } else {
            // Freed after its last use (-loom-free-early).
            transient += bytes;
            dies.push_back(
                {values[v].uses.empty() ? i : values[v].uses.back().first,
                 bytes});
          }
        }
      c.layerWorkingSet += produced;
      // Live at once: what this node made and what is not yet dead.
      forwardPeak = std::max(forwardPeak, transient);
      for (auto &[last, bytes] : dies)
        if (last <= i && bytes > 0) {
          transient -= bytes;
          bytes = 0;
        }
      // Backward: the result's gradient and the operands' at once.
      if (p.train && node.batchDependent) {
        for (auto [o, v] : llvm::enumerate(node.operands))
          if (v >= 0 && values[v].kind == ValueInfo::Activation &&
              values[v].isFloat)
            gradients += localBytes(v, st.operands[o]);
        backwardPeak = std::max(backwardPeak, produced + gradients);
      }
      if (heavy)
        c.selectiveKept += produced;
      else if (produced > 0)
        c.selectiveRecompute += forward;
    }
    c.peakActivations = std::max(forwardPeak, backwardPeak);
    c.selectiveKept = p.train ? c.selectiveKept + c.inputBytes : 0;
    if (seg.boundary >= 0) {
      std::optional<Layout> l = producedLayout(p.tp, choice, seg.boundary, -1);
      c.boundaryBytes = localBytes(seg.boundary, l.value_or(Layout{}));
    }
  }
  return costs;
}

bool Model::storedSharded(int64_t tp, const std::vector<int> &choice, int v,
                          Layout firstUse) {
  if (firstUse.kind == Layout::Sharded)
    return true;
  // A fused projection (Q, K and V in one weight) is sliced into parts, one
  // per product: stored split, as Megatron stores it, when every part's
  // product splits it.
  const auto &all = strategies(tp);
  bool any = false;
  for (auto [user, operand] : values[v].uses) {
    const Node &slice = nodes[user];
    if (!isa<nn::SliceOp>(slice.op) || slice.results.empty() ||
        slice.results[0] < 0)
      return false;
    for (auto [u, o] : values[slice.results[0]].uses) {
      if (!isa<nn::MatmulOp>(nodes[u].op) || o != 1 ||
          all[u][choice[u]].operands[1].kind != Layout::Sharded)
        return false;
      any = true;
    }
  }
  return any;
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
