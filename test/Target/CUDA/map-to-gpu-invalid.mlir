// RUN: loom-opt %s --loom-cuda-map-to-gpu -split-input-file -verify-diagnostics
// RUN: not loom-opt %s --loom-cuda-map-to-gpu=block-size=100 -split-input-file 2>&1 | FileCheck %s --check-prefix=BLOCK

// BLOCK: -loom-cuda-map-to-gpu: block-size must be a multiple of 32 from 32 to 1024, not 100

// A value a kernel computes cannot steer the host.
func.func @value_to_host(%s: memref<f32>, %c: memref<4x8xf32>) {
  // expected-error@+1 {{the cuda target cannot pass this value from device code back to the host}}
  %v = memref.load %s[] : memref<f32>
  linalg.fill ins(%v : f32) outs(%c : memref<4x8xf32>)
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @dynamic(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error@+1 {{the cuda target needs static shapes}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// More threads than a grid holds (2^31 - 1 blocks).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @too_many_threads(%a: memref<4096x1099511627776xf32>, %b: memref<4096x1099511627776xf32>) {
  // expected-error@+1 {{the cuda target cannot launch 4503599627370496 threads for one op}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4096x1099511627776xf32>) outs(%b : memref<4096x1099511627776xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
