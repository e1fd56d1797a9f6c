// A four-layer MLP on a mesh of four pipeline stages (schedules.mlir).
dist.mesh @mesh axes [<"pp" = 4, intra_node>]

func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "l"}) {
  %w1 = nn.parameter "w1" = dense<0.5> : tensor<4x4xf32>
  %w2 = nn.parameter "w2" = dense<0.25> : tensor<4x4xf32>
  %w3 = nn.parameter "w3" = dense<0.125> : tensor<4x4xf32>
  %w4 = nn.parameter "w4" = dense<0.25> : tensor<4x2xf32>
  %h1 = nn.matmul %x, %w1 : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a1 = nn.tanh %h1 : tensor<8x4xf32>
  %h2 = nn.matmul %a1, %w2 : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a2 = nn.tanh %h2 : tensor<8x4xf32>
  %h3 = nn.matmul %a2, %w3 : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a3 = nn.tanh %h3 : tensor<8x4xf32>
  %y = nn.matmul %a3, %w4 : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %s = nn.mul %y, %y : tensor<8x2xf32>, tensor<8x2xf32>
  %l = nn.reduce_mean %s axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
