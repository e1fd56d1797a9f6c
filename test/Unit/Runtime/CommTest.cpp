//===- CommTest.cpp - Meshes, sharding, communicators, collectives --------===//
//
// The layout arithmetic of distributed artifacts (mixed radix, groups,
// blocks), the manifest checks of format 2, and the communicator API in one
// process: the built-in "self" world, a one-rank MPI world, binding,
// sharded inputs and outputs, and the collectives' one-rank paths. Runs on
// several ranks are loomrun's lit tests (test/runtime/dist-*.test).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"
#include "comm/Layout.h"
#include "loom/runtime/Collectives.h"
#include "loom/runtime/CommBackend.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sys/stat.h>

using namespace loom::rt;
using namespace loom::rt::test;

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

TEST(Layout, MixedRadixCoordinates) {
  layout::MeshSizes sizes = {2, 3, 4};
  EXPECT_EQ(layout::meshSize(sizes), 24);
  EXPECT_EQ(layout::meshSize({}), 1);
  EXPECT_EQ(layout::coordinates(sizes, 0), (std::vector<int64_t>{0, 0, 0}));
  // 17 = 1 * 12 + 1 * 4 + 1: the first axis is the most significant.
  EXPECT_EQ(layout::coordinates(sizes, 17), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(layout::coordinates(sizes, 23), (std::vector<int64_t>{1, 2, 3}));
  for (int64_t rank = 0; rank < 24; ++rank)
    EXPECT_EQ(layout::rankOf(sizes, layout::coordinates(sizes, rank)), rank);
}

TEST(Layout, IndexAlongFollowsTheListedOrder) {
  layout::MeshSizes sizes = {2, 3};
  std::vector<int64_t> coords = {1, 2}; // rank 5
  EXPECT_EQ(layout::indexAlong(sizes, coords, {0}), 1);
  EXPECT_EQ(layout::indexAlong(sizes, coords, {1}), 2);
  EXPECT_EQ(layout::indexAlong(sizes, coords, {0, 1}), 5); // 1 * 3 + 2
  EXPECT_EQ(layout::indexAlong(sizes, coords, {1, 0}), 5); // 2 * 2 + 1
  EXPECT_EQ(layout::indexAlong(sizes, {0, 1}, {1, 0}), 2); // 1 * 2 + 0
  EXPECT_EQ(layout::indexAlong(sizes, coords, {}), 0);
  EXPECT_EQ(layout::sizeAlong(sizes, {1, 0}), 6);
  EXPECT_EQ(layout::sizeAlong(sizes, {}), 1);
}

TEST(Layout, GroupMembers) {
  // dp=2 x tp=2: rank = 2 dp + tp.
  layout::MeshSizes sizes = {2, 2};
  EXPECT_EQ(layout::groupMembers(sizes, {1}, 2),
            (std::vector<int64_t>{2, 3})); // tp
  EXPECT_EQ(layout::groupMembers(sizes, {0}, 1),
            (std::vector<int64_t>{1, 3})); // dp
  EXPECT_EQ(layout::groupMembers(sizes, {0, 1}, 3),
            (std::vector<int64_t>{0, 1, 2, 3}));
  // Listed minor-first, the group's order follows the list.
  EXPECT_EQ(layout::groupMembers(sizes, {1, 0}, 3),
            (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(layout::groupMembers(sizes, {}, 3), (std::vector<int64_t>{3}));

  // Every rank is at its own index in its group, and the members of a
  // group share a color that no other group has.
  layout::MeshSizes big = {2, 3, 2};
  for (const layout::AxisList &axes :
       std::vector<layout::AxisList>{{0}, {1}, {2}, {0, 2}, {2, 1}}) {
    std::vector<int64_t> colors;
    for (int64_t rank = 0; rank < 12; ++rank) {
      std::vector<int64_t> members = layout::groupMembers(big, axes, rank);
      int64_t index =
          layout::indexAlong(big, layout::coordinates(big, rank), axes);
      ASSERT_LT(index, static_cast<int64_t>(members.size()));
      EXPECT_EQ(members[index], rank);
      for (int64_t member : members)
        EXPECT_EQ(layout::groupColor(big, axes, member),
                  layout::groupColor(big, axes, rank));
      colors.push_back(layout::groupColor(big, axes, rank));
    }
    std::sort(colors.begin(), colors.end());
    colors.erase(std::unique(colors.begin(), colors.end()), colors.end());
    EXPECT_EQ(static_cast<int64_t>(colors.size()),
              12 / layout::sizeAlong(big, axes));
  }
}

TEST(Layout, BlockOffsetsAndHolders) {
  layout::MeshSizes sizes = {2, 2}; // dp, tp
  std::vector<layout::AxisList> rowsDpColsTp = {{0}, {1}};
  // Rank 3 = (dp 1, tp 1) holds rows 2..3 and columns 3..5 of a [4, 6].
  EXPECT_EQ(layout::blockOffsets(sizes, rowsDpColsTp, {2, 3}, 3),
            (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(layout::blockOffsets(sizes, rowsDpColsTp, {2, 3}, 1),
            (std::vector<int64_t>{0, 3}));
  // Rows over (tp, dp): block index = 2 tp + dp.
  EXPECT_EQ(layout::blockOffsets(sizes, {{1, 0}, {}}, {1, 6}, 1),
            (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(layout::blockOffsets(sizes, {}, {4, 6}, 3),
            (std::vector<int64_t>{0, 0}));
  // Replicated over tp: the tp=0 ranks hold the canonical copies.
  std::vector<layout::AxisList> rowsDp = {{0}, {}};
  EXPECT_TRUE(layout::isCanonicalHolder(sizes, rowsDp, 0));
  EXPECT_FALSE(layout::isCanonicalHolder(sizes, rowsDp, 1));
  EXPECT_TRUE(layout::isCanonicalHolder(sizes, rowsDp, 2));
  EXPECT_TRUE(layout::isCanonicalHolder(sizes, rowsDpColsTp, 3));
  EXPECT_FALSE(layout::isCanonicalHolder(sizes, {}, 2));
}

namespace {
/// Splits a global tensor into every rank's block and puts the blocks back;
/// checks each block's values and that the reassembly is exact.
void roundTrip(const layout::MeshSizes &sizes,
               const std::vector<layout::AxisList> &sharding,
               const std::vector<int64_t> &globalShape) {
  std::vector<int64_t> localShape = globalShape;
  for (size_t d = 0; d < sharding.size(); ++d)
    localShape[d] /= layout::sizeAlong(sizes, sharding[d]);
  int64_t globalCount = 1, localCount = 1;
  for (size_t d = 0; d < globalShape.size(); ++d) {
    globalCount *= globalShape[d];
    localCount *= localShape[d];
  }
  std::vector<int32_t> global(globalCount), back(globalCount, -1);
  std::iota(global.begin(), global.end(), 0);
  for (int64_t rank = 0; rank < layout::meshSize(sizes); ++rank) {
    std::vector<int64_t> offsets =
        layout::blockOffsets(sizes, sharding, localShape, rank);
    std::vector<int32_t> local(localCount, -1);
    layout::extractBlock(global.data(), local.data(), globalShape, localShape,
                         offsets, sizeof(int32_t));
    // Element i of the block is global element (offsets + index of i).
    for (int64_t i = 0; i < localCount; ++i) {
      int64_t rest = i, flat = 0, stride = 1;
      std::vector<int64_t> index(localShape.size());
      for (size_t d = localShape.size(); d-- > 0;) {
        index[d] = rest % localShape[d];
        rest /= localShape[d];
      }
      for (size_t d = localShape.size(); d-- > 0;) {
        flat += (offsets[d] + index[d]) * stride;
        stride *= globalShape[d];
      }
      ASSERT_EQ(local[i], global[flat]) << "rank " << rank << " element " << i;
    }
    layout::insertBlock(local.data(), back.data(), globalShape, localShape,
                        offsets, sizeof(int32_t));
  }
  EXPECT_EQ(back, global);
}
} // namespace

TEST(Layout, BlocksRoundTrip) {
  layout::MeshSizes sizes = {2, 3};
  roundTrip(sizes, {{0}, {1}}, {4, 6});
  roundTrip(sizes, {{}, {1, 0}}, {2, 12});
  roundTrip(sizes, {{0, 1}, {}}, {6, 5});
  roundTrip(sizes, {{}, {0}, {}}, {3, 4, 5});  // a middle dimension
  roundTrip(sizes, {{1}, {}, {0}}, {3, 2, 4}); // outer and inner
  roundTrip(sizes, {{}, {}, {0, 1}}, {2, 2, 6});
  roundTrip({4}, {{0}}, {8});
  // Empty blocks copy nothing.
  std::vector<int32_t> none;
  layout::extractBlock(none.data(), none.data(), {0, 4}, {0, 2}, {0, 2}, 4);
}

//===----------------------------------------------------------------------===//
// Manifests (format 2)
//===----------------------------------------------------------------------===//

namespace {
/// A distributed manifest around TestCollectives.c's "allreduce" program:
/// parameter cfg int64[1] = n; x float32[n] -> y float32[n], the sum over
/// group 0. `MESH`, `GROUPS`, `X` and `Y` are replaced by the arguments.
std::string distManifest(const std::string &mesh, const std::string &groups,
                         const std::string &x, const std::string &y,
                         const std::string &extra = "") {
  std::string text = R"({
  "format": "loom-artifact", "format_version": 2, "runtime_abi": 3,
  "library": "program.so", "entry": "loom_entry_allreduce",
  "parameter_file": "parameters.bin",
  "mesh": MESH, "groups": GROUPS,
  "parameters": [{"name": "cfg", "dtype": "int64", "shape": [1],
                  "offset": 0, "nbytes": 8}],
  "inputs": [X], "outputs": [Y] EXTRA
})";
  auto replace = [&](const std::string &key, const std::string &value) {
    text.replace(text.find(key), key.size(), value);
  };
  replace("MESH", mesh);
  replace("GROUPS", groups);
  replace("X", x);
  replace("Y", y);
  replace("EXTRA", extra);
  return text;
}

const char meshDpTp[] =
    R"({"axes": [{"name": "dp", "size": 2}, {"name": "tp", "size": 2}]})";
const char meshOne[] =
    R"({"axes": [{"name": "dp", "size": 1}, {"name": "tp", "size": 1}]})";
const char groups3[] = R"([["tp"], ["dp"], ["dp", "tp"]])";

std::string tensor(const std::string &name, const std::string &shape,
                   const std::string &more = "") {
  return R"({"name": ")" + name + R"(", "dtype": "float32", "shape": )" +
         shape + more + "}";
}

class DistTest : public ::testing::Test {
protected:
  std::string artifact() const { return tmp.file("dist.loom"); }

  /// Writes the artifact (cfg = `count`) and loads it; "" or the message.
  std::string write(const std::string &manifest, int64_t count = 4) {
    ::mkdir(artifact().c_str(), 0777);
    std::string parameters(reinterpret_cast<const char *>(&count), 8);
    if (!writeFile(artifact() + "/manifest.json", manifest) ||
        !writeFile(artifact() + "/parameters.bin", parameters))
      return "cannot write the artifact";
    std::string temp = artifact() + "/program.so.tmp";
    if (!writeFile(temp, readFile(LOOM_TEST_COLLECTIVES)) ||
        std::rename(temp.c_str(), (artifact() + "/program.so").c_str()) != 0)
      return "cannot write the program";
    return "";
  }

  /// The load error of `manifest` ("" when it loads), without the
  /// manifest's path.
  std::string loadError(const std::string &manifest) {
    std::string problem = write(manifest);
    if (!problem.empty())
      return problem;
    char err[2048] = "";
    loom_program *program = loom_program_load_with_flags(
        artifact().c_str(), LOOM_LOAD_MANIFEST_ONLY, err, sizeof(err));
    if (program) {
      loom_program_free(program);
      return "";
    }
    std::string text = err;
    size_t colon = text.find("manifest.json: ");
    return colon == std::string::npos ? text : text.substr(colon + 15);
  }

  TempDir tmp;
};
} // namespace

TEST_F(DistTest, ValidManifestAndAccessors) {
  std::string x = tensor(
      "x", "[4, 3]", R"(, "global_shape": [8, 3], "sharding": [["dp"], []])");
  std::string y =
      tensor("y", "[2, 3]",
             R"(, "global_shape": [8, 3], "sharding": [["dp", "tp"], []])");
  std::string calls = R"(, "collectives": [
      {"kind": "all_reduce", "group": 0, "bytes": 48},
      {"kind": "take_shard", "group": 2, "bytes": 96}])";
  ASSERT_EQ(write(distManifest(meshDpTp, groups3, x, y, calls)), "");
  char err[1024] = "";
  loom_program *program = loom_program_load_with_flags(
      artifact().c_str(), LOOM_LOAD_MANIFEST_ONLY, err, sizeof(err));
  ASSERT_NE(program, nullptr) << err;
  EXPECT_EQ(loom_program_mesh_num_axes(program), 2u);
  EXPECT_STREQ(loom_program_mesh_axis_name(program, 1), "tp");
  EXPECT_EQ(loom_program_mesh_axis_size(program, 0), 2);
  EXPECT_EQ(loom_program_mesh_axis_name(program, 2), nullptr);
  EXPECT_EQ(loom_program_mesh_size(program), 4);
  EXPECT_EQ(loom_program_num_groups(program), 3u);
  EXPECT_STREQ(loom_program_group_axes(program, 2), "dp,tp");
  EXPECT_EQ(loom_program_group_axes(program, 3), nullptr);
  ASSERT_EQ(loom_program_num_collectives(program), 2u);
  int32_t kind = -1, group = -1;
  int64_t bytes = -1;
  EXPECT_EQ(loom_program_collective(program, 1, &kind, &group, &bytes),
            LOOM_OK);
  EXPECT_EQ(kind, LOOM_COLLECTIVE_TAKE_SHARD);
  EXPECT_EQ(group, 2);
  EXPECT_EQ(bytes, 96);
  EXPECT_EQ(loom_program_collective(program, 2, &kind, &group, &bytes),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(loom_collective_kind_name(LOOM_COLLECTIVE_ALL_TO_ALL),
               "all_to_all");
  EXPECT_STREQ(loom_collective_kind_name(LOOM_COLLECTIVE_RECV), "recv");
  EXPECT_STREQ(loom_collective_kind_name(LOOM_COLLECTIVE_NUM_KINDS), "invalid");

  const loom_tensor_info *in = loom_program_input(program, 0);
  EXPECT_EQ(in->nbytes, 48u);
  EXPECT_EQ(in->global_nbytes, 96u);
  EXPECT_EQ(in->global_shape[0], 8);
  EXPECT_EQ(in->global_shape[1], 3);
  EXPECT_EQ(loom_program_tensor_is_sharded(in), 1);
  EXPECT_EQ(loom_program_tensor_is_sharded(loom_program_parameter(program, 0)),
            0);
  EXPECT_EQ(loom_program_tensor_is_sharded(nullptr), 0);
  EXPECT_STREQ(loom_program_tensor_sharding(program, LOOM_TENSOR_OUTPUT, 0, 0),
               "dp,tp");
  EXPECT_STREQ(loom_program_tensor_sharding(program, LOOM_TENSOR_INPUT, 0, 1),
               "");
  EXPECT_STREQ(
      loom_program_tensor_sharding(program, LOOM_TENSOR_PARAMETER, 0, 0), "");
  EXPECT_EQ(loom_program_tensor_sharding(program, LOOM_TENSOR_INPUT, 0, 2),
            nullptr);
  EXPECT_EQ(loom_program_tensor_sharding(program, 3, 0, 0), nullptr);
  loom_program_free(program);

  // Without a mesh: size 1, no axes, no groups.
  ASSERT_EQ(loadError(distManifest("null", "null", tensor("x", "[4]"),
                                   tensor("y", "[4]"))),
            "");
}

TEST_F(DistTest, BadMeshesGroupsAndCollectives) {
  std::string x = tensor("x", "[4]"), y = tensor("y", "[4]");
  EXPECT_EQ(loadError(distManifest(R"({"axes": [{"name": "dp", "size": 0}]})",
                                   "[]", x, y)),
            "'mesh.axes[0].size' is 0; axis sizes must be at least 1");
  EXPECT_EQ(loadError(distManifest(R"({"axes": [{"name": "dp", "size": 2},
                                                {"name": "dp", "size": 2}]})",
                                   "[]", x, y)),
            "'mesh.axes[1].name' \"dp\" repeats the name of mesh.axes[0]");
  EXPECT_EQ(loadError(distManifest(R"({"axes": [{"name": "a,b", "size": 2}]})",
                                   "[]", x, y)),
            "'mesh.axes[0].name' must be a non-empty name without ',' or NUL, "
            "found \"a,b\"");
  EXPECT_EQ(loadError(distManifest(R"({"axes": [{"name": "a", "size": 65536},
                                                {"name": "b", "size": 65536}]})",
                                   "[]", x, y)),
            "'mesh.axes[1].size' is 65536, which makes the mesh larger than "
            "16777216 devices");
  EXPECT_EQ(loadError(distManifest(R"({"axis": []})", "[]", x, y)),
            "missing key 'mesh.axes'");
  EXPECT_EQ(loadError(distManifest(meshDpTp, R"([["tp"], ["pp"]])", x, y)),
            "'groups[1][0]' names mesh axis \"pp\", which the mesh does not "
            "have (axes: dp=2 x tp=2)");
  EXPECT_EQ(loadError(distManifest(meshDpTp, R"([["tp", "tp"]])", x, y)),
            "'groups[0][1]' names mesh axis \"tp\" a second time; a group "
            "lists each axis once");
  EXPECT_EQ(loadError(distManifest("null", R"([["tp"]])", x, y)),
            "'groups[0][0]' names mesh axis \"tp\", but the manifest has no "
            "'mesh'");
  EXPECT_EQ(loadError(distManifest(meshDpTp, R"(["tp"])", x, y)),
            "'groups[0]' must be an array of mesh axis names, found string");
  EXPECT_EQ(
      loadError(distManifest(
          meshDpTp, groups3, x, y,
          R"(, "collectives": [{"kind": "gather", "group": 0, "bytes": 4}])")),
      "'collectives[0].kind' is \"gather\", which is not a collective this "
      "runtime knows (known: all_reduce, all_gather, reduce_scatter, "
      "all_to_all, broadcast, take_shard, send, recv)");
  EXPECT_EQ(
      loadError(distManifest(
          meshDpTp, groups3, x, y,
          R"(, "collectives": [{"kind": "broadcast", "group": 3, "bytes": 4}])")),
      "'collectives[0].group' is 3, but 'groups' has 3 groups");
  EXPECT_EQ(
      loadError(distManifest(
          meshDpTp, groups3, x, y,
          R"(, "collectives": [{"kind": "broadcast", "group": 0, "bytes": -4}])")),
      "'collectives[0].bytes' is -4; sizes must not be negative");
  EXPECT_EQ(loadError(distManifest(
                meshDpTp, groups3, x, y,
                R"(, "collectives": [{"kind": "broadcast", "group": 0}])")),
            "missing key 'collectives[0].bytes'");
}

TEST_F(DistTest, BadSharding) {
  std::string y = tensor("y", "[4]");
  auto input = [&](const std::string &shape, const std::string &more) {
    return loadError(
        distManifest(meshDpTp, groups3, tensor("x", shape, more), y));
  };
  EXPECT_EQ(
      input("[4, 3]", R"(, "global_shape": [8, 3], "sharding": [["pp"], []])"),
      "'inputs[0].sharding[0][0]' names mesh axis \"pp\", which the mesh "
      "does not have (axes: dp=2 x tp=2)");
  // An axis splits one dimension of a tensor, once.
  EXPECT_EQ(
      input("[2, 3]",
            R"(, "global_shape": [8, 3], "sharding": [["dp", "dp"], []])"),
      "'inputs[0].sharding[0][1]' names mesh axis \"dp\" a second time; "
      "an axis splits a tensor at most once");
  EXPECT_EQ(input("[4, 2]",
                  R"(, "global_shape": [8, 4], "sharding": [["dp"], ["dp"]])"),
            "'inputs[0].sharding[1][0]' names mesh axis \"dp\" a second time; "
            "an axis splits a tensor at most once");
  EXPECT_EQ(
      input("[4, 3]", R"(, "global_shape": [7, 3], "sharding": [["dp"], []])"),
      "'inputs[0].global_shape[0]' is 7, which does not split into 2 "
      "equal blocks along [dp]");
  EXPECT_EQ(
      input("[2, 3]",
            R"(, "global_shape": [6, 3], "sharding": [["dp", "tp"], []])"),
      "'inputs[0].global_shape[0]' is 6, which does not split into 4 "
      "equal blocks along [dp, tp]");
  EXPECT_EQ(
      input("[3, 3]", R"(, "global_shape": [8, 3], "sharding": [["dp"], []])"),
      "'inputs[0].shape[0]' is 3, but global extent 8 split into 2 "
      "blocks along [dp] gives 4");
  // A global shape without sharding must equal the shape.
  EXPECT_EQ(input("[4, 3]", R"(, "global_shape": [8, 3])"),
            "'inputs[0].shape[0]' is 4, but global extent 8 split into 1 "
            "blocks along [] gives 8");
  EXPECT_EQ(input("[4, 3]", R"(, "global_shape": [8])"),
            "'inputs[0].global_shape' has 1 dimensions, but 'shape' has 2");
  EXPECT_EQ(input("[4, 3]", R"(, "sharding": [["dp"]])"),
            "'inputs[0].sharding' has 1 entries, but 'shape' has 2 dimensions");
  EXPECT_EQ(
      input("[4, 3]", R"(, "sharding": ["dp", []])"),
      "'inputs[0].sharding[0]' must be an array of mesh axis names, found "
      "string");
  EXPECT_EQ(input("[4, 3]", R"(, "global_shape": [-8, 3])"),
            "'inputs[0].global_shape[0]' is -8; dimensions must not be "
            "negative");
  // Sharding along an axis of size 1 is no split at all.
  EXPECT_EQ(loadError(distManifest(
                meshOne, groups3,
                tensor("x", "[4]", R"(, "sharding": [["dp", "tp"]])"), y)),
            "");
  // Outputs are checked alike.
  EXPECT_EQ(loadError(distManifest(
                meshDpTp, groups3, tensor("x", "[4]"),
                tensor("y", "[4]",
                       R"(, "global_shape": [8], "sharding": [["tp"]])"))),
            "");
  EXPECT_EQ(
      loadError(distManifest(meshDpTp, groups3, tensor("x", "[4]"),
                             tensor("y", "[4]", R"(, "sharding": [["xp"]])"))),
      "'outputs[0].sharding[0][0]' names mesh axis \"xp\", which the mesh "
      "does not have (axes: dp=2 x tp=2)");
}

TEST_F(DistTest, ShardedParametersHoldTheirGlobalBytes) {
  // nbytes describes the whole tensor in parameters.bin.
  std::string text =
      distManifest(meshDpTp, groups3, tensor("x", "[4]"), tensor("y", "[4]"));
  std::string sharded =
      R"({"name": "cfg", "dtype": "int64", "shape": [1], "global_shape": [2],
          "sharding": [["tp"]], "offset": 0, "nbytes": 8})";
  std::string parameter =
      R"({"name": "cfg", "dtype": "int64", "shape": [1],
                  "offset": 0, "nbytes": 8})";
  text.replace(text.find(parameter), parameter.size(), sharded);
  EXPECT_EQ(loadError(text), "'parameters[0].nbytes' is 8, but the global "
                             "tensor int64[2] takes 16 bytes");
}

//===----------------------------------------------------------------------===//
// Communicators in one process
//===----------------------------------------------------------------------===//

namespace {
/// Restores an environment variable when it goes out of scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    const char *old = std::getenv(name);
    hadValue = old != nullptr;
    if (old)
      previous = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadValue)
      ::setenv(name, previous.c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  bool hadValue = false;
  std::string previous;
};
} // namespace

TEST(Comm, SelfWorld) {
  char err[1024] = "";
  loom_comm *comm = loom_comm_create("self", err, sizeof(err));
  ASSERT_NE(comm, nullptr) << err;
  EXPECT_STREQ(loom_comm_backend(comm), "self");
  EXPECT_EQ(loom_comm_rank(comm), 0);
  EXPECT_EQ(loom_comm_size(comm), 1);
  EXPECT_EQ(loom_comm_timeout(comm), 600);
  loom_comm_set_timeout(comm, 2.5);
  EXPECT_EQ(loom_comm_timeout(comm), 2.5);
  loom_comm_set_timeout(comm, -1);
  EXPECT_EQ(loom_comm_timeout(comm), 0);

  int32_t values[3] = {1, 2, 3}, out[3] = {};
  EXPECT_EQ(loom_comm_all_reduce(comm, values, out, 3, LOOM_DTYPE_INT32,
                                 LOOM_REDUCE_SUM, err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(out[2], 3);
  EXPECT_EQ(loom_comm_all_reduce(comm, values, out, 3, LOOM_DTYPE_INVALID,
                                 LOOM_REDUCE_SUM, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_comm_all_reduce(comm, values, out, 3, LOOM_DTYPE_INT32, 9, err,
                                 sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_comm_broadcast(comm, values, 12, 0, err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(loom_comm_broadcast(comm, values, 12, 1, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  loom_comm_free(comm);
  loom_comm_free(nullptr);
  EXPECT_EQ(loom_comm_size(nullptr), 0);
  EXPECT_EQ(loom_comm_backend(nullptr), nullptr);
}

TEST(Comm, DefaultBackendAndTimeout) {
  ScopedEnv size("OMPI_COMM_WORLD_SIZE", nullptr), pmi("PMI_SIZE", nullptr),
      pmix("PMIX_RANK", nullptr), slurm("SLURM_PROCID", nullptr),
      timeout("LOOM_COLLECTIVE_TIMEOUT", "7.5");
  char err[1024] = "";
  loom_comm *comm = loom_comm_create(nullptr, err, sizeof(err));
  ASSERT_NE(comm, nullptr) << err;
  // Not started by a launcher: one rank, no MPI.
  EXPECT_STREQ(loom_comm_backend(comm), "self");
  EXPECT_EQ(loom_comm_timeout(comm), 7.5);
  loom_comm_free(comm);
}

TEST(Comm, MissingPlugins) {
  // A backend NAME is the plugin libloom_comm_NAME.so; this one exists
  // nowhere. (Not "nccl": where its plugin is built, creating it would
  // start MPI in this process.)
  char err[2048] = "";
  EXPECT_EQ(loom_comm_create("nosuch", err, sizeof(err)), nullptr);
  std::string message = err;
  EXPECT_EQ(message.find("loom_comm_create: the 'nosuch' communicator backend "
                         "needs the plugin libloom_comm_nosuch.so, which is "
                         "neither beside "),
            0u)
      << message;
  EXPECT_NE(message.find("libloom_runtime.so nor loadable from the library "
                         "search path (libloom_comm_nosuch.so: cannot open "
                         "shared object file"),
            std::string::npos)
      << message;
  EXPECT_EQ(loom_comm_create("../evil", err, sizeof(err)), nullptr);
  EXPECT_STREQ(err, "loom_comm_create: unknown communicator backend "
                    "'../evil' (known: mpi, nccl, self)");
}

TEST(Comm, PluginsOfAnotherBackendAbiAreRefused) {
  // libloom_comm_oldabi.so (TestPlugins.c) implements backend ABI 1, whose
  // operations took no stream: refused before MPI starts or any of its
  // functions is called.
  char err[2048] = "";
  EXPECT_EQ(loom_comm_create("oldabi", err, sizeof(err)), nullptr);
  std::string message = err;
  EXPECT_NE(message.find("libloom_comm_oldabi.so' implements backend ABI 1, "
                         "but this runtime needs " +
                         std::to_string(LOOM_COMM_BACKEND_ABI_VERSION) +
                         ": rebuild the plugin with this runtime"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("loom_comm_create: communicator backend plugin '"), 0u)
      << message;
  EXPECT_EQ(LOOM_COMM_BACKEND_ABI_VERSION, 3);
}

TEST_F(DistTest, BindChecksTheMeshSize) {
  ASSERT_EQ(write(distManifest(meshDpTp, groups3, tensor("x", "[4]"),
                               tensor("y", "[4]"))),
            "");
  char err[1024] = "";
  loom_program *program =
      loom_program_load(artifact().c_str(), err, sizeof(err));
  ASSERT_NE(program, nullptr) << err;
  loom_comm *comm = loom_comm_create("self", err, sizeof(err));
  ASSERT_NE(comm, nullptr) << err;
  EXPECT_EQ(loom_program_bind(program, comm, err, sizeof(err)),
            LOOM_ERROR_INCOMPATIBLE);
  EXPECT_STREQ(err, "the program was compiled for a mesh of 4 devices (dp=2 x "
                    "tp=2) but runs on 1 rank");
  // Unbound, it does not run either.
  float x[4] = {}, y[4] = {};
  const void *inputs[] = {x};
  void *outputs[] = {y};
  EXPECT_EQ(loom_program_run(program, inputs, outputs, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(err).find("was compiled for a mesh of 4 devices (dp=2 "
                                  "x tp=2): bind it to a communicator"),
            std::string::npos)
      << err;
  EXPECT_EQ(loom_program_bind(nullptr, comm, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(loom_program_bind(program, nullptr, err, sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  loom_comm_free(comm);
  loom_program_free(program);

  // Manifest-only programs cannot bind.
  program = loom_program_load_with_flags(
      artifact().c_str(), LOOM_LOAD_MANIFEST_ONLY, err, sizeof(err));
  comm = loom_comm_create("self", err, sizeof(err));
  EXPECT_EQ(loom_program_bind(program, comm, err, sizeof(err)),
            LOOM_ERROR_UNSUPPORTED);
  loom_comm_free(comm);
  loom_program_free(program);
}

namespace {
/// Loads `dir`, binds it to `comm`, shards `global` into x, runs, gathers
/// y into `result`; returns "" or the first error.
std::string bindAndRun(const std::string &dir, loom_comm *comm,
                       const std::vector<float> &global,
                       std::vector<float> &result, bool freeCommFirst = false) {
  char err[1024] = "";
  loom_program *program = loom_program_load(dir.c_str(), err, sizeof(err));
  if (!program)
    return err;
  std::string problem;
  const loom_tensor_info *xInfo = loom_program_input(program, 0);
  const loom_tensor_info *yInfo = loom_program_output(program, 0);
  AlignedBuffer x, y;
  x.allocate(xInfo->nbytes);
  y.allocate(yInfo->nbytes);
  result.assign(yInfo->global_nbytes / sizeof(float), -1);
  const void *inputs[] = {x.data()};
  void *outputs[] = {y.data()};
  if (loom_program_bind(program, comm, err, sizeof(err)) != LOOM_OK ||
      loom_program_shard_input(program, 0, global.data(), x.data(), err,
                               sizeof(err)) != LOOM_OK ||
      loom_program_run(program, inputs, outputs, err, sizeof(err)) != LOOM_OK ||
      loom_program_gather_output(program, 0, y.data(), result.data(), 0, err,
                                 sizeof(err)) != LOOM_OK)
    problem = err;
  if (freeCommFirst)
    loom_comm_free(comm); // unbinds the program
  loom_program_free(program);
  return problem;
}
} // namespace

TEST_F(DistTest, OneDeviceMeshRunsOnTheSelfWorld) {
  // Sharded along axes of size 1: every block is the whole tensor.
  ASSERT_EQ(
      write(distManifest(
          meshOne, groups3, tensor("x", "[4]", R"(, "sharding": [["tp"]])"),
          tensor("y", "[4]", R"(, "sharding": [["dp"]])"),
          R"(, "collectives": [{"kind": "all_reduce", "group": 0, "bytes": 16}])")),
      "");
  char err[1024] = "";
  loom_comm *comm = loom_comm_create("self", err, sizeof(err));
  ASSERT_NE(comm, nullptr) << err;
  int64_t callsBefore = 0, bytesBefore = 0, calls = 0, bytes = 0;
  loom_collective_stats(LOOM_COLLECTIVE_ALL_REDUCE, &callsBefore, &bytesBefore,
                        nullptr);
  std::vector<float> x = {1, -2, 3.5f, 4}, y;
  EXPECT_EQ(bindAndRun(artifact(), comm, x, y), "");
  EXPECT_EQ(y, x); // a sum over one rank
  loom_collective_stats(LOOM_COLLECTIVE_ALL_REDUCE, &calls, &bytes, nullptr);
  EXPECT_EQ(calls, callsBefore + 1);
  EXPECT_EQ(bytes, bytesBefore + 16);
  EXPECT_EQ(loom_collective_stats(LOOM_COLLECTIVE_NUM_KINDS, &calls, nullptr,
                                  nullptr),
            LOOM_ERROR_INVALID_ARGUMENT);
  // Freeing the communicator first unbinds the program.
  EXPECT_EQ(bindAndRun(artifact(), comm, x, y, /*freeCommFirst=*/true), "");
  EXPECT_EQ(y, x);
}

TEST_F(DistTest, ProgramsWithoutMeshBindToAnyWorld) {
  ASSERT_EQ(write(distManifest("null", "[[]]", tensor("x", "[3]"),
                               tensor("y", "[3]")),
                  3),
            "");
  char err[1024] = "";
  loom_comm *comm = loom_comm_create("self", err, sizeof(err));
  std::vector<float> x = {1, 2, 3}, y;
  EXPECT_EQ(bindAndRun(artifact(), comm, x, y), "");
  EXPECT_EQ(y, x);
  loom_comm_free(comm);
}

TEST(Collectives, OneRankGroupsCopy) {
  // Outside loom_program_run no communicator is current: every group has
  // one rank, and each call is a copy with the right layout.
  alignas(64) float src[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  alignas(64) float dst[8] = {};
  loom_coll_all_reduce(src, dst, 8, LOOM_DTYPE_FLOAT32, LOOM_REDUCE_MEAN, 0);
  EXPECT_EQ(dst[7], 7);
  std::memset(dst, 0, sizeof(dst));
  loom_coll_all_gather(src, dst, 2, 16, 0);
  EXPECT_EQ(dst[5], 5);
  std::memset(dst, 0, sizeof(dst));
  loom_coll_reduce_scatter(src, dst, 4, 2, LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM,
                           0);
  EXPECT_EQ(dst[6], 6);
  std::memset(dst, 0, sizeof(dst));
  loom_coll_all_to_all(src, dst, 2, 16, 4, 8, 0);
  EXPECT_EQ(dst[3], 3);
  std::memset(dst, 0, sizeof(dst));
  loom_coll_broadcast(src, dst, 32, 0, 0);
  EXPECT_EQ(dst[7], 7);
  std::memset(dst, 0, sizeof(dst));
  loom_coll_take_shard(src, dst, 4, 8, 0);
  EXPECT_EQ(dst[4], 4);
  EXPECT_EQ(loom_coll_axis_index(0), 0);
}

TEST(CollectivesDeathTest, BadArgumentsEndTheProcess) {
  // Compiled programs cannot handle errors: the job ends, naming the call.
  // (Fresh processes: the fault hook reads its variable once.)
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  alignas(64) float buffer[8] = {};
  EXPECT_EXIT(
      loom_coll_all_reduce(buffer, buffer + 4, 4, 99, LOOM_REDUCE_SUM, 0),
      ::testing::ExitedWithCode(1),
      "loom: rank 0: all_reduce over \\[\\?\\] failed: unknown dtype 99");
  EXPECT_EXIT(loom_coll_broadcast(buffer, buffer + 4, 16, 1, 0),
              ::testing::ExitedWithCode(1),
              "loom: rank 0: broadcast over \\[\\?\\] failed: root 1 is not an "
              "index of the group \\(1 ranks\\)");
  EXPECT_EXIT(loom_coll_all_to_all(buffer, buffer + 4, 1, 8, 1, 12, 0),
              ::testing::ExitedWithCode(1),
              "all_to_all over \\[\\?\\] failed: the split blocks");
  EXPECT_EXIT(loom_coll_all_gather(buffer, buffer + 4, -1, 8, 0),
              ::testing::ExitedWithCode(1),
              "all_gather over \\[\\?\\] failed: invalid outer x chunk_bytes");
}

TEST(CollectivesDeathTest, InjectedFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  alignas(64) float buffer[8] = {};
  EXPECT_EXIT(
      {
        ::setenv("LOOM_TEST_FAULT", "rank=0,collective=0,action=exit", 1);
        loom_coll_take_shard(buffer, buffer + 4, 1, 8, 0);
      },
      ::testing::ExitedWithCode(7), "loom: rank 0: injected fault");
  EXPECT_EXIT(
      {
        ::setenv("LOOM_TEST_FAULT", "rank=0,collective=0,action=kill", 1);
        loom_coll_take_shard(buffer, buffer + 4, 1, 8, 0);
      },
      ::testing::KilledBySignal(SIGKILL), "");
}

TEST_F(DistTest, OneRankMpiWorld) {
  // A singleton MPI world: the MPI backend's create, bind and free path.
  // MPI starts once per process, so this is the only test that uses it.
  ScopedEnv size("OMPI_COMM_WORLD_SIZE", nullptr);
  ASSERT_EQ(write(distManifest(meshOne, groups3, tensor("x", "[4]"),
                               tensor("y", "[4]"))),
            "");
  char err[1024] = "";
  loom_comm *comm = loom_comm_create("mpi", err, sizeof(err));
  ASSERT_NE(comm, nullptr) << err;
  EXPECT_STREQ(loom_comm_backend(comm), "mpi");
  EXPECT_EQ(loom_comm_size(comm), 1);
  int64_t values[2] = {5, -3};
  EXPECT_EQ(loom_comm_all_reduce(comm, values, values, 2, LOOM_DTYPE_INT64,
                                 LOOM_REDUCE_MAX, err, sizeof(err)),
            LOOM_OK);
  EXPECT_EQ(values[1], -3);
  // float8 values only move.
  EXPECT_EQ(loom_comm_all_reduce(comm, values, values, 2,
                                 LOOM_DTYPE_FLOAT8E4M3FN, LOOM_REDUCE_SUM, err,
                                 sizeof(err)),
            LOOM_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(err, "reducing float8e4m3fn values is not supported (8-bit "
                    "floats and 4-bit integers are only moved)");
  std::vector<float> x = {1, 2, 3, 4}, y;
  EXPECT_EQ(bindAndRun(artifact(), comm, x, y), "");
  EXPECT_EQ(y, x);
  loom_comm_free(comm); // finalises MPI
  EXPECT_EQ(loom_comm_create("mpi", err, sizeof(err)), nullptr);
  EXPECT_NE(std::string(err).find("MPI was already finalized in this process"),
            std::string::npos)
      << err;
}
