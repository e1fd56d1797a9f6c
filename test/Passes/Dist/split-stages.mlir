// A two-layer model cut into two stages and trained with 3 microbatches:
// each stage keeps its own layer, the activation and its gradient cross as
// send/recv, and the units run in the schedule's order.
// RUN: loom-opt %s -dist-assign-stages=stages=2 -nn-build-training-step="loss=l optimizer=sgd grad-accum=3 microbatch-loop=1" -nn-expand-optimizers -dist-split-stages="stages=2 stage=0 schedule=1f1b" -dist-unroll-microbatches -canonicalize -cse | FileCheck %s --check-prefix=S0
// RUN: loom-opt %s -dist-assign-stages=stages=2 -nn-build-training-step="loss=l optimizer=sgd grad-accum=3 microbatch-loop=1" -nn-expand-optimizers -dist-split-stages="stages=2 stage=1 schedule=1f1b" -dist-unroll-microbatches -canonicalize -cse | FileCheck %s --check-prefix=S1
// RUN: loom-opt %s -dist-assign-stages=stages=2 -nn-build-training-step="loss=l optimizer=sgd grad-accum=3 microbatch-loop=1" -nn-expand-optimizers -dist-split-stages="stages=2 stage=0 schedule=gpipe" -dist-unroll-microbatches -canonicalize -cse | FileCheck %s --check-prefix=GPIPE
// RUN: loom-opt %s -dist-assign-stages=stages=2 -nn-build-training-step="loss=l optimizer=sgd grad-accum=3 microbatch-loop=1" -nn-expand-optimizers -dist-split-stages="stages=2 stage=0" | FileCheck %s --check-prefix=SPLIT

dist.mesh @mesh axes [<"pp" = 2, intra_node>]

func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}) -> (tensor<f32> {nn.name = "l"}) {
  %w1 = nn.parameter "w1" = dense<0.5> : tensor<4x4xf32>
  %w2 = nn.parameter "w2" = dense<0.25> : tensor<4x2xf32>
  %h = nn.matmul %x, %w1 : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %a = nn.tanh %h : tensor<8x4xf32>
  %y = nn.matmul %a, %w2 : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %s = nn.mul %y, %y : tensor<8x2xf32>, tensor<8x2xf32>
  %l = nn.reduce_mean %s axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// The loop of stage 0 keeps its layer: it sends the activation forward and
// receives its gradient in the backward unit.
// SPLIT: dist.pipeline = #dist.pipeline<stage = 0, stages = 2, microbatches = 3, schedule = "1f1b", recompute = "off", axis = "pp">
// SPLIT: nn.parameter "w1"
// SPLIT-NOT: nn.parameter "w2"
// SPLIT: dist.microbatches 3
// SPLIT: nn.matmul {{.*}}dist.stage = 0
// SPLIT: dist.send %{{.*}} to 1 over @mesh ["pp"] tag = [[FWD:[0-9]+]]
// SPLIT: dist.recv from 1 over @mesh ["pp"] tag = [[BWD:[0-9]+]] {dist.backward, dist.stage = 0 : i64}
// SPLIT: dist.yield
// SPLIT: return

// 1F1B on stage 0 of 2: one forward unit of warm-up, then forward and
// backward in turn, then the last backward unit. Each unit's transfers
// appear in its place.
// S0-LABEL: func.func @main
// S0: dist.send {{.*}} tag = [[FWD:[0-9]+]]
// S0: dist.send {{.*}} tag = [[FWD]]
// S0: dist.recv {{.*}} tag = [[BWD:[0-9]+]]
// S0: dist.send {{.*}} tag = [[FWD]]
// S0: dist.recv {{.*}} tag = [[BWD]]
// S0: dist.recv {{.*}} tag = [[BWD]]
// S0-NOT: dist.send {{.*}} tag = [[FWD]]
// S0: return

// Stage 1 (the last) has no warm-up: forward, backward, per microbatch;
// it holds w2 and the loss, which it sends to stage 0.
// S1-LABEL: func.func @main
// S1-NOT: nn.parameter "w1"
// S1: dist.recv from 0 {{.*}} tag = [[FWD:[0-9]+]]
// S1: dist.send {{.*}} to 0 {{.*}} tag = [[BWD:[0-9]+]]
// S1: dist.recv from 0 {{.*}} tag = [[FWD]]
// S1: dist.send {{.*}} to 0 {{.*}} tag = [[BWD]]
// S1: dist.recv from 0 {{.*}} tag = [[FWD]]
// S1: dist.send {{.*}} to 0 {{.*}} tag = [[BWD]]
// S1: return

// GPipe: every forward unit, then every backward unit.
// GPIPE: dist.send {{.*}} tag = [[FWD:[0-9]+]]
// GPIPE: dist.send {{.*}} tag = [[FWD]]
// GPIPE: dist.send {{.*}} tag = [[FWD]]
// GPIPE: dist.recv {{.*}} tag = [[BWD:[0-9]+]]
// GPIPE: dist.recv {{.*}} tag = [[BWD]]
// GPIPE: dist.recv {{.*}} tag = [[BWD]]
