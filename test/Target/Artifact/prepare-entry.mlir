// RUN: loom-opt %s -loom-prepare-entry="entry-name=loom_program" | FileCheck %s

// Parameters become leading arguments in the order the body names them: a
// parameter cut by -dist-partition takes the device's block (the
// take_shard goes), state a step updates is not immutable, every argument
// is read-only for bufferization, and the partitioned function loses
// dist.spmd (the manifest records the layouts).
// CHECK-LABEL: func.func @loom_program(
// CHECK-SAME:    %[[W:.*]]: tensor<16x4xf32> {bufferization.writable = false, nn.immutable},
// CHECK-SAME:    %[[M:.*]]: tensor<4xf32> {bufferization.writable = false},
// CHECK-SAME:    %[[X:.*]]: tensor<4x16xf32> {bufferization.writable = false, nn.name = "x"})
// CHECK-SAME:    -> (tensor<4x4xf32> {nn.name = "y"}) {
// CHECK-NEXT:    %[[Y:.*]] = nn.matmul %[[X]], %[[W]]
// CHECK-NEXT:    nn.add %[[Y]], %[[M]]
dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @main(%x: tensor<4x16xf32> {nn.name = "x"}) -> (tensor<4x4xf32> {nn.name = "y"}) attributes {dist.spmd} {
  %w = nn.parameter "w" = dense<0.5> : tensor<16x8xf32>
  %ws = dist.take_shard %w over @m ["tp"] dim = 1 : tensor<16x8xf32> -> tensor<16x4xf32>
  %m = nn.parameter "m" {nn.update = "update:m", nn.zero_init} = dense<0.0> : tensor<4xf32>
  %y = nn.matmul %x, %ws : tensor<4x16xf32>, tensor<16x4xf32> -> tensor<4x4xf32>
  %z = nn.add %y, %m : tensor<4x4xf32>, tensor<4xf32>
  return %z : tensor<4x4xf32>
}
