func.func @broken(%x: tensor<4x16xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %h = nn.matmul %x, %w : tensor<4x16xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}
