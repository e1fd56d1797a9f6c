// RUN: loom-opt %s -convert-nn-to-linalg="check-indices" -split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file | FileCheck %s --check-prefix=DEFAULT

// With check-indices, gather and scatter_add check each index lies in
// [-extent, extent) before clamping it: a bad index prints itself, the op's
// location and the range to stderr (dprintf to fd 2) and aborts, instead of
// reading or writing a clamped row. '%' in a location is escaped. Without
// the option nothing is checked.

// DEFAULT-NOT: dprintf

// CHECK-DAG: llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32
// CHECK-DAG: llvm.func @abort()
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:loom_index_error_[0-9]+]]("loom: index %lld out of range in nn.gather at node '100%% emb' (Gather): indices into axis 0 must lie in [-1000, 999]\0A\00")
// CHECK-LABEL: func.func @gather(
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IDX:.+]]: i64, %{{.+}}: f32):
// CHECK-NEXT:      %[[LO:.+]] = arith.constant -1000 : i64
// CHECK-NEXT:      %[[HI:.+]] = arith.constant 1000 : i64
// CHECK-NEXT:      %[[BELOW:.+]] = arith.cmpi slt, %[[IDX]], %[[LO]] : i64
// CHECK-NEXT:      %[[ABOVE:.+]] = arith.cmpi sge, %[[IDX]], %[[HI]] : i64
// CHECK-NEXT:      %[[BAD:.+]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK-NEXT:      scf.if %[[BAD]] {
// CHECK-NEXT:        %[[TEXT:.+]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT:        %[[FD:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:        llvm.call @dprintf(%[[FD]], %[[TEXT]], %[[IDX]]) vararg(!llvm.func<i32 (i32, ptr, ...)>) : (i32, !llvm.ptr, i64) -> i32
// CHECK-NEXT:        llvm.call @abort() : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:      arith.index_cast %[[IDX]] : i64 to index
func.func @gather(%table: tensor<1000x64xf32>, %tok: tensor<4x16xi64>) -> tensor<4x16x64xf32> {
  %e = nn.gather %table[%tok] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32> loc("node '100% emb' (Gather)")
  return %e : tensor<4x16x64xf32>
}

// -----

// i32 indices are compared in i64.
// CHECK-LABEL: func.func @scatter_add(
// CHECK:         scf.for
// CHECK:           %[[RAW:.+]] = tensor.extract
// CHECK-NEXT:      %[[WIDE:.+]] = arith.extsi %[[RAW]] : i32 to i64
// CHECK:           scf.if
// CHECK:             llvm.call @dprintf(%{{.+}}, %{{.+}}, %[[WIDE]])
func.func @scatter_add(%u: tensor<4x8xf32>, %i: tensor<4xi32>) -> tensor<10x8xf32> {
  %0 = nn.scatter_add %u[%i] axis = 0 size = 10 : tensor<4x8xf32>, tensor<4xi32> -> tensor<10x8xf32>
  return %0 : tensor<10x8xf32>
}
