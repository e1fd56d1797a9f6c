// RUN: loom-opt %s -nn-legalize-storage-types -split-input-file | FileCheck %s
// The output verifies and parses again: a marked cast infers its storage
// result type.
// RUN: loom-opt %s -nn-legalize-storage-types -split-input-file | loom-opt -split-input-file | FileCheck %s

// Unsigned integers become signless ones of the same width, in the
// signature too; ops whose result depends on the sign are marked.
// CHECK-LABEL: func.func @unsigned(
// CHECK-SAME:    %[[A:.+]]: tensor<4xi8>, %[[B:.+]]: tensor<4xi8>) -> (tensor<4xi1>, tensor<4xi8>, tensor<4xf32>, tensor<4xi8>)
// CHECK:         %[[LT:.+]] = nn.compare lt, %[[A]], %[[B]] {nn.unsigned} : tensor<4xi8>, tensor<4xi8>
// CHECK:         %[[D:.+]] = nn.div %[[A]], %[[B]] {nn.unsigned} : tensor<4xi8>, tensor<4xi8>
// CHECK:         %[[F:.+]] = nn.cast %[[A]] {nn.cast_from = ui8} : tensor<4xi8> to f32
// CHECK:         %[[U:.+]] = nn.cast %[[F]] {nn.cast_from = f32} : tensor<4xf32> to ui8
// CHECK:         return %[[LT]], %[[D]], %[[F]], %[[U]] : tensor<4xi1>, tensor<4xi8>, tensor<4xf32>, tensor<4xi8>
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xi1>, tensor<4xui8>, tensor<4xf32>, tensor<4xui8>) {
  %lt = nn.compare lt, %a, %b : tensor<4xui8>, tensor<4xui8>
  %d = nn.div %a, %b : tensor<4xui8>, tensor<4xui8>
  %f = nn.cast %a : tensor<4xui8> to f32
  %u = nn.cast %f : tensor<4xf32> to ui8
  return %lt, %d, %f, %u : tensor<4xi1>, tensor<4xui8>, tensor<4xf32>, tensor<4xui8>
}

// -----

// 8-bit floats are stored as their bits in i8; the data-movement ops move
// the bytes.
// CHECK-LABEL: func.func @float8(
// CHECK-SAME:    %[[X:.+]]: tensor<2x2xf32>) -> (tensor<4xi8>, tensor<2xi8>)
// CHECK:         %[[Q:.+]] = nn.cast %[[X]] {nn.cast_from = f32} : tensor<2x2xf32> to f8E4M3FN
// CHECK:         %[[R:.+]] = nn.reshape %[[Q]] [4] : tensor<2x2xi8> -> tensor<4xi8>
// CHECK:         %[[C:.+]] = nn.constant dense<[60, -64]> : tensor<2xi8>
// CHECK:         return %[[R]], %[[C]]
func.func @float8(%x: tensor<2x2xf32>) -> (tensor<4xf8E4M3FN>, tensor<2xf8E5M2>) {
  %q = nn.cast %x : tensor<2x2xf32> to f8E4M3FN
  %r = nn.reshape %q [4] : tensor<2x2xf8E4M3FN> -> tensor<4xf8E4M3FN>
  %c = nn.constant dense<[1.0, -2.0]> : tensor<2xf8E5M2>
  return %r, %c : tensor<4xf8E4M3FN>, tensor<2xf8E5M2>
}

// -----

// 4-bit integers are stored as their value in i8, sign- or zero-extended.
// CHECK-LABEL: func.func @int4(
// CHECK-SAME:    %[[X:.+]]: tensor<4xi8>, %[[U:.+]]: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xf32>, tensor<2xi8>, tensor<2xi8>)
// CHECK:         nn.cast %[[X]] {nn.cast_from = i8} : tensor<4xi8> to i4
// CHECK:         nn.cast %[[U]] {nn.cast_from = ui4} : tensor<4xi8> to f32
// CHECK:         nn.constant dense<[-8, 7]> : tensor<2xi8>
// CHECK:         nn.constant dense<[15, 1]> : tensor<2xi8>
func.func @int4(%x: tensor<4xi8>, %u: tensor<4xui4>) -> (tensor<4xi4>, tensor<4xf32>, tensor<2xi4>, tensor<2xui4>) {
  %a = nn.cast %x : tensor<4xi8> to i4
  %b = nn.cast %u : tensor<4xui4> to f32
  %c = nn.constant dense<[-8, 7]> : tensor<2xi4>
  %d = nn.constant dense<[15, 1]> : tensor<2xui4>
  return %a, %b, %c, %d : tensor<4xi4>, tensor<4xf32>, tensor<2xi4>, tensor<2xui4>
}

// -----

// Calls and declarations change with their callee; other ops (here dist's)
// are rebuilt on the storage types; ops without storage types are left
// alone.
// CHECK-LABEL: func.func private @callee(tensor<4xi16>) -> tensor<4xi16>
// CHECK-LABEL: func.func @caller(
// CHECK-SAME:    %[[X:.+]]: tensor<4xi16>, %[[Y:.+]]: tensor<4xf32>) -> (tensor<4xi16>, tensor<4xf32>)
// CHECK:         %[[R:.+]] = call @callee(%[[X]]) : (tensor<4xi16>) -> tensor<4xi16>
// CHECK:         %[[M:.+]] = nn.max %[[R]], %[[X]] {nn.unsigned} : tensor<4xi16>, tensor<4xi16>
// CHECK:         %[[S:.+]] = dist.all_reduce sum %[[M]] over @m ["tp"] : tensor<4xi16>
// CHECK:         %[[E:.+]] = nn.exp %[[Y]] : tensor<4xf32>
// CHECK:         return %[[S]], %[[E]] : tensor<4xi16>, tensor<4xf32>
dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func private @callee(tensor<4xui16>) -> tensor<4xui16>
func.func @caller(%x: tensor<4xui16>, %y: tensor<4xf32>) -> (tensor<4xui16>, tensor<4xf32>) {
  %r = func.call @callee(%x) : (tensor<4xui16>) -> tensor<4xui16>
  %m = nn.max %r, %x : tensor<4xui16>, tensor<4xui16>
  %s = dist.all_reduce sum %m over @m ["tp"] : tensor<4xui16>
  %e = nn.exp %y : tensor<4xf32>
  return %s, %e : tensor<4xui16>, tensor<4xf32>
}

// -----

// Running it again changes nothing: a marked cast keeps its source type.
// CHECK-LABEL: func.func @legalized(
// CHECK:         nn.cast %{{.+}} {nn.cast_from = ui8} : tensor<4xi8> to f8E4M3FN
func.func @legalized(%a: tensor<4xi8>) -> tensor<4xi8> {
  %q = nn.cast %a {nn.cast_from = ui8} : tensor<4xi8> to f8E4M3FN
  return %q : tensor<4xi8>
}

// -----

// An 8-bit resource keeps its blob and changes only its type.
// CHECK-LABEL: func.func @ui8_resource() -> tensor<2xi8>
// CHECK:         nn.constant dense_resource<bytes> : tensor<2xi8>
func.func @ui8_resource() -> tensor<2xui8> {
  %c = nn.constant dense_resource<bytes> : tensor<2xui8>
  return %c : tensor<2xui8>
}

{-#
  dialect_resources: {
    builtin: {
      bytes: "0x0400000001FF"
    }
  }
#-}
