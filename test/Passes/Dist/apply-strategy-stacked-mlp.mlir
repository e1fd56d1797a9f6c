// RUN: loom-opt %s -dist-apply-strategy="strategy=megatron mesh=tp=2" | FileCheck %s
// Bug: Megatron pairing never makes a column of a matmul whose left
// operand comes from an already paired row matmul (unless a layer norm is
// in between). A matmul is a column only when no parameter matmul feeds
// it, so in a stack of MLPs without normalisation only the first pair is
// split and every later layer stays whole. The row's output is whole
// after its all-reduce, so the next matmul can start a new pair.

// CHECK-LABEL: func.func @stacked_mlps
// CHECK: nn.parameter "l1.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: nn.parameter "l2.weight" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
// CHECK-NEXT: nn.parameter "l3.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: nn.parameter "l4.weight" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
func.func @stacked_mlps(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w1 = nn.parameter "l1.weight" = dense<0.1> : tensor<16x64xf32>
  %w2 = nn.parameter "l2.weight" = dense<0.1> : tensor<64x16xf32>
  %w3 = nn.parameter "l3.weight" = dense<0.1> : tensor<16x64xf32>
  %w4 = nn.parameter "l4.weight" = dense<0.1> : tensor<64x16xf32>
  %h1 = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %a1 = nn.relu %h1 : tensor<8x64xf32>
  %h2 = nn.matmul %a1, %w2 : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  %a2 = nn.relu %h2 : tensor<8x16xf32>
  %h3 = nn.matmul %a2, %w3 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %a3 = nn.relu %h3 : tensor<8x64xf32>
  %h4 = nn.matmul %a3, %w4 : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  return %h4 : tensor<8x16xf32>
}
