func.func @mlp(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %h = nn.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %s = nn.mul %h, %one : tensor<4x8xf32>, tensor<f32>
  %r = nn.relu %s : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
