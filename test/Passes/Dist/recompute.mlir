// Recomputation in the backward units of a four-layer MLP trained with two
// microbatches on one device.
// RUN: loom-opt %S/Inputs/mlp4-pp4.mlir -pass-pipeline='builtin.module(nn-build-training-step{loss=l optimizer=sgd grad-accum=2 microbatch-loop=1},nn-expand-optimizers,dist-unroll-microbatches{recompute=full},canonicalize,cse)' | FileCheck %s --check-prefix=FULL
// RUN: loom-opt %S/Inputs/mlp4-pp4.mlir -pass-pipeline='builtin.module(nn-build-training-step{loss=l optimizer=sgd grad-accum=2 microbatch-loop=1},nn-expand-optimizers,dist-unroll-microbatches{recompute=selective},canonicalize,cse)' | FileCheck %s --check-prefix=SELECTIVE
// RUN: loom-opt %S/Inputs/mlp4-pp4.mlir -pass-pipeline='builtin.module(nn-build-training-step{loss=l optimizer=sgd grad-accum=2 microbatch-loop=1},nn-expand-optimizers,dist-unroll-microbatches,canonicalize,cse)' | FileCheck %s --check-prefix=OFF

// Full: the forward unit keeps what crosses each layer boundary (the
// matrix products' results here); each backward unit reruns a layer from
// its kept input right before that layer's backward ops, behind a barrier
// that CSE does not look through.
// FULL-LABEL: func.func @main
// FULL: %[[H1:.*]] = nn.matmul %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
// FULL-NEXT: %[[A1:.*]] = nn.tanh %[[H1]]
// FULL: %[[H3:.*]] = nn.matmul
// FULL-NEXT: %[[A3:.*]] = nn.tanh %[[H3]]
// FULL: %[[Y:.*]] = nn.matmul %[[A3]]
// The last layer's backward: its kept input is recomputed first.
// FULL: %[[K3:.*]] = dist.recompute %[[H3]] : tensor<8x4xf32>
// FULL-NEXT: %[[R3:.*]] = nn.tanh %[[K3]] : tensor<8x4xf32>
// FULL-NEXT: nn.transpose %[[R3]] [1, 0] {dist.backward}
// FULL-NOT: nn.transpose %[[A3]]
// FULL: %[[K1:.*]] = dist.recompute %[[H1]] : tensor<8x4xf32>
// FULL-NEXT: %[[R1:.*]] = nn.tanh %[[K1]] : tensor<8x4xf32>
// FULL-NEXT: nn.transpose %[[R1]] [1, 0] {dist.backward}
// FULL: return

// Selective keeps the matrix products and reruns the activations; here the
// same ops as full.
// SELECTIVE: %[[H1:.*]] = nn.matmul
// SELECTIVE: dist.recompute %[[H1]]

// Off: the backward ops use the forward unit's values.
// OFF-NOT: dist.recompute
