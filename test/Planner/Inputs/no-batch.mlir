func.func @main() -> tensor<4x4xf32> {
  %w = nn.parameter "w" = dense<0.01> : tensor<4x4xf32>
  return %w : tensor<4x4xf32>
}
