// The whole distribution pipeline on self-attention blocks, Megatron on
// 2 x 2 devices, down to the program of one device.
// RUN: rm -rf %t && split-file %s %t
// RUN: loom-opt %t/separate.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" -dist-propagate-sharding -dist-insert-reshards -dist-partition -dist-lower-reshards -dist-simplify-collectives -canonicalize \
// RUN:   | FileCheck %t/separate.mlir --implicit-check-not=dist.all_reduce --implicit-check-not=dist.all_gather --implicit-check-not=dist.reduce_scatter --implicit-check-not=dist.all_to_all --implicit-check-not=dist.reshard --implicit-check-not=dist.broadcast --implicit-check-not=dist.collective_permute --implicit-check-not=dist.annotate
// RUN: loom-opt %t/fused.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" -dist-propagate-sharding -dist-insert-reshards -dist-partition -dist-lower-reshards -dist-simplify-collectives -canonicalize \
// RUN:   | FileCheck %t/fused.mlir --implicit-check-not=dist.all_reduce --implicit-check-not=dist.all_gather --implicit-check-not=dist.reduce_scatter --implicit-check-not=dist.all_to_all --implicit-check-not=dist.reshard --implicit-check-not=dist.broadcast --implicit-check-not=dist.collective_permute --implicit-check-not=dist.annotate

//--- separate.mlir
// An attention block written in nn (Q, K, V projections, heads reshape
// and transpose, scaled scores, softmax, context, heads merged back,
// output projection): the projections are cut by columns, so each device
// computes its 2 of the 4 heads with no communication, the output
// projection by rows, and the block has exactly one all_reduce over
// ["tp"], at its end.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x8x32xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}, {}]>})
// CHECK-SAME: -> (tensor<2x8x32xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}, {}]>}) attributes {dist.spmd}
// CHECK: %[[WQ:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 1 : tensor<32x32xf32> -> tensor<32x16xf32>
// CHECK: %[[WK:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 1 : tensor<32x32xf32> -> tensor<32x16xf32>
// CHECK: %[[WV:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 1 : tensor<32x32xf32> -> tensor<32x16xf32>
// CHECK: %[[WO:.*]] = dist.take_shard %{{.*}} over @mesh ["tp"] dim = 0 : tensor<32x32xf32> -> tensor<16x32xf32>
// CHECK: %[[Q:.*]] = nn.matmul %[[X]], %[[WQ]] : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
// CHECK: %[[K:.*]] = nn.matmul %[[X]], %[[WK]] : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
// CHECK: %[[V:.*]] = nn.matmul %[[X]], %[[WV]] : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
// CHECK: nn.reshape %[[Q]] [2, 8, 2, 8] : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
// CHECK: nn.reshape %[[K]] [2, 8, 2, 8] : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
// CHECK: nn.reshape %[[V]] [2, 8, 2, 8] : tensor<2x8x16xf32> -> tensor<2x8x2x8xf32>
// CHECK: nn.matmul %{{.*}} : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32> -> tensor<2x2x8x8xf32>
// CHECK: nn.softmax %{{.*}} axis = 3 : tensor<2x2x8x8xf32>
// CHECK: nn.matmul %{{.*}} : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32> -> tensor<2x2x8x8xf32>
// CHECK: %[[C:.*]] = nn.reshape %{{.*}} [2, 8, 16] : tensor<2x8x2x8xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[O:.*]] = nn.matmul %[[C]], %[[WO]] : tensor<2x8x16xf32>, tensor<16x32xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT: %[[S:.*]] = dist.all_reduce sum %[[O]] over @mesh ["tp"] : tensor<2x8x32xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x8x32xf32>

func.func @main(%x: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %wq = nn.parameter "attn.q.weight" = dense<0.1> : tensor<32x32xf32>
  %wk = nn.parameter "attn.k.weight" = dense<0.2> : tensor<32x32xf32>
  %wv = nn.parameter "attn.v.weight" = dense<0.3> : tensor<32x32xf32>
  %wo = nn.parameter "attn.o.weight" = dense<0.4> : tensor<32x32xf32>
  %scale = nn.constant dense<0.35> : tensor<f32>
  %q = nn.matmul %x, %wq : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
  %k = nn.matmul %x, %wk : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
  %v = nn.matmul %x, %wv : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
  %q4 = nn.reshape %q [4, 8, 4, 8] : tensor<4x8x32xf32> -> tensor<4x8x4x8xf32>
  %k4 = nn.reshape %k [4, 8, 4, 8] : tensor<4x8x32xf32> -> tensor<4x8x4x8xf32>
  %v4 = nn.reshape %v [4, 8, 4, 8] : tensor<4x8x32xf32> -> tensor<4x8x4x8xf32>
  %qh = nn.transpose %q4 [0, 2, 1, 3] : tensor<4x8x4x8xf32> -> tensor<4x4x8x8xf32>
  %kh = nn.transpose %k4 [0, 2, 3, 1] : tensor<4x8x4x8xf32> -> tensor<4x4x8x8xf32>
  %vh = nn.transpose %v4 [0, 2, 1, 3] : tensor<4x8x4x8xf32> -> tensor<4x4x8x8xf32>
  %s = nn.matmul %qh, %kh : tensor<4x4x8x8xf32>, tensor<4x4x8x8xf32> -> tensor<4x4x8x8xf32>
  %ss = nn.mul %s, %scale : tensor<4x4x8x8xf32>, tensor<f32>
  %p = nn.softmax %ss axis = 3 : tensor<4x4x8x8xf32>
  %c = nn.matmul %p, %vh : tensor<4x4x8x8xf32>, tensor<4x4x8x8xf32> -> tensor<4x4x8x8xf32>
  %ct = nn.transpose %c [0, 2, 1, 3] : tensor<4x4x8x8xf32> -> tensor<4x8x4x8xf32>
  %cm = nn.reshape %ct [4, 8, 32] : tensor<4x8x4x8xf32> -> tensor<4x8x32xf32>
  %o = nn.matmul %cm, %wo : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
  return %o : tensor<4x8x32xf32>
}

//--- fused.mlir
// GPT-2's fused c_attn (one matmul and bias for Q, K and V, then nn.split):
// each part is computed from this device's columns of its slice of the
// weight and of the bias, and the block still has exactly one all_reduce
// over ["tp"], after c_proj (whose bias is added to the reduced sum).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x8x32xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {}, {}]>})
// CHECK: %[[W:.*]] = nn.parameter "attn.c_attn.weight"
// CHECK: %[[B:.*]] = nn.parameter "attn.c_attn.bias"
// CHECK: %[[WQ:.*]] = nn.slice %[[W]] offsets = [0, 0] sizes = [32, 32]
// CHECK-NEXT: %[[WQL:.*]] = dist.take_shard %[[WQ]] over @mesh ["tp"] dim = 1 : tensor<32x32xf32> -> tensor<32x16xf32>
// CHECK-NEXT: %[[Q:.*]] = nn.matmul %[[X]], %[[WQL]] : tensor<2x8x32xf32>, tensor<32x16xf32> -> tensor<2x8x16xf32>
// CHECK-NEXT: %[[BQ:.*]] = nn.slice %[[B]] offsets = [0] sizes = [32]
// CHECK-NEXT: %[[BQL:.*]] = dist.take_shard %[[BQ]] over @mesh ["tp"] dim = 0 : tensor<32xf32> -> tensor<16xf32>
// CHECK-NEXT: nn.add %[[Q]], %[[BQL]] : tensor<2x8x16xf32>, tensor<16xf32>
// CHECK: nn.slice %[[W]] offsets = [0, 32] sizes = [32, 32]
// CHECK-NEXT: dist.take_shard
// CHECK: nn.slice %[[W]] offsets = [0, 64] sizes = [32, 32]
// CHECK-NEXT: dist.take_shard
// CHECK: nn.softmax %{{.*}} axis = 3 : tensor<2x2x8x8xf32>
// CHECK: %[[O:.*]] = nn.matmul %{{.*}} : tensor<2x8x16xf32>, tensor<16x32xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT: %[[S:.*]] = dist.all_reduce sum %[[O]] over @mesh ["tp"] : tensor<2x8x32xf32>
// CHECK-NEXT: %[[OB:.*]] = nn.add %[[S]], %{{.*}} : tensor<2x8x32xf32>, tensor<32xf32>
// CHECK-NEXT: return %[[OB]] : tensor<2x8x32xf32>
// CHECK-NOT: nn.split

func.func @main(%x: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %w = nn.parameter "attn.c_attn.weight" = dense<0.1> : tensor<32x96xf32>
  %b = nn.parameter "attn.c_attn.bias" = dense<0.0> : tensor<96xf32>
  %wo = nn.parameter "attn.c_proj.weight" = dense<0.2> : tensor<32x32xf32>
  %bo = nn.parameter "attn.c_proj.bias" = dense<0.0> : tensor<32xf32>
  %scale = nn.constant dense<0.35> : tensor<f32>
  %h = nn.matmul %x, %w : tensor<4x8x32xf32>, tensor<32x96xf32> -> tensor<4x8x96xf32>
  %hb = nn.add %h, %b : tensor<4x8x96xf32>, tensor<96xf32>
  %qkv:3 = nn.split %hb axis = 2 sizes = [32, 32, 32] : tensor<4x8x96xf32> -> tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %q4 = nn.reshape %qkv#0 [4, 8, 4, 8] : tensor<4x8x32xf32> -> tensor<4x8x4x8xf32>
  %k4 = nn.reshape %qkv#1 [4, 8, 4, 8] : tensor<4x8x32xf32> -> tensor<4x8x4x8xf32>
  %v4 = nn.reshape %qkv#2 [4, 8, 4, 8] : tensor<4x8x32xf32> -> tensor<4x8x4x8xf32>
  %qh = nn.transpose %q4 [0, 2, 1, 3] : tensor<4x8x4x8xf32> -> tensor<4x4x8x8xf32>
  %kh = nn.transpose %k4 [0, 2, 3, 1] : tensor<4x8x4x8xf32> -> tensor<4x4x8x8xf32>
  %vh = nn.transpose %v4 [0, 2, 1, 3] : tensor<4x8x4x8xf32> -> tensor<4x4x8x8xf32>
  %s = nn.matmul %qh, %kh : tensor<4x4x8x8xf32>, tensor<4x4x8x8xf32> -> tensor<4x4x8x8xf32>
  %ss = nn.mul %s, %scale : tensor<4x4x8x8xf32>, tensor<f32>
  %p = nn.softmax %ss axis = 3 : tensor<4x4x8x8xf32>
  %c = nn.matmul %p, %vh : tensor<4x4x8x8xf32>, tensor<4x4x8x8xf32> -> tensor<4x4x8x8xf32>
  %ct = nn.transpose %c [0, 2, 1, 3] : tensor<4x4x8x8xf32> -> tensor<4x8x4x8xf32>
  %cm = nn.reshape %ct [4, 8, 32] : tensor<4x8x4x8xf32> -> tensor<4x8x32xf32>
  %o = nn.matmul %cm, %wo : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
  %ob = nn.add %o, %bo : tensor<4x8x32xf32>, tensor<32xf32>
  return %ob : tensor<4x8x32xf32>
}
