// Layout changes that lower to every collective kind (see collectives.test).
dist.mesh @m axes [<"dp" = 2, intra_node>, <"tp" = 2, intra_node>]
func.func @main(%x: tensor<4x8x8xf32> {nn.name = "x", dist.sharding = #dist.sharding<@m, [{"dp"}, {"tp"}, {}]>})
    -> (tensor<4x8x8xf32> {nn.name = "moved"}, tensor<4x8x8xf32> {nn.name = "regathered"},
        tensor<8x8xf32> {nn.name = "summed"}, tensor<8x8xf32> {nn.name = "averaged"},
        tensor<4x8xf32> {nn.name = "maxed"}) {
  %a = nn.relu %x : tensor<4x8x8xf32>
  // tp moves from dimension 1 to dimension 2: an all_to_all.
  %b = dist.annotate %a <@m, [{"dp"}, {}, {"tp"}]> : tensor<4x8x8xf32>
  %c = nn.tanh %b : tensor<4x8x8xf32>
  // dp leaves dimension 0, tp leaves dimension 2 and dp joins dimension 1.
  %d = dist.annotate %c <@m, [{}, {"dp"}, {}]> : tensor<4x8x8xf32>
  %e = nn.exp %d : tensor<4x8x8xf32>
  // Sums over a dp-split dimension, kept split along dimension 1: a
  // reduce_scatter over dp.
  %s = nn.reduce_sum %b axes = [0] : tensor<4x8x8xf32> -> tensor<8x8xf32>
  %s2 = dist.annotate %s <@m, [{}, {"tp", "dp"}]> : tensor<8x8xf32>
  %m = nn.reduce_mean %b axes = [0] : tensor<4x8x8xf32> -> tensor<8x8xf32>
  %mx = nn.reduce_max %a axes = [1] : tensor<4x8x8xf32> -> tensor<4x8xf32>
  return %c, %e, %s2, %m, %mx : tensor<4x8x8xf32>, tensor<4x8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<4x8xf32>
}
