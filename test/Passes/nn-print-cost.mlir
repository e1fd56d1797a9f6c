// RUN: loom-opt %s -nn-print-cost -o /dev/null 2>&1 | FileCheck %s
// RUN: loom-opt %s -nn-print-cost=per-op=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTALS
// The IR is left as it was.
// RUN: loom-opt %s -nn-print-cost 2>/dev/null | FileCheck %s --check-prefix=IR

// CHECK-LABEL: cost of @mlp (5 ops)
// CHECK-NEXT: op location flops trans read written dtype
// CHECK-NEXT: nn.matmul nn-print-cost.mlir:[[@LINE+9]]:8 16384 0 4608 2048 f32
// CHECK-NEXT: nn.add nn-print-cost.mlir:{{[0-9]+}}:9 512 0 2304 2048 f32
// CHECK-NEXT: nn.gelu nn-print-cost.mlir:{{[0-9]+}}:8 2048 512 2048 2048 f32
// CHECK-NEXT: nn.matmul nn-print-cost.mlir:{{[0-9]+}}:8 8192 0 4096 256 f32
// CHECK-NEXT: nn.reshape nn-print-cost.mlir:{{[0-9]+}}:8 0 0 0 0 -
// CHECK-NEXT: total: 27136 FLOPs (f32: 27136), 512 transcendentals, 13056 B read, 6400 B written
// TOTALS: cost of @mlp (5 ops)
// TOTALS-NEXT: total: 27136 FLOPs
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x64xf32>, %b1: tensor<64xf32>, %w2: tensor<64x8xf32>) -> tensor<64xf32> {
  %h = nn.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x64xf32> -> tensor<8x64xf32>
  %hb = nn.add %h, %b1 : tensor<8x64xf32>, tensor<64xf32>
  %a = nn.gelu %hb : tensor<8x64xf32>
  %y = nn.matmul %a, %w2 : tensor<8x64xf32>, tensor<64x8xf32> -> tensor<8x8xf32>
  %r = nn.reshape %y [64] : tensor<8x8xf32> -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// A dynamic shape cannot be priced, and ops without a cost are named.
// CHECK-LABEL: cost of @dynamic (2 ops)
// CHECK: nn.relu {{.*}} not priced (dynamic shape)
// CHECK: dist.all_reduce {{.*}} not priced (no cost)
// CHECK: total: 0 FLOPs, 0 transcendentals, 0 B read, 0 B written, 2 op(s) not priced
dist.mesh @m axes [<"dp" = 2, inter_node>]
func.func @dynamic(%x: tensor<?x8xf32>, %y: tensor<4xf32>) -> tensor<?x8xf32> {
  %0 = nn.relu %x : tensor<?x8xf32>
  %1 = dist.all_reduce sum %y over @m ["dp"] : tensor<4xf32>
  return %0 : tensor<?x8xf32>
}

// Annotations are free.
// CHECK-LABEL: cost of @annotated (1 ops)
// CHECK: dist.annotate {{.*}} 0 0 0 0 -
func.func @annotated(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = dist.annotate %x <@m, [{"dp"}, {}]> : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// IR: func.func @mlp
// IR: nn.gelu
