// The whole distribution pipeline on two transformer MLP blocks (layer
// norm, column matmul, GELU, row matmul, residual), down to the program of
// one device; only the collectives the strategy implies may remain.
//
// Megatron on 2 x 2 devices: each block's weights are cut once, and each
// block has exactly one all_reduce over ["tp"], after its row matmul.
// RUN: loom-opt %s -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" -dist-propagate-sharding -dist-insert-reshards -dist-partition -dist-lower-reshards -dist-simplify-collectives -canonicalize \
// RUN:   | FileCheck %s --check-prefix=MEGATRON --implicit-check-not=dist.all_reduce --implicit-check-not=dist.all_gather --implicit-check-not=dist.reduce_scatter --implicit-check-not=dist.all_to_all --implicit-check-not=dist.reshard --implicit-check-not=dist.broadcast --implicit-check-not=dist.collective_permute --implicit-check-not=dist.annotate
//
// Data parallelism on 4 devices: a forward pass needs no collective, and
// the weights are not cut.
// RUN: loom-opt %s -dist-apply-strategy="strategy=data mesh=dp=4" -dist-propagate-sharding -dist-insert-reshards -dist-partition -dist-lower-reshards -dist-simplify-collectives -canonicalize \
// RUN:   | FileCheck %s --check-prefix=DATA --implicit-check-not=dist.all_reduce --implicit-check-not=dist.all_gather --implicit-check-not=dist.reduce_scatter --implicit-check-not=dist.all_to_all --implicit-check-not=dist.reshard --implicit-check-not=dist.broadcast --implicit-check-not=dist.collective_permute --implicit-check-not=dist.take_shard --implicit-check-not=dist.annotate

// MEGATRON-LABEL: func.func @main
// MEGATRON-SAME: (%[[X:[^:]*]]: tensor<4x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}]>})
// MEGATRON-SAME: -> (tensor<4x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}]>}) attributes {dist.spmd}
// MEGATRON: %[[W1:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
// MEGATRON: %[[B1:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 0 : tensor<64xf32> -> tensor<32xf32>
// MEGATRON: %[[W2:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 0 : tensor<64x16xf32> -> tensor<32x16xf32>
// MEGATRON: %[[W3:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 1 : tensor<16x64xf32> -> tensor<16x32xf32>
// MEGATRON: %[[B3:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 0 : tensor<64xf32> -> tensor<32xf32>
// MEGATRON: %[[W4:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 0 : tensor<64x16xf32> -> tensor<32x16xf32>
// MEGATRON: %[[N0:.*]] = nn.layer_norm %[[X]] axis = 1 : tensor<4x16xf32>
// MEGATRON-NEXT: %[[H1:.*]] = nn.matmul %[[N0]], %[[W1]] : tensor<4x16xf32>, tensor<16x32xf32> -> tensor<4x32xf32>
// MEGATRON-NEXT: %[[H1B:.*]] = nn.add %[[H1]], %[[B1]]
// MEGATRON-NEXT: %[[A1:.*]] = nn.gelu %[[H1B]] : tensor<4x32xf32>
// MEGATRON-NEXT: %[[H2:.*]] = nn.matmul %[[A1]], %[[W2]] : tensor<4x32xf32>, tensor<32x16xf32> -> tensor<4x16xf32>
// MEGATRON-NEXT: %[[S2:.*]] = dist.all_reduce sum %[[H2]] over @mesh ["tp"] : tensor<4x16xf32>
// MEGATRON-NEXT: %[[H2B:.*]] = nn.add %[[S2]], %{{.*}} : tensor<4x16xf32>, tensor<16xf32>
// MEGATRON-NEXT: %[[R1:.*]] = nn.add %[[X]], %[[H2B]]
// MEGATRON-NEXT: %[[N1:.*]] = nn.layer_norm %[[R1]] axis = 1 : tensor<4x16xf32>
// MEGATRON-NEXT: %[[H3:.*]] = nn.matmul %[[N1]], %[[W3]] : tensor<4x16xf32>, tensor<16x32xf32> -> tensor<4x32xf32>
// MEGATRON-NEXT: %[[H3B:.*]] = nn.add %[[H3]], %[[B3]]
// MEGATRON-NEXT: %[[A3:.*]] = nn.gelu %[[H3B]] : tensor<4x32xf32>
// MEGATRON-NEXT: %[[H4:.*]] = nn.matmul %[[A3]], %[[W4]] : tensor<4x32xf32>, tensor<32x16xf32> -> tensor<4x16xf32>
// MEGATRON-NEXT: %[[S4:.*]] = dist.all_reduce sum %[[H4]] over @mesh ["tp"] : tensor<4x16xf32>
// MEGATRON-NEXT: %[[H4B:.*]] = nn.add %[[S4]], %{{.*}} : tensor<4x16xf32>, tensor<16xf32>
// MEGATRON-NEXT: %[[R2:.*]] = nn.add %[[R1]], %[[H4B]]
// MEGATRON-NEXT: return %[[R2]] : tensor<4x16xf32>

// DATA-LABEL: func.func @main
// DATA-SAME: (%{{[^:]*}}: tensor<2x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}]>})
// DATA-SAME: -> (tensor<2x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}]>}) attributes {dist.spmd}
// DATA: nn.matmul %{{.*}} : tensor<2x16xf32>, tensor<16x64xf32> -> tensor<2x64xf32>
// DATA: nn.matmul %{{.*}} : tensor<2x64xf32>, tensor<64x16xf32> -> tensor<2x16xf32>
// DATA: nn.matmul %{{.*}} : tensor<2x16xf32>, tensor<16x64xf32> -> tensor<2x64xf32>
// DATA: nn.matmul %{{.*}} : tensor<2x64xf32>, tensor<64x16xf32> -> tensor<2x16xf32>
// DATA: return %{{.*}} : tensor<2x16xf32>

func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w1 = nn.parameter "h0.fc1.weight" = dense<0.1> : tensor<16x64xf32>
  %b1 = nn.parameter "h0.fc1.bias" = dense<0.0> : tensor<64xf32>
  %w2 = nn.parameter "h0.fc2.weight" = dense<0.1> : tensor<64x16xf32>
  %b2 = nn.parameter "h0.fc2.bias" = dense<0.0> : tensor<16xf32>
  %w3 = nn.parameter "h1.fc1.weight" = dense<0.2> : tensor<16x64xf32>
  %b3 = nn.parameter "h1.fc1.bias" = dense<0.0> : tensor<64xf32>
  %w4 = nn.parameter "h1.fc2.weight" = dense<0.2> : tensor<64x16xf32>
  %b4 = nn.parameter "h1.fc2.bias" = dense<0.0> : tensor<16xf32>
  %n0 = nn.layer_norm %x axis = 1 : tensor<8x16xf32>
  %h1 = nn.matmul %n0, %w1 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %h1b = nn.add %h1, %b1 : tensor<8x64xf32>, tensor<64xf32>
  %a1 = nn.gelu %h1b : tensor<8x64xf32>
  %h2 = nn.matmul %a1, %w2 : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  %h2b = nn.add %h2, %b2 : tensor<8x16xf32>, tensor<16xf32>
  %r1 = nn.add %x, %h2b : tensor<8x16xf32>, tensor<8x16xf32>
  %n1 = nn.layer_norm %r1 axis = 1 : tensor<8x16xf32>
  %h3 = nn.matmul %n1, %w3 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %h3b = nn.add %h3, %b3 : tensor<8x64xf32>, tensor<64xf32>
  %a3 = nn.gelu %h3b : tensor<8x64xf32>
  %h4 = nn.matmul %a3, %w4 : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  %h4b = nn.add %h4, %b4 : tensor<8x16xf32>, tensor<16xf32>
  %r2 = nn.add %r1, %h4b : tensor<8x16xf32>, tensor<8x16xf32>
  return %r2 : tensor<8x16xf32>
}
