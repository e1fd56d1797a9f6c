// An input that declares its own mesh and layouts.
dist.mesh @m axes [<"dp" = 2, intra_node>]
func.func @main(%x: tensor<8x16xf32> {dist.sharding = #dist.sharding<@m, [{"dp"}, {}]>}) -> tensor<8x16xf32> {
  %y = nn.relu %x : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
