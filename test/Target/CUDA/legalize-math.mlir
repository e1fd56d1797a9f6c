// RUN: loom-opt %s --pass-pipeline='builtin.module(gpu.module(loom-cuda-legalize-math))' | FileCheck %s

// NVVM lowers none of these; they become arithmetic (fpowi a powf, which
// libdevice has).
// CHECK-LABEL: gpu.func @f
// CHECK-NOT:     math.ipowi
// CHECK-NOT:     math.absi
// CHECK-NOT:     math.copysign
// CHECK-NOT:     math.roundeven
// CHECK-NOT:     math.round
// CHECK-NOT:     math.fpowi
// ipowi squares and multiplies in a loop over the exponent's bits.
// CHECK:         scf.while
// CHECK:           arith.shrui
// CHECK:         math.powf
// CHECK:         gpu.return
gpu.module @k {
  gpu.func @f(%a: i32, %b: i32, %x: f32, %y: f32, %out: memref<8xf32>, %iout: memref<8xi32>) kernel {
    %p = math.ipowi %a, %b : i32
    %q = math.absi %a : i32
    %s = math.copysign %x, %y : f32
    %r = math.roundeven %x : f32
    %t = math.round %x : f32
    %u = math.fpowi %x, %b : f32, i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %p, %iout[%c0] : memref<8xi32>
    memref.store %q, %iout[%c1] : memref<8xi32>
    memref.store %s, %out[%c0] : memref<8xf32>
    memref.store %r, %out[%c1] : memref<8xf32>
    %c2 = arith.constant 2 : index
    memref.store %t, %out[%c2] : memref<8xf32>
    %c3 = arith.constant 3 : index
    memref.store %u, %out[%c3] : memref<8xf32>
    gpu.return
  }
}
