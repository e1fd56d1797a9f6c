// Zero-size tensors go through folding, sharding rules and costs without
// crashing or producing negative counts.
// RUN: loom-opt %s -nn-print-sharding-rules -nn-print-cost -o /dev/null 2>&1 | FileCheck %s
// RUN: loom-opt %s -canonicalize | FileCheck %s --check-prefix=FOLD
// CHECK-NOT: error
// CHECK: total: 0 FLOPs (f32: 0, i64: 0), 0 transcendentals, 12 B read, 20 B written, 1 op(s) not priced
// FOLD-LABEL: func.func @edge
// FOLD-NEXT: return
func.func @edge(%x: tensor<0x4xf32>, %d: tensor<?x4xf32>) {
  %e = nn.constant dense<> : tensor<0x4xf32>
  %t = nn.transpose %e [1, 0] : tensor<0x4xf32> -> tensor<4x0xf32>
  %r = nn.reshape %e [4, 0] : tensor<0x4xf32> -> tensor<4x0xf32>
  %a = nn.add %e, %e : tensor<0x4xf32>, tensor<0x4xf32>
  %s = nn.softmax %x axis = 0 : tensor<0x4xf32>
  %n = nn.exp %e : tensor<0x4xf32>
  %i = nn.constant dense<-1> : tensor<i64>
  %g = nn.gather %e[%i] axis = 1 : tensor<0x4xf32>, tensor<i64> -> tensor<0xf32>
  %c = nn.concat %e, %e axis = 0 : tensor<0x4xf32>, tensor<0x4xf32> -> tensor<0x4xf32>
  %sl = nn.slice %e offsets = [0, 0] sizes = [0, 2] strides = [1, 2] : tensor<0x4xf32> -> tensor<0x2xf32>
  %b = nn.broadcast_to %e [2, 0, 4] : tensor<0x4xf32> -> tensor<2x0x4xf32>
  %rs = nn.reduce_sum %e axes = [0] : tensor<0x4xf32> -> tensor<4xf32>
  %ln = nn.layer_norm %x axis = 1 : tensor<0x4xf32>
  %ce = nn.constant dense<[]> : tensor<0xi64>
  %rd = nn.reshape %d [8] : tensor<?x4xf32> -> tensor<8xf32>
  %tr = nn.trilu %e upper k = 100 : tensor<0x4xf32>
  %ca = nn.cast %e : tensor<0x4xf32> to i1
  %ce2 = nn.constant dense<> : tensor<0x4xi1>
  %w = nn.where %ce2, %e, %e : tensor<0x4xi1>, tensor<0x4xf32>, tensor<0x4xf32>
  %rng = nn.range 0 to -5 step 1 -> tensor<0xi64>
  %img = nn.constant dense<1.0> : tensor<1x1x1x1xf32>
  %mp = nn.max_pool %img {kernel = array<i64: 1, 1>} : tensor<1x1x1x1xf32> -> tensor<1x1x1x1xf32>
  return
}
