// RUN: loom-opt %s --loom-cuda-print-schedule | FileCheck %s

// The host schedule of a tensor-parallel MLP layer as -loom-cuda-lowering
// leaves it: GEMMs for cuBLASLt (the zero fill before each folds into
// beta = 0), kernel launches, a collective, a global constant; the arena
// reuses the first temporary's range once it is dead.

module attributes {gpu.container_module} {
  memref.global "private" constant @scale : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

  func.func @main(%arg0: memref<16x16xf32>, %arg1: memref<16xf32>, %arg2: memref<16x10xf32>, %arg3: memref<10xf32>, %arg4: memref<8x16xf32>, %arg5: memref<8x10xf32>) {
    %c0_i32 = arith.constant 0 : i32
    %c3_i32 = arith.constant 3 : i32
    %c80_i64 = arith.constant 80 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    %c128 = arith.constant 128 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_0 : memref<8x16xf32>)
    linalg.matmul_transpose_b ins(%arg4, %arg0 : memref<8x16xf32>, memref<16x16xf32>) outs(%alloc_0 : memref<8x16xf32>)
    gpu.launch_func @loom_kernels::@k0_generic blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%alloc_0 : memref<8x16xf32>, %arg1 : memref<16xf32>, %alloc : memref<8x16xf32>)
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<8x10xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<8x10xf32>)
    linalg.matmul ins(%alloc, %arg2 : memref<8x16xf32>, memref<16x10xf32>) outs(%alloc_2 : memref<8x10xf32>)
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x10xf32>
    %intptr = memref.extract_aligned_pointer_as_index %alloc_2 : memref<8x10xf32> -> index
    %intptr_4 = memref.extract_aligned_pointer_as_index %alloc_3 : memref<8x10xf32> -> index
    call @loom_coll_all_reduce(%intptr, %intptr_4, %c80_i64, %c3_i32, %c0_i32, %c0_i32) : (index, index, i64, i32, i32, i32) -> ()
    %scale = memref.get_global @scale : memref<4xf32>
    %row = memref.subview %alloc_3[2, 0] [1, 10] [1, 1] : memref<8x10xf32> to memref<10xf32, strided<[1], offset: 20>>
    %f = arith.constant 2.5 : f32
    gpu.launch_func @loom_kernels::@k1_generic blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) args(%alloc_3 : memref<8x10xf32>, %arg3 : memref<10xf32>, %arg5 : memref<8x10xf32>, %row : memref<10xf32, strided<[1], offset: 20>>, %scale : memref<4xf32>, %f : f32, %c3_i32 : i32)
    memref.copy %arg5, %alloc_3 : memref<8x10xf32> to memref<8x10xf32>
    return
  }
  func.func private @loom_coll_all_reduce(index, index, i64, i32, i32, i32)
  gpu.module @loom_kernels [#nvvm.target<chip = "sm_80">, #nvvm.target<chip = "sm_90">] {
    gpu.func @k0_generic(%a: memref<8x16xf32>, %b: memref<16xf32>, %c: memref<8x16xf32>) kernel {
      gpu.return
    }
    gpu.func @k1_generic(%a: memref<8x10xf32>, %b: memref<10xf32>, %c: memref<8x10xf32>, %d: memref<10xf32, strided<[1], offset: 20>>, %e: memref<4xf32>, %f: f32, %g: i32) kernel {
      gpu.return
    }
  }
}

// CHECK:      "format": "loom-cuda-program",
// CHECK-NEXT: "version": 1,
// CHECK-NEXT: "ptx": {"chip":"sm_80","file":"kernels.ptx"},
// CHECK-NEXT: "cubins": [{"chip":"sm_80","file":"kernels.sm_80.cubin"},{"chip":"sm_90","file":"kernels.sm_90.cubin"}],
// CHECK-NEXT: "constants": "constants.bin",
// CHECK-NEXT: "constants_bytes": 16,
// CHECK-NEXT: "arena_bytes": 1024,
// CHECK-NEXT: "kernels": [
// CHECK-NEXT:   "k0_generic",
// CHECK-NEXT:   "k1_generic"
// CHECK-NEXT: ],

// Arguments 0-5, then %alloc (6), %alloc_0 (7), %alloc_2 (8), %alloc_3 (9)
// and the constant (10). %alloc_0 dies after the first launch, so %alloc_2
// takes its range.
// CHECK-NEXT: "buffers": [
// CHECK-NEXT:   {"bytes":1024,"index":0,"space":"arg"},
// CHECK-NEXT:   {"bytes":64,"index":1,"space":"arg"},
// CHECK-NEXT:   {"bytes":640,"index":2,"space":"arg"},
// CHECK-NEXT:   {"bytes":40,"index":3,"space":"arg"},
// CHECK-NEXT:   {"bytes":512,"index":4,"space":"arg"},
// CHECK-NEXT:   {"bytes":320,"index":5,"space":"arg"},
// CHECK-NEXT:   {"bytes":512,"live":[1,2],"offset":[[ALLOC:[0-9]+]],"space":"arena"},
// CHECK-NEXT:   {"bytes":512,"live":[0,1],"offset":[[ALLOC0:[0-9]+]],"space":"arena"},
// CHECK-NEXT:   {"bytes":320,"live":[2,3],"offset":[[ALLOC0]],"space":"arena"},
// CHECK-NEXT:   {"bytes":320,"live":[3,5],"offset":{{[0-9]+}},"space":"arena"},
// CHECK-NEXT:   {"bytes":16,"offset":0,"space":"const"}
// CHECK-NEXT: ],

// CHECK-NEXT: "instructions": [
// CHECK-NEXT:   {"a":{"cols":16,"ld":16,"order":"row","ref":[4,0],"rows":8,"stride":0},"b":{"cols":16,"ld":16,"order":"col","ref":[0,0],"rows":16,"stride":0},"batch":1,"beta":0,"c":{"cols":16,"ld":16,"order":"row","ref":[7,0],"rows":8,"stride":0},"k":16,"m":8,"n":16,"op":"gemm","type_ab":"f32","type_c":"f32"},
// CHECK-NEXT:   {"args":[{"elem":4,"memref":[7,0],"offset":0,"sizes":[8,16],"strides":[16,1]},{"elem":4,"memref":[1,0],"offset":0,"sizes":[16],"strides":[1]},{"elem":4,"memref":[6,0],"offset":0,"sizes":[8,16],"strides":[16,1]}],"block":[128,1,1],"grid":[1,1,1],"kernel":0,"op":"launch","shared":0},
// CHECK-NEXT:   {"a":{{.*}}"ref":[6,0]{{.*}}"b":{{.*}}"ref":[2,0]{{.*}}"beta":0,"c":{{.*}}"ref":[8,0]{{.*}}"op":"gemm"
// CHECK-NEXT:   {"dst":[9,0],"dst_bytes":320,"ints":[80,3,0,0],"kind":"all_reduce","op":"collective","src":[8,0],"src_bytes":320},
// CHECK-NEXT:   {"args":[{"elem":4,"memref":[9,0],{{.*}}},{"elem":4,"memref":[3,0],{{.*}}},{"elem":4,"memref":[5,0],{{.*}}},{"elem":4,"memref":[9,0],"offset":20,"sizes":[10],"strides":[1]},{"elem":4,"memref":[10,0],"offset":0,"sizes":[4],"strides":[1]},{"f32":2.5},{"i32":3}],"block":[96,1,1],"grid":[1,1,1],"kernel":1,"op":"launch","shared":0},
// CHECK-NEXT:   {"bytes":320,"dst":[9,0],"op":"copy","src":[5,0]}
// CHECK-NEXT: ]
// CHECK-NEXT: }
