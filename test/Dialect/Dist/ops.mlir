// RUN: loom-opt %s | FileCheck %s
// RUN: loom-opt %s | loom-opt | FileCheck %s
// RUN: loom-opt %s -mlir-print-op-generic | loom-opt | FileCheck %s

// CHECK: dist.mesh @m axes [<"dp" = 2, inter_node, bandwidth = 25, latency = 5>, <"tp" = 4, intra_node, bandwidth = 450, latency = 2.5>]
dist.mesh @m axes [<"dp" = 2, inter_node, bandwidth = 25, latency = 5.0>,
                   <"tp" = 4, intra_node, bandwidth = 450.0, latency = 2.5>]
// Bandwidth and latency are optional; zero is not printed.
// CHECK: dist.mesh @pipeline axes [<"pp" = 4, inter_node>]
dist.mesh @pipeline axes [<"pp" = 4, inter_node, bandwidth = 0>]

// CHECK-LABEL: func.func @annotations
// CHECK-SAME: {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}
// CHECK-SAME: {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}
// CHECK-SAME: -> (tensor<8x64xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp", ?}]>})
func.func @annotations(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>},
                       %w: tensor<16x64xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>})
    -> (tensor<8x64xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp", ?}]>}) {
  // CHECK: nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
  %h = nn.matmul %x, %w {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
      : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  // CHECK: dist.annotate %{{.*}} <@m, [{"dp"}, {?}]> : tensor<8x64xf32>
  %a = dist.annotate %h <@m, [{"dp"}, {?}]> : tensor<8x64xf32>
  // Two axes on one dimension, major to minor.
  // CHECK: dist.annotate %{{.*}} <@m, [{"dp", "tp"}, {}]> : tensor<8x64xf32>
  %b = dist.annotate %a <@m, [{"dp", "tp"}, {}]> : tensor<8x64xf32>
  // Partial sums, and partial maxima.
  // CHECK: dist.annotate %{{.*}} <@m, [{"dp"}, {}], partial = {"tp"}> : tensor<8x64xf32>
  %c = dist.annotate %b <@m, [{"dp"}, {}], partial = {"tp"}> : tensor<8x64xf32>
  // CHECK: dist.annotate %{{.*}} <@m, [{}, {}], partial<max> = {"dp", "tp"}> : tensor<8x64xf32>
  %d = dist.annotate %c <@m, [{}, {}], partial<max> = {"dp", "tp"}> : tensor<8x64xf32>
  // CHECK: dist.annotate %{{.*}} <@m, [{}, {}]> : tensor<8x64xf32>
  %e = dist.annotate %d <@m, [{}, {}], partial<sum> = {}> : tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<8x16xf32>, %b: tensor<4xi1>, %i: tensor<8xi32>) {
  // CHECK: dist.all_reduce sum %{{.*}} over @m ["tp"] : tensor<8x16xf32>
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<8x16xf32>
  // CHECK: dist.all_reduce mean %{{.*}} over @m ["dp", "tp"] : tensor<8x16xf32>
  %1 = dist.all_reduce mean %x over @m ["dp", "tp"] : tensor<8x16xf32>
  // CHECK: dist.all_reduce max %{{.*}} over @m ["dp"] : tensor<4xi1>
  %2 = dist.all_reduce max %b over @m ["dp"] : tensor<4xi1>
  // CHECK: dist.all_reduce min %{{.*}} over @m ["dp"] : tensor<8xi32>
  %3 = dist.all_reduce min %i over @m ["dp"] : tensor<8xi32>
  // CHECK: dist.all_gather %{{.*}} over @m ["tp"] dim = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  %4 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  // CHECK: dist.all_gather %{{.*}} over @m ["dp", "tp"] dim = 0 : tensor<8x16xf32> -> tensor<64x16xf32>
  %5 = dist.all_gather %x over @m ["dp", "tp"] dim = 0 : tensor<8x16xf32> -> tensor<64x16xf32>
  // CHECK: dist.reduce_scatter sum %{{.*}} over @m ["dp"] dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  %6 = dist.reduce_scatter sum %x over @m ["dp"] dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK: dist.all_to_all %{{.*}} over @m ["tp"] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  %7 = dist.all_to_all %x over @m ["tp"] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  // CHECK: dist.broadcast %{{.*}} over @m ["dp", "tp"] root = [1, 3] : tensor<8x16xf32>
  %8 = dist.broadcast %x over @m ["dp", "tp"] root = [1, 3] : tensor<8x16xf32>
  // CHECK: dist.collective_permute %{{.*}} over @pipeline ["pp"] pairs = [0 -> 1, 1 -> 2, 2 -> 3] : tensor<8x16xf32>
  %9 = dist.collective_permute %x over @pipeline ["pp"] pairs = [0 -> 1, 1 -> 2, 2 -> 3] : tensor<8x16xf32>
  // A ring.
  // CHECK: dist.collective_permute %{{.*}} over @m ["tp"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<8x16xf32>
  %10 = dist.collective_permute %x over @m ["tp"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<8x16xf32>
  return
}

// Standalone attributes print in full.
// CHECK-LABEL: func.func @standalone
// CHECK-SAME: test.axis = #dist.axis<"x" = 2, intra_node>
// CHECK-SAME: test.dim = #dist.dim<{"dp", ?}>
func.func @standalone() attributes {test.dim = #dist.dim<{"dp", ?}>, test.axis = #dist.axis<"x" = 2, intra_node>} {
  return
}

// CHECK-LABEL: func.func @layout_changes
func.func @layout_changes(%x: tensor<8x64xf32>) -> tensor<8x16xf32> {
  // CHECK: dist.reshard %{{.*}} <@m, [{}, {}], partial = {"tp"}> -> <@m, [{"dp"}, {}]> : tensor<8x64xf32> -> tensor<8x64xf32>
  %0 = dist.reshard %x <@m, [{}, {}], partial = {"tp"}> -> <@m, [{"dp"}, {}]> : tensor<8x64xf32> -> tensor<8x64xf32>
  // CHECK: dist.take_shard %{{.*}} over @m ["tp"] dim = 1 : tensor<8x64xf32> -> tensor<8x16xf32>
  %2 = dist.take_shard %x over @m ["tp"] dim = 1 : tensor<8x64xf32> -> tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// A partitioned function: argument types are blocks of the global tensor.
// CHECK-LABEL: func.func @spmd
// CHECK-SAME: attributes {dist.spmd}
func.func @spmd(%x: tensor<3x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>},
                %y: tensor<4x64xf32>) -> tensor<8x16xf32> attributes {dist.spmd} {
  // Per-device types: 8x64 split 2 ways along dim 0, then 4 ways along dim 1.
  // CHECK: dist.reshard %{{.*}} <@m, [{"dp"}, {}]> -> <@m, [{}, {"tp"}]> : tensor<4x64xf32> -> tensor<8x16xf32>
  %1 = dist.reshard %y <@m, [{"dp"}, {}]> -> <@m, [{}, {"tp"}]> : tensor<4x64xf32> -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// The microbatch loop: block arguments take one microbatch of each input;
// values from above are used inside.
// CHECK-LABEL: func.func @microbatches
// CHECK: %{{.*}}:2 = dist.microbatches 2 (%[[XK:.*]] = %{{.*}}, %[[YK:.*]] = %{{.*}}) : (tensor<16x4xf32>, tensor<16xi64>) -> (tensor<4x2xf32>, tensor<f32>) {
// CHECK: nn.matmul %[[XK]], %{{.*}} : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
// CHECK: dist.yield %{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<f32>
// CHECK-NEXT: }
// CHECK: dist.microbatches 4 : () -> () attributes {test.tag} {
// CHECK-NEXT: dist.yield
// CHECK-NEXT: }
func.func @microbatches(%x: tensor<16x4xf32>, %y: tensor<16xi64>, %w: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<f32>) {
  %g, %l = dist.microbatches 2 (%xk = %x, %yk = %y) : (tensor<16x4xf32>, tensor<16xi64>) -> (tensor<4x2xf32>, tensor<f32>) {
    %h = nn.matmul %xk, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
    %s = nn.reduce_sum %h axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
    dist.yield %w, %s : tensor<4x2xf32>, tensor<f32>
  }
  dist.microbatches 4 : () -> () attributes {test.tag} {
    dist.yield
  }
  return %g, %l : tensor<4x2xf32>, tensor<f32>
}

// Transfers between pipeline stages (a block of a data-parallel value
// crosses in its layout) and a recomputation barrier.
// CHECK-LABEL: func.func @transfers
// CHECK: dist.send %{{.*}} to 1 over @m ["tp"] tag = 3 : tensor<8x16xf32>
// CHECK: dist.send %{{.*}} to 1 over @m ["tp"] tag = 4 layout <@m, [{"dp"}, {}]> : tensor<8x16xf32>
// CHECK: %[[R:.*]] = dist.recv from 1 over @m ["tp"] tag = 5 {dist.backward} : tensor<8x16xf32>
// CHECK: dist.recompute %[[R]] : tensor<8x16xf32>
func.func @transfers(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  dist.send %x to 1 over @m ["tp"] tag = 3 : tensor<8x16xf32>
  dist.send %x to 1 over @m ["tp"] tag = 4 layout <@m, [{"dp"}, {}]> : tensor<8x16xf32>
  %r = dist.recv from 1 over @m ["tp"] tag = 5 {dist.backward} : tensor<8x16xf32>
  %k = dist.recompute %r : tensor<8x16xf32>
  return %k : tensor<8x16xf32>
}
