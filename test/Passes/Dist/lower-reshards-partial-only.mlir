// RUN: loom-opt %s -dist-lower-reshards | FileCheck %s
// Bug: the dist.reshard verifier (ReshardOp::verifySymbolUses) reads a
// reshard whose operand and result types are equal as a global reshard and
// requires every split dimension to divide by its axes again. After
// -dist-partition a reshard that only reduces partial axes has equal
// per-device types, so a device block smaller than its group (here one row
// of a batch of 2 split over dp = 2) is rejected: "dimension 0 of size 1 is
// not divisible by 2, the product of its mesh axes ["dp"]". The same error
// stops `-dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2"` and the
// rest of the pipeline on the attention block of pipeline-attention.mlir
// with a batch of 2, and loomc --strategy=megatron --mesh dp=2,tp=2.

// CHECK-LABEL: func.func @partial_only
// CHECK-NEXT: %[[R:.*]] = dist.all_reduce sum %arg0 over @m ["tp"] : tensor<1x8xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 2, intra_node>]
func.func @partial_only(%x: tensor<1x8xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<1x8xf32> attributes {dist.spmd} {
  %0 = dist.reshard %x <@m, [{"dp"}, {}], partial = {"tp"}> -> <@m, [{"dp"}, {}]> : tensor<1x8xf32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}
