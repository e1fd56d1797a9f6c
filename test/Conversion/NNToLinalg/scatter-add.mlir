// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.scatter_add fills zeros, then a loop nest over the updates carries the
// result: the outer loops (up to the indices' last dimension) read and clamp
// the index once, as nn.gather does; the inner ones add along the trailing
// dimensions.

// The gradient of an embedding table.
// CHECK-LABEL: func.func @embedding_grad(
// CHECK-SAME:    %[[G:[^:]+]]: tensor<4x16x64xf32>, %[[TOK:[^:]+]]: tensor<4x16xi64>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<1000x64xf32>
// CHECK:         %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[INIT]] : tensor<1000x64xf32>)
// CHECK:         %[[R:.+]] = scf.for %[[I:[^ ]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A0:.+]] = %[[ZEROS]]) -> (tensor<1000x64xf32>) {
// CHECK-NEXT:      %[[R1:.+]] = scf.for %[[J:[^ ]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A1:.+]] = %[[A0]]) -> (tensor<1000x64xf32>) {
// CHECK-NEXT:        %[[IDX:.+]] = tensor.extract %[[TOK]][%[[I]], %[[J]]] : tensor<4x16xi64>
// CHECK-NEXT:        %[[X:.+]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK:             arith.constant 1000 : index
// CHECK:             arith.constant 999 : index
// CHECK-NEXT:        %[[AT:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK-NEXT:        %[[R2:.+]] = scf.for %[[K:[^ ]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A2:.+]] = %[[A1]]) -> (tensor<1000x64xf32>) {
// CHECK-NEXT:          %[[U:.+]] = tensor.extract %[[G]][%[[I]], %[[J]], %[[K]]] : tensor<4x16x64xf32>
// CHECK-NEXT:          %[[OLD:.+]] = tensor.extract %[[A2]][%[[AT]], %[[K]]] : tensor<1000x64xf32>
// CHECK-NEXT:          %[[SUM:.+]] = arith.addf %[[OLD]], %[[U]] : f32
// CHECK-NEXT:          %[[NEW:.+]] = tensor.insert %[[SUM]] into %[[A2]][%[[AT]], %[[K]]] : tensor<1000x64xf32>
// CHECK-NEXT:          scf.yield %[[NEW]]
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield %[[R2]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[R1]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @embedding_grad(%g: tensor<4x16x64xf32>, %tok: tensor<4x16xi64>) -> tensor<1000x64xf32> {
  %d = nn.scatter_add %g[%tok] axis = 0 size = 1000 : tensor<4x16x64xf32>, tensor<4x16xi64> -> tensor<1000x64xf32>
  return %d : tensor<1000x64xf32>
}

// -----

// An inner axis with a scalar i32 index and bf16 updates: the outer loop
// runs over the dimension before the axis, the inner one over the dimension
// after it; the sum is computed in f32.
// CHECK-LABEL: func.func @inner_axis(
// CHECK-SAME:    %[[U:[^:]+]]: tensor<2x3xbf16>, %[[IND:[^:]+]]: tensor<i32>)
// CHECK:         scf.for %[[I:[^ ]+]] = {{.+}} -> (tensor<2x5x3xbf16>) {
// CHECK-NEXT:      tensor.extract %[[IND]][] : tensor<i32>
// CHECK-NEXT:      arith.index_cast %{{.+}} : i32 to index
// CHECK:           %[[AT:.+]] = arith.minsi
// CHECK-NEXT:      scf.for %[[K:[^ ]+]] = {{.+}} iter_args(%[[A:.+]] = %{{.+}}) -> (tensor<2x5x3xbf16>) {
// CHECK-NEXT:        %[[V:.+]] = tensor.extract %[[U]][%[[I]], %[[K]]] : tensor<2x3xbf16>
// CHECK-NEXT:        %[[VF:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT:        %[[OLD:.+]] = tensor.extract %[[A]][%[[I]], %[[AT]], %[[K]]] : tensor<2x5x3xbf16>
// CHECK-NEXT:        %[[OLDF:.+]] = arith.extf %[[OLD]] : bf16 to f32
// CHECK-NEXT:        %[[SUM:.+]] = arith.addf %[[OLDF]], %[[VF]] : f32
// CHECK-NEXT:        %[[T:.+]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK-NEXT:        tensor.insert %[[T]] into %[[A]][%[[I]], %[[AT]], %[[K]]] : tensor<2x5x3xbf16>
func.func @inner_axis(%u: tensor<2x3xbf16>, %i: tensor<i32>) -> tensor<2x5x3xbf16> {
  %d = nn.scatter_add %u[%i] axis = 1 size = 5 : tensor<2x3xbf16>, tensor<i32> -> tensor<2x5x3xbf16>
  return %d : tensor<2x5x3xbf16>
}

// -----

// Nothing to scatter into (or nothing to scatter): just the zeros.
// CHECK-LABEL: func.func @empty(
// CHECK:         %[[Z:.+]] = linalg.fill
// CHECK-NOT:     scf.for
// CHECK:         return %[[Z]]
func.func @empty(%u: tensor<4x2xf32>, %i: tensor<4xi64>) -> tensor<0x2xf32> {
  %d = nn.scatter_add %u[%i] axis = 0 size = 0 : tensor<4x2xf32>, tensor<4xi64> -> tensor<0x2xf32>
  return %d : tensor<0x2xf32>
}
