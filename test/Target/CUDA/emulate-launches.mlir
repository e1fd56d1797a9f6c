// RUN: loom-opt %s --loom-cuda-emulate-launches --canonicalize | FileCheck %s

// A launch becomes a loop over blocks holding a loop over threads; the
// ids become the loops' variables.
// CHECK-LABEL: func.func @elementwise
// CHECK-NOT:     gpu.launch
// CHECK:         scf.for %[[B:.*]] = %{{.*}} to %c5 step
// CHECK:           scf.for %[[T:.*]] = %{{.*}} to %c256 step
// CHECK:             %[[BASE:.*]] = arith.muli %[[B]], %c256
// CHECK:             %[[I:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK:             arith.cmpi ult, %[[I]], %c1200
// CHECK:             memref.load
// CHECK:             math.exp
// CHECK:             memref.store
func.func @elementwise(%a: memref<1200xf32>, %b: memref<1200xf32>) {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c256 = arith.constant 256 : index
  %n = arith.constant 1200 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c5, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %in = arith.cmpi ult, %i, %n : index
    scf.if %in {
      %x = memref.load %a[%i] : memref<1200xf32>
      %e = math.exp %x : f32
      memref.store %e, %b[%i] : memref<1200xf32>
    }
    gpu.terminator
  }
  return
}

// A block reduction runs in two passes per block: the threads' shares
// folded in thread order (thread 0 seeds the fold), then the body for
// every thread with the block's total.
// CHECK-LABEL: func.func @row_max
// CHECK:         scf.for %[[B:.*]] = %{{.*}} to %c4 step
// CHECK:           %[[S0:.*]] = memref.load %{{.*}}[%[[B]], %c0]
// CHECK:           %[[TOTAL:.*]] = scf.for %[[T:.*]] = %c1 to %c32 step %c1 iter_args(%[[ACC:.*]] = %[[S0]])
// CHECK:             %[[S:.*]] = memref.load %{{.*}}[%[[B]], %[[T]]]
// CHECK:             %[[M:.*]] = arith.maxnumf %[[S]], %[[ACC]]
// CHECK:             scf.yield %[[M]]
// CHECK:           scf.for %[[T2:.*]] = %c0 to %c32 step
// CHECK:             %[[Z:.*]] = arith.cmpi eq, %[[T2]], %c0
// CHECK:             scf.if %[[Z]]
// CHECK:               memref.store %[[TOTAL]], %{{.*}}[%[[B]]]
func.func @row_max(%a: memref<4x32xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%bx, %tx] : memref<4x32xf32>
    %m = gpu.all_reduce maxnumf %x uniform {} : (f32) -> (f32)
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %m, %out[%bx] : memref<4xf32>
    }
    gpu.terminator
  }
  return
}

// In the CPU lowering with emulate-cuda-kernels, -loom-cuda-map-to-gpu's
// launches reach this pass and none is left after it (so the emulated node
// tests run the CUDA kernels, not the CPU's loops).
// RUN: loom-opt %S/../../Conversion/pipeline.mlir --loom-to-linalg --loom-cpu-lowering=emulate-cuda-kernels=true --mlir-print-ir-before=loom-cuda-emulate-launches -o %t.ll 2>&1 | FileCheck %s --check-prefix=LAUNCHED
// LAUNCHED: IR Dump Before EmulateLaunches
// LAUNCHED: gpu.launch
// RUN: FileCheck %s --check-prefix=EMULATED --implicit-check-not=gpu. < %t.ll
// EMULATED: llvm.func
