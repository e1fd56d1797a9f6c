// RUN: loom-opt %s -split-input-file -verify-diagnostics -o /dev/null

// expected-error@+1 {{mesh axis name must not be empty}}
dist.mesh @m axes [<"" = 2, intra_node>]

// -----

// expected-error@+1 {{mesh axis "tp" has size 0; sizes must be at least 1}}
dist.mesh @m axes [<"tp" = 0, intra_node>]

// -----

// expected-error@+1 {{mesh axis "tp" has a negative bandwidth or latency}}
dist.mesh @m axes [<"tp" = 2, intra_node, bandwidth = -1.0>]

// -----

// expected-error@+1 {{needs at least one axis}}
dist.mesh @m axes []

// -----

// expected-error@+1 {{axis "tp" is declared twice}}
dist.mesh @m axes [<"tp" = 2, intra_node>, <"tp" = 4, inter_node>]

// -----

func.func @nested() {
  // expected-error@+1 {{expects parent op 'builtin.module'}}
  dist.mesh @m axes [<"tp" = 2, intra_node>]
  return
}

// -----

// expected-error@+2 {{invalid mesh axis link kind specification: nvlink}}
// expected-error@+1 {{failed to parse Dist_MeshAxisAttr parameter 'link'}}
dist.mesh @m axes [<"tp" = 2, nvlink>]

// -----

// expected-error@+2 {{expected a number, got "fast"}}
// expected-error@+1 {{failed to parse Dist_MeshAxisAttr parameter 'bandwidth'}}
dist.mesh @m axes [<"tp" = 2, intra_node, bandwidth = "fast">]

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @open_not_last(%x: tensor<4xf32>) {
  // expected-error@+1 {{'?' must come last in a dimension sharding}}
  %0 = dist.annotate %x <@m, [{?, "tp"}]> : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @nested_symbol(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected a flat mesh symbol, got @m::@n}}
  %0 = dist.annotate %x <@m::@n, [{"tp"}]> : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @partial_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{unknown reduction kind 'prod'; expected sum, mean, max or min}}
  %0 = dist.annotate %x <@m, [{}], partial<prod> = {"tp"}> : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @partial_open(%x: tensor<4xf32>) {
  // expected-error@+1 {{partial axes cannot be open}}
  %0 = dist.annotate %x <@m, [{}], partial = {"tp", ?}> : tensor<4xf32>
  return
}

// -----

func.func @unknown_mesh(%x: tensor<4xf32>) {
  // expected-error@+1 {{'dist.annotate' op unknown mesh @nowhere}}
  %0 = dist.annotate %x <@nowhere, [{}]> : tensor<4xf32>
  return
}

// -----

func.func private @not_a_mesh()
func.func @symbol_not_mesh(%x: tensor<4xf32>) {
  // expected-error@+1 {{unknown mesh @not_a_mesh}}
  %0 = dist.annotate %x <@not_a_mesh, [{}]> : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @rank(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{sharding has 1 dimension(s) but the tensor 'tensor<4x4xf32>' has rank 2}}
  %0 = dist.annotate %x <@m, [{"tp"}]> : tensor<4x4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @unknown_axis(%x: tensor<4xf32>) {
  // expected-error@+1 {{mesh axis "dp" is not an axis of mesh @m}}
  %0 = dist.annotate %x <@m, [{"dp"}]> : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @axis_twice(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{mesh axis "tp" is used more than once}}
  %0 = dist.annotate %x <@m, [{"tp"}, {"tp"}]> : tensor<4x4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @axis_partial_twice(%x: tensor<4xf32>) {
  // expected-error@+1 {{mesh axis "tp" is used more than once}}
  %0 = dist.annotate %x <@m, [{"tp"}], partial = {"tp"}> : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"dp" = 2, inter_node>, <"tp" = 4, intra_node>]
func.func @divisibility(%x: tensor<12xf32>) {
  // expected-error@+1 {{dimension 0 of size 12 is not divisible by 8, the product of its mesh axes}}
  %0 = dist.annotate %x <@m, [{"dp", "tp"}]> : tensor<12xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
// expected-error@+1 {{invalid sharding of argument #0: mesh axis "x" is not an axis of mesh @m}}
func.func @arg(%x: tensor<4xf32> {dist.sharding = #dist.sharding<@m, [{"x"}]>}) {
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
// expected-error@+1 {{invalid sharding of result #0: dimension 0 of size 3 is not divisible by 2}}
func.func private @result() -> (tensor<3xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}]>})

// -----

// expected-error@+1 {{'dist.sharding' on argument #0 must be a #dist.sharding, got "tp"}}
func.func @arg_kind(%x: tensor<4xf32> {dist.sharding = "tp"}) {
  return
}

// -----

// expected-error@+1 {{unknown dist attribute 'dist.layout' on argument #0}}
func.func @arg_unknown(%x: tensor<4xf32> {dist.layout = 1}) {
  return
}

// -----

// expected-error@+1 {{unknown dist attribute 'dist.layout' on result #0}}
func.func private @result_unknown() -> (tensor<4xf32> {dist.layout = 1})

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
// expected-error@+1 {{invalid sharding of argument #0: shardings apply to ranked tensors, not 'f32'}}
func.func @scalar(%x: f32 {dist.sharding = #dist.sharding<@m, []>}) {
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @op_count(%x: tensor<4xf32>) {
  // expected-error@+1 {{'dist.shardings' must list one #dist.sharding per result (1)}}
  %0 = nn.relu %x {dist.shardings = []} : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @op_result(%x: tensor<4xf32>) {
  // expected-error@+1 {{invalid sharding of result #0: sharding has 2 dimension(s)}}
  %0 = nn.relu %x {dist.shardings = [#dist.sharding<@m, [{}, {}]>]} : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @op_sharding(%x: tensor<4xf32>) {
  // expected-error@+1 {{'dist.sharding' belongs on function arguments and results; annotate op results with 'dist.shardings'}}
  %0 = nn.relu %x {dist.sharding = #dist.sharding<@m, [{}]>} : tensor<4xf32>
  return
}

// -----

func.func @op_unknown(%x: tensor<4xf32>) {
  // expected-error@+1 {{unknown dist attribute 'dist.place'}}
  %0 = nn.relu %x {dist.place = 1} : tensor<4xf32>
  return
}

// -----

func.func @negative_stage(%x: tensor<4xf32>) {
  // expected-error@+1 {{'dist.stage' must be a non-negative integer}}
  %0 = nn.relu %x {dist.stage = -1} : tensor<4xf32>
  return
}

// -----

// expected-error@+1 {{'dist.plan' belongs on the module}}
func.func @plan_on_function() attributes {dist.plan = #dist.plan<dp = 1, tp = 1, pp = 1, microbatches = 1, zero = 0, recompute = false, schedule = "none", predicted_step_seconds = 1>} {
  return
}

// -----

// expected-error@+1 {{'dist.plan' must be a #dist.plan}}
module attributes {dist.plan = {dp = 2}} {
}

// -----

// expected-error@+1 {{unknown pipeline schedule 'zigzag' (expected none, gpipe, 1f1b, interleaved or zb1p)}}
module attributes {dist.plan = #dist.plan<dp = 1, tp = 1, pp = 2, microbatches = 4, zero = 0, recompute = false, schedule = "zigzag", predicted_step_seconds = 1>} {
}

// -----

// expected-error@+1 {{dp, tp, pp and microbatches must be positive}}
module attributes {dist.plan = #dist.plan<dp = 0, tp = 1, pp = 1, microbatches = 1, zero = 0, recompute = false, schedule = "none", predicted_step_seconds = 1>} {
}

// -----

// expected-error@+1 {{zero must be 0, 1, 2 or 3}}
module attributes {dist.plan = #dist.plan<dp = 2, tp = 1, pp = 1, microbatches = 1, zero = 4, recompute = false, schedule = "none", predicted_step_seconds = 1>} {
}

// -----

// expected-error@+1 {{'dist.collectives' must be an array of #dist.call}}
module attributes {dist.collectives = [{kind = "all_reduce"}]} {
}

// -----

// expected-error@+1 {{group and bytes must not be negative}}
module attributes {dist.collectives = [#dist.call<"all_reduce", group = -1, bytes = 4>]} {
}

// -----

// expected-error@+1 {{'dist.comm_groups' must be an array of arrays of axis names}}
module attributes {dist.comm_groups = [["dp"], [1]]} {
}

// -----

func.func @collective_mesh(%x: tensor<4xf32>) {
  // expected-error@+1 {{'dist.all_reduce' op unknown mesh @m}}
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @collective_no_axes(%x: tensor<4xf32>) {
  // expected-error@+1 {{needs at least one mesh axis}}
  %0 = dist.all_reduce sum %x over @m [] : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @collective_axis(%x: tensor<4xf32>) {
  // expected-error@+1 {{mesh axis "dp" is not an axis of mesh @m}}
  %0 = dist.all_gather %x over @m ["dp"] dim = 0 : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @collective_axis_twice(%x: tensor<4xf32>) {
  // expected-error@+1 {{mesh axis "tp" is used twice}}
  %0 = dist.all_reduce sum %x over @m ["tp", "tp"] : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @mean_int(%x: tensor<4xi32>) {
  // expected-error@+1 {{mean reduction needs a floating-point element type, got 'i32'}}
  %0 = dist.all_reduce mean %x over @m ["tp"] : tensor<4xi32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @sum_bool(%x: tensor<4xi1>) {
  // expected-error@+1 {{i1 values reduce with max (or) or min (and) only}}
  %0 = dist.all_reduce sum %x over @m ["tp"] : tensor<4xi1>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @bad_kind(%x: tensor<4xf32>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'reduction' [sum, mean, max, min]}}
  %0 = dist.all_reduce prod %x over @m ["tp"] : tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @gather_dim(%x: tensor<4xf32>) {
  // expected-error@+1 {{dim 1 is out of range for rank 1}}
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @gather_rank(%x: tensor<4xf32>) {
  // expected-error@+1 {{result rank 2 differs from operand rank 1}}
  %0 = dist.all_gather %x over @m ["tp"] dim = 0 : tensor<4xf32> -> tensor<8x1xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @gather_size(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{dimension 1 of the result must be 8 (4 x 2), got 4}}
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 2, intra_node>]
func.func @gather_other_dim(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{dimension 0 changes from 4 to 8 but only dimension 1 may}}
  %0 = dist.all_gather %x over @m ["tp"] dim = 1 : tensor<4x4xf32> -> tensor<8x8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @scatter_divisible(%x: tensor<6xf32>) {
  // expected-error@+1 {{dimension 0 of size 6 is not divisible by the group size 4}}
  %0 = dist.reduce_scatter sum %x over @m ["tp"] dim = 0 : tensor<6xf32> -> tensor<1xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @scatter_size(%x: tensor<8xf32>) {
  // expected-error@+1 {{dimension 0 of the result must be 2 (8 / 4), got 4}}
  %0 = dist.reduce_scatter sum %x over @m ["tp"] dim = 0 : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @scatter_kind(%x: tensor<8xi64>) {
  // expected-error@+1 {{mean reduction needs a floating-point element type, got 'i64'}}
  %0 = dist.reduce_scatter mean %x over @m ["tp"] dim = 0 : tensor<8xi64> -> tensor<2xi64>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @all_to_all_dim(%x: tensor<8x8xf32>) {
  // expected-error@+1 {{concat_dim 2 is out of range for rank 2}}
  %0 = dist.all_to_all %x over @m ["tp"] split_dim = 0 concat_dim = 2 : tensor<8x8xf32> -> tensor<2x32xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @all_to_all_rank(%x: tensor<8x8xf32>) {
  // expected-error@+1 {{result rank 1 differs from operand rank 2}}
  %0 = dist.all_to_all %x over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<64xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @all_to_all_divisible(%x: tensor<6x8xf32>) {
  // expected-error@+1 {{split dimension 0 of size 6 is not divisible by the group size 4}}
  %0 = dist.all_to_all %x over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<6x8xf32> -> tensor<1x32xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @all_to_all_shape(%x: tensor<8x8xf32>) {
  // expected-error@+1 {{dimension 1 of the result must be 32, got 8}}
  %0 = dist.all_to_all %x over @m ["tp"] split_dim = 0 concat_dim = 1 : tensor<8x8xf32> -> tensor<2x8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @broadcast_root_count(%x: tensor<8xf32>) {
  // expected-error@+1 {{root has 2 coordinate(s) for 1 mesh axis(es)}}
  %0 = dist.broadcast %x over @m ["tp"] root = [0, 0] : tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @broadcast_root(%x: tensor<8xf32>) {
  // expected-error@+1 {{root coordinate 4 is outside mesh axis "tp" of size 4}}
  %0 = dist.broadcast %x over @m ["tp"] root = [4] : tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @permute_odd(%x: tensor<8xf32>) {
  // expected-error@+1 {{pairs must be source/target couples}}
  %0 = "dist.collective_permute"(%x) <{mesh = @m, mesh_axes = ["tp"], pairs = array<i64: 0, 1, 2>}> : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @permute_range(%x: tensor<8xf32>) {
  // expected-error@+1 {{device index 4 is outside the group of 4}}
  %0 = dist.collective_permute %x over @m ["tp"] pairs = [3 -> 4] : tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @permute_sources(%x: tensor<8xf32>) {
  // expected-error@+1 {{device 0 sends twice}}
  %0 = dist.collective_permute %x over @m ["tp"] pairs = [0 -> 1, 0 -> 2] : tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @permute_targets(%x: tensor<8xf32>) {
  // expected-error@+1 {{device 1 receives twice}}
  %0 = dist.collective_permute %x over @m ["tp"] pairs = [0 -> 1, 2 -> 1] : tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
dist.mesh @n axes [<"tp" = 4, intra_node>]
func.func @reshard_meshes(%x: tensor<8xf32>) {
  // expected-error@+1 {{cannot move between meshes @m and @n}}
  %0 = dist.reshard %x <@m, [{}]> -> <@n, [{}]> : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_new_partial(%x: tensor<8xf32>) {
  // expected-error@+1 {{cannot make a value partial along "tp" that is not partial along it already}}
  %0 = dist.reshard %x <@m, [{}]> -> <@m, [{}], partial = {"tp"}> : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_kind(%x: tensor<8xf32>) {
  // expected-error@+1 {{cannot change the kind of a partial value}}
  %0 = dist.reshard %x <@m, [{}], partial = {"tp"}> -> <@m, [{}], partial<max> = {"tp"}> : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_element(%x: tensor<8xf32>) {
  // expected-error@+1 {{changes the element type}}
  %0 = dist.reshard %x <@m, [{}]> -> <@m, [{}]> : tensor<8xf32> -> tensor<8xf16>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_global(%x: tensor<8xf32>) attributes {dist.spmd} {
  // expected-error@+1 {{dimension 0 is 8 globally before and 16 after the reshard}}
  %0 = dist.reshard %x <@m, [{}]> -> <@m, [{"tp"}]> : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_global_type(%x: tensor<8xf32>) {
  // expected-error@+1 {{changes the type of a global value from 'tensor<8xf32>' to 'tensor<2xf32>' (per-device types belong in dist.spmd functions)}}
  %0 = dist.reshard %x <@m, [{}]> -> <@m, [{"tp"}]> : tensor<8xf32> -> tensor<2xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_global_divisible(%x: tensor<6xf32>) {
  // expected-error@+1 {{dimension 0 of size 6 is not divisible by 4, the product of its mesh axes}}
  %0 = dist.reshard %x <@m, [{}]> -> <@m, [{"tp"}]> : tensor<6xf32> -> tensor<6xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @take_shard_size(%x: tensor<8x8xf32>) {
  // expected-error@+1 {{dimension 1 of the result must be 2 (8 / 4), got 4}}
  %0 = dist.take_shard %x over @m ["tp"] dim = 1 : tensor<8x8xf32> -> tensor<8x4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @take_shard_axis(%x: tensor<8x8xf32>) {
  // expected-error@+1 {{mesh axis "dp" is not an axis of mesh @m}}
  %0 = dist.take_shard %x over @m ["dp"] dim = 1 : tensor<8x8xf32> -> tensor<8x4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
// expected-error@+1 {{'dist.spmd' is a unit attribute of functions}}
func.func @spmd_value() attributes {dist.spmd = 1 : i64} {
  return
}

// -----

func.func @microbatches_count(%x: tensor<8xf32>) {
  // expected-error@+1 {{needs at least one microbatch, not 0}}
  dist.microbatches 0 (%a = %x) : (tensor<8xf32>) -> () {
    dist.yield
  }
  return
}

// -----

func.func @microbatches_count_generic(%x: tensor<8xf32>) {
  // expected-error@+1 {{needs at least one microbatch, not 0}}
  "dist.microbatches"(%x) <{count = 0 : i64}> ({
  ^bb0(%a: tensor<8xf32>):
    dist.yield
  }) : (tensor<8xf32>) -> ()
  return
}

// -----

func.func @microbatches_divide(%x: tensor<6x2xf32>) {
  // expected-error@+1 {{input #0: dimension 0 of size 6 does not divide into 4 microbatches}}
  dist.microbatches 4 (%a = %x) : (tensor<6x2xf32>) -> () {
    dist.yield
  }
  return
}

// -----

func.func @microbatches_divide_generic(%x: tensor<6x2xf32>) {
  // expected-error@+1 {{input #0: dimension 0 of size 6 does not divide into 4 microbatches}}
  "dist.microbatches"(%x) <{count = 4 : i64}> ({
  ^bb0(%a: tensor<1x2xf32>):
    dist.yield
  }) : (tensor<6x2xf32>) -> ()
  return
}

// -----

func.func @microbatches_scalar(%x: tensor<f32>) {
  // expected-error@+1 {{input #0 (tensor<f32>) has no dimension 0 to split}}
  "dist.microbatches"(%x) <{count = 2 : i64}> ({
  ^bb0(%a: tensor<f32>):
    dist.yield
  }) : (tensor<f32>) -> ()
  return
}

// -----

func.func @microbatches_arguments(%x: tensor<8xf32>) {
  // expected-error@+1 {{the body takes 0 arguments for 1 inputs}}
  "dist.microbatches"(%x) <{count = 2 : i64}> ({
    dist.yield
  }) : (tensor<8xf32>) -> ()
  return
}

// -----

func.func @microbatches_argument_type(%x: tensor<8xf32>) {
  // expected-error@+1 {{body argument #0 has type 'tensor<8xf32>', not 'tensor<4xf32>', one microbatch of input #0}}
  "dist.microbatches"(%x) <{count = 2 : i64}> ({
  ^bb0(%a: tensor<8xf32>):
    dist.yield
  }) : (tensor<8xf32>) -> ()
  return
}

// -----

func.func @microbatches_yield_count(%x: tensor<8xf32>) {
  // expected-error@+1 {{the body yields 0 values for 1 results}}
  %0 = dist.microbatches 2 (%a = %x) : (tensor<8xf32>) -> (tensor<4xf32>) {
    dist.yield
  }
  return
}

// -----

func.func @microbatches_yield_type(%x: tensor<8xf32>) {
  // expected-error@+1 {{the body yields 'tensor<4xf32>' for result #0 of type 'tensor<8xf32>'}}
  %0 = dist.microbatches 2 (%a = %x) : (tensor<8xf32>) -> (tensor<8xf32>) {
    dist.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @microbatches_input_types(%x: tensor<8xf32>) {
  // expected-error@+1 {{expected 1 input types, got 2}}
  dist.microbatches 2 (%a = %x) : (tensor<8xf32>, tensor<8xf32>) -> () {
    dist.yield
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<8xf32>) {
  // expected-error@+1 {{expects parent op 'dist.microbatches'}}
  dist.yield %x : tensor<8xf32>
}

// -----

// A mesh counts its devices in int64: 2^32 x 2^32 would wrap to 0.
// expected-error@+1 {{mesh axis "dp" has size 4294967296; a mesh has at most 1048576 devices}}
dist.mesh @m axes [<"dp" = 4294967296, inter_node>, <"tp" = 4294967296, intra_node>]

// -----

// expected-error@+1 {{has more than 1048576 devices (the product of its axis sizes)}}
dist.mesh @m axes [<"dp" = 1024, inter_node>, <"tp" = 2048, intra_node>]

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @gather_overflow(%x: tensor<4611686018427387904xf32>) {
  // expected-error@+1 {{dimension 0 of size 4611686018427387904 times the group size 4 overflows}}
  %0 = dist.all_gather %x over @m ["tp"] dim = 0 : tensor<4611686018427387904xf32> -> tensor<4xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
func.func @reshard_overflow(%x: tensor<4611686018427387904xf32>) attributes {dist.spmd} {
  // expected-error@+1 {{dimension 0 overflows int64 as a global extent}}
  %0 = dist.reshard %x <@m, [{"tp"}]> -> <@m, [{}]> : tensor<4611686018427387904xf32> -> tensor<4611686018427387904xf32>
  return
}

// -----

dist.mesh @m axes [<"tp" = 4, intra_node>]
// expected-error@+1 {{invalid sharding of argument #0: dimension 0 overflows int64 as a global extent}}
func.func @local_overflow(%x: tensor<4611686018427387904xf32> {dist.sharding = #dist.sharding<@m, [{"tp"}]>}) attributes {dist.spmd} {
  return
}
