// A small MLP for the loomc driver tests.
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w1 = nn.parameter "fc1.weight" = dense<0.1> : tensor<16x32xf32>
  %w2 = nn.parameter "fc2.weight" = dense<0.1> : tensor<32x16xf32>
  %h = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %a = nn.relu %h : tensor<8x32xf32>
  %y = nn.matmul %a, %w2 : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
