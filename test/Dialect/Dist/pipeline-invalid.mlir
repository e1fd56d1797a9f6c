// RUN: loom-opt %s -split-input-file -verify-diagnostics

dist.mesh @m axes [<"pp" = 2, intra_node>]
func.func @peer(%x: tensor<4xf32>) {
  // expected-error@+1 {{peer 2 is outside the group of 2}}
  dist.send %x to 2 over @m ["pp"] tag = 0 : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"pp" = 2, intra_node>]
func.func @tag() -> tensor<4xf32> {
  // expected-error@+1 {{tag -1 is not in [0, 2^31)}}
  %r = dist.recv from 1 over @m ["pp"] tag = -1 : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

dist.mesh @m axes [<"pp" = 2, intra_node>]
func.func @axis() -> tensor<4xf32> {
  // expected-error@+1 {{mesh axis "dp" is not an axis of mesh @m}}
  %r = dist.recv from 1 over @m ["dp"] tag = 0 : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error@+1 {{stage 2 is not one of 2 stages}}
module attributes {dist.pipeline = #dist.pipeline<stage = 2, stages = 2, microbatches = 4, schedule = "1f1b", recompute = "off", axis = "pp">} {
}

// -----

// expected-error@+1 {{unknown schedule 'zigzag'}}
module attributes {dist.pipeline = #dist.pipeline<stage = 0, stages = 2, microbatches = 4, schedule = "zigzag", recompute = "off", axis = "pp">} {
}

// -----

// expected-error@+1 {{'dist.backward' is a unit attribute}}
func.func @backward() attributes {dist.backward = 1 : i64} {
  return
}
