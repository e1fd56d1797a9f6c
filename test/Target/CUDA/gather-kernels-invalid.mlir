// RUN: loom-opt %s --loom-cuda-gather-kernels -split-input-file -verify-diagnostics
// RUN: not loom-opt %s --loom-cuda-gather-kernels=chips=sm_100 -split-input-file 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: error: unknown CUDA chip 'sm_100' (known: sm_60, sm_61, sm_62, sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a); newer GPUs run the PTX of sm_90 through the driver's JIT, so list sm_90

module attributes {gpu.container_module} {
  func.func @main(%a: memref<4xf32>) {
    return
  }
  // expected-error@+1 {{a kernel that no gpu.launch_func launches}}
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
