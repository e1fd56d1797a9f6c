// A two-layer MLP classifier for the training pipeline tests.
func.func @main(%x: tensor<8x16xf32> {nn.name = "x"}) -> (tensor<8x10xf32> {nn.name = "logits"}) {
  %w1 = nn.parameter "fc1.weight" = dense<0.1> : tensor<16x32xf32>
  %b1 = nn.parameter "fc1.bias" = dense<0.0> : tensor<32xf32>
  %w2 = nn.parameter "fc2.weight" = dense<0.1> : tensor<32x10xf32>
  %h = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %hb = nn.add %h, %b1 : tensor<8x32xf32>, tensor<32xf32>
  %a = nn.relu %hb : tensor<8x32xf32>
  %y = nn.matmul %a, %w2 : tensor<8x32xf32>, tensor<32x10xf32> -> tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}
