// RUN: loom-opt %s -loom-prepare-entry -split-input-file -verify-diagnostics

func.func @a() {
  return
}
// expected-error@+1 {{cannot compile a module with more than one public function ('@a' and '@b')}}
func.func @b() {
  return
}

// -----

// expected-error@+1 {{the module has no public function to compile}}
module {
  func.func private @helper() {
    return
  }
}

// -----

// expected-error@+1 {{input #0 ('x') has type 'tensor<?x4xf32>'; compiled programs need tensors of static shape (fix dynamic dimensions with --input-shape)}}
func.func @dynamic(%x: tensor<?x4xf32> {nn.name = "x"}) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

func.func @two_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.parameter "w" = dense<1.0> : tensor<4xf32>
  // expected-error@+1 {{parameter 'w' appears with two types or layouts: 'tensor<4xf32>' and 'tensor<2x2xf32>'}}
  %b = nn.parameter "w" = dense<1.0> : tensor<2x2xf32>
  %c = nn.reshape %b [4] : tensor<2x2xf32> -> tensor<4xf32>
  %d = nn.add %a, %c : tensor<4xf32>, tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// expected-error@+1 {{parameter 'w' has no data (a weightless model): it can be planned (--explain, --emit=plan) but not trained or compiled}}
func.func @weightless(%w: tensor<4xf32> {nn.parameter = "w"}) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
