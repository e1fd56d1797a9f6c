func.func @main(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %w = nn.parameter "w" = dense<0.01> : tensor<16x16xf32>
  %y = nn.matmul %x, %w : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
