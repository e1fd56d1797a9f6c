// A two-layer MLP planned by hand, Megatron style, for 2 nodes of 4 GPUs:
// the batch is split over "dp" (across nodes), the first weight by columns
// and the second by rows over "tp" (inside a node), so the only tensor-
// parallel communication is one all-reduce of the second matmul's partial
// sums. Shapes are global; partitioning turns them into per-device shapes.
dist.mesh @cluster axes [<"dp" = 2, inter_node, bandwidth = 25, latency = 5>,
                         <"tp" = 4, intra_node, bandwidth = 450, latency = 2>]

func.func @mlp(%x: tensor<32x512xf32> {dist.sharding = #dist.sharding<@cluster, [{"dp"}, {}]>},
               %w1: tensor<512x2048xf32> {dist.sharding = #dist.sharding<@cluster, [{}, {"tp"}]>},
               %b1: tensor<2048xf32> {dist.sharding = #dist.sharding<@cluster, [{"tp"}]>},
               %w2: tensor<2048x512xf32> {dist.sharding = #dist.sharding<@cluster, [{"tp"}, {}]>},
               %b2: tensor<512xf32> {dist.sharding = #dist.sharding<@cluster, [{}]>})
    -> (tensor<32x512xf32> {dist.sharding = #dist.sharding<@cluster, [{"dp"}, {}]>}) {
  // Column-parallel: each device computes its 512 of the 2048 hidden units.
  %h = nn.matmul %x, %w1 {dist.shardings = [#dist.sharding<@cluster, [{"dp"}, {"tp"}]>]}
      : tensor<32x512xf32>, tensor<512x2048xf32> -> tensor<32x2048xf32>
  %hb = nn.add %h, %b1 {dist.shardings = [#dist.sharding<@cluster, [{"dp"}, {"tp"}]>]}
      : tensor<32x2048xf32>, tensor<2048xf32>
  %a = nn.gelu %hb {dist.shardings = [#dist.sharding<@cluster, [{"dp"}, {"tp"}]>]}
      : tensor<32x2048xf32>
  // Row-parallel: each device holds a partial sum over its hidden units.
  %y = nn.matmul %a, %w2 {dist.shardings = [#dist.sharding<@cluster, [{"dp"}, {}], partial = {"tp"}>]}
      : tensor<32x2048xf32>, tensor<2048x512xf32> -> tensor<32x512xf32>
  // The sums are complete from here on: this is where the all-reduce goes.
  %reduced = dist.annotate %y <@cluster, [{"dp"}, {}]> : tensor<32x512xf32>
  %out = nn.add %reduced, %b2 : tensor<32x512xf32>, tensor<512xf32>
  return %out : tensor<32x512xf32>
}
