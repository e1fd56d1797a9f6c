// RUN: loom-opt %s -dist-propagate-sharding -split-input-file -verify-diagnostics | FileCheck %s

// Layouts spread through each op's sharding rule. Every case declares a
// mesh of 2 x 4 devices; the layouts written by the test are user layouts.

// Forwards through elementwise ops: a broadcast operand takes the axes of
// the dimensions it has (the bias the last one, the column the first), and
// split arguments and results are recorded on the function.
// CHECK-LABEL: func.func @elementwise_forward
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<8x1xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
// CHECK: nn.add {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
// CHECK: nn.mul {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
// CHECK: nn.relu {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @elementwise_forward(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>},
                               %b: tensor<16xf32>, %c: tensor<8x1xf32>) -> tensor<8x16xf32> {
  %0 = nn.add %x, %b : tensor<8x16xf32>, tensor<16xf32>
  %1 = nn.mul %0, %c : tensor<8x16xf32>, tensor<8x1xf32>
  %2 = nn.relu %1 : tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----

// Backwards from a function result layout to the arguments, through a
// broadcasting add; an argument whose dimension is broadcast (size 1) takes
// no axis there.
// CHECK-LABEL: func.func @elementwise_backward
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<1x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
// CHECK: nn.add {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
// CHECK: nn.tanh {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @elementwise_backward(%x: tensor<8x16xf32>, %b: tensor<1x16xf32>)
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) {
  %0 = nn.add %x, %b : tensor<8x16xf32>, tensor<1x16xf32>
  %1 = nn.tanh %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// Matmul with a batch dimension split: the weight stays whole (no
// dist.sharding is written on it).
// CHECK-LABEL: func.func @matmul_batch
// CHECK-SAME: %{{[^:]*}}: tensor<2x8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<16x32xf32>)
// CHECK-SAME: -> (tensor<2x8x32xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {}]>})
// CHECK: nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @matmul_batch(%x: tensor<2x8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {}]>},
                        %w: tensor<16x32xf32>) -> tensor<2x8x32xf32> {
  %0 = nn.matmul %x, %w : tensor<2x8x16xf32>, tensor<16x32xf32> -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

// The contracted dimension split (row-parallel weight): the left operand is
// split along it too and the result is a partial sum. A partial value does
// not spread through a nonlinearity, and the function result is recorded
// without partial axes (here: not at all, it is whole).
// CHECK-LABEL: func.func @matmul_contracted
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}
// CHECK-SAME: -> tensor<8x32xf32>
// CHECK: nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{}, {}], partial = {"tp"}>]}
// CHECK: nn.relu {{.*}} {dist.shardings = [#dist.sharding<@m, [{}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @matmul_contracted(%x: tensor<8x16xf32>,
                             %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}) -> tensor<8x32xf32> {
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = nn.relu %0 : tensor<8x32xf32>
  return %1 : tensor<8x32xf32>
}

// -----

// Backwards through a matmul: rows from the left operand, columns from the
// right one; the contracted dimension stays whole.
// CHECK-LABEL: func.func @matmul_backward
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}
// CHECK: nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @matmul_backward(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>)
    -> (tensor<8x32xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) {
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Reductions over a split axis leave partial results of their kind; the
// other axis carries over to the kept dimension (also with keepdims).
// CHECK-LABEL: func.func @reductions
// CHECK-SAME: -> (tensor<8xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}]>}, tensor<8x1xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}, tensor<8xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}]>}, tensor<16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}]>})
// CHECK: nn.reduce_sum {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}], partial = {"tp"}>]}
// CHECK: nn.reduce_mean {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}], partial<mean> = {"tp"}>], keepdims = true}
// CHECK: nn.reduce_max {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}], partial<max> = {"tp"}>]}
// CHECK: nn.reduce_sum {{.*}} {dist.shardings = [#dist.sharding<@m, [{"tp"}], partial = {"dp"}>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @reductions(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>})
    -> (tensor<8xf32>, tensor<8x1xf32>, tensor<8xf32>, tensor<16xf32>) {
  %0 = nn.reduce_sum %x axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %1 = nn.reduce_mean %x axes = [1] {keepdims = true} : tensor<8x16xf32> -> tensor<8x1xf32>
  %2 = nn.reduce_max %x axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
  %3 = nn.reduce_sum %x axes = [0] : tensor<8x16xf32> -> tensor<16xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8x1xf32>, tensor<8xf32>, tensor<16xf32>
}

// -----

// Transpose permutes the axes with the dimensions.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: -> (tensor<16x4x8xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}, {"dp"}]>})
// CHECK: nn.transpose {{.*}} {dist.shardings = [#dist.sharding<@m, [{"tp"}, {}, {"dp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @transpose(%x: tensor<8x4x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {"tp"}]>}) -> tensor<16x4x8xf32> {
  %0 = nn.transpose %x [2, 1, 0] : tensor<8x4x16xf32> -> tensor<16x4x8xf32>
  return %0 : tensor<16x4x8xf32>
}

// -----

// Reshape merging [B, S, H] into [B*S, H]: the split of the major dimension
// B stays on the merged dimension; forwards and backwards.
// CHECK-LABEL: func.func @reshape_merge
// CHECK: nn.reshape {{.*}} [32, 16] {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
// CHECK-LABEL: func.func @reshape_merge_backward
// CHECK-SAME: %{{[^:]*}}: tensor<4x8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {}]>}
// CHECK: nn.reshape {{.*}} [32, 16] {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @reshape_merge(%x: tensor<4x8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {}]>}) -> tensor<32x16xf32> {
  %0 = nn.reshape %x [32, 16] : tensor<4x8x16xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}
func.func @reshape_merge_backward(%x: tensor<4x8x16xf32>)
    -> (tensor<32x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) {
  %0 = nn.reshape %x [32, 16] : tensor<4x8x16xf32> -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

// Reshape splitting heads out of the hidden dimension, [B, S, H*D] ->
// [B, S, H, D]: the split of the hidden dimension lands on the heads H;
// and merging them back restores it.
// CHECK-LABEL: func.func @reshape_heads
// CHECK: nn.reshape {{.*}} [2, 8, 4, 16] {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}, {"tp"}, {}]>]}
// CHECK: nn.reshape {{.*}} [2, 8, 64] {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @reshape_heads(%x: tensor<2x8x64xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {"tp"}]>}) -> tensor<2x8x64xf32> {
  %0 = nn.reshape %x [2, 8, 4, 16] : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %1 = nn.reshape %0 [2, 8, 64] : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %1 : tensor<2x8x64xf32>
}

// -----

// broadcast_to: the operand's axes carry to the trailing dimensions; the
// new leading dimension may take an axis only from the result side, and a
// broadcast (size-1) operand dimension takes none.
// CHECK-LABEL: func.func @broadcast_forward
// CHECK: nn.broadcast_to {{.*}} [8, 16] {dist.shardings = [#dist.sharding<@m, [{}, {"tp"}]>]}
// CHECK-LABEL: func.func @broadcast_backward
// CHECK-SAME: %{{[^:]*}}: tensor<1x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}
// CHECK: nn.broadcast_to {{.*}} [8, 16] {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @broadcast_forward(%x: tensor<16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}]>}) -> tensor<8x16xf32> {
  %0 = nn.broadcast_to %x [8, 16] : tensor<16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @broadcast_backward(%x: tensor<1x16xf32>)
    -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) {
  %0 = nn.broadcast_to %x [8, 16] : tensor<1x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// An embedding table split on its vocabulary (the gathered axis): each
// device looks up its rows, so the lookup is a partial sum over that axis;
// the token batch split carries to the result.
// CHECK-LABEL: func.func @embedding_vocabulary
// CHECK-SAME: -> (tensor<4x16x64xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {}]>})
// CHECK: nn.gather {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}, {}], partial = {"tp"}>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @embedding_vocabulary(%t: tensor<1000x64xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>},
                                %ids: tensor<4x16xi64> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<4x16x64xf32> {
  %0 = nn.gather %t[%ids] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  return %0 : tensor<4x16x64xf32>
}

// -----

// An embedding table split on its hidden dimension: the looked-up vectors
// are split alike, nothing is partial.
// CHECK-LABEL: func.func @embedding_hidden
// CHECK-SAME: -> (tensor<4x16x64xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {"tp"}]>})
// CHECK: nn.gather {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @embedding_hidden(%t: tensor<1000x64xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>},
                            %ids: tensor<4x16xi64> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<4x16x64xf32> {
  %0 = nn.gather %t[%ids] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  return %0 : tensor<4x16x64xf32>
}

// -----

// The gradient of an embedding table from a data-parallel batch: each
// device scatters its tokens' gradients into a whole table, so the table's
// gradient is partial over the batch axis (the data-parallel all-reduce);
// the hidden split carries over.
// CHECK-LABEL: func.func @embedding_gradient
// CHECK-SAME: -> (tensor<1000x64xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>})
// CHECK: nn.scatter_add {{.*}} {dist.shardings = [#dist.sharding<@m, [{}, {"tp"}], partial = {"dp"}>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @embedding_gradient(%g: tensor<4x16x64xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}, {"tp"}]>},
                              %ids: tensor<4x16xi64> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<1000x64xf32> {
  %0 = nn.scatter_add %g[%ids] axis = 0 size = 1000 : tensor<4x16x64xf32>, tensor<4x16xi64> -> tensor<1000x64xf32>
  return %0 : tensor<1000x64xf32>
}

// -----

// Softmax over a split axis: the axis is whole in the result (the rule
// marks it replicated: not a conflict, no remark); the other dimension
// keeps its split.
// CHECK-LABEL: func.func @softmax_split_axis
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>})
// CHECK: nn.softmax {{.*}} axis = 1 {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @softmax_split_axis(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}) -> tensor<8x16xf32> {
  %0 = nn.softmax %x axis = 1 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// LayerNorm over a split hidden dimension: likewise whole in the result,
// and the scale and bias (normalised dimensions only) stay whole.
// CHECK-LABEL: func.func @layer_norm_split_hidden
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}, %{{[^:]*}}: tensor<16xf32>, %{{[^:]*}}: tensor<16xf32>)
// CHECK-SAME: -> (tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>})
// CHECK: nn.layer_norm {{.*}} axis = 1 {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @layer_norm_split_hidden(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>},
                                   %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = nn.layer_norm %x scale(%g : tensor<16xf32>) bias(%b : tensor<16xf32>) axis = 1 : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// squeeze and unsqueeze move axes with the dimensions they keep; unit
// dimensions take none.
// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK: nn.squeeze {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
// CHECK: nn.unsqueeze {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}, {"tp"}]>]}
// CHECK: nn.unsqueeze {{.*}} {dist.shardings = [#dist.sharding<@m, [{}, {"dp"}, {}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @squeeze_unsqueeze(%x: tensor<1x8x16xf32> {dist.sharding = #dist.sharding<@m, [{}, {"dp"}, {"tp"}]>}) -> tensor<1x8x1x16xf32> {
  %0 = nn.squeeze %x axes = [0] : tensor<1x8x16xf32> -> tensor<8x16xf32>
  %1 = nn.unsqueeze %0 axes = [1] : tensor<8x16xf32> -> tensor<8x1x16xf32>
  %2 = nn.unsqueeze %1 axes = [0] : tensor<8x1x16xf32> -> tensor<1x8x1x16xf32>
  return %2 : tensor<1x8x1x16xf32>
}

// -----

// Concat: the other dimension is shared by all inputs (the second input
// takes dp from the first); the concatenation axis stays whole.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}
// CHECK: nn.concat {{.*}} axis = 1 {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @concat(%a: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>},
                  %b: tensor<8x16xf32>) -> tensor<8x32xf32> {
  %0 = nn.concat %a, %b axis = 1 : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Two user layouts disagree on a factor: the earlier operand wins, the
// remark names the factor, both tensors and the layout kept, and the loser
// keeps its own layout.
// CHECK-LABEL: func.func @user_conflict
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}
// CHECK: nn.add {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @user_conflict(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>},
                         %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}) -> tensor<8x16xf32> {
  // expected-remark@+1 {{factor i: operand 1 (dimension 0, user layout) splits it over ["tp"], but operand 0 (dimension 0, user layout) splits it over ["dp"]; keeping the latter (higher priority)}}
  %0 = nn.add %x, %y : tensor<8x16xf32>, tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A user layout beats a propagated one even from a later operand.
// CHECK-LABEL: func.func @user_beats_propagated
// CHECK: nn.relu {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
// CHECK: nn.add {{.*}} {dist.shardings = [#dist.sharding<@m, [{"tp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @user_beats_propagated(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>},
                                 %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>}) -> tensor<8x16xf32> {
  %0 = nn.relu %x : tensor<8x16xf32>
  // expected-remark@+1 {{factor i: operand 0 (dimension 0, propagated) splits it over ["dp"], but operand 1 (dimension 0, user layout) splits it over ["tp"]; keeping the latter (higher priority)}}
  %1 = nn.add %0, %y : tensor<8x16xf32>, tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// One axis wanted by two factors: the higher-priority factor keeps it, the
// other stays whole.
// CHECK-LABEL: func.func @axis_wanted_twice
// CHECK: nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{"tp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @axis_wanted_twice(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}, {}]>},
                             %w: tensor<16x32xf32> {dist.sharding = #dist.sharding<@m, [{}, {"tp"}]>}) -> tensor<8x32xf32> {
  // expected-remark@+1 {{factor j: operand 1 (dimension 1, user layout) splits it over ["tp"], but an axis already splits another factor; leaving it whole}}
  %0 = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Open dimensions ({?}) of user layouts are filled by propagation.
// CHECK-LABEL: func.func @open_dimensions
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}]>}
// CHECK: nn.add {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {"tp"}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @open_dimensions(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {?}]>},
                           %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{?}, {"tp"}]>}) -> tensor<8x16xf32> {
  %0 = nn.add %x, %y : tensor<8x16xf32>, tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A dist.annotate in the middle of a function spreads both ways: back to
// the relu and the argument, forward to the tanh and the matmul.
// CHECK-LABEL: func.func @annotate_both_ways
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}
// CHECK-SAME: -> (tensor<8x32xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>})
// CHECK: nn.relu {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
// CHECK: dist.annotate %{{.*}} <@m, [{"dp"}, {}]> : tensor<8x16xf32>
// CHECK-NOT: dist.shardings
// CHECK: nn.tanh {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
// CHECK: nn.matmul {{.*}} {dist.shardings = [#dist.sharding<@m, [{"dp"}, {}]>]}
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @annotate_both_ways(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = nn.relu %x : tensor<8x16xf32>
  %1 = dist.annotate %0 <@m, [{"dp"}, {}]> : tensor<8x16xf32>
  %2 = nn.tanh %1 : tensor<8x16xf32>
  %3 = nn.matmul %2, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  return %3 : tensor<8x32xf32>
}

// -----

// A function without layouts is left alone.
// CHECK-LABEL: func.func @no_layouts
// CHECK-NOT: dist.sharding
// CHECK: return
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 4, intra_node>]
func.func @no_layouts(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = nn.relu %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Layouts naming two meshes are an error (reported on the function: the
// body is read first).
dist.mesh @a axes [<"dp" = 2, intra_node>]
dist.mesh @b axes [<"dp" = 2, intra_node>]
// expected-error@+1 {{layouts name two meshes, @b and @a; a function runs on one mesh}}
func.func @two_meshes(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@a, [{"dp"}]>}) -> tensor<8xf32> {
  %0 = dist.annotate %x <@b, [{"dp"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
