//===- Manifest.cpp - An artifact's manifest.json -------------------------===//
//
// The versions, target, files, mesh, groups, collectives and tensors;
// ManifestTraining.cpp reads the parameters' updates and the training
// object.
//
//===----------------------------------------------------------------------===//

#include "core/Manifest.h"
#include "core/ManifestReader.h"
#include "loom/runtime/Collectives.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cmath>
#include <unordered_map>

using namespace loom::rt;
using loom::rt::detail::ManifestReader;

namespace {
constexpr std::string_view artifactFormat = LOOM_ARTIFACT_FORMAT_NAME;
} // namespace

bool ManifestReader::read(const json::Value &root, Manifest &manifest) {
  if (!root.isObject())
    return fail(std::string("the manifest must be a JSON object, found ") +
                json::kindName(root.kind()));

  // Identify the file and its version before anything else: a manifest of
  // another version may use another schema, and the version message is the
  // useful one then.
  const json::Value *formatValue = root.find("format");
  if (!formatValue)
    return fail("missing key 'format': this is not a Loom artifact manifest "
                "(expected \"format\": \"loom-artifact\")");
  if (!formatValue->isString())
    return wrongType("format", "a string", *formatValue);
  const std::string &format = formatValue->getString();
  if (format != artifactFormat)
    return fail("'format' is " + json::quote(format) + ", expected \"" +
                std::string(artifactFormat) +
                "\": this is not a Loom artifact manifest");
  if (!getInteger(root, "format_version", "format_version",
                  manifest.formatVersion))
    return false;
  if (manifest.formatVersion < LOOM_ARTIFACT_FORMAT_MIN_VERSION ||
      manifest.formatVersion > LOOM_ARTIFACT_FORMAT_VERSION)
    return fail("artifact '" + artifactDir + "' has format_version " +
                    std::to_string(manifest.formatVersion) +
                    "; this runtime reads format_version " +
                    std::to_string(LOOM_ARTIFACT_FORMAT_MIN_VERSION) + " to " +
                    std::to_string(LOOM_ARTIFACT_FORMAT_VERSION) +
                    ": recompile it with a matching loomc",
                LOOM_ERROR_INCOMPATIBLE);
  if (!getInteger(root, "runtime_abi", "runtime_abi", manifest.runtimeAbi))
    return false;
  if (manifest.runtimeAbi < LOOM_RUNTIME_ABI_MIN_VERSION ||
      manifest.runtimeAbi > LOOM_RUNTIME_ABI_VERSION)
    return fail("artifact '" + artifactDir + "' was built for runtime ABI " +
                    std::to_string(manifest.runtimeAbi) +
                    "; this runtime supports ABI " +
                    std::to_string(LOOM_RUNTIME_ABI_MIN_VERSION) + " to " +
                    std::to_string(LOOM_RUNTIME_ABI_VERSION) +
                    ": recompile it with a matching loomc",
                LOOM_ERROR_INCOMPATIBLE);

  if (!getString(root, "producer", "producer", false, manifest.producer) ||
      !getString(root, "model", "model", false, manifest.model) ||
      !readTarget(root, manifest))
    return false;

  if (!getString(root, "library", "library", true, manifest.library) ||
      !checkRelativePath("library", manifest.library))
    return false;
  if (!getString(root, "entry", "entry", true, manifest.entry))
    return false;
  if (manifest.entry.empty())
    return fail("'entry' must name a symbol, found \"\"");
  if (!getString(root, "parameter_file", "parameter_file", false,
                 manifest.parameterFile))
    return false;
  if (root.find("parameter_file") && !root.find("parameter_file")->isNull() &&
      !checkRelativePath("parameter_file", manifest.parameterFile))
    return false;

  // The mesh first: groups, collectives and shardings name its axes.
  if (!readMesh(root, manifest) || !readGroups(root, manifest) ||
      !readCollectives(root, manifest))
    return false;
  if (!readTensors(root, "parameters", /*isParameter=*/true,
                   /*required=*/false, manifest, manifest.parameters) ||
      !readTensors(root, "inputs", false, true, manifest, manifest.inputs) ||
      !readTensors(root, "outputs", false, true, manifest, manifest.outputs))
    return false;

  if (!readUpdates(manifest) || !readTraining(root, manifest) ||
      !readFiles(root, manifest))
    return false;

  if (manifest.parameterFile.empty()) {
    for (const TensorSpec &parameter : manifest.parameters)
      if (parameter.globalNbytes != 0 && !parameter.initZeros)
        return fail("'parameters' lists data (" + parameter.name +
                    ") but there is no 'parameter_file'");
  }
  return true;
}

bool ManifestReader::checkRelativePath(const std::string &keyPath,
                                       const std::string &path) {
  // Artifact files live inside the artifact directory; an absolute or
  // escaping path is a corrupt (or hostile) manifest.
  if (path.empty())
    return fail("'" + keyPath + "' must name a file, found \"\"");
  if (path[0] == '/')
    return fail("'" + keyPath + "' must be a path inside the artifact, found " +
                json::quote(path));
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos)
      end = path.size();
    if (path.compare(start, end - start, "..") == 0)
      return fail("'" + keyPath +
                  "' must be a path inside the artifact, found " +
                  json::quote(path));
    start = end + 1;
  }
  if (path.find('\0') != std::string::npos)
    return fail("'" + keyPath + "' contains a NUL character");
  return true;
}

bool ManifestReader::readFiles(const json::Value &root, Manifest &manifest) {
  const json::Value *files = member(root, "files", "files", false);
  bool required = manifest.formatVersion >= LOOM_ARTIFACT_FORMAT_CHECKSUMS;
  if (!files) {
    if (required)
      return fail("missing key 'files': format_version " +
                  std::to_string(manifest.formatVersion) +
                  " artifacts list the size and CRC-32 of every file");
    return true;
  }
  if (!files->isObject())
    return wrongType("files", "an object", *files);
  manifest.hasFiles = true;
  for (const json::Member &entry : files->getObject()) {
    std::string keyPath = "files." + entry.key;
    if (!checkRelativePath(keyPath, entry.key))
      return false;
    if (!entry.value.isObject())
      return wrongType(keyPath, "an object", entry.value);
    int64_t bytes = 0, crc = 0;
    if (!getInteger(entry.value, "bytes", keyPath + ".bytes", bytes) ||
        !getInteger(entry.value, "crc32", keyPath + ".crc32", crc))
      return false;
    if (bytes < 0)
      return fail("'" + keyPath + ".bytes' is " + std::to_string(bytes) +
                  "; sizes must not be negative");
    if (crc < 0 || crc > 0xffffffffll)
      return fail("'" + keyPath + ".crc32' is " + std::to_string(crc) +
                  ", which is not a CRC-32 (0 to 4294967295)");
    manifest.files.push_back(
        {entry.key, static_cast<uint64_t>(bytes), static_cast<uint32_t>(crc)});
  }
  if (!required)
    return true;
  // What the loader opens must be among the files it checks.
  for (const std::string *path : {&manifest.library, &manifest.parameterFile}) {
    if (path->empty())
      continue;
    bool listed = false;
    for (const ArtifactFile &file : manifest.files)
      listed = listed || file.path == *path;
    if (!listed)
      return fail("'files' does not list " + json::quote(*path) + " (the " +
                  (path == &manifest.library ? "library" : "parameter_file") +
                  ")");
  }
  return true;
}

bool ManifestReader::readTarget(const json::Value &root, Manifest &manifest) {
  const json::Value *target = member(root, "target", "target", false);
  if (!target)
    return true;
  if (!target->isObject())
    return wrongType("target", "an object", *target);
  if (!getString(*target, "triple", "target.triple", false,
                 manifest.targetTriple) ||
      !getString(*target, "cpu", "target.cpu", false, manifest.targetCpu) ||
      !getString(*target, "device", "target.device", false,
                 manifest.targetDevice))
    return false;
  if (manifest.targetDevice.empty())
    return fail("'target.device' must name a device kind (such as \"" +
                std::string(LOOM_DEFAULT_DEVICE_KIND) + "\"), found \"\"");
  // GPU targets: the chips of their kernels and their arena.
  if (!getOptionalInteger(*target, "arena_bytes", "target.arena_bytes", 0,
                          manifest.targetArenaBytes))
    return false;
  for (auto [key, list] : {std::pair<const char *, std::vector<std::string> *>{
                               "features", &manifest.targetFeatures},
                           {"chips", &manifest.targetChips}}) {
    std::string path = std::string("target.") + key;
    const json::Value *items = member(*target, key, path, false);
    if (!items)
      continue;
    if (!items->isArray())
      return wrongType(path, "an array of strings", *items);
    for (size_t i = 0; i < items->getArray().size(); ++i) {
      const json::Value &item = items->getArray()[i];
      if (!item.isString())
        return wrongType(path + "[" + std::to_string(i) + "]", "a string",
                         item);
      list->push_back(item.getString());
    }
  }
  return true;
}

bool ManifestReader::readMesh(const json::Value &root, Manifest &manifest) {
  const json::Value *mesh = member(root, "mesh", "mesh", false);
  if (!mesh)
    return true;
  if (!mesh->isObject())
    return wrongType("mesh", "an object", *mesh);
  const json::Value *axes = member(*mesh, "axes", "mesh.axes", true);
  if (!axes)
    return false;
  if (!axes->isArray())
    return wrongType("mesh.axes", "an array", *axes);
  // Ranks are ints everywhere (MPI); the cap keeps products far from
  // overflow.
  constexpr int64_t maxDevices = int64_t(1) << 24;
  int64_t devices = 1;
  for (size_t i = 0; i < axes->getArray().size(); ++i) {
    const json::Value &axis = axes->getArray()[i];
    std::string keyPath = "mesh.axes[" + std::to_string(i) + "]";
    if (!axis.isObject())
      return wrongType(keyPath, "an object", axis);
    MeshAxis meshAxis;
    if (!getString(axis, "name", keyPath + ".name", true, meshAxis.name) ||
        !getInteger(axis, "size", keyPath + ".size", meshAxis.size))
      return false;
    if (meshAxis.name.empty() ||
        meshAxis.name.find_first_of(std::string(",\0", 2)) != std::string::npos)
      return fail("'" + keyPath +
                  ".name' must be a non-empty name without "
                  "',' or NUL, found " +
                  json::quote(meshAxis.name));
    for (size_t j = 0; j < manifest.mesh.size(); ++j)
      if (manifest.mesh[j].name == meshAxis.name)
        return fail("'" + keyPath + ".name' " + json::quote(meshAxis.name) +
                    " repeats the name of mesh.axes[" + std::to_string(j) +
                    "]");
    if (meshAxis.size < 1 || meshAxis.size > maxDevices / devices)
      return fail("'" + keyPath + ".size' is " + std::to_string(meshAxis.size) +
                  (meshAxis.size < 1
                       ? "; axis sizes must be at least 1"
                       : ", which makes the mesh larger than " +
                             std::to_string(maxDevices) + " devices"));
    devices *= meshAxis.size;
    manifest.mesh.push_back(meshAxis);
  }
  return true;
}

bool ManifestReader::readAxisList(const json::Value &value,
                                  const std::string &keyPath,
                                  const Manifest &manifest,
                                  std::vector<bool> &seen,
                                  std::vector<int> &axes, bool isGroup) {
  if (!value.isArray())
    return wrongType(keyPath, "an array of mesh axis names", value);
  for (size_t k = 0; k < value.getArray().size(); ++k) {
    const json::Value &name = value.getArray()[k];
    std::string namePath = keyPath + "[" + std::to_string(k) + "]";
    if (!name.isString())
      return wrongType(namePath, "a mesh axis name", name);
    int axis = -1;
    for (size_t a = 0; a < manifest.mesh.size(); ++a)
      if (manifest.mesh[a].name == name.getString())
        axis = static_cast<int>(a);
    if (axis < 0)
      return fail("'" + namePath + "' names mesh axis " +
                  json::quote(name.getString()) +
                  (manifest.mesh.empty()
                       ? ", but the manifest has no 'mesh'"
                       : ", which the mesh does not have (axes: " +
                             manifest.describeMesh() + ")"));
    if (seen[axis])
      return fail("'" + namePath + "' names mesh axis " +
                  json::quote(name.getString()) + " a second time; " +
                  (isGroup ? "a group lists each axis once"
                           : "an axis splits a tensor at most once"));
    seen[axis] = true;
    axes.push_back(axis);
  }
  return true;
}

bool ManifestReader::readGroups(const json::Value &root, Manifest &manifest) {
  const json::Value *groups = member(root, "groups", "groups", false);
  if (!groups)
    return true;
  if (!groups->isArray())
    return wrongType("groups", "an array", *groups);
  for (size_t g = 0; g < groups->getArray().size(); ++g) {
    std::vector<bool> seen(manifest.mesh.size(), false);
    std::vector<int> axes;
    if (!readAxisList(groups->getArray()[g],
                      "groups[" + std::to_string(g) + "]", manifest, seen, axes,
                      /*isGroup=*/true))
      return false;
    manifest.groups.push_back(std::move(axes));
  }
  return true;
}

bool ManifestReader::readCollectives(const json::Value &root,
                                     Manifest &manifest) {
  const json::Value *list = member(root, "collectives", "collectives", false);
  if (!list)
    return true;
  if (!list->isArray())
    return wrongType("collectives", "an array", *list);
  for (size_t i = 0; i < list->getArray().size(); ++i) {
    const json::Value &call = list->getArray()[i];
    std::string keyPath = "collectives[" + std::to_string(i) + "]";
    if (!call.isObject())
      return wrongType(keyPath, "an object", call);
    std::string kind;
    int64_t group = 0;
    CollectiveSpec spec;
    if (!getString(call, "kind", keyPath + ".kind", true, kind) ||
        !getInteger(call, "group", keyPath + ".group", group) ||
        !getInteger(call, "bytes", keyPath + ".bytes", spec.bytes))
      return false;
    spec.kind = -1;
    std::string known;
    for (int32_t k = 0; k < LOOM_COLLECTIVE_NUM_KINDS; ++k) {
      if (kind == loom_collective_kind_name(k))
        spec.kind = k;
      known += (k ? ", " : "") + std::string(loom_collective_kind_name(k));
    }
    if (spec.kind < 0)
      return fail("'" + keyPath + ".kind' is " + json::quote(kind) +
                  ", which is not a collective this runtime knows (known: " +
                  known + ")");
    if (group < 0 || static_cast<uint64_t>(group) >= manifest.groups.size())
      return fail("'" + keyPath + ".group' is " + std::to_string(group) +
                  ", but 'groups' has " +
                  std::to_string(manifest.groups.size()) + " groups");
    if (spec.bytes < 0)
      return fail("'" + keyPath + ".bytes' is " + std::to_string(spec.bytes) +
                  "; sizes must not be negative");
    spec.group = static_cast<int32_t>(group);
    manifest.collectives.push_back(spec);
  }
  return true;
}

bool ManifestReader::readSharding(const json::Value &value,
                                  const std::string &keyPath,
                                  const Manifest &manifest,
                                  TensorSpec &tensor) {
  size_t rank = tensor.shape.size();
  tensor.globalShape = tensor.shape;
  const json::Value *global =
      member(value, "global_shape", keyPath + ".global_shape", false);
  if (global) {
    if (!global->isArray())
      return wrongType(keyPath + ".global_shape", "an array of integers",
                       *global);
    if (global->getArray().size() != rank)
      return fail("'" + keyPath + ".global_shape' has " +
                  std::to_string(global->getArray().size()) +
                  " dimensions, but 'shape' has " + std::to_string(rank));
    for (size_t d = 0; d < rank; ++d) {
      const json::Value &dim = global->getArray()[d];
      std::string dimPath =
          keyPath + ".global_shape[" + std::to_string(d) + "]";
      if (!dim.isInteger())
        return wrongType(dimPath, "an integer", dim);
      if (dim.getInteger() < 0)
        return fail("'" + dimPath + "' is " + std::to_string(dim.getInteger()) +
                    "; dimensions must not be negative");
      tensor.globalShape[d] = dim.getInteger();
    }
  }
  const json::Value *sharding =
      member(value, "sharding", keyPath + ".sharding", false);
  if (sharding) {
    if (!sharding->isArray())
      return wrongType(keyPath + ".sharding",
                       "an array of lists of mesh axis names", *sharding);
    if (sharding->getArray().size() != rank)
      return fail("'" + keyPath + ".sharding' has " +
                  std::to_string(sharding->getArray().size()) +
                  " entries, but 'shape' has " + std::to_string(rank) +
                  " dimensions");
    std::vector<bool> seen(manifest.mesh.size(), false);
    tensor.sharding.resize(rank);
    for (size_t d = 0; d < rank; ++d)
      if (!readAxisList(sharding->getArray()[d],
                        keyPath + ".sharding[" + std::to_string(d) + "]",
                        manifest, seen, tensor.sharding[d]))
        return false;
  }
  for (size_t d = 0; d < rank; ++d) {
    int64_t blocks = 1;
    std::string along = "[]";
    if (!tensor.sharding.empty()) {
      for (int axis : tensor.sharding[d])
        blocks *= manifest.mesh[axis].size;
      along = "[" + manifest.axisNames(tensor.sharding[d], ", ") + "]";
    }
    int64_t extent = tensor.globalShape[d];
    std::string globalPath =
        "'" + keyPath + ".global_shape[" + std::to_string(d) + "]'";
    if (extent % blocks != 0)
      return fail(globalPath + " is " + std::to_string(extent) +
                  ", which does not split into " + std::to_string(blocks) +
                  " equal blocks along " + along);
    if (extent / blocks != tensor.shape[d])
      return fail("'" + keyPath + ".shape[" + std::to_string(d) + "]' is " +
                  std::to_string(tensor.shape[d]) + ", but global extent " +
                  std::to_string(extent) + " split into " +
                  std::to_string(blocks) + " blocks along " + along +
                  " gives " + std::to_string(extent / blocks));
  }
  int64_t globalElements = 0;
  if (!checkedNumElements(tensor.globalShape.data(), rank, globalElements) ||
      !checkedByteSize(tensor.dtype, tensor.globalShape.data(), rank,
                       tensor.globalNbytes))
    return fail("'" + keyPath +
                ".global_shape' describes a tensor too large to address");
  return true;
}

bool ManifestReader::readTensors(const json::Value &root, const char *key,
                                 bool isParameter, bool required,
                                 const Manifest &manifest,
                                 std::vector<TensorSpec> &tensors) {
  const json::Value *list = member(root, key, key, required);
  if (!list)
    return !required;
  if (!list->isArray())
    return wrongType(key, "an array", *list);
  const std::vector<json::Value> &elements = list->getArray();
  tensors.resize(elements.size());
  std::unordered_map<std::string, size_t> firstIndex;
  for (size_t i = 0; i < elements.size(); ++i) {
    std::string keyPath = std::string(key) + "[" + std::to_string(i) + "]";
    if (!readTensor(elements[i], keyPath, isParameter, manifest, tensors[i]))
      return false;
    // Names select tensors (loomrun's --input NAME=...), so they must be
    // unique within their list.
    auto [it, inserted] = firstIndex.emplace(tensors[i].name, i);
    if (!inserted)
      return fail("'" + keyPath + ".name' " + json::quote(tensors[i].name) +
                  " repeats the name of " + key + "[" +
                  std::to_string(it->second) + "]");
  }
  return true;
}

bool ManifestReader::readTensor(const json::Value &value,
                                const std::string &keyPath, bool isParameter,
                                const Manifest &manifest, TensorSpec &tensor) {
  if (!value.isObject())
    return wrongType(keyPath, "an object", value);
  if (!getString(value, "name", keyPath + ".name", true, tensor.name))
    return false;
  if (tensor.name.empty())
    return fail("'" + keyPath + ".name' must not be empty");
  if (tensor.name.find('\0') != std::string::npos)
    return fail("'" + keyPath + ".name' contains a NUL character");

  std::string dtypeName;
  if (!getString(value, "dtype", keyPath + ".dtype", true, dtypeName))
    return false;
  tensor.dtype = loom_dtype_from_name(dtypeName.c_str());
  if (tensor.dtype == LOOM_DTYPE_INVALID ||
      dtypeName.find('\0') != std::string::npos)
    return fail("'" + keyPath + ".dtype' is " + json::quote(dtypeName) +
                ", which is not a dtype this runtime knows (known: float16, "
                "bfloat16, float32, float64, int8, int16, int32, int64, "
                "uint8, uint16, uint32, uint64, bool, float8e4m3fn, "
                "float8e4m3fnuz, float8e5m2, float8e5m2fnuz, int4, uint4)");

  const json::Value *shape =
      member(value, "shape", keyPath + ".shape", /*required=*/true);
  if (!shape)
    return false;
  if (!shape->isArray())
    return wrongType(keyPath + ".shape", "an array of integers", *shape);
  for (size_t d = 0; d < shape->getArray().size(); ++d) {
    const json::Value &dim = shape->getArray()[d];
    std::string dimPath = keyPath + ".shape[" + std::to_string(d) + "]";
    if (!dim.isInteger())
      return wrongType(dimPath, "an integer", dim);
    if (dim.getInteger() < 0)
      return fail("'" + dimPath + "' is " + std::to_string(dim.getInteger()) +
                  "; dimensions must not be negative");
    tensor.shape.push_back(dim.getInteger());
  }
  if (!checkedNumElements(tensor.shape.data(), tensor.shape.size(),
                          tensor.numElements) ||
      !checkedByteSize(tensor.dtype, tensor.shape.data(), tensor.shape.size(),
                       tensor.nbytes))
    return fail("'" + keyPath +
                ".shape' describes a tensor too large to "
                "address");
  if (!readSharding(value, keyPath, manifest, tensor))
    return false;

  if (!isParameter)
    return true;
  if (const json::Value *init =
          member(value, "init", keyPath + ".init", false)) {
    if (!init->isString())
      return wrongType(keyPath + ".init", "a string", *init);
    if (init->getString() != "zeros")
      return fail("'" + keyPath + ".init' is " +
                  json::quote(init->getString()) +
                  "; the only initializer this runtime knows is \"zeros\"");
    tensor.initZeros = true;
  }
  if (!getString(value, "update", keyPath + ".update", false, tensor.update))
    return false;
  if (value.find("update") && !value.find("update")->isNull() &&
      tensor.update.empty())
    return fail("'" + keyPath + ".update' must name an output, found \"\"");
  // A zero-initialised parameter has no bytes in the parameter file.
  if (tensor.initZeros)
    return true;
  int64_t offset = 0, nbytes = 0;
  if (!getInteger(value, "offset", keyPath + ".offset", offset) ||
      !getInteger(value, "nbytes", keyPath + ".nbytes", nbytes))
    return false;
  if (offset < 0)
    return fail("'" + keyPath + ".offset' is " + std::to_string(offset) +
                "; offsets must not be negative");
  // Programs may assume aligned parameters (the file is mapped at a page
  // boundary, so aligned offsets give aligned pointers).
  if (offset % LOOM_ALIGNMENT != 0)
    return fail("'" + keyPath + ".offset' is " + std::to_string(offset) +
                ", which is not a multiple of " +
                std::to_string(LOOM_ALIGNMENT));
  // The file holds the whole tensor; each rank copies its block out.
  if (nbytes < 0 || static_cast<uint64_t>(nbytes) != tensor.globalNbytes)
    return fail("'" + keyPath + ".nbytes' is " + std::to_string(nbytes) +
                ", but " +
                (tensor.isSharded() ? std::string("the global tensor ")
                                    : std::string()) +
                formatTensorType(tensor.dtype, tensor.globalShape) + " takes " +
                std::to_string(tensor.globalNbytes) + " bytes");
  tensor.offset = static_cast<uint64_t>(offset);
  return true;
}

bool loom::rt::parseManifest(std::string_view text,
                             const std::string &manifestPath,
                             const std::string &artifactDir, Manifest &manifest,
                             std::string &error, loom_status &status) {
  json::Value root;
  json::ParseError parseError;
  if (!json::parse(text, root, parseError)) {
    error = manifestPath + ": invalid JSON at " + parseError.format();
    status = LOOM_ERROR_FORMAT;
    return false;
  }
  ManifestReader reader(manifestPath, artifactDir, error, status);
  return reader.read(root, manifest);
}

std::vector<int64_t> Manifest::meshSizes() const {
  std::vector<int64_t> sizes;
  for (const MeshAxis &axis : mesh)
    sizes.push_back(axis.size);
  return sizes;
}

int64_t Manifest::meshSize() const {
  int64_t size = 1;
  for (const MeshAxis &axis : mesh)
    size *= axis.size;
  return size;
}

std::string Manifest::describeMesh() const {
  std::string text;
  for (const MeshAxis &axis : mesh)
    text += (text.empty() ? "" : " x ") + axis.name + "=" +
            std::to_string(axis.size);
  return text;
}

std::string Manifest::axisNames(const std::vector<int> &axes,
                                const char *separator) const {
  std::string text;
  for (size_t i = 0; i < axes.size(); ++i)
    text += (i ? separator : "") + mesh[axes[i]].name;
  return text;
}
