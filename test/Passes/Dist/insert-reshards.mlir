// RUN: loom-opt %s -dist-propagate-sharding -dist-insert-reshards -split-input-file -verify-diagnostics | FileCheck %s

// A dist.reshard goes wherever a consumer needs another layout than its
// operand has; everywhere else nothing is inserted.

// A partial sum (row-parallel matmul) feeding an add is reduced first; the
// add and the function result are whole.
// CHECK-LABEL: func.func @partial_into_add
// CHECK: %[[MM:.*]] = nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{}, {}], partial = {"tp"}>]}
// CHECK-NEXT: %[[R:.*]] = dist.reshard %[[MM]] <@m, [{}, {}], partial = {"tp"}> -> <@m, [{}, {}]> : tensor<8x32xf32> -> tensor<8x32xf32>
// CHECK-NEXT: %[[ADD:.*]] = nn.add %[[R]], %{{.*}} {dist.shardings = [#dist.sharding<@m, [{}, {}]>]}
// CHECK-NEXT: return %[[ADD]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @partial_into_add(%x: tensor<8x16xf32>, %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>},
                            %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = nn.add %0, %b : tensor<8x32xf32>, tensor<32xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// A partial sum returned directly is reduced before the return.
// CHECK-LABEL: func.func @partial_returned
// CHECK: %[[MM:.*]] = nn.matmul
// CHECK-NEXT: %[[R:.*]] = dist.reshard %[[MM]] <@m, [{"dp"}, {}], partial = {"tp"}> -> <@m, [{"dp"}, {}]>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @partial_returned(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>},
                            %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Softmax over a split axis: the reshard makes that axis whole and keeps
// the other split.
// CHECK-LABEL: func.func @softmax_split_axis
// CHECK-NEXT: %[[R:.*]] = dist.reshard %arg0 <@m, [{"dp"}, {"tp"}]> -> <@m, [{"dp"}, {}]> : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[S:.*]] = nn.softmax %[[R]] axis = 1 {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
// CHECK-NEXT: return %[[S]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @softmax_split_axis(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) -> tensor<8x16xf32> {
  %0 = nn.softmax %x axis = 1 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Operands split the contracted dimension differently: the first operand's
// layout wins (see the remark), the second is resharded to match, and the
// partial result is reduced before the return.
// CHECK-LABEL: func.func @contracted_mismatch
// CHECK-NEXT: %[[W:.*]] = dist.reshard %arg1 <@m, [{"tp"}, {}]> -> <@m, [{"dp"}, {}]> : tensor<16x32xf32> -> tensor<16x32xf32>
// CHECK-NEXT: %[[MM:.*]] = nn.matmul %arg0, %[[W]] {dist.shardings = [#dist.sharding<@m, [{}, {}], partial = {"dp"}>]}
// CHECK-NEXT: %[[R:.*]] = dist.reshard %[[MM]] <@m, [{}, {}], partial = {"dp"}> -> <@m, [{}, {}]>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @contracted_mismatch(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"dp"}]>},
                               %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}) -> tensor<8x32xf32> {
  // expected-remark@+1 {{factor k: operand 1 (dimension 0, user layout) splits it over ["tp"], but operand 0 (dimension 1, user layout) splits it over ["dp"]; keeping the latter (higher priority)}}
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// A dist.annotate asking for another layout than its operand has gets a
// reshard in front of it (and the function result follows the annotate).
// CHECK-LABEL: func.func @annotate_other_layout
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>})
// CHECK-NEXT: %[[R:.*]] = dist.reshard %arg0 <@m, [{"dp"}, {}]> -> <@m, [{}, {"tp"}]> : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[A:.*]] = dist.annotate %[[R]] <@m, [{}, {"tp"}]>
// CHECK-NEXT: return %[[A]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @annotate_other_layout(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<8x16xf32> {
  %0 = dist.annotate %x <@m, [{}, {"tp"}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A function result layout that differs from the returned value's: the
// reshard goes before the return.
// CHECK-LABEL: func.func @result_other_layout
// CHECK-NEXT: %[[M:.*]] = nn.reduce_max %arg0 axes = [1] {dist.shardings = [#dist.sharding<@m, [{"dp"}], partial<max> = {"tp"}>]}
// CHECK-NEXT: %[[R:.*]] = dist.reshard %[[M]] <@m, [{"dp"}], partial<max> = {"tp"}> -> <@m, [{"tp"}]>
// CHECK-NEXT: return %[[R]]
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @result_other_layout(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
    -> (tensor<8xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}]>}) {
  %0 = nn.reduce_max %x axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Layouts that agree need nothing: a column-parallel matmul followed by
// elementwise ops and a row-parallel matmul has a single reshard, after
// the second matmul.
// CHECK-LABEL: func.func @agreeing_layouts
// CHECK-COUNT-1: dist.reshard
// CHECK-NOT: dist.reshard
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @agreeing_layouts(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>},
                            %w1: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>},
                            %w2: tensor<32x16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}) -> tensor<8x16xf32> {
  %0 = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = nn.gelu %0 : tensor<8x32xf32>
  %2 = nn.matmul %1, %w2 : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}
