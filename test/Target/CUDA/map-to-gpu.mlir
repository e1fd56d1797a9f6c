// RUN: loom-opt %s --loom-cuda-map-to-gpu --cse | FileCheck %s
// RUN: loom-opt %s --loom-cuda-map-to-gpu=block-size=128 | FileCheck %s --check-prefix=B128

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A thread per output element, neighbours on neighbouring addresses:
// 1200 elements in blocks of 256 make 5 blocks (10 of 128).
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks(%[[BX:[^,]*]], {{.*}}) in (%{{[^ ]*}} = %[[C5]], {{.*}}) threads(%[[TX:[^,]*]], {{.*}}) in (%{{[^ ]*}} = %[[C256]],
// CHECK:           %[[BASE:.*]] = arith.muli %[[BX]]
// CHECK:           %[[I:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK:           arith.cmpi ult, %[[I]]
// CHECK:           %[[COL:.*]] = arith.remui %[[I]]
// CHECK:           %[[ROW:.*]] = arith.divui %[[I]]
// CHECK:           memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK:           math.exp
// CHECK:           memref.store
// CHECK:           gpu.terminator
// B128-LABEL: func.func @elementwise
// B128:         arith.constant 10 : index
// B128:         gpu.launch
func.func @elementwise(%a: memref<4x300xf32>, %b: memref<4x300xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x300xf32>) outs(%b : memref<4x300xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// 300 summands per output: a block per row; each thread folds a strided
// share, the block combines them, thread 0 adds the initial value.
// CHECK-LABEL: func.func @row_sum
// CHECK:         gpu.launch blocks(%[[BX:[^,]*]], {{.*}}) threads(%[[TX:[^,]*]], {{.*}})
// CHECK:           %[[SHARE:.*]] = scf.for %[[K:.*]] = %[[TX]] to %{{.*}} step %{{.*}} iter_args
// CHECK:             memref.load %{{.*}}[%[[BX]], %[[K]]]
// CHECK:             arith.addf
// CHECK:           %[[ALL:.*]] = gpu.all_reduce add %[[SHARE]] uniform
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[TX]]
// CHECK:           scf.if %[[FIRST]]
// CHECK:             %[[INIT:.*]] = memref.load %{{.*}}[%[[BX]]]
// CHECK:             arith.addf %[[ALL]], %[[INIT]]
func.func @row_sum(%a: memref<4x300xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x300xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// 16 summands: the reduction loop runs in the output's thread, and the
// block shrinks to a warp for 4 outputs.
// CHECK-LABEL: func.func @short_sum
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK:         gpu.launch {{.*}} threads({{.*}}) in (%{{[^ ]*}} = %[[C32]],
// CHECK:           scf.if
// CHECK:             scf.for {{.*}} iter_args
// CHECK-NOT:     gpu.all_reduce
// CHECK:         return
func.func @short_sum(%a: memref<4x16xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x16xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// What the host schedule runs itself stays: a constant fill (a memset), a
// GEMM cuBLASLt takes, a contiguous copy.
// CHECK-LABEL: func.func @host_work
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.fill
// CHECK:         linalg.matmul
// CHECK:         memref.copy
// CHECK-NOT:     gpu.launch
// CHECK:         return
func.func @host_work(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %c: memref<4x8xf32>, %d: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x8xf32>)
  linalg.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%c : memref<4x8xf32>)
  memref.copy %c, %d : memref<4x8xf32> to memref<4x8xf32>
  return
}

// Host loops with loads and stores (a gather's gradient scatters into rows
// it reads at run time) run in one thread, in order.
// CHECK-LABEL: func.func @scatter
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch blocks({{.*}}) in (%{{[^ ]*}} = %[[ONE]], {{.*}}) threads({{.*}}) in (%{{[^ ]*}} = %[[ONE]],
// CHECK-NEXT:      scf.for
// CHECK:             memref.load
// CHECK:             scf.for
// CHECK:               memref.store
// CHECK:         gpu.terminator
func.func @scatter(%idx: memref<3xi64>, %g: memref<3x4xf32>, %t: memref<10x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %r = memref.load %idx[%i] : memref<3xi64>
    %ri = arith.index_cast %r : i64 to index
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %g[%i, %j] : memref<3x4xf32>
      %o = memref.load %t[%ri, %j] : memref<10x4xf32>
      %s = arith.addf %v, %o : f32
      memref.store %s, %t[%ri, %j] : memref<10x4xf32>
    }
  }
  return
}

