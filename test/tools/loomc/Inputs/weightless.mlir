// A function with a weightless parameter: a name and a type, no data.
func.func @main(%x: tensor<4x16xf32> {nn.name = "x"},
                %w: tensor<16x8xf32> {nn.parameter = "fc.weight"}) -> tensor<4x8xf32> {
  %y = nn.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
