// RUN: loom-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same text.
// RUN: loom-opt %s -split-input-file | loom-opt -split-input-file | FileCheck %s

// The training attribute prints the hyper-parameters its optimizer uses and
// leaves out zeros and defaults.
// CHECK-LABEL: module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = adamw, lr = 0.001, weight_decay = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1.0E-8, lr_schedule = cosine, warmup = 10, decay_steps = 100, min_lr = 1.0E-5, grad_accum = 4, clip_grad_norm = 1, zero = 2, data_inputs = ["x", "y"], labels = "y", num_classes = 10, batch = 32, tokens_per_example = 128, flops_per_step = 1.5E+12>}
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = adamw, lr = 0.001, weight_decay = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, lr_schedule = cosine, warmup = 10, decay_steps = 100, min_lr = 1.0e-5, grad_accum = 4, clip_grad_norm = 1.0, zero = 2, data_inputs = ["x", "y"], labels = "y", num_classes = 10, batch = 32, tokens_per_example = 128, flops_per_step = 1.5e12>} {
}

// -----

// CHECK-LABEL: module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = sgd, lr = 0.5, momentum = 0.9, lr_schedule = constant, data_inputs = ["x"]>}
module attributes {nn.training = #nn.training<loss = "loss", grad_norm = "train.grad_norm", optimizer = sgd, lr = 0.5, momentum = 0.9, lr_schedule = constant, data_inputs = ["x"]>} {
  // CHECK: func.func private @step(tensor<4xf32> {nn.immutable, nn.name = "w"})
  func.func private @step(tensor<4xf32> {nn.name = "w", nn.immutable})
  // CHECK: nn.parameter "w" {nn.update = "update:w"}
  // CHECK: nn.parameter "sgd.momentum:w" {nn.update = "update:sgd.momentum:w", nn.zero_init}
  func.func @state() -> (tensor<4xf32>, tensor<4xf32>) {
    %w = nn.parameter "w" {nn.update = "update:w"} = dense<1.0> : tensor<4xf32>
    %m = nn.parameter "sgd.momentum:w" {nn.zero_init, nn.update = "update:sgd.momentum:w"} = dense<0.0> : tensor<4xf32>
    return %w, %m : tensor<4xf32>, tensor<4xf32>
  }
}
