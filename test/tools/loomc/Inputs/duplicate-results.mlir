// Two results named alike: loomrun selects outputs by name.
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32> {nn.name = "y"}, tensor<2xf32> {nn.name = "y"}) {
  %r = nn.relu %x : tensor<2xf32>
  return %x, %r : tensor<2xf32>, tensor<2xf32>
}
