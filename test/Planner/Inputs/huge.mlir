// Half a billion parameters: more than two 1 GB devices can train.
func.func @main(%x: tensor<8x16384xf32>) -> tensor<8x32768xf32> {
  %w = nn.parameter "huge.weight" = dense<0.01> : tensor<16384x32768xf32>
  %y = nn.matmul %x, %w : tensor<8x16384xf32>, tensor<16384x32768xf32> -> tensor<8x32768xf32>
  return %y : tensor<8x32768xf32>
}
