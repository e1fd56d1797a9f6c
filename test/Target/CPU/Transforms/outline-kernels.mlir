// RUN: loom-opt %s -loom-cpu-outline-kernels | FileCheck %s

// A big op with a parallel first loop is outlined into a function over a
// range [lo, hi) of that loop, called with the whole range; the function
// carries the extent the CPU target hands to loom_parallel_for.
// CHECK-LABEL: func.func @big(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         call @loom_op0_generic(%{{.*}}, %{{.*}}, %[[C0]], %[[C256]])
// CHECK-NOT:     linalg.

// A small op runs on one thread: no range arguments.
// CHECK-LABEL: func.func @small(
// CHECK:         call @loom_op1_copy(%{{.*}}, %{{.*}}) : (memref<4x4xf32>, memref<4x4xf32>) -> ()

// CHECK-LABEL: func.func private @loom_op0_generic(
// CHECK-SAME:    %[[A:[^:]*]]: memref<256x256xf32>, %[[B:[^:]*]]: memref<256x256xf32>, %[[LO:[^:]*]]: index, %[[HI:[^:]*]]: index)
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline", ["loom-parallel-extent", "256"]]}
// CHECK:         %[[N:.*]] = arith.subi %[[HI]], %[[LO]] : index
// CHECK:         memref.subview %[[A]][%[[LO]], 0] [%[[N]], 256] [1, 1]
// CHECK:         memref.subview %[[B]][%[[LO]], 0] [%[[N]], 256] [1, 1]
// CHECK:         linalg.generic

// CHECK-LABEL: func.func private @loom_op1_copy(
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK:         linalg.copy
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @big(%a: memref<256x256xf32>, %b: memref<256x256xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<256x256xf32>) outs(%b : memref<256x256xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.exp %x : f32
    linalg.yield %0 : f32
  }
  return
}
func.func @small(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.copy ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  return
}
