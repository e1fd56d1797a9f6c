//===- NNInterfacesTest.cpp - Sharding rule and cost of every nn op -------===//
//
// One case per op form: the op's sharding rule in printed form and its cost
// counted by hand. A coverage test fails when an nn op has no case, so a new
// op cannot land without its rule and cost being checked.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"
#include "loom/Dialect/NN/NNOps.h"
#include "gtest/gtest.h"
#include <set>

using namespace mlir;
using namespace loom;

namespace {
struct Case {
  const char *name; // test name suffix
  std::vector<std::string> args;
  const char *op;   // one op using %a, %b, ...
  const char *rule; // expected ShardingRule::str()
  double flops;
  double trans;
  int64_t read;
  int64_t written;
  const char *dtype; // compute type, "" for none
};

const char *kF32x4x8 = "tensor<4x8xf32>";

// Counted by hand from the conventions in NNCosts.cpp.
const Case kCases[] = {
    {"constant",
     {},
     "%r = nn.constant dense<1.0> : tensor<4x8xf32>",
     "() -> ([i, j]) {i=4, j=8}",
     0,
     0,
     0,
     0,
     ""},
    {"parameter",
     {},
     "%r = nn.parameter \"w\" = dense<1.0> : tensor<4x8xbf16>",
     "() -> ([i, j]) {i=4, j=8}",
     0,
     0,
     0,
     0,
     ""},
    {"range",
     {},
     "%r = nn.range 0 to 10 step 3 -> tensor<4xi64>",
     "() -> ([i]) {i=4}",
     4,
     0,
     0,
     32,
     "i64"},
    {"neg",
     {kF32x4x8},
     "%r = nn.neg %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     128,
     128,
     "f32"},
    {"abs",
     {"tensor<4x8xi64>"},
     "%r = nn.abs %a : tensor<4x8xi64>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     256,
     256,
     "i64"},
    {"exp",
     {kF32x4x8},
     "%r = nn.exp %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     0,
     32,
     128,
     128,
     "f32"},
    {"log",
     {kF32x4x8},
     "%r = nn.log %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     0,
     32,
     128,
     128,
     "f32"},
    {"sqrt",
     {"tensor<8xbf16>"},
     "%r = nn.sqrt %a : tensor<8xbf16>",
     "([i]) -> ([i]) {i=8}",
     0,
     8,
     16,
     16,
     "bf16"},
    {"rsqrt",
     {"tensor<8xf16>"},
     "%r = nn.rsqrt %a : tensor<8xf16>",
     "([i]) -> ([i]) {i=8}",
     0,
     8,
     16,
     16,
     "f16"},
    {"reciprocal",
     {kF32x4x8},
     "%r = nn.reciprocal %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     128,
     128,
     "f32"},
    {"tanh",
     {kF32x4x8},
     "%r = nn.tanh %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     0,
     32,
     128,
     128,
     "f32"},
    {"cos",
     {kF32x4x8},
     "%r = nn.cos %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     0,
     32,
     128,
     128,
     "f32"},
    {"sin",
     {kF32x4x8},
     "%r = nn.sin %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     0,
     32,
     128,
     128,
     "f32"},
    {"sigmoid",
     {kF32x4x8},
     "%r = nn.sigmoid %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     64,
     32,
     128,
     128,
     "f32"},
    {"erf",
     {kF32x4x8},
     "%r = nn.erf %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     0,
     32,
     128,
     128,
     "f32"},
    {"relu",
     {kF32x4x8},
     "%r = nn.relu %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     128,
     128,
     "f32"},
    {"gelu",
     {kF32x4x8},
     "%r = nn.gelu %a : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     128,
     32,
     128,
     128,
     "f32"},
    {"gelu_tanh",
     {kF32x4x8},
     "%r = nn.gelu %a approximate = tanh : tensor<4x8xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=8}",
     224,
     32,
     128,
     128,
     "f32"},
    {"add",
     {kF32x4x8, "tensor<8xf32>"},
     "%r = nn.add %a, %b : tensor<4x8xf32>, tensor<8xf32>",
     "([i, j], [j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     160,
     128,
     "f32"},
    {"sub",
     {"tensor<4x1xf32>", "tensor<1x8xf32>"},
     "%r = nn.sub %a, %b : tensor<4x1xf32>, tensor<1x8xf32>",
     "([i, 1], [1, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     48,
     128,
     "f32"},
    {"mul",
     {kF32x4x8, "tensor<f32>"},
     "%r = nn.mul %a, %b : tensor<4x8xf32>, tensor<f32>",
     "([i, j], []) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     132,
     128,
     "f32"},
    {"div",
     {"tensor<4xi32>", "tensor<4xi32>"},
     "%r = nn.div %a, %b : tensor<4xi32>, tensor<4xi32>",
     "([i], [i]) -> ([i]) {i=4}",
     4,
     0,
     32,
     16,
     "i32"},
    {"pow",
     {kF32x4x8, "tensor<f32>"},
     "%r = nn.pow %a, %b : tensor<4x8xf32>, tensor<f32>",
     "([i, j], []) -> ([i, j]) {i=4, j=8}",
     32,
     32,
     132,
     128,
     "f32"},
    {"max",
     {kF32x4x8, kF32x4x8},
     "%r = nn.max %a, %b : tensor<4x8xf32>, tensor<4x8xf32>",
     "([i, j], [i, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     256,
     128,
     "f32"},
    {"min",
     {kF32x4x8, kF32x4x8},
     "%r = nn.min %a, %b : tensor<4x8xf32>, tensor<4x8xf32>",
     "([i, j], [i, j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     256,
     128,
     "f32"},
    {"compare",
     {kF32x4x8, "tensor<8xf32>"},
     "%r = nn.compare lt, %a, %b : tensor<4x8xf32>, tensor<8xf32>",
     "([i, j], [j]) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     160,
     32,
     "f32"},
    {"where",
     {"tensor<1x8xi1>", kF32x4x8, "tensor<f32>"},
     "%r = nn.where %a, %b, %c : tensor<1x8xi1>, tensor<4x8xf32>, tensor<f32>",
     "([1, j], [i, j], []) -> ([i, j]) {i=4, j=8}",
     32,
     0,
     140,
     128,
     "f32"},
    {"cast",
     {"tensor<4xf32>"},
     "%r = nn.cast %a : tensor<4xf32> to bf16",
     "([i]) -> ([i]) {i=4}",
     4,
     0,
     16,
     8,
     "f32"},
    {"matmul",
     {"tensor<2x4x16xf32>", "tensor<16x8xf32>"},
     "%r = nn.matmul %a, %b : tensor<2x4x16xf32>, tensor<16x8xf32> -> "
     "tensor<2x4x8xf32>",
     "([i, j, l], [l, k]) -> ([i, j, k]) {i=2, j=4, k=8, l=16} reduction={l}",
     2048,
     0,
     1024,
     256,
     "f32"},
    {"matmul_batch_broadcast",
     {"tensor<1x4x16xbf16>", "tensor<3x16x8xbf16>"},
     "%r = nn.matmul %a, %b : tensor<1x4x16xbf16>, tensor<3x16x8xbf16> -> "
     "tensor<3x4x8xbf16>",
     "([1, j, l], [i, l, k]) -> ([i, j, k]) {i=3, j=4, k=8, l=16} "
     "reduction={l}",
     3072,
     0,
     896,
     192,
     "bf16"},
    {"conv2d",
     {"tensor<1x4x8x8xf32>", "tensor<8x2x3x3xf32>", "tensor<8xf32>"},
     "%r = nn.conv2d %a, %b, %c {groups = 2 : i64, padding = array<i64: 1, 1, "
     "1, 1>} : tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32> -> "
     "tensor<1x8x8x8xf32>",
     "([i, j*l, m, o], [j*k, l, q, r], [j*k]) -> ([i, j*k, n, p]) {i=1, j=2, "
     "k=4, l=2, m=8, n=8, o=8, p=8, q=3, r=3} reduction={l} replicated={m, n, "
     "o, p, q, r}",
     18944,
     0,
     1024 + 576 + 32,
     2048,
     "f32"},
    {"conv2d_pointwise",
     {"tensor<2x4x8x8xf32>", "tensor<16x4x1x1xf32>"},
     "%r = nn.conv2d %a, %b : tensor<2x4x8x8xf32>, tensor<16x4x1x1xf32> -> "
     "tensor<2x16x8x8xf32>",
     "([i, k, l, m], [j, k, 1, 1]) -> ([i, j, l, m]) {i=2, j=16, k=4, l=8, "
     "m=8} "
     "reduction={k}",
     16384,
     0,
     2048 + 256,
     8192,
     "f32"},
    {"max_pool",
     {"tensor<1x4x8x8xf32>"},
     "%r = nn.max_pool %a {kernel = array<i64: 2, 2>, strides = array<i64: "
     "2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>",
     "([i, j, k, m]) -> ([i, j, l, n]) {i=1, j=4, k=8, l=4, m=8, n=4} "
     "replicated={k, l, m, n}",
     192,
     0,
     1024,
     256,
     "f32"},
    {"max_pool_with_indices",
     {"tensor<1x4x8x8xf32>"},
     "%r:2 = nn.max_pool_with_indices %a {kernel = array<i64: 2, 2>, strides "
     "= array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, "
     "tensor<1x4x4x4xi64>",
     "([i, j, k, m]) -> ([i, j, l, n], [i, j, l, n]) {i=1, j=4, k=8, l=4, "
     "m=8, n=4} replicated={k, l, m, n}",
     576,
     0,
     1024,
     256 + 512,
     "f32"},
    // A 1 x 1 window still keeps the plane whole: its shards would number
    // their own positions.
    {"max_pool_with_indices_pointwise",
     {"tensor<2x4x8x8xi32>"},
     "%r:2 = nn.max_pool_with_indices %a {kernel = array<i64: 1, 1>} : "
     "tensor<2x4x8x8xi32> -> tensor<2x4x8x8xi32>, tensor<2x4x8x8xi64>",
     "([i, j, k, m]) -> ([i, j, l, n], [i, j, l, n]) {i=2, j=4, k=8, l=8, "
     "m=8, n=8} replicated={k, l, m, n}",
     0,
     0,
     2048,
     2048 + 4096,
     "i32"},
    {"avg_pool",
     {"tensor<1x4x8x8xf32>"},
     "%r = nn.avg_pool %a {kernel = array<i64: 2, 2>, strides = array<i64: "
     "2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>",
     "([i, j, k, m]) -> ([i, j, l, n]) {i=1, j=4, k=8, l=4, m=8, n=4} "
     "replicated={k, l, m, n}",
     256,
     0,
     1024,
     256,
     "f32"},
    {"avg_pool_3d",
     {"tensor<1x2x4x4x4xf32>"},
     "%r = nn.avg_pool %a {kernel = array<i64: 2, 2, 2>, strides = array<i64: "
     "2, 2, 2>} : tensor<1x2x4x4x4xf32> -> tensor<1x2x2x2x2xf32>",
     "([i, j, k, m, o]) -> ([i, j, l, n, p]) {i=1, j=2, k=4, l=2, m=4, n=2, "
     "o=4, p=2} replicated={k, l, m, n, o, p}",
     128,
     0,
     512,
     64,
     "f32"},
    {"max_pool_1d",
     {"tensor<2x3x8xi32>"},
     "%r = nn.max_pool %a {kernel = array<i64: 3>} : tensor<2x3x8xi32> -> "
     "tensor<2x3x6xi32>",
     "([i, j, k]) -> ([i, j, l]) {i=2, j=3, k=8, l=6} replicated={k, l}",
     72,
     0,
     192,
     144,
     "i32"},
    {"global_avg_pool2d",
     {"tensor<2x4x8x8xf32>"},
     "%r = nn.global_avg_pool2d %a : tensor<2x4x8x8xf32> -> "
     "tensor<2x4x1x1xf32>",
     "([i, j, k, l]) -> ([i, j, 1, 1]) {i=2, j=4, k=8, l=8} reduction={k:mean, "
     "l:mean}",
     512,
     0,
     2048,
     32,
     "f32"},
    {"global_max_pool2d",
     {"tensor<2x4x8x8xf32>"},
     "%r = nn.global_max_pool2d %a : tensor<2x4x8x8xf32> -> "
     "tensor<2x4x1x1xf32>",
     "([i, j, k, l]) -> ([i, j, 1, 1]) {i=2, j=4, k=8, l=8} reduction={k:max, "
     "l:max}",
     504,
     0,
     2048,
     32,
     "f32"},
    {"reduce_sum",
     {kF32x4x8},
     "%r = nn.reduce_sum %a axes = [1] {keepdims = true} : tensor<4x8xf32> -> "
     "tensor<4x1xf32>",
     "([i, j]) -> ([i, 1]) {i=4, j=8} reduction={j}",
     28,
     0,
     128,
     16,
     "f32"},
    {"reduce_mean",
     {kF32x4x8},
     "%r = nn.reduce_mean %a axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>",
     "([i, j]) -> ([]) {i=4, j=8} reduction={i:mean, j:mean}",
     32,
     0,
     128,
     4,
     "f32"},
    {"reduce_max",
     {kF32x4x8},
     "%r = nn.reduce_max %a axes = [1] : tensor<4x8xf32> -> tensor<4xf32>",
     "([i, j]) -> ([i]) {i=4, j=8} reduction={j:max}",
     28,
     0,
     128,
     16,
     "f32"},
    {"reduce_min",
     {"tensor<4x8xi64>"},
     "%r = nn.reduce_min %a axes = [0] : tensor<4x8xi64> -> tensor<8xi64>",
     "([i, j]) -> ([j]) {i=4, j=8} reduction={i:min}",
     24,
     0,
     256,
     64,
     "i64"},
    {"softmax",
     {"tensor<4x10xf32>"},
     "%r = nn.softmax %a axis = 1 : tensor<4x10xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=10} replicated={j}",
     160,
     40,
     160,
     160,
     "f32"},
    {"log_softmax",
     {"tensor<4x10xf32>"},
     "%r = nn.log_softmax %a axis = 1 : tensor<4x10xf32>",
     "([i, j]) -> ([i, j]) {i=4, j=10} replicated={j}",
     160,
     44,
     160,
     160,
     "f32"},
    {"layer_norm",
     {"tensor<2x16x64xf32>", "tensor<64xf32>", "tensor<64xf32>"},
     "%r = nn.layer_norm %a scale(%b : tensor<64xf32>) bias(%c : "
     "tensor<64xf32>) axis = 2 : tensor<2x16x64xf32>",
     "([i, j, k], [k], [k]) -> ([i, j, k]) {i=2, j=16, k=64} replicated={k}",
     14336,
     32,
     8192 + 512,
     8192,
     "f32"},
    {"batch_norm",
     {"tensor<2x16x8x8xf32>", "tensor<16xf32>", "tensor<16xf32>",
      "tensor<16xf32>", "tensor<16xf32>"},
     "%r = nn.batch_norm %a, %b, %c, %d, %e : tensor<2x16x8x8xf32>, "
     "tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>",
     "([i, j, k, l], [j], [j], [j], [j]) -> ([i, j, k, l]) {i=2, j=16, k=8, "
     "l=8}",
     4160,
     16,
     8192 + 256,
     8192,
     "f32"},
    {"cross_entropy",
     {"tensor<4x16x100xf32>", "tensor<4x16xi64>"},
     "%r = nn.cross_entropy %a, %b class_axis = 2 : tensor<4x16x100xf32>, "
     "tensor<4x16xi64> -> tensor<f32>",
     "([i, j, k], [i, j]) -> ([]) {i=4, j=16, k=100} reduction={i:mean, "
     "j:mean} replicated={k}",
     25728,
     6464,
     25600 + 512,
     4,
     "f32"},
    {"cross_entropy_ignore",
     {"tensor<8x10xf32>", "tensor<8xi64>"},
     "%r = nn.cross_entropy %a, %b class_axis = 1 {ignore_index = -100 : i64} "
     ": tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>",
     "([i, j], [i]) -> ([]) {i=8, j=10} replicated={i, j}",
     336,
     88,
     384,
     4,
     "f32"},
    {"gather",
     {"tensor<1000x64xf32>", "tensor<4x16xi64>"},
     "%r = nn.gather %a[%b] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> "
     "-> tensor<4x16x64xf32>",
     "([i, j], [k, l]) -> ([k, l, j]) {i=1000, j=64, k=4, l=16} reduction={i}",
     0,
     0,
     16384 + 512,
     16384,
     ""},
    {"scatter_add",
     {"tensor<4x16x64xf32>", "tensor<4x16xi64>"},
     "%r = nn.scatter_add %a[%b] axis = 0 size = 1000 : tensor<4x16x64xf32>, "
     "tensor<4x16xi64> -> tensor<1000x64xf32>",
     "([i, j, k], [i, j]) -> ([l, k]) {i=4, j=16, k=64, l=1000} "
     "reduction={i, j} replicated={l}",
     4096,
     0,
     16384 + 512,
     256000,
     "f32"},
    {"scatter_add_inner_axis",
     {"tensor<2x3x5xf32>", "tensor<3xi32>"},
     "%r = nn.scatter_add %a[%b] axis = 1 size = 4 : tensor<2x3x5xf32>, "
     "tensor<3xi32> -> tensor<2x4x5xf32>",
     "([i, j, k], [j]) -> ([i, l, k]) {i=2, j=3, k=5, l=4} reduction={j} "
     "replicated={l}",
     30,
     0,
     120 + 12,
     160,
     "f32"},
    {"reshape_split",
     {"tensor<4x64xf32>"},
     "%r = nn.reshape %a [4, 4, 16] : tensor<4x64xf32> -> tensor<4x4x16xf32>",
     "([i, j*k]) -> ([i, j, k]) {i=4, j=4, k=16}",
     0,
     0,
     0,
     0,
     ""},
    {"reshape_unit_dims",
     {"tensor<1x6x1xf32>"},
     "%r = nn.reshape %a [2, 1, 3] : tensor<1x6x1xf32> -> tensor<2x1x3xf32>",
     "([1, i*j, 1]) -> ([i, 1, j]) {i=2, j=3}",
     0,
     0,
     0,
     0,
     ""},
    {"reshape_incompatible",
     {"tensor<2x3xf32>"},
     "%r = nn.reshape %a [3, 2] : tensor<2x3xf32> -> tensor<3x2xf32>",
     "([i, j]) -> ([k, l]) {i=2, j=3, k=3, l=2} replicated={i, j, k, l}",
     0,
     0,
     0,
     0,
     ""},
    {"transpose",
     {"tensor<2x4x8xf32>"},
     "%r = nn.transpose %a [0, 2, 1] : tensor<2x4x8xf32> -> tensor<2x8x4xf32>",
     "([i, j, k]) -> ([i, k, j]) {i=2, j=4, k=8}",
     0,
     0,
     256,
     256,
     ""},
    {"concat",
     {"tensor<2x3xf32>", "tensor<2x5xf32>"},
     "%r = nn.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x5xf32> -> "
     "tensor<2x8xf32>",
     "([i, j], [i, k]) -> ([i, l]) {i=2, j=3, k=5, l=8} replicated={j, k, l}",
     0,
     0,
     64,
     64,
     ""},
    {"slice",
     {kF32x4x8},
     "%r = nn.slice %a offsets = [0, 7] sizes = [4, 4] strides = [1, -2] : "
     "tensor<4x8xf32> -> tensor<4x4xf32>",
     "([i, j]) -> ([i, k]) {i=4, j=8, k=4} replicated={j, k}",
     0,
     0,
     64,
     64,
     ""},
    {"split",
     {"tensor<4x16x192xf32>"},
     "%r:3 = nn.split %a axis = 2 sizes = [64, 64, 64] : tensor<4x16x192xf32> "
     "-> tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>",
     "([i, j, k]) -> ([i, j, l], [i, j, m], [i, j, n]) {i=4, j=16, k=192, "
     "l=64, m=64, n=64} replicated={k, l, m, n}",
     0,
     0,
     49152,
     49152,
     ""},
    {"broadcast_to",
     {"tensor<8xf32>"},
     "%r = nn.broadcast_to %a [4, 8] : tensor<8xf32> -> tensor<4x8xf32>",
     "([j]) -> ([i, j]) {i=4, j=8}",
     0,
     0,
     32,
     128,
     ""},
    {"squeeze",
     {"tensor<1x8x1xf32>"},
     "%r = nn.squeeze %a axes = [0, 2] : tensor<1x8x1xf32> -> tensor<8xf32>",
     "([1, i, 1]) -> ([i]) {i=8}",
     0,
     0,
     0,
     0,
     ""},
    {"unsqueeze",
     {"tensor<8xf32>"},
     "%r = nn.unsqueeze %a axes = [0, 2] : tensor<8xf32> -> tensor<1x8x1xf32>",
     "([i]) -> ([1, i, 1]) {i=8}",
     0,
     0,
     0,
     0,
     ""},
    {"pad",
     {kF32x4x8},
     "%r = nn.pad %a low = [0, 1] high = [0, 2] value = 0.0 : f32 : "
     "tensor<4x8xf32> -> tensor<4x11xf32>",
     "([i, j]) -> ([i, k]) {i=4, j=8, k=11} replicated={j, k}",
     0,
     0,
     128,
     176,
     ""},
    {"trilu",
     {"tensor<16x16xf32>"},
     "%r = nn.trilu %a lower k = 0 : tensor<16x16xf32>",
     "([i, j]) -> ([i, j]) {i=16, j=16} replicated={i, j}",
     256,
     0,
     1024,
     1024,
     "f32"},
    // The optimizer updates: elementwise over the tensors, the scalars
    // replicated; FLOPs as -nn-expand-optimizers expands them.
    {"sgd_update",
     {kF32x4x8, kF32x4x8, "tensor<f32>"},
     "%r = nn.sgd_update %a, %b lr(%c) : tensor<4x8xf32>",
     "([i, j], [i, j], []) -> ([i, j]) {i=4, j=8}",
     64,
     0,
     260,
     128,
     "f32"},
    {"sgd_update_momentum",
     {kF32x4x8, kF32x4x8, kF32x4x8, "tensor<f32>", "tensor<f32>"},
     "%r:2 = nn.sgd_update %a, %b momentum_buffer(%c) lr(%d) clip(%e) "
     "momentum = 0.9 weight_decay = 0.01 : tensor<4x8xf32>",
     "([i, j], [i, j], [i, j], [], []) -> ([i, j], [i, j]) {i=4, j=8}",
     224,
     0,
     392,
     256,
     "f32"},
    {"adamw_update",
     {kF32x4x8, kF32x4x8, kF32x4x8, kF32x4x8, "tensor<f32>", "tensor<f32>",
      "tensor<f32>", "tensor<f32>"},
     "%r:3 = nn.adamw_update %a, %b state(%c, %d) lr(%e) "
     "bias_correction(%f, %g) clip(%h) weight_decay = 0.01 : tensor<4x8xf32>",
     "([i, j], [i, j], [i, j], [i, j], [], [], [], []) -> ([i, j], [i, j], "
     "[i, j]) {i=4, j=8}",
     451,
     33,
     528,
     384,
     "f32"},
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.op; }

class NNOpInterfaces : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    context = test::makeContext();
    module = test::parseBody(*context, GetParam().args,
                             std::string("  ") + GetParam().op);
    ASSERT_TRUE(module) << "case does not parse: " << GetParam().op;
    op = test::firstOp(*module);
  }
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  Operation *op = nullptr;
};

TEST_P(NNOpInterfaces, ShardingRule) {
  auto iface = dyn_cast<ShardingRuleOpInterface>(op);
  ASSERT_TRUE(iface) << op->getName().getStringRef().str();
  ShardingRule rule = iface.getShardingRule();
  EXPECT_EQ(rule.str(), GetParam().rule);
  std::string why;
  EXPECT_TRUE(succeeded(rule.verify(op, &why))) << why;
}

TEST_P(NNOpInterfaces, Cost) {
  auto iface = dyn_cast<CostOpInterface>(op);
  ASSERT_TRUE(iface) << op->getName().getStringRef().str();
  FailureOr<OpCost> cost = iface.getCost();
  ASSERT_TRUE(succeeded(cost));
  EXPECT_EQ(cost->flops, GetParam().flops);
  EXPECT_EQ(cost->transcendentals, GetParam().trans);
  EXPECT_EQ(cost->bytesRead, GetParam().read);
  EXPECT_EQ(cost->bytesWritten, GetParam().written);
  std::string dtype;
  if (cost->computeType) {
    llvm::raw_string_ostream os(dtype);
    os << cost->computeType;
  }
  EXPECT_EQ(dtype, GetParam().dtype);
}

TEST_P(NNOpInterfaces, DynamicShapeIsNotPriced) {
  // The same op on per-device types whose leading dimension is unknown.
  auto iface = cast<CostOpInterface>(op);
  auto dynamic = [](Type t) -> Type {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked || ranked.getRank() == 0)
      return t;
    SmallVector<int64_t> shape(ranked.getShape());
    shape[0] = ShapedType::kDynamic;
    return ranked.clone(shape);
  };
  SmallVector<Type> operands, results;
  for (Type t : op->getOperandTypes())
    operands.push_back(dynamic(t));
  for (Type t : op->getResultTypes())
    results.push_back(dynamic(t));
  bool anyDynamic =
      llvm::any_of(llvm::concat<Type>(operands, results), [](Type t) {
        auto r = dyn_cast<RankedTensorType>(t);
        return r && !r.hasStaticShape();
      });
  if (!anyDynamic)
    GTEST_SKIP() << "op has only scalars";
  EXPECT_TRUE(failed(iface.computeCost(operands, results)));
}

INSTANTIATE_TEST_SUITE_P(AllOps, NNOpInterfaces, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return std::string(info.param.name);
                         });

TEST(NNOpInterfacesCoverage, EveryOpHasACase) {
  auto context = test::makeContext();
  std::set<std::string> covered;
  for (const Case &c : kCases) {
    auto module = test::parseBody(*context, c.args, std::string("  ") + c.op);
    ASSERT_TRUE(module) << c.op;
    covered.insert(test::firstOp(*module)->getName().getStringRef().str());
  }
  std::vector<std::string> ops = test::registeredOps(*context, "nn");
  EXPECT_GE(ops.size(), 50u);
  for (const std::string &name : ops)
    EXPECT_TRUE(covered.count(name)) << name << " has no interface test case";
}

TEST(NNOpInterfacesCoverage, EveryOpImplementsTheInterfaces) {
  auto context = test::makeContext();
  for (const std::string &name : test::registeredOps(*context, "nn")) {
    auto op = RegisteredOperationName::lookup(name, context.get());
    ASSERT_TRUE(op.has_value());
    EXPECT_TRUE(op->hasInterface<ShardingRuleOpInterface>()) << name;
    EXPECT_TRUE(op->hasInterface<CostOpInterface>()) << name;
    EXPECT_TRUE(op->hasInterface<InferTypeOpInterface>()) << name;
  }
}
} // namespace
