// An input named like the default name of another ("input1").
func.func @main(%a: tensor<2xf32> {nn.name = "input1"}, %b: tensor<2xf32>) -> tensor<2xf32> {
  %r = nn.add %a, %b : tensor<2xf32>, tensor<2xf32>
  return %r : tensor<2xf32>
}
