// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file -verify-diagnostics --mlir-print-local-scope | FileCheck %s

// Constant pads become tensor.pad. Reflect, edge and wrap pads become an
// indexed generic that maps each result index back into the input
// (mirroring without repeating the edge, repeating it, or modulo n), keeps
// the index in [0, n) and reads with tensor.extract.

// CHECK-LABEL: func.func @constant(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK:         %[[R:.+]] = tensor.pad %[[X]] low[0, 1] high[0, 2] {
// CHECK-NEXT:    ^bb0(%{{.+}}: index, %{{.+}}: index):
// CHECK-NEXT:      tensor.yield %[[V]] : f32
// CHECK-NEXT:    } : tensor<4x8xf32> to tensor<4x11xf32>
// CHECK:         return %[[R]]
func.func @constant(%x: tensor<4x8xf32>) -> tensor<4x11xf32> {
  %y = nn.pad %x low = [0, 1] high = [0, 2] value = 1.5 : f32 : tensor<4x8xf32> -> tensor<4x11xf32>
  return %y : tensor<4x11xf32>
}

// -----

// Without a value the pad is zero of the element type.
// CHECK-LABEL: func.func @constant_default(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xi32>)
// CHECK:         %[[Z:.+]] = arith.constant 0 : i32
// CHECK:         tensor.pad %[[X]] low[1, 0] high[0, 0] {
// CHECK:           tensor.yield %[[Z]] : i32
// CHECK:         } : tensor<4x8xi32> to tensor<5x8xi32>
func.func @constant_default(%x: tensor<4x8xi32>) -> tensor<5x8xi32> {
  %y = nn.pad %x low = [1, 0] high = [0, 0] : tensor<4x8xi32> -> tensor<5x8xi32>
  return %y : tensor<5x8xi32>
}

// -----

// Reflect: i = idx - low; i < 0 reads -i; i > n - 1 reads 2 (n - 1) - i.
// Dimension 0 has no padding, dimension 1 has n = 8 and low = 1.
// CHECK-LABEL: func.func @reflect(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[INIT:.+]] = tensor.empty() : tensor<4x10xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      outs(%[[INIT]] : tensor<4x10xf32>)
// CHECK-NEXT:    ^bb0(%{{.+}}: f32):
// CHECK-NEXT:      %[[I0:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I1:.+]] = linalg.index 1 : index
// CHECK:           %[[ROW:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LAST:.+]] = arith.constant 7 : index
// CHECK-NEXT:      %[[LOW:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[I:.+]] = arith.subi %[[I1]], %[[LOW]] : index
// CHECK-NEXT:      %[[NI:.+]] = arith.subi %[[ZERO]], %[[I]] : index
// CHECK-NEXT:      %[[BEFORE:.+]] = arith.cmpi slt, %[[I]], %[[ZERO]] : index
// CHECK-NEXT:      %[[A:.+]] = arith.select %[[BEFORE]], %[[NI]], %[[I]] : index
// CHECK-NEXT:      %[[TWICE:.+]] = arith.constant 14 : index
// CHECK-NEXT:      %[[MA:.+]] = arith.subi %[[TWICE]], %[[A]] : index
// CHECK-NEXT:      %[[AFTER:.+]] = arith.cmpi sgt, %[[A]], %[[LAST]] : index
// CHECK-NEXT:      %[[B:.+]] = arith.select %[[AFTER]], %[[MA]], %[[A]] : index
// CHECK-NEXT:      %[[C:.+]] = arith.maxsi %[[B]], %[[ZERO]] : index
// CHECK-NEXT:      %[[COL:.+]] = arith.minsi %[[C]], %[[LAST]] : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<4x8xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @reflect(%x: tensor<4x8xf32>) -> tensor<4x10xf32> {
  %z = nn.pad %x low = [0, 1] high = [0, 1] mode = reflect : tensor<4x8xf32> -> tensor<4x10xf32>
  return %z : tensor<4x10xf32>
}

// -----

// Reflect with the largest pads allowed (pad < n) on both dimensions.
// CHECK-LABEL: func.func @reflect_2d(
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.+}} : tensor<7x6xf32>)
// CHECK:           %[[LAST0:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[LOW0:.+]] = arith.constant 2 : index
// CHECK-NEXT:      arith.subi %{{.+}}, %[[LOW0]] : index
// CHECK:           %[[TWICE0:.+]] = arith.constant 4 : index
// CHECK:           %[[LAST1:.+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[LOW1:.+]] = arith.constant 1 : index
// CHECK-NEXT:      arith.subi %{{.+}}, %[[LOW1]] : index
// CHECK:           %[[TWICE1:.+]] = arith.constant 6 : index
// CHECK:           tensor.extract %{{.+}} : tensor<3x4xf32>
func.func @reflect_2d(%x: tensor<3x4xf32>) -> tensor<7x6xf32> {
  %z = nn.pad %x low = [2, 1] high = [2, 1] mode = reflect : tensor<3x4xf32> -> tensor<7x6xf32>
  return %z : tensor<7x6xf32>
}

// -----

// Edge: clamp idx - low into [0, n - 1].
// CHECK-LABEL: func.func @edge(
// CHECK-SAME:    %[[X:.+]]: tensor<3xi64>)
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      outs(%{{.+}} : tensor<7xi64>)
// CHECK-NEXT:    ^bb0(%{{.+}}: i64):
// CHECK-NEXT:      %[[IDX:.+]] = linalg.index 0 : index
// CHECK:           %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[LAST:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[LOW:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[I:.+]] = arith.subi %[[IDX]], %[[LOW]] : index
// CHECK-NEXT:      %[[A:.+]] = arith.maxsi %[[I]], %[[ZERO]] : index
// CHECK-NEXT:      %[[B:.+]] = arith.minsi %[[A]], %[[LAST]] : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[X]][%[[B]]] : tensor<3xi64>
// CHECK-NEXT:      linalg.yield %[[V]] : i64
// CHECK:         return %[[R]]
// CHECK-NOT:     arith.cmpi sgt
func.func @edge(%x: tensor<3xi64>) -> tensor<7xi64> {
  %z = nn.pad %x low = [2] high = [2] mode = edge : tensor<3xi64> -> tensor<7xi64>
  return %z : tensor<7xi64>
}

// -----

// Wrap: (idx - low) mod n, computed as (idx + shift) mod n with shift the
// multiple of n above low, minus low: here ceil(5 / 3) * 3 - 5 = 1. Pads
// may exceed n. The unpadded dimension 0 reads its index as is.
// CHECK-LABEL: func.func @wrap(
// CHECK-SAME:    %[[X:.+]]: tensor<4x3xf32>)
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      outs(%{{.+}} : tensor<4x10xf32>)
// CHECK-NEXT:    ^bb0(%{{.+}}: f32):
// CHECK-NEXT:      %[[I0:.+]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I1:.+]] = linalg.index 1 : index
// CHECK-NEXT:      %[[SHIFT:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[I:.+]] = arith.addi %[[I1]], %[[SHIFT]] : index
// CHECK-NEXT:      %[[N:.+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[COL:.+]] = arith.remui %[[I]], %[[N]] : index
// CHECK-NEXT:      %[[V:.+]] = tensor.extract %[[X]][%[[I0]], %[[COL]]] : tensor<4x3xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         return %[[R]]
func.func @wrap(%x: tensor<4x3xf32>) -> tensor<4x10xf32> {
  %z = nn.pad %x low = [0, 5] high = [0, 2] mode = wrap : tensor<4x3xf32> -> tensor<4x10xf32>
  return %z : tensor<4x10xf32>
}

// -----

// Negative pads (crops) are not nn.pad: the op rejects them, and the ONNX
// importer emits nn.slice then nn.pad instead, which lowers to
// extract_slice then tensor.pad.
// CHECK-LABEL: func.func @crop_then_pad(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[X]][0, 2] [4, 5] [1, 1] : tensor<4x8xf32> to tensor<4x5xf32>
// CHECK:         %[[R:.+]] = tensor.pad %[[S]] low[1, 0] high[1, 0]
// CHECK:         } : tensor<4x5xf32> to tensor<6x5xf32>
// CHECK:         return %[[R]]
func.func @crop_then_pad(%x: tensor<4x8xf32>) -> tensor<6x5xf32> {
  %c = nn.slice %x offsets = [0, 2] sizes = [4, 5] strides = [1, 1] : tensor<4x8xf32> -> tensor<4x5xf32>
  %y = nn.pad %c low = [1, 0] high = [1, 0] value = 0.0 : f32 : tensor<4x5xf32> -> tensor<6x5xf32>
  return %y : tensor<6x5xf32>
}

// -----

func.func @negative_pad(%x: tensor<4x8xf32>) -> tensor<6x5xf32> {
  // expected-error @+2 {{padding of dimension 1 is negative (use nn.slice to crop)}}
  // expected-error @+1 {{'nn.pad' op failed to infer returned types}}
  %y = nn.pad %x low = [1, -2] high = [1, -1] value = 0.0 : f32 : tensor<4x8xf32> -> tensor<6x5xf32>
  return %y : tensor<6x5xf32>
}
