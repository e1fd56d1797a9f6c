// RUN: loomc %s --emit=llvm | FileCheck %s

// Every linalg op becomes its own internal, never-inlined function. One whose
// first loop is parallel and that runs at least 2^15 iterations takes the
// range [lo, hi) of that loop (two trailing i64 arguments) and is marked with
// its extent; the artifact build turns its call into loom_parallel_for.
// Small ops and ops whose first loop is a reduction run whole.

// CHECK-LABEL: llvm.func @main(
// CHECK:         %[[ZERO:.+]] = llvm.mlir.constant(0 : index) : i64
// CHECK:         %[[EXTENT:.+]] = llvm.mlir.constant(256 : index) : i64
// CHECK:         llvm.call @loom_op0_generic({{.+}}, %[[ZERO]], %[[EXTENT]])
// CHECK:         llvm.call @loom_op1_generic(
// CHECK:         llvm.call @loom_op{{[0-9]+}}_reduce(

// CHECK:       llvm.func internal @loom_op0_generic({{.+}}, %{{.+}}: i64, %{{.+}}: i64) attributes {passthrough = ["noinline", ["loom-parallel-extent", "256"]]
// CHECK:       llvm.func internal @loom_op1_generic({{.+}}) attributes {passthrough = ["noinline"]
// CHECK:       llvm.func internal @loom_op{{[0-9]+}}_reduce({{.+}}) attributes {passthrough = ["noinline"]
func.func @main(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>,
                %s: tensor<8x8xf32>, %c: tensor<1024x4xf32>)
    -> (tensor<256x256xf32>, tensor<8x8xf32>, tensor<4xf32>) {
  %big = nn.add %x, %y : tensor<256x256xf32>, tensor<256x256xf32>
  %small = nn.exp %s : tensor<8x8xf32>
  %col = nn.reduce_sum %c axes = [0] : tensor<1024x4xf32> -> tensor<4xf32>
  return %big, %small, %col : tensor<256x256xf32>, tensor<8x8xf32>, tensor<4xf32>
}
