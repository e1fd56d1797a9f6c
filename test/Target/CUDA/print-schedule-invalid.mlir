// RUN: loom-opt %s --loom-cuda-print-schedule -split-input-file -verify-diagnostics
// RUN: not loom-opt %s --loom-cuda-print-schedule=entry=nothing -split-input-file 2>&1 | FileCheck %s --check-prefix=ENTRY

// ENTRY: -loom-cuda-print-schedule: no function @nothing

// expected-error@+1 {{the cuda target cannot store 'complex<f32>' in device memory}}
func.func @main(%a: memref<4xcomplex<f32>>) {
  return
}

// -----

// expected-error@+1 {{a buffer of 2305843009213693952 elements of 4 bytes is too large}}
func.func @main(%a: memref<2305843009213693952xf32>) {
  return
}

// -----

func.func @main(%a: memref<4xf32>) {
  %c = arith.constant 4 : index
  // expected-error@+1 {{the cuda target needs static allocations}}
  %b = memref.alloc(%c) : memref<?xf32>
  return
}

// -----

memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @main(%a: memref<4xf32>) {
  // expected-error@+1 {{the cuda target needs 'state' to be a constant with a value}}
  %s = memref.get_global @state : memref<4xf32>
  return
}

// -----

func.func @main(%a: memref<8xf32>, %b: memref<4xf32>) {
  %i = arith.constant 2 : index
  %v = memref.subview %a[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  // expected-error@+1 {{the cuda target needs static shapes and layouts, not 'memref<4xf32, strided<[1], offset: ?>>'}}
  memref.copy %v, %b : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error@+1 {{the cuda target cannot run this op on the host}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

func.func @main(%a: memref<4xf32>) {
  cf.br ^next
^next:
  return
}
// expected-error@-5 {{the cuda target needs a straight-line entry}}

// -----

module attributes {gpu.container_module} {
  func.func @main(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %bad = arith.constant -1 : index
    // expected-error@+1 {{the cuda target needs constant launch sizes}}
    gpu.launch_func @k::@f blocks in (%bad, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @f(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @main(%a: memref<4xf16>) {
    %c1 = arith.constant 1 : index
    %h = arith.constant 1.5 : f16
    // expected-error@+1 {{the cuda target cannot pass a kernel argument of type 'f16'}}
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf16>, %h : f16)
    return
  }
  gpu.module @k {
    gpu.func @f(%a: memref<4xf16>, %h: f16) kernel {
      gpu.return
    }
  }
}

// -----

func.func private @loom_coll_all_reduce(index)
func.func @main(%a: memref<4xf32>) {
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  // expected-error@+1 {{a call of @loom_coll_all_reduce that is not a collective (source, destination, sizes)}}
  call @loom_coll_all_reduce(%p) : (index) -> ()
  return
}

// -----

func.func private @loom_coll_all_reduce(index, index, i64, i32, i32, i32)
func.func @main(%a: memref<4xf32>) {
  %p = arith.constant 0 : index
  %n = arith.constant 4 : i64
  %z = arith.constant 0 : i32
  // expected-error@+1 {{the cuda target needs the collective's buffers as memref.extract_aligned_pointer_as_index}}
  call @loom_coll_all_reduce(%p, %p, %n, %z, %z, %z) : (index, index, i64, i32, i32, i32) -> ()
  return
}

// -----

// Three live buffers of 2^62 bytes need more than 2^63.
module attributes {gpu.container_module} {
  func.func @main(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %x = memref.alloc() : memref<1152921504606846976xf32>
    %y = memref.alloc() : memref<1152921504606846976xf32>
    %z = memref.alloc() : memref<1152921504606846976xf32>
    gpu.launch_func @k::@f blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<1152921504606846976xf32>, %y : memref<1152921504606846976xf32>, %z : memref<1152921504606846976xf32>)
    return
  }
  // expected-error@-8 {{the program's buffers do not fit a 2^63-byte arena}}
  gpu.module @k {
    gpu.func @f(%x: memref<1152921504606846976xf32>, %y: memref<1152921504606846976xf32>, %z: memref<1152921504606846976xf32>) kernel {
      gpu.return
    }
  }
}
