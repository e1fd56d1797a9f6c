// RUN: loom-opt %s -dist-propagate-sharding -dist-insert-reshards -dist-partition -split-input-file -verify-diagnostics | FileCheck %s

// The laid-out program becomes the program of one device of a 2 x 4 mesh.

// Per-device types everywhere, the function marked dist.spmd (its argument
// and result layouts kept); the annotation is gone; the parameter and the
// non-splat constant stay global and are cut by dist.take_shard; the splat
// constant is resized; reshape, broadcast_to and slice spell the per-device
// shapes (the slice's split dimensions are whole in the global slice, its
// sliced dimension keeps its size).
// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>})
// CHECK-SAME: -> (tensor<4x4xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
// CHECK-SAME: attributes {dist.spmd}
// CHECK-NEXT: %[[W:.*]] = nn.parameter "w" = dense<1.000000e+00> : tensor<16x32xf32>
// CHECK-NEXT: %[[WL:.*]] = dist.take_shard %[[W]] over @m ["tp"] dim = 1 : tensor<16x32xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[C:.*]] = nn.constant dense<{{.*}}> : tensor<1x32xf32>
// CHECK-NEXT: %[[CL:.*]] = dist.take_shard %[[C]] over @m ["tp"] dim = 1 : tensor<1x32xf32> -> tensor<1x8xf32>
// CHECK-NEXT: %[[S:.*]] = nn.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK-NEXT: %[[MM:.*]] = nn.matmul %[[X]], %[[WL]] : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = nn.add %[[MM]], %[[CL]] : tensor<4x8xf32>, tensor<1x8xf32>
// CHECK-NEXT: %[[MUL:.*]] = nn.mul %[[ADD]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: %[[R1:.*]] = nn.reshape %[[MUL]] [4, 1, 8] : tensor<4x8xf32> -> tensor<4x1x8xf32>
// CHECK-NEXT: %[[B:.*]] = nn.broadcast_to %[[R1]] [2, 4, 1, 8] : tensor<4x1x8xf32> -> tensor<2x4x1x8xf32>
// CHECK-NEXT: %[[SL:.*]] = nn.slice %[[B]] offsets = [0, 0, 0, 0] sizes = [1, 4, 1, 4] strides = [1, 1, 1, 1] : tensor<2x4x1x8xf32> -> tensor<1x4x1x4xf32>
// CHECK-NEXT: %[[R2:.*]] = nn.reshape %[[SL]] [4, 4] : tensor<1x4x1x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[R2]] : tensor<4x4xf32>
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @shapes(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<8x16xf32> {
  %w = nn.parameter "w" = dense<1.0> : tensor<16x32xf32>
  %c = nn.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0,
                          1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<1x32xf32>
  %s = nn.constant dense<0.5> : tensor<8x32xf32>
  %wa = dist.annotate %w <@m, [{}, {"tp"}]> : tensor<16x32xf32>
  %h = nn.matmul %x, %wa : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %h1 = nn.add %h, %c : tensor<8x32xf32>, tensor<1x32xf32>
  %h2 = nn.mul %h1, %s : tensor<8x32xf32>, tensor<8x32xf32>
  %r = nn.reshape %h2 [8, 4, 8] : tensor<8x32xf32> -> tensor<8x4x8xf32>
  %b = nn.broadcast_to %r [2, 8, 4, 8] : tensor<8x4x8xf32> -> tensor<2x8x4x8xf32>
  %sl = nn.slice %b offsets = [0, 0, 0, 0] sizes = [1, 8, 4, 4] strides = [1, 1, 1, 1] : tensor<2x8x4x8xf32> -> tensor<1x8x4x4xf32>
  %y = nn.reshape %sl [8, 16] : tensor<1x8x4x4xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// Reshards keep their layouts and take per-device types: the partial sum
// keeps its 8x32 block, the softmax input goes from a 4x4 block to 4x16.
// Whole arguments keep their global type and get no layout.
// CHECK-LABEL: func.func @reshards
// CHECK-SAME: (%{{[^:]*}}: tensor<8x4xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}, %{{[^:]*}}: tensor<4x32xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}, %{{[^:]*}}: tensor<32xf32>, %{{[^:]*}}: tensor<4x4xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
// CHECK-SAME: -> (tensor<8x32xf32>, tensor<4x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>})
// CHECK: nn.matmul %{{.*}} : tensor<8x4xf32>, tensor<4x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: dist.reshard %{{.*}} <@m, [{}, {}], partial = {"tp"}> -> <@m, [{}, {}]> : tensor<8x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: nn.add %{{.*}} : tensor<8x32xf32>, tensor<32xf32>
// CHECK-NEXT: dist.reshard %{{.*}} <@m, [{"dp"}, {"tp"}]> -> <@m, [{"dp"}, {}]> : tensor<4x4xf32> -> tensor<4x16xf32>
// CHECK-NEXT: nn.softmax %{{.*}} axis = 1 : tensor<4x16xf32>
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @reshards(%x: tensor<8x16xf32>, %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>},
                    %b: tensor<32xf32>, %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
    -> (tensor<8x32xf32>, tensor<8x16xf32>) {
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = nn.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  %2 = nn.softmax %y axis = 1 : tensor<8x16xf32>
  return %1, %2 : tensor<8x32xf32>, tensor<8x16xf32>
}

// -----

// A range split by a layout is computed whole and cut.
// CHECK-LABEL: func.func @range
// CHECK-SAME: -> (tensor<2xi64> {dist.sharding = #dist.sharding<@m, [{"tp"}]>})
// CHECK-NEXT: %[[R:.*]] = nn.range 0 to 8 step 1 -> tensor<8xi64>
// CHECK-NEXT: %[[L:.*]] = dist.take_shard %[[R]] over @m ["tp"] dim = 0 : tensor<8xi64> -> tensor<2xi64>
// CHECK-NEXT: return %[[L]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @range() -> (tensor<8xi64> {dist.sharding = #dist.sharding<@m, [{"tp"}]>}) {
  %r = nn.range 0 to 8 step 1 -> tensor<8xi64>
  return %r : tensor<8xi64>
}

// -----

// A lookup into a table split along its vocabulary: this device's rows are
// cut from the table, indices are made non-negative, rebased on the
// device's first row and clamped, rows elsewhere read as zero, and the
// partial result is summed by the reshard.
// CHECK-LABEL: func.func @vocabulary_parallel_lookup
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x16xi64> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>})
// CHECK: %[[T:.*]] = nn.parameter "wte" {{.*}} : tensor<1000x64xf32>
// CHECK-NEXT: %[[TL:.*]] = dist.take_shard %[[T]] over @m ["tp"] dim = 0 : tensor<1000x64xf32> -> tensor<250x64xf32>
// CHECK-DAG: %[[ZERO:.*]] = nn.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[ROWS:.*]] = nn.constant dense<1000> : tensor<i64>
// CHECK-DAG: %[[WRAP:.*]] = nn.add %[[IDS]], %[[ROWS]]
// CHECK-DAG: %[[NEG:.*]] = nn.compare lt, %[[IDS]], %[[ZERO]]
// CHECK: %[[NORM:.*]] = nn.where %[[NEG]], %[[WRAP]], %[[IDS]]
// CHECK: %[[STARTS:.*]] = nn.range 0 to 1000 step 250 -> tensor<4xi64>
// CHECK-NEXT: %[[START:.*]] = dist.take_shard %[[STARTS]] over @m ["tp"] dim = 0 : tensor<4xi64> -> tensor<1xi64>
// CHECK-NEXT: %[[LOCAL:.*]] = nn.sub %[[NORM]], %[[START]]
// CHECK: %[[SAFE:.*]] = nn.where %[[IN:.*]], %[[LOCAL]], %[[ZERO]]
// CHECK-NEXT: %[[G:.*]] = nn.gather %[[TL]][%[[SAFE]]] axis = 0 : tensor<250x64xf32>, tensor<2x16xi64> -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[MASK:.*]] = nn.reshape %[[IN]] [2, 16, 1] : tensor<2x16xi1> -> tensor<2x16x1xi1>
// CHECK-NEXT: %[[F0:.*]] = nn.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = nn.where %[[MASK]], %[[G]], %[[F0]]
// CHECK-NEXT: %[[R:.*]] = dist.reshard %[[M]] <@m, [{"dp"}, {}, {}], partial = {"tp"}> -> <@m, [{"dp"}, {}, {}]> : tensor<2x16x64xf32> -> tensor<2x16x64xf32>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @vocabulary_parallel_lookup(%ids: tensor<4x16xi64> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<4x16x64xf32> {
  %t = nn.parameter "wte" = dense<1.0> : tensor<1000x64xf32>
  %ta = dist.annotate %t <@m, [{"tp"}, {}]> : tensor<1000x64xf32>
  %0 = nn.gather %ta[%ids] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  return %0 : tensor<4x16x64xf32>
}

// -----

// Functions without layouts are not partitioned.
// CHECK-LABEL: func.func @whole
// CHECK-NOT: dist.spmd
// CHECK: return
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @whole(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = nn.relu %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Convolution groups follow the per-device channels: a depthwise
// convolution over channels split 4 ways has 2 of its 8 groups per device.
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%{{[^:]*}}: tensor<2x2x4x4xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}, {}, {}]>}, %{{[^:]*}}: tensor<2x1x3x3xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}, {}, {}]>})
// CHECK-NEXT: nn.conv2d %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : tensor<2x2x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<2x2x4x4xf32>
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @depthwise(%x: tensor<2x8x4x4xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}, {}, {}]>},
                     %f: tensor<8x1x3x3xf32>) -> tensor<2x8x4x4xf32> {
  %0 = nn.conv2d %x, %f {groups = 8 : i64, padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x4xf32>, tensor<8x1x3x3xf32> -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

// An op without a sharding rule runs as it is on the whole values that
// reshard insertion gives it.
// CHECK-LABEL: func.func @call
// CHECK: dist.reshard %{{.*}} <@m, [{"dp"}, {}]> -> <@m, [{}, {}]> : tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: call @external(%{{.*}}) : (tensor<8x16xf32>) -> tensor<8x16xf32>
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func private @external(tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @call(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<8x16xf32> {
  %0 = nn.relu %x : tensor<8x16xf32>
  %1 = func.call @external(%0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
