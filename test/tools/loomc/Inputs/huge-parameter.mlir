// A parameter of 2^62 x 4 float32 elements: 2^66 bytes.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = nn.parameter "w" = dense<0.0> : tensor<4611686018427387904x4xf32>
  %s = nn.reduce_sum %w axes = [0] : tensor<4611686018427387904x4xf32> -> tensor<4xf32>
  %y = nn.add %x, %s : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
