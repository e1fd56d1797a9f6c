// RUN: loom-opt %s -dist-zero-layouts=stage=1 -split-input-file -verify-diagnostics

// The data inputs are read from #nn.training: the pass lays out a step.
// expected-error@+1 {{-dist-zero-layouts lays out a training step: the module has no nn.training (run -nn-build-training-step first)}}
module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
