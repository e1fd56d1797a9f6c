// RUN: loom-opt %s --loom-cuda-emulate-launches -split-input-file -verify-diagnostics

// Threads that wait for each other cannot run one after another.
func.func @barrier(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // expected-error@+1 {{-loom-cuda-emulate-launches: cannot run this kernel's synchronisation on the host}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @two_reductions(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // expected-error@+1 {{-loom-cuda-emulate-launches: cannot run this kernel's synchronisation on the host}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xf32>
    %s = gpu.all_reduce add %x uniform {} : (f32) -> (f32)
    %t = gpu.all_reduce add %s uniform {} : (f32) -> (f32)
    gpu.terminator
  }
  return
}

// -----

func.func @two_dimensions(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  // expected-error@+1 {{-loom-cuda-emulate-launches: only one-dimensional launches run on the host}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// The part before a block reduction runs in both passes of the emulation.
func.func @write_before_reduce(%a: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xf32>
    // expected-error@+1 {{-loom-cuda-emulate-launches: a write before the block reduction would run twice on the host}}
    memref.store %x, %a[%tx] : memref<32xf32>
    %s = gpu.all_reduce add %x uniform {} : (f32) -> (f32)
    gpu.terminator
  }
  return
}
