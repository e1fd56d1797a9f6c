//===- Cluster.cpp - What the devices are and how they are linked ---------===//

#include "loom/CostModel/Cluster.h"
#include "loom/Support/Files.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
#include <thread>
#include <unistd.h>

using namespace loom;
using llvm::json::Object;

namespace {
llvm::Error fail(llvm::StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (file + ": " + message).str());
}

/// The largest figure a description may give (GB, GB/s, TFLOP/s, us, a
/// matmul size): far beyond any device, far from overflowing the cost
/// model's products. JSON numbers such as 1e999 parse to infinity.
constexpr double kMaxFigure = 1e15;

/// Why `d` is no figure the cost model can take, or "": it must be finite
/// and at most kMaxFigure (sign checks stay with the callers).
std::string tooLarge(double d) {
  if (std::isfinite(d) && d <= kMaxFigure)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << " must be finite and at most 1e15 (got " << llvm::format("%g", d)
     << ")";
  return text;
}

/// A number at `key` that must be positive (or non-negative).
llvm::Error number(const Object &o, llvm::StringRef key, llvm::StringRef path,
                   llvm::StringRef file, double &out, bool required,
                   bool allowZero = false) {
  const llvm::json::Value *v = o.get(key);
  if (!v) {
    if (required)
      return fail(file, "missing \"" + path + key + "\"");
    return llvm::Error::success();
  }
  std::optional<double> d = v->getAsNumber();
  if (!d || *d < 0 || (!allowZero && *d == 0))
    return fail(file, "\"" + path + key + "\" must be a positive number");
  if (std::string why = tooLarge(*d); !why.empty())
    return fail(file, "\"" + path + key + "\"" + why);
  out = *d;
  return llvm::Error::success();
}

/// `device.matmul_tflops_by_size`: [[size, TFLOP/s], ...], sizes strictly
/// increasing, both positive.
llvm::Error parseMatmulCurve(const llvm::json::Value &value,
                             llvm::StringRef file,
                             std::vector<std::pair<double, double>> &out) {
  const char *key = "\"device.matmul_tflops_by_size\"";
  const llvm::json::Array *points = value.getAsArray();
  if (!points || points->empty())
    return fail(file, llvm::Twine(key) +
                          " must be a non-empty array of [size, TFLOP/s]");
  for (auto [i, point] : llvm::enumerate(*points)) {
    const llvm::json::Array *pair = point.getAsArray();
    std::optional<double> size, rate;
    if (pair && pair->size() == 2) {
      size = (*pair)[0].getAsNumber();
      rate = (*pair)[1].getAsNumber();
    }
    if (!size || !rate)
      return fail(file, llvm::Twine(key) + "[" + llvm::Twine(i) +
                            "] must be [size, TFLOP/s]");
    if (*size <= 0 || *rate <= 0)
      return fail(file, llvm::Twine(key) + "[" + llvm::Twine(i) +
                            "]: size and TFLOP/s must be positive");
    if (std::string why = tooLarge(std::max(*size, *rate)); !why.empty())
      return fail(file, llvm::Twine(key) + "[" + llvm::Twine(i) +
                            "]: size and TFLOP/s" + why);
    if (!out.empty() && *size <= out.back().first)
      return fail(file, llvm::Twine(key) + "[" + llvm::Twine(i) +
                            "]: sizes must increase");
    out.emplace_back(*size, *rate);
  }
  return llvm::Error::success();
}

llvm::Error parseLink(const Object &links, llvm::StringRef key,
                      llvm::StringRef file, LinkSpec &link) {
  const Object *o = links.getObject(key);
  if (!o)
    return fail(file, "missing object \"links." + key + "\"");
  std::string path = ("links." + key + ".").str();
  if (auto e = number(*o, "bandwidth_gb_per_s", path, file, link.bandwidthGBps,
                      true))
    return e;
  if (auto e = number(*o, "latency_us", path, file, link.latencyUs, true,
                      /*allowZero=*/true))
    return e;
  const llvm::json::Value *measured = o->get("collective_bandwidth_gb_per_s");
  if (!measured)
    return llvm::Error::success();
  const Object *kinds = measured->getAsObject();
  std::string inner = path + "collective_bandwidth_gb_per_s.";
  if (!kinds)
    return fail(file, "\"" + inner.substr(0, inner.size() - 1) +
                          "\" must be an object of GB/s per collective kind");
  for (const auto &entry : *kinds) {
    llvm::StringRef kind = entry.first;
    double *slot = kind == "all_reduce"       ? &link.allReduceGBps
                   : kind == "reduce_scatter" ? &link.reduceScatterGBps
                   : kind == "all_gather"     ? &link.allGatherGBps
                                              : nullptr;
    if (!slot)
      return fail(file, "\"" + inner + kind +
                            "\": unknown collective (expected all_reduce, "
                            "reduce_scatter or all_gather)");
    if (auto e = number(*kinds, kind, inner, file, *slot, true))
      return e;
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<Cluster> loom::parseCluster(llvm::StringRef json,
                                           llvm::StringRef file) {
  // llvm::json::parse recurses per level: a deep text would overflow the
  // stack, so nesting is checked first.
  if (std::optional<NestingExcess> deep =
          checkJSONNesting(json, kMaxJSONNesting))
    return fail(file, "invalid JSON: arrays and objects nest deeper than " +
                          llvm::Twine(kMaxJSONNesting) + " levels (line " +
                          llvm::Twine(deep->line) + ", column " +
                          llvm::Twine(deep->column) + ")");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return fail(file, "invalid JSON: " + llvm::toString(parsed.takeError()));
  const Object *root = parsed->getAsObject();
  if (!root)
    return fail(file, "expected a JSON object");
  Cluster c;
  if (auto s = root->getString("name"))
    c.name = s->str();
  if (auto s = root->getString("source"))
    c.source = s->str();
  for (auto [key, out] : {std::pair<const char *, int64_t *>{"nodes", &c.nodes},
                          {"devices_per_node", &c.devicesPerNode}}) {
    std::optional<int64_t> n = root->getInteger(key);
    if (!n || *n < 1)
      return fail(file,
                  llvm::Twine("\"") + key + "\" must be a positive integer");
    if (*n > kMaxDevices)
      return fail(file, llvm::Twine("\"") + key + "\" must be at most " +
                            llvm::Twine(kMaxDevices));
    *out = *n;
  }
  int64_t devices;
  if (llvm::MulOverflow(c.nodes, c.devicesPerNode, devices) ||
      devices > kMaxDevices)
    return fail(file, "\"nodes\" x \"devices_per_node\" must be at most " +
                          llvm::Twine(kMaxDevices) + " devices");
  const Object *device = root->getObject("device");
  if (!device)
    return fail(file, "missing object \"device\"");
  auto kind = device->getString("kind");
  if (!kind || (*kind != "gpu" && *kind != "cpu"))
    return fail(file, "\"device.kind\" must be \"gpu\" or \"cpu\"");
  c.device.kind = kind->str();
  if (auto s = device->getString("name"))
    c.device.name = s->str();
  if (auto e = number(*device, "memory_gb", "device.", file, c.device.memoryGB,
                      true))
    return std::move(e);
  if (auto e = number(*device, "memory_bandwidth_gb_per_s", "device.", file,
                      c.device.memoryBandwidthGBps, true))
    return std::move(e);
  const Object *peak = device->getObject("peak_tflops");
  if (!peak || peak->empty())
    return fail(file, "\"device.peak_tflops\" must map dtypes to TFLOP/s");
  static const llvm::StringSet<> dtypes = {
      "float64", "float32", "tf32", "bfloat16", "float16", "float8", "int8"};
  for (const auto &[key, value] : *peak) {
    std::optional<double> d = value.getAsNumber();
    if (!dtypes.contains(key))
      return fail(file, "\"device.peak_tflops\" has unknown dtype \"" +
                            llvm::StringRef(key) +
                            "\" (float64, float32, tf32, bfloat16, float16, "
                            "float8, int8)");
    if (!d || *d <= 0)
      return fail(file, "\"device.peak_tflops." + llvm::StringRef(key) +
                            "\" must be a positive number");
    if (std::string why = tooLarge(*d); !why.empty())
      return fail(file,
                  "\"device.peak_tflops." + llvm::StringRef(key) + "\"" + why);
    c.device.peakTFLOPs[key] = *d;
  }
  if (auto e =
          number(*device, "power_w", "device.", file, c.device.powerW, false))
    return std::move(e);
  c.device.idlePowerW = c.device.powerW;
  if (auto e = number(*device, "idle_power_w", "device.", file,
                      c.device.idlePowerW, false, /*allowZero=*/true))
    return std::move(e);
  if (device->get("idle_power_w") &&
      (!device->get("power_w") || c.device.idlePowerW > c.device.powerW))
    return fail(file, "\"device.idle_power_w\" needs \"device.power_w\" and "
                      "must be at most it");
  if (auto e = number(*device, "price_per_hour", "device.", file,
                      c.device.pricePerHour, false, /*allowZero=*/true))
    return std::move(e);
  if (const llvm::json::Value *curve = device->get("matmul_tflops_by_size"))
    if (auto e = parseMatmulCurve(*curve, file, c.device.matmulTFLOPsBySize))
      return std::move(e);
  const Object *links = root->getObject("links");
  if (!links)
    return fail(file, "missing object \"links\"");
  if (auto e = parseLink(*links, "intra_node", file, c.intraNode))
    return std::move(e);
  if (c.nodes > 1 || links->get("inter_node")) {
    if (auto e = parseLink(*links, "inter_node", file, c.interNode))
      return std::move(e);
  }
  return c;
}

llvm::Expected<Cluster> loom::readClusterFile(llvm::StringRef path) {
  // A regular file of bounded size: not /dev/zero, not a FIFO.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, kMaxJSONFileBytes);
  if (!buffer)
    return fail(path, "cannot read: " + llvm::toString(buffer.takeError()));
  return parseCluster((*buffer)->getBuffer(), path);
}

Cluster loom::describeThisMachine() {
  Cluster c;
  c.name = "this machine";
  c.source = "detected core count and memory; peak FLOP/s and bandwidths "
             "are placeholders until measured";
  c.nodes = 1;
  c.devicesPerNode = std::max(1u, std::thread::hardware_concurrency());
  c.device.kind = "cpu";
  c.device.name = "host CPU core";
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  double memory = pages > 0 && pageSize > 0 ? double(pages) * pageSize : 0;
  c.device.memoryGB = memory / 1e9 / c.devicesPerNode;
  c.device.memoryBandwidthGBps = 10;
  c.device.peakTFLOPs["float32"] = 0.1;
  c.device.peakTFLOPs["float64"] = 0.05;
  c.intraNode = {10, 1};
  c.interNode = {1, 50};
  c.strictDeviceCount = false;
  return c;
}

llvm::Expected<std::vector<MeshAxisSpec>>
loom::layMesh(llvm::StringRef spec, const Cluster &cluster) {
  auto bad = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   ("--mesh " + spec + ": " + why).str());
  };
  std::vector<MeshAxisSpec> axes;
  llvm::StringSet<> seen;
  for (llvm::StringRef part : llvm::split(spec, ',')) {
    auto [name, size] = part.split('=');
    name = name.trim();
    int64_t n;
    bool identifier =
        !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
        llvm::all_of(name,
                     [](char ch) { return llvm::isAlnum(ch) || ch == '_'; });
    if (!identifier || size.trim().getAsInteger(10, n) || n < 1)
      return bad("expected NAME=SIZE,... (e.g. dp=2,tp=4), got '" + part + "'");
    if (!seen.insert(name).second)
      return bad("axis '" + name + "' appears twice");
    axes.push_back({name.str(), n, true, {}});
  }
  int64_t total = 1;
  for (const MeshAxisSpec &a : axes)
    if (llvm::MulOverflow(total, a.size, total) || total > kMaxDevices)
      return bad("more than " + llvm::Twine(kMaxDevices) + " devices");
  if (cluster.strictDeviceCount && total > cluster.numDevices())
    return bad("needs " + llvm::Twine(total) + " devices, but the cluster '" +
               cluster.name + "' has " + llvm::Twine(cluster.numDevices()) +
               " (" + llvm::Twine(cluster.nodes) + " node(s) of " +
               llvm::Twine(cluster.devicesPerNode) + ")");
  // Innermost axes first onto the fastest link.
  int64_t inNode = 1;
  bool crossed = false;
  for (MeshAxisSpec &a : llvm::reverse(axes)) {
    crossed |= inNode * a.size > cluster.devicesPerNode;
    a.intraNode = !crossed;
    if (!crossed)
      inNode *= a.size;
    a.link = a.intraNode ? cluster.intraNode : cluster.interNode;
  }
  return axes;
}
