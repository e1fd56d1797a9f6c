// RUN: loom-opt %s -convert-nn-to-linalg -split-input-file --mlir-print-local-scope | FileCheck %s

// nn.max_pool_with_indices is one linalg.generic over (n, c, outputs...,
// window...) that carries the best value and its row-major position in the
// input plane. A candidate wins with a greater value (NaN the greatest) or
// an equal value at an earlier position (ult, so that the initial -1 is
// the latest); padded positions are no candidates.

// CHECK-LABEL: func.func @padded(
// CHECK-SAME:    %[[X:.+]]: tensor<2x3x5x5xf32>)
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 0, 1]
// CHECK:           tensor.yield %[[NEGINF]] : f32
// CHECK:         } : tensor<2x3x5x5xf32> to tensor<2x3x6x6xf32>
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         %[[VALS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x3x3x3xf32>)
// CHECK:         %[[NONE:.+]] = arith.constant -1 : i64
// CHECK:         %[[IDXS:.+]] = linalg.fill ins(%[[NONE]] : i64) outs(%{{.+}} : tensor<2x3x3x3xi64>)
// CHECK:         %[[R:.+]]:2 = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>,
// CHECK-SAME:                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>,
// CHECK-SAME:                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>,
// CHECK-SAME:                       affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[P]], %[[WIN]] : tensor<2x3x6x6xf32>, tensor<2x2xf32>) outs(%[[VALS]], %[[IDXS]] : tensor<2x3x3x3xf32>, tensor<2x3x3x3xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32, %[[BEST:.+]]: f32, %[[AT:.+]]: i64):
// Row h = oh * 2 + kh - 1 is padding above the input (h < 0) ...
// CHECK:           %[[H:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// CHECK:           %[[HIN:.+]] = arith.cmpi sge, %[[H]], %{{.+}} : index
// ... column w = ow * 2 + kw is padding right of it (w >= 5).
// CHECK:           %[[W:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK:           %[[FIVE:.+]] = arith.constant 5 : index
// CHECK:           %[[WOK:.+]] = arith.cmpi slt, %[[W]], %[[FIVE]] : index
// CHECK:           %[[INSIDE:.+]] = arith.andi %[[HIN]], %[[WOK]] : i1
// CHECK:           %[[ROW:.+]] = arith.muli %[[H]], %{{.+}} : index
// CHECK:           %[[POSI:.+]] = arith.addi %[[ROW]], %[[W]] : index
// CHECK:           %[[POS:.+]] = arith.index_cast %[[POSI]] : index to i64
// CHECK:           %[[GT:.+]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK:           %[[GREATER:.+]] = arith.ori %[[GT]], %{{.+}} : i1
// CHECK:           %[[EQ:.+]] = arith.cmpf oeq, %[[IN]], %[[BEST]] : f32
// CHECK:           %[[EQUAL:.+]] = arith.ori %[[EQ]], %{{.+}} : i1
// CHECK:           %[[EARLIER:.+]] = arith.cmpi ult, %[[POS]], %[[AT]] : i64
// CHECK:           %[[TIE:.+]] = arith.andi %[[EQUAL]], %[[EARLIER]] : i1
// CHECK:           %[[BETTER:.+]] = arith.ori %[[GREATER]], %[[TIE]] : i1
// CHECK:           %[[TAKE:.+]] = arith.andi %[[INSIDE]], %[[BETTER]] : i1
// CHECK:           %[[V:.+]] = arith.select %[[TAKE]], %[[IN]], %[[BEST]] : f32
// CHECK:           %[[I:.+]] = arith.select %[[TAKE]], %[[POS]], %[[AT]] : i64
// CHECK:           linalg.yield %[[V]], %[[I]] : f32, i64
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @padded(%x: tensor<2x3x5x5xf32>) -> (tensor<2x3x3x3xf32>, tensor<2x3x3x3xi64>) {
  %y, %i = nn.max_pool_with_indices %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>} : tensor<2x3x5x5xf32> -> tensor<2x3x3x3xf32>, tensor<2x3x3x3xi64>
  return %y, %i : tensor<2x3x3x3xf32>, tensor<2x3x3x3xi64>
}

// -----

// Without padding every position is a candidate. Unsigned integers compare
// unsigned and start from 0. Column-major indices are renumbered from the
// row-major ones: h * 4 + w becomes w * 4 + h; -1 stays -1.
// CHECK-LABEL: func.func @column_major_u8(
// CHECK-SAME:    %[[X:.+]]: tensor<1x2x4x4xi8>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK:         linalg.fill ins(%[[ZERO]] : i8)
// CHECK:         %[[R:.+]]:2 = linalg.generic
// CHECK-SAME:      ins(%[[X]], %{{.+}} : tensor<1x2x4x4xi8>, tensor<2x2xi8>)
// CHECK-NOT:       arith.cmpi s
// CHECK:           arith.cmpi ugt, %{{.+}}, %{{.+}} : i8
// CHECK:           arith.cmpi eq, %{{.+}}, %{{.+}} : i8
// CHECK:           linalg.yield
// CHECK:         %[[COL:.+]] = linalg.generic
// CHECK-SAME:      ins(%[[R]]#1 : tensor<1x2x2x2xi64>)
// CHECK-NEXT:    ^bb0(%[[ROWMAJOR:.+]]: i64, %{{.+}}: i64):
// CHECK-NEXT:      %[[FOUR:.+]] = arith.constant 4 : i64
// CHECK-NEXT:      %[[W:.+]] = arith.remsi %[[ROWMAJOR]], %[[FOUR]] : i64
// CHECK-NEXT:      %[[H:.+]] = arith.divsi %[[ROWMAJOR]], %[[FOUR]] : i64
// CHECK-NEXT:      %[[FOUR2:.+]] = arith.constant 4 : i64
// CHECK-NEXT:      %[[WH:.+]] = arith.muli %[[W]], %[[FOUR2]] : i64
// CHECK-NEXT:      %[[C:.+]] = arith.addi %[[WH]], %[[H]] : i64
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[NONE:.+]] = arith.cmpi slt, %[[ROWMAJOR]], %[[Z]] : i64
// CHECK-NEXT:      %[[SEL:.+]] = arith.select %[[NONE]], %[[ROWMAJOR]], %[[C]] : i64
// CHECK-NEXT:      linalg.yield %[[SEL]] : i64
// CHECK:         return %[[R]]#0, %[[COL]]
func.func @column_major_u8(%x: tensor<1x2x4x4xui8>) -> (tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>) {
  %y, %i = nn.max_pool_with_indices %x order = column_major {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x2x4x4xui8> -> tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>
  return %y, %i : tensor<1x2x2x2xui8>, tensor<1x2x2x2xi64>
}

// -----

// Halves compare in f32. One spatial dimension numbers the same either way,
// so column-major needs no renumbering. The ceil_mode overhang is padding:
// position p = o * 2 + k - 1 is a candidate only inside [0, 4).
// CHECK-LABEL: func.func @bf16_ceil_1d(
// CHECK:         tensor.pad %{{.+}} low[0, 0, 1] high[0, 0, 1]
// CHECK:         %[[R:.+]]:2 = linalg.generic
// CHECK:           %[[P:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// CHECK:           arith.cmpi sge, %[[P]], %{{.+}} : index
// CHECK:           %[[FOUR:.+]] = arith.constant 4 : index
// CHECK:           arith.cmpi slt, %[[P]], %[[FOUR]] : index
// CHECK:           %[[IN:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK:           %[[BEST:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK:           arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK:           arith.select %{{.+}}, %{{.+}}, %{{.+}} : bf16
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @bf16_ceil_1d(%x: tensor<1x1x4xbf16>) -> (tensor<1x1x3xbf16>, tensor<1x1x3xi64>) {
  %y, %i = nn.max_pool_with_indices %x order = column_major {kernel = array<i64: 2>, strides = array<i64: 2>, padding = array<i64: 1, 0>, ceil_mode = true} : tensor<1x1x4xbf16> -> tensor<1x1x3xbf16>, tensor<1x1x3xi64>
  return %y, %i : tensor<1x1x3xbf16>, tensor<1x1x3xi64>
}
