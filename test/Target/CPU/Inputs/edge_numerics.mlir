func.func @main(%x: tensor<6xf64>, %y: tensor<4xf32>, %s: tensor<f32>, %h: tensor<3xbf16>)
    -> (tensor<6xbf16>, tensor<4xf32>, tensor<f32>, tensor<3xf32>) {
  %b = nn.cast %x : tensor<6xf64> to bf16
  %l = nn.log %y : tensor<4xf32>
  %e = nn.exp %s : tensor<f32>
  %w = nn.cast %h : tensor<3xbf16> to f32
  return %b, %l, %e, %w : tensor<6xbf16>, tensor<4xf32>, tensor<f32>, tensor<3xf32>
}
