// RUN: rm -rf %t && split-file %s %t
// RUN: loom-opt %t/data.mlir -dist-apply-strategy="strategy=data mesh=dp=4" | FileCheck %t/data.mlir
// RUN: loom-opt %t/megatron-mlp.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" | FileCheck %t/megatron-mlp.mlir
// RUN: loom-opt %t/megatron-tp-only.mlir -dist-apply-strategy="strategy=megatron mesh=tp=4" | FileCheck %t/megatron-tp-only.mlir
// RUN: loom-opt %t/megatron-attention.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" | FileCheck %t/megatron-attention.mlir
// RUN: loom-opt %t/megatron-fused.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" | FileCheck %t/megatron-fused.mlir
// RUN: loom-opt %t/planned.mlir -dist-apply-strategy="strategy=planned" | FileCheck %t/planned.mlir
// RUN: loom-opt %t/existing-mesh.mlir -dist-apply-strategy="strategy=data" | FileCheck %t/existing-mesh.mlir
// RUN: loom-opt %t/weightless.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2,tp=2" | FileCheck %t/weightless.mlir
// RUN: loom-opt %t/error-batch.mlir -dist-apply-strategy="strategy=data mesh=dp=4" -verify-diagnostics
// RUN: loom-opt %t/error-no-tp.mlir -dist-apply-strategy="strategy=megatron mesh=dp=2" -verify-diagnostics
// RUN: loom-opt %t/error-strategy.mlir -dist-apply-strategy="strategy=pipeline mesh=dp=2" -verify-diagnostics
// RUN: loom-opt %t/error-mesh.mlir -dist-apply-strategy="strategy=data mesh=dp" -verify-diagnostics
// RUN: loom-opt %t/error-mesh-zero.mlir -dist-apply-strategy="strategy=data mesh=dp=0" -verify-diagnostics
// RUN: loom-opt %t/error-no-mesh.mlir -dist-apply-strategy="strategy=data" -verify-diagnostics
// RUN: loom-opt %t/error-mesh-overflow.mlir -dist-apply-strategy="strategy=data mesh=dp=4294967296,tp=4294967296" -verify-diagnostics

//--- weightless.mlir
// Weightless parameters (arguments carrying nn.parameter) are weights: the
// batch comes from the first input that is not one, and matmuls against
// them are paired column-then-row.
// CHECK-LABEL: func.func @weightless
// CHECK-SAME: (%{{.*}}: tensor<16x64xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {"tp"}]>, nn.parameter = "fc1.weight"},
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}]>, nn.name = "x"},
// CHECK-SAME: %{{.*}}: tensor<64x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"tp"}, {}]>, nn.parameter = "fc2.weight"})
func.func @weightless(%w1: tensor<16x64xf32> {nn.parameter = "fc1.weight"},
                      %x: tensor<8x16xf32> {nn.name = "x"},
                      %w2: tensor<64x16xf32> {nn.parameter = "fc2.weight"}) -> tensor<8x16xf32> {
  %h = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %a = nn.relu %h : tensor<8x64xf32>
  %y = nn.matmul %a, %w2 : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

//--- data.mlir
// Data parallelism: the mesh is created from the option; every input whose
// dimension 0 equals the first input's is split along it over all axes
// (other dimensions left open); an input with another dimension 0 and a
// scalar are left alone, parameters stay whole, and private functions are
// not touched.
// CHECK: dist.mesh @mesh axes [<"dp" = 4, intra_node>]
// CHECK-LABEL: func.func @main
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}]>, nn.name = "x"}
// CHECK-SAME: %{{[^:]*}}: tensor<8x4x2xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}, {?}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<4x16xf32>,
// CHECK-SAME: %{{[^:]*}}: tensor<f32>)
// CHECK-NOT: dist.shardings
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{[^:]*}}: tensor<8x16xf32>)
func.func @main(%x: tensor<8x16xf32> {nn.name = "x"}, %mask: tensor<8x4x2xf32>, %y: tensor<4x16xf32>,
                %s: tensor<f32>) -> tensor<8x16xf32> {
  %w = nn.parameter "fc.weight" = dense<0.1> : tensor<16x16xf32>
  %h = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  return %h : tensor<8x16xf32>
}
func.func private @helper(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  return %x : tensor<8x16xf32>
}

//--- planned.mlir
// The planner's layouts: weights keep what the planner wrote (no Megatron
// pairing), the batch goes over every axis but tp and pp, and weights given
// as arguments (nn.parameter) are not data.
// CHECK: dist.mesh @mesh axes [<"pp" = 2, intra_node>, <"dp" = 2, intra_node>, <"tp" = 2, intra_node>]
// CHECK-LABEL: func.func @main
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}]>}
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {nn.parameter = "w2"}
// CHECK: nn.parameter "w1" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
// CHECK-NOT: dist.sharding
dist.mesh @mesh axes [<"pp" = 2, intra_node>, <"dp" = 2, intra_node>, <"tp" = 2, intra_node>]
func.func @main(%x: tensor<8x16xf32>, %w2: tensor<8x16xf32> {nn.parameter = "w2"}) -> tensor<8x16xf32> {
  %w = nn.parameter "w1" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]} = dense<0.1> : tensor<16x16xf32>
  %h = nn.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %o = nn.add %h, %w2 : tensor<8x16xf32>, tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

//--- megatron-mlp.mlir
// Megatron on an MLP: the first matmul is a column (weight split along its
// second dimension over tp), the second a row (split along its first); the
// biases are left to propagation, the batch goes over dp. After a layer
// norm the head matmul starts afresh as a column, but nothing pairs with
// it: it stays whole.
// CHECK: dist.mesh @mesh axes [<"dp" = 2, intra_node>, <"tp" = 2, intra_node>]
// CHECK-LABEL: func.func @main
// CHECK-SAME: %{{[^:]*}}: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}]>}
// CHECK: nn.parameter "fc1.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: nn.parameter "fc1.bias" = dense
// CHECK-NEXT: nn.parameter "fc2.weight" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
// CHECK-NEXT: nn.parameter "fc2.bias" = dense
// CHECK-NEXT: nn.parameter "head.weight" = dense
// CHECK-NOT: dist.shardings
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x10xf32> {
  %w1 = nn.parameter "fc1.weight" = dense<0.1> : tensor<16x64xf32>
  %b1 = nn.parameter "fc1.bias" = dense<0.0> : tensor<64xf32>
  %w2 = nn.parameter "fc2.weight" = dense<0.1> : tensor<64x16xf32>
  %b2 = nn.parameter "fc2.bias" = dense<0.0> : tensor<16xf32>
  %w3 = nn.parameter "head.weight" = dense<0.1> : tensor<16x10xf32>
  %h = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %h1 = nn.add %h, %b1 : tensor<8x64xf32>, tensor<64xf32>
  %a = nn.gelu %h1 : tensor<8x64xf32>
  %o = nn.matmul %a, %w2 : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  %o1 = nn.add %o, %b2 : tensor<8x16xf32>, tensor<16xf32>
  %n = nn.layer_norm %o1 axis = 1 : tensor<8x16xf32>
  %y = nn.matmul %n, %w3 : tensor<8x16xf32>, tensor<16x10xf32> -> tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}

//--- megatron-tp-only.mlir
// With tp the only axis there is no batch axis: the inputs stay whole. A
// weight read through a transpose (PyTorch's Linear) gets its layout on
// the transpose.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{[^:]*}}: tensor<8x16xf32>)
// CHECK: nn.parameter "fc1.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK: nn.parameter "fc2.weight" = dense
// CHECK: nn.transpose %{{.*}} [1, 0] {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %w1 = nn.parameter "fc1.weight" = dense<0.1> : tensor<16x64xf32>
  %w2 = nn.parameter "fc2.weight" = dense<0.1> : tensor<16x64xf32>
  %h = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %a = nn.relu %h : tensor<8x64xf32>
  %w2t = nn.transpose %w2 [1, 0] : tensor<16x64xf32> -> tensor<64x16xf32>
  %o = nn.matmul %a, %w2t : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}

//--- megatron-attention.mlir
// Megatron on attention written in nn: Q, K and V projections are columns,
// the output projection (reached through the heads reshapes, transposes,
// the score and context matmuls and the softmax) is their row.
// CHECK-LABEL: func.func @main
// CHECK-SAME: %{{[^:]*}}: tensor<4x8x32xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}, {?}]>}
// CHECK: nn.parameter "q.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: nn.parameter "k.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: nn.parameter "v.weight" {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: nn.parameter "o.weight" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
// CHECK-NOT: dist.shardings
func.func @main(%x: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %wq = nn.parameter "q.weight" = dense<0.1> : tensor<32x32xf32>
  %wk = nn.parameter "k.weight" = dense<0.1> : tensor<32x32xf32>
  %wv = nn.parameter "v.weight" = dense<0.1> : tensor<32x32xf32>
  %wo = nn.parameter "o.weight" = dense<0.1> : tensor<32x32xf32>
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

//--- megatron-fused.mlir
// A fused QKV projection with bias, split along its last axis (GPT-2's
// c_attn): rewritten into one matmul and bias add per part on nn.slice of
// the weight and of the bias; the weight slices are the columns, the
// output projection their row. The fused matmul, its add and the split
// are gone.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x8x32xf32> {dist.sharding = #dist.sharding<@mesh, [{"dp"}, {?}, {?}]>})
// CHECK: %[[W:.*]] = nn.parameter "c_attn.weight" = dense
// CHECK-NEXT: %[[B:.*]] = nn.parameter "c_attn.bias" = dense
// CHECK-NEXT: %[[WO:.*]] = nn.parameter "c_proj.weight" {dist.shardings = [#dist.sharding<@mesh, [{"tp"}, {}]>]}
// CHECK-NEXT: %[[WQ:.*]] = nn.slice %[[W]] offsets = [0, 0] sizes = [32, 32] strides = [1, 1] {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]} : tensor<32x96xf32> -> tensor<32x32xf32>
// CHECK-NEXT: %[[Q:.*]] = nn.matmul %[[X]], %[[WQ]] : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
// CHECK-NEXT: %[[BQ:.*]] = nn.slice %[[B]] offsets = [0] sizes = [32] strides = [1] : tensor<96xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[QB:.*]] = nn.add %[[Q]], %[[BQ]]
// CHECK-NEXT: %[[WK:.*]] = nn.slice %[[W]] offsets = [0, 32] sizes = [32, 32] strides = [1, 1] {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: %[[K:.*]] = nn.matmul %[[X]], %[[WK]]
// CHECK-NEXT: %[[BK:.*]] = nn.slice %[[B]] offsets = [32] sizes = [32] strides = [1]
// CHECK-NEXT: %[[KB:.*]] = nn.add %[[K]], %[[BK]]
// CHECK-NEXT: %[[WV:.*]] = nn.slice %[[W]] offsets = [0, 64] sizes = [32, 32] strides = [1, 1] {dist.shardings = [#dist.sharding<@mesh, [{}, {"tp"}]>]}
// CHECK-NEXT: %[[V:.*]] = nn.matmul %[[X]], %[[WV]]
// CHECK-NEXT: %[[BV:.*]] = nn.slice %[[B]] offsets = [64] sizes = [32] strides = [1]
// CHECK-NEXT: %[[VB:.*]] = nn.add %[[V]], %[[BV]]
// CHECK-NEXT: %[[S:.*]] = nn.add %[[QB]], %[[KB]]
// CHECK-NEXT: %[[T:.*]] = nn.mul %[[S]], %[[VB]]
// CHECK-NEXT: nn.matmul %[[T]], %[[WO]]
// CHECK-NOT: nn.split
func.func @fused(%x: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %w = nn.parameter "c_attn.weight" = dense<0.1> : tensor<32x96xf32>
  %b = nn.parameter "c_attn.bias" = dense<0.0> : tensor<96xf32>
  %wo = nn.parameter "c_proj.weight" = dense<0.1> : tensor<32x32xf32>
  %h = nn.matmul %x, %w : tensor<4x8x32xf32>, tensor<32x96xf32> -> tensor<4x8x96xf32>
  %hb = nn.add %h, %b : tensor<4x8x96xf32>, tensor<96xf32>
  %qkv:3 = nn.split %hb axis = 2 sizes = [32, 32, 32] : tensor<4x8x96xf32> -> tensor<4x8x32xf32>, tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %s = nn.add %qkv#0, %qkv#1 : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %t = nn.mul %s, %qkv#2 : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %o = nn.matmul %t, %wo : tensor<4x8x32xf32>, tensor<32x32xf32> -> tensor<4x8x32xf32>
  return %o : tensor<4x8x32xf32>
}

// A split of a projection whose result has another use stays fused (and
// with no row matmul after it, nothing is split).
// CHECK-LABEL: func.func @fused_other_use
// CHECK: nn.split
// CHECK-NOT: dist.shardings
// CHECK: return
func.func @fused_other_use(%x: tensor<4x8x32xf32>) -> (tensor<4x8x64xf32>, tensor<4x8x32xf32>) {
  %w = nn.parameter "c_attn.weight" = dense<0.1> : tensor<32x64xf32>
  %h = nn.matmul %x, %w : tensor<4x8x32xf32>, tensor<32x64xf32> -> tensor<4x8x64xf32>
  %parts:2 = nn.split %h axis = 2 sizes = [32, 32] : tensor<4x8x64xf32> -> tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %t = nn.mul %parts#0, %parts#1 : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  return %h, %t : tensor<4x8x64xf32>, tensor<4x8x32xf32>
}

//--- existing-mesh.mlir
// A module that declares its mesh keeps it; no mesh option is needed.
// CHECK: dist.mesh @cluster axes [<"dp" = 2, inter_node>]
// CHECK-NOT: dist.mesh
// CHECK-LABEL: func.func @main
// CHECK-SAME: {dist.sharding = #dist.sharding<@cluster, [{"dp"}, {?}]>}
dist.mesh @cluster axes [<"dp" = 2, inter_node>]
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  return %x : tensor<8x16xf32>
}

//--- error-batch.mlir
// The batch of an input must divide by the batch axes; the message names
// the input, the dimension and the axes.
module {
  // expected-error@+1 {{input 'tokens' (argument 0): dimension 0 (the batch) of size 6 is not divisible by 4, the devices of mesh axes ["dp"] (fix the batch with --input-shape)}}
  func.func @main(%x: tensor<6x16xf32> {nn.name = "tokens"}) -> tensor<6x16xf32> {
    return %x : tensor<6x16xf32>
  }
}

//--- error-no-tp.mlir
// Megatron needs an axis named tp.
// expected-error@+1 {{--strategy=megatron splits layers over a mesh axis named "tp"; this mesh has none}}
module {
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %x : tensor<8x16xf32>
  }
}

//--- error-strategy.mlir
// expected-error@+1 {{unknown strategy 'pipeline' (expected data, megatron or planned)}}
module {
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %x : tensor<8x16xf32>
  }
}

//--- error-mesh.mlir
// A mesh axis without a size.
// expected-error@+1 {{bad mesh axis 'dp': expected NAME=SIZE}}
module {
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %x : tensor<8x16xf32>
  }
}

//--- error-mesh-zero.mlir
// A mesh axis of size 0.
// expected-error@+1 {{bad mesh axis 'dp=0': expected NAME=SIZE}}
module {
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %x : tensor<8x16xf32>
  }
}

//--- error-no-mesh.mlir
// Neither a dist.mesh nor a mesh option.
// expected-error@+1 {{no mesh: pass mesh=NAME=SIZE,... or declare a dist.mesh}}
module {
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %x : tensor<8x16xf32>
  }
}

//--- error-mesh-overflow.mlir
// 2^32 x 2^32 devices would wrap to 0 (and divide by it): the mesh is
// verified before the strategy uses it.
// expected-error@+1 {{'dist.mesh' op has more than 1048576 devices (the product of its axis sizes)}}
module {
  func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    return %x : tensor<8x16xf32>
  }
}
