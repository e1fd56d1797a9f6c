// RUN: loom-opt %s -nn-build-training-step="loss=l" -split-input-file -verify-diagnostics

// expected-error @+1 {{--loss: the model has no output 'l'; its outputs are y}}
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32> {nn.name = "y"}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{--loss: output 'l' must be a float scalar (one element), not 'tensor<4xf32>'}}
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32> {nn.name = "l"}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{training: the model has no trainable parameters}}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32> {nn.name = "l"}) {
  %l = nn.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> (tensor<f32> {nn.name = "l"}) {
  %l = nn.reduce_sum %x axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
// expected-error @+1 {{training needs a module with one public function}}
func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{training needs a float32 loss, not 'f64'}}
func.func @main(%x: tensor<4xf64>) -> (tensor<f64> {nn.name = "l"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4xf64>
  %y = nn.mul %x, %w : tensor<4xf64>, tensor<4xf64>
  %l = nn.reduce_sum %y axes = [0] : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// -----

func.func @main(%x: tensor<4xf32>) -> (tensor<f32> {nn.name = "l"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4xf32>
  // expected-error @+1 {{parameter 'w' appears with two types}}
  %v = nn.parameter "w" = dense<0.5> : tensor<2x2xf32>
  %y = nn.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = nn.reduce_sum %y axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{training: result 'state:nope' must be the new value of a parameter of the same type}}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32> {nn.name = "l"}, tensor<4xf32> {nn.name = "state:nope"}) {
  %w = nn.parameter "w" = dense<1.0> : tensor<4xf32>
  %y = nn.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = nn.reduce_sum %y axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l, %y : tensor<f32>, tensor<4xf32>
}

// -----

func.func @main(%x: tensor<4xf32>) -> (tensor<f32> {nn.name = "l"}, tensor<4xf32> {nn.name = "y"}) {
  %w = nn.parameter "w" = dense<1.0> : tensor<4xf32>
  // expected-warning @+1 {{parameter 'b' does not affect the loss: it is not trained}}
  %b = nn.parameter "b" = dense<2.0> : tensor<4xf32>
  %y = nn.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = nn.reduce_sum %y axes = [0] : tensor<4xf32> -> tensor<f32>
  %z = nn.add %x, %b : tensor<4xf32>, tensor<4xf32>
  return %l, %z : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{training: parameter 'm' has two 'state:' results}}
func.func @main(%x: tensor<4xf32>) -> (tensor<f32> {nn.name = "l"}, tensor<4xf32> {nn.name = "state:m"}, tensor<4xf32> {nn.name = "state:m"}) {
  %w = nn.parameter "w" = dense<1.0> : tensor<4xf32>
  %m = nn.parameter "m" = dense<0.0> : tensor<4xf32>
  %y = nn.mul %x, %w : tensor<4xf32>, tensor<4xf32>
  %l = nn.reduce_sum %y axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l, %m, %m : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
