// RUN: loom-opt %s -loom-cpu-approximate-math | FileCheck %s

// f32 exp and tanh become polynomials (fma chains), which LLVM vectorises.
// CHECK-LABEL: func.func @f(
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.tanh
// CHECK:         math.fma
// CHECK:         return

// f64 keeps libm's accuracy.
// CHECK-LABEL: func.func @g(
// CHECK:         math.exp %{{.*}} : f64
func.func @f(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.tanh %0 : f32
  return %1 : f32
}
func.func @g(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}
