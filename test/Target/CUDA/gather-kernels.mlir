// RUN: loom-opt %s --loom-cuda-gather-kernels=chips=sm_90,sm_80 -split-input-file | FileCheck %s
// RUN: loom-opt %s --loom-cuda-gather-kernels -split-input-file | FileCheck %s --check-prefix=DEFAULT

// The kernels of gpu-kernel-outlining's modules go into one module for the
// chips, named in launch order after what they compute.
// CHECK-LABEL: func.func @main
// CHECK:         gpu.launch_func @loom_kernels::@k0_exp
// CHECK:         gpu.launch_func @loom_kernels::@k1_serial
// CHECK:         gpu.launch_func @loom_kernels::@k0_exp
// CHECK-NOT:   gpu.module @main_kernel
// CHECK:       gpu.module @loom_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, #nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// CHECK:         gpu.func @k0_exp
// CHECK:         gpu.func @k1_serial
// CHECK-NOT:   gpu.module
// DEFAULT:     gpu.module @loom_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, #nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
module attributes {gpu.container_module} {
  func.func @main(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @main_kernel_0::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @main_kernel {
    gpu.func @main_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    } loc("exp")
  }
  gpu.module @main_kernel_0 {
    gpu.func @main_kernel(%a: memref<4xf32>) kernel {
      gpu.return
    } loc("serial")
  }
}
