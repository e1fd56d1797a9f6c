// An MLP whose weights dwarf its activations: tensor parallelism pays.
func.func @main(%x: tensor<16x4096xf32>) -> tensor<16x4096xf32> {
  %w1 = nn.parameter "mlp.fc1.weight" = dense<0.01> : tensor<4096x16384xf32>
  %w2 = nn.parameter "mlp.fc2.weight" = dense<0.01> : tensor<16384x4096xf32>
  %h = nn.matmul %x, %w1 : tensor<16x4096xf32>, tensor<4096x16384xf32> -> tensor<16x16384xf32>
  %a = nn.gelu %h : tensor<16x16384xf32>
  %y = nn.matmul %a, %w2 : tensor<16x16384xf32>, tensor<16384x4096xf32> -> tensor<16x4096xf32>
  return %y : tensor<16x4096xf32>
}
