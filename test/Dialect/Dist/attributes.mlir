// RUN: loom-opt %s -split-input-file | FileCheck %s
// Round trip: the printed form parses back to the same text.
// RUN: loom-opt %s -split-input-file | loom-opt -split-input-file | FileCheck %s

// What the planner writes for a simulated pipelined plan.
// CHECK-LABEL: module attributes {dist.plan = #dist.plan<dp = 8, tp = 4, pp = 4, microbatches = 16, zero = 1, recompute = true, schedule = "1f1b", predicted_step_seconds = 1.25>}
// CHECK: nn.relu %{{.*}} {dist.stage = 3 : i64}
module attributes {dist.plan = #dist.plan<dp = 8, tp = 4, pp = 4, microbatches = 16, zero = 1, recompute = true, schedule = "1f1b", predicted_step_seconds = 1.25>} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = nn.relu %x {dist.stage = 3 : i64} : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// What -convert-dist-to-runtime records for the manifest.
// CHECK-LABEL: module attributes {dist.collectives = [#dist.call<"all_reduce", group = 0, bytes = 4096>, #dist.call<"all_gather", group = 1, bytes = 64>], dist.comm_groups = {{\[}}["dp"], ["dp", "tp"]]}
module attributes {dist.comm_groups = [["dp"], ["dp", "tp"]], dist.collectives = [#dist.call<"all_reduce", group = 0, bytes = 4096>, #dist.call<"all_gather", group = 1, bytes = 64>]} {
}
