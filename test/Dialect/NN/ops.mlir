// RUN: loom-opt %s | FileCheck %s
// Round trip: the printed form parses back to the same text.
// RUN: loom-opt %s | loom-opt | FileCheck %s
// The generic form parses back too.
// RUN: loom-opt %s -mlir-print-op-generic | loom-opt | FileCheck %s

// CHECK-LABEL: func.func @sources
func.func @sources() -> (tensor<2xf32>, tensor<4xi64>, tensor<5xf32>, tensor<3xi32>) {
  // CHECK: nn.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %c = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: nn.parameter "fc1.weight" = dense<{{.*}}> : tensor<2xf32>
  %p = nn.parameter "fc1.weight" = dense<[0.5, 1.5]> : tensor<2xf32>
  // CHECK: nn.range 0 to 10 step 3 -> tensor<4xi64>
  %r = nn.range 0 to 10 step 3 -> tensor<4xi64>
  // CHECK: nn.range -1.5 to 1 step 0.5 -> tensor<5xf32>
  %f = nn.range -1.5 to 1.0 step 0.5 -> tensor<5xf32>
  // CHECK: nn.range 5 to 2 step -1 -> tensor<3xi32>
  %d = nn.range 5 to 2 step -1 -> tensor<3xi32>
  return %c, %r, %f, %d : tensor<2xf32>, tensor<4xi64>, tensor<5xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @names
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {nn.name = "input_ids"}) -> (tensor<4xf32> {nn.name = "logits"})
func.func @names(%x: tensor<4xf32> {nn.name = "input_ids"}) -> (tensor<4xf32> {nn.name = "logits"}) {
  return %x : tensor<4xf32>
}

// A weightless parameter: a name and a type, no data.
// CHECK-LABEL: func.func @weightless
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {nn.name = "x"}, %{{.*}}: tensor<4x8xbf16> {nn.parameter = "fc.weight"})
func.func @weightless(%x: tensor<4xf32> {nn.name = "x"}, %w: tensor<4x8xbf16> {nn.parameter = "fc.weight"}) -> tensor<4x8xbf16> {
  return %w : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi64>, %h: tensor<8xbf16>, %g: tensor<8xf16>) {
  // CHECK: nn.neg %{{.*}} : tensor<4x8xf32>
  %0 = nn.neg %x : tensor<4x8xf32>
  // CHECK: nn.abs %{{.*}} : tensor<4xi64>
  %1 = nn.abs %i : tensor<4xi64>
  // CHECK: nn.exp %{{.*}} : tensor<8xbf16>
  %2 = nn.exp %h : tensor<8xbf16>
  // CHECK: nn.log %{{.*}} : tensor<8xf16>
  %3 = nn.log %g : tensor<8xf16>
  // CHECK: nn.sqrt
  %4 = nn.sqrt %x : tensor<4x8xf32>
  // CHECK: nn.rsqrt
  %5 = nn.rsqrt %x : tensor<4x8xf32>
  // CHECK: nn.reciprocal
  %6 = nn.reciprocal %x : tensor<4x8xf32>
  // CHECK: nn.tanh
  %7 = nn.tanh %x : tensor<4x8xf32>
  // CHECK: nn.sigmoid
  %8 = nn.sigmoid %x : tensor<4x8xf32>
  // CHECK: nn.erf
  %9 = nn.erf %x : tensor<4x8xf32>
  // CHECK: nn.relu %{{.*}} : tensor<4xi64>
  %10 = nn.relu %i : tensor<4xi64>
  // CHECK: nn.gelu %{{.*}} : tensor<4x8xf32>
  %11 = nn.gelu %x : tensor<4x8xf32>
  // CHECK: nn.gelu %{{.*}} approximate = tanh : tensor<4x8xf32>
  %12 = nn.gelu %x approximate = tanh : tensor<4x8xf32>
  // The default is not printed.
  // CHECK: nn.gelu %{{.*}} : tensor<4x8xf32>
  %13 = nn.gelu %x approximate = none : tensor<4x8xf32>
  // CHECK: nn.cos %{{.*}} : tensor<4x8xf32>
  %14 = nn.cos %x : tensor<4x8xf32>
  // CHECK: nn.sin %{{.*}} : tensor<8xbf16>
  %15 = nn.sin %h : tensor<8xbf16>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %s: tensor<f32>, %c: tensor<4x1xf32>,
                  %i: tensor<4xi32>, %m: tensor<1x8xi1>) {
  // CHECK: nn.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %0 = nn.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nn.sub %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x1xf32>
  %1 = nn.sub %x, %c : tensor<4x8xf32>, tensor<4x1xf32>
  // CHECK: nn.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>
  %2 = nn.mul %x, %s : tensor<4x8xf32>, tensor<f32>
  // CHECK: nn.div %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
  %3 = nn.div %i, %i : tensor<4xi32>, tensor<4xi32>
  // CHECK: nn.pow
  %4 = nn.pow %x, %s : tensor<4x8xf32>, tensor<f32>
  // CHECK: nn.max %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>
  %5 = nn.max %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // CHECK: nn.min
  %6 = nn.min %x, %x : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK: nn.compare ge, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %7 = nn.compare ge, %x, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nn.compare eq
  %8 = nn.compare eq, %i, %i : tensor<4xi32>, tensor<4xi32>
  // CHECK: nn.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x8xi1>, tensor<4x8xf32>, tensor<f32>
  %9 = nn.where %m, %x, %s : tensor<1x8xi1>, tensor<4x8xf32>, tensor<f32>
  // CHECK: nn.cast %{{.*}} : tensor<4x8xf32> to bf16
  %10 = nn.cast %x : tensor<4x8xf32> to bf16
  // CHECK: nn.cast %{{.*}} : tensor<1x8xi1> to i64
  %11 = nn.cast %m : tensor<1x8xi1> to i64
  // CHECK: nn.pow %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
  %12 = nn.pow %i, %i : tensor<4xi32>, tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<2x4x16xf32>, %w: tensor<16x8xf32>, %img: tensor<1x4x8x8xf32>,
                        %f: tensor<8x2x3x3xf32>, %bias: tensor<8xf32>, %dw: tensor<4x1x3x3xf32>,
                        %seq: tensor<1x4x8xf32>, %vol: tensor<1x4x4x4x4xf32>) {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  %0 = nn.matmul %a, %w : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  // CHECK: nn.conv2d %{{.*}}, %{{.*}}, %{{.*}} {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
  %1 = nn.conv2d %img, %f, %bias {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>}
      : tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
  // Depthwise, strided and dilated, without bias.
  // CHECK: nn.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, groups = 4 : i64, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x2x2xf32>
  %2 = nn.conv2d %img, %dw {groups = 4 : i64, strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>}
      : tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32> -> tensor<1x4x2x2xf32>
  // CHECK: nn.max_pool %{{.*}} {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %3 = nn.max_pool %img {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK: nn.max_pool %{{.*}} {ceil_mode = true, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  %4 = nn.max_pool %img {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = true} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  // CHECK: nn.avg_pool %{{.*}} {count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %5 = nn.avg_pool %img {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  // 1-D and 3-D windows.
  // CHECK: nn.max_pool %{{.*}} {kernel = array<i64: 3>, padding = array<i64: 1, 1>} : tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  %8 = nn.max_pool %seq {kernel = array<i64: 3>, padding = array<i64: 1, 1>} : tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  // CHECK: nn.avg_pool %{{.*}} {ceil_mode = true, dilations = array<i64: 2, 1, 1>, kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 2, 2>} : tensor<1x4x4x4x4xf32> -> tensor<1x4x2x2x2xf32>
  %9 = nn.avg_pool %vol {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 2, 2>, dilations = array<i64: 2, 1, 1>, ceil_mode = true} : tensor<1x4x4x4x4xf32> -> tensor<1x4x2x2x2xf32>
  // The order of the indices is printed only when it is not row-major.
  // CHECK: nn.max_pool_with_indices %{{.*}} {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  %10:2 = nn.max_pool_with_indices %img {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>
  // CHECK: nn.max_pool_with_indices %{{.*}} order = column_major {kernel = array<i64: 3>, padding = array<i64: 1, 1>} : tensor<1x4x8xf32> -> tensor<1x4x8xf32>, tensor<1x4x8xi64>
  %11:2 = nn.max_pool_with_indices %seq order = column_major {kernel = array<i64: 3>, padding = array<i64: 1, 1>} : tensor<1x4x8xf32> -> tensor<1x4x8xf32>, tensor<1x4x8xi64>
  // CHECK: nn.global_avg_pool2d %{{.*}} : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  %6 = nn.global_avg_pool2d %img : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  // CHECK: nn.global_max_pool2d %{{.*}} : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  %7 = nn.global_max_pool2d %img : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>, %i: tensor<4x8xi64>,
                      %img: tensor<2x16x8x8xf32>, %c: tensor<16xf32>, %logits: tensor<4x16x100xf32>,
                      %labels: tensor<4x16xi64>) {
  // CHECK: nn.reduce_sum %{{.*}} axes = [2] {keepdims = true} : tensor<2x16x64xf32> -> tensor<2x16x1xf32>
  %0 = nn.reduce_sum %x axes = [2] {keepdims = true} : tensor<2x16x64xf32> -> tensor<2x16x1xf32>
  // CHECK: nn.reduce_mean %{{.*}} axes = [0, 2] : tensor<2x16x64xf32> -> tensor<16xf32>
  %1 = nn.reduce_mean %x axes = [0, 2] : tensor<2x16x64xf32> -> tensor<16xf32>
  // CHECK: nn.reduce_max %{{.*}} axes = [1] : tensor<4x8xi64> -> tensor<4xi64>
  %2 = nn.reduce_max %i axes = [1] : tensor<4x8xi64> -> tensor<4xi64>
  // CHECK: nn.reduce_min %{{.*}} axes = [] : tensor<4x8xi64> -> tensor<4x8xi64>
  %3 = nn.reduce_min %i axes = [] : tensor<4x8xi64> -> tensor<4x8xi64>
  // CHECK: nn.softmax %{{.*}} axis = 2 : tensor<2x16x64xf32>
  %4 = nn.softmax %x axis = 2 : tensor<2x16x64xf32>
  // CHECK: nn.log_softmax %{{.*}} axis = 0 : tensor<2x16x64xf32>
  %5 = nn.log_softmax %x axis = 0 : tensor<2x16x64xf32>
  // CHECK: nn.layer_norm %{{.*}} scale(%{{.*}} : tensor<64xf32>) bias(%{{.*}} : tensor<64xf32>) axis = 2 : tensor<2x16x64xf32>
  %6 = nn.layer_norm %x scale(%g : tensor<64xf32>) bias(%b : tensor<64xf32>) axis = 2 : tensor<2x16x64xf32>
  // CHECK: nn.layer_norm %{{.*}} bias(%{{.*}} : tensor<64xf32>) axis = 2 {epsilon = 9.9999999999999995E-7 : f64} : tensor<2x16x64xf32>
  %7 = nn.layer_norm %x bias(%b : tensor<64xf32>) axis = 2 {epsilon = 1.0e-6 : f64} : tensor<2x16x64xf32>
  // CHECK: nn.layer_norm %{{.*}} axis = 1 : tensor<2x16x64xf32>
  %8 = nn.layer_norm %x axis = 1 : tensor<2x16x64xf32>
  // CHECK: nn.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  %9 = nn.batch_norm %img, %c, %c, %c, %c : tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} class_axis = 2 : tensor<4x16x100xf32>, tensor<4x16xi64> -> tensor<f32>
  %10 = nn.cross_entropy %logits, %labels class_axis = 2 : tensor<4x16x100xf32>, tensor<4x16xi64> -> tensor<f32>
  // CHECK: nn.cross_entropy %{{.*}}, %{{.*}} class_axis = 2 {ignore_index = -100 : i64}
  %11 = nn.cross_entropy %logits, %labels class_axis = 2 {ignore_index = -100 : i64} : tensor<4x16x100xf32>, tensor<4x16xi64> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @movement
func.func @movement(%t: tensor<1000x64xf32>, %tok: tensor<4x16xi64>, %x: tensor<4x64xf32>, %a: tensor<2x3xf32>,
                    %b: tensor<2x5xf32>, %v: tensor<8xf32>, %s: tensor<1x8x1xf32>, %q: tensor<4x16x192xf32>,
                    %e: tensor<i32>) {
  // CHECK: nn.gather %{{.*}}[%{{.*}}] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  %0 = nn.gather %t[%tok] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  // A scalar index drops the axis.
  // CHECK: nn.gather %{{.*}}[%{{.*}}] axis = 1 : tensor<1000x64xf32>, tensor<i32> -> tensor<1000xf32>
  %1 = nn.gather %t[%e] axis = 1 : tensor<1000x64xf32>, tensor<i32> -> tensor<1000xf32>
  // The transpose of the first gather.
  // CHECK: nn.scatter_add %{{.*}}[%{{.*}}] axis = 0 size = 1000 : tensor<4x16x64xf32>, tensor<4x16xi64> -> tensor<1000x64xf32>
  %sa = nn.scatter_add %0[%tok] axis = 0 size = 1000 : tensor<4x16x64xf32>, tensor<4x16xi64> -> tensor<1000x64xf32>
  // CHECK: nn.reshape %{{.*}} [4, 4, 16] : tensor<4x64xf32> -> tensor<4x4x16xf32>
  %2 = nn.reshape %x [4, 4, 16] : tensor<4x64xf32> -> tensor<4x4x16xf32>
  // CHECK: nn.transpose %{{.*}} [1, 0] : tensor<4x64xf32> -> tensor<64x4xf32>
  %3 = nn.transpose %x [1, 0] : tensor<4x64xf32> -> tensor<64x4xf32>
  // CHECK: nn.concat %{{.*}}, %{{.*}} axis = 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
  %4 = nn.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
  // CHECK: nn.slice %{{.*}} offsets = [0, 63] sizes = [4, 32] strides = [1, -2] : tensor<4x64xf32> -> tensor<4x32xf32>
  %5 = nn.slice %x offsets = [0, 63] sizes = [4, 32] strides = [1, -2] : tensor<4x64xf32> -> tensor<4x32xf32>
  // CHECK: %{{.*}}:3 = nn.split %{{.*}} axis = 2 sizes = [64, 64, 64] : tensor<4x16x192xf32> -> tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>
  %6:3 = nn.split %q axis = 2 sizes = [64, 64, 64] : tensor<4x16x192xf32> -> tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>
  // CHECK: nn.broadcast_to %{{.*}} [4, 8] : tensor<8xf32> -> tensor<4x8xf32>
  %7 = nn.broadcast_to %v [4, 8] : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: nn.squeeze %{{.*}} axes = [0, 2] : tensor<1x8x1xf32> -> tensor<8xf32>
  %8 = nn.squeeze %s axes = [0, 2] : tensor<1x8x1xf32> -> tensor<8xf32>
  // CHECK: nn.unsqueeze %{{.*}} axes = [0, 2] : tensor<8xf32> -> tensor<1x8x1xf32>
  %9 = nn.unsqueeze %v axes = [0, 2] : tensor<8xf32> -> tensor<1x8x1xf32>
  // CHECK: nn.pad %{{.*}} low = [0, 1] high = [0, 2] value = 0.000000e+00 : f32 : tensor<2x3xf32> -> tensor<2x6xf32>
  %10 = nn.pad %a low = [0, 1] high = [0, 2] value = 0.0 : f32 : tensor<2x3xf32> -> tensor<2x6xf32>
  // CHECK: nn.pad %{{.*}} low = [1, 1] high = [1, 1] mode = reflect : tensor<2x3xf32> -> tensor<4x5xf32>
  %11 = nn.pad %a low = [1, 1] high = [1, 1] mode = reflect : tensor<2x3xf32> -> tensor<4x5xf32>
  // CHECK: nn.pad %{{.*}} low = [0, 0] high = [3, 0] mode = edge : tensor<2x3xf32> -> tensor<5x3xf32>
  %12 = nn.pad %a low = [0, 0] high = [3, 0] mode = edge : tensor<2x3xf32> -> tensor<5x3xf32>
  // CHECK: nn.pad %{{.*}} low = [0, 4] high = [1, 0] mode = wrap : tensor<2x3xf32> -> tensor<3x7xf32>
  %15 = nn.pad %a low = [0, 4] high = [1, 0] mode = wrap : tensor<2x3xf32> -> tensor<3x7xf32>
  // CHECK: nn.trilu %{{.*}} lower k = 0 : tensor<2x3xf32>
  %13 = nn.trilu %a lower k = 0 : tensor<2x3xf32>
  // CHECK: nn.trilu %{{.*}} upper k = -1 : tensor<2x3xf32>
  %14 = nn.trilu %a upper k = -1 : tensor<2x3xf32>
  return
}

// Dynamic dimensions flow through inference.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x64xf32>, %w: tensor<64x8xf32>) -> tensor<?x8xf32> {
  // CHECK: nn.matmul %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x8xf32> -> tensor<?x8xf32>
  %0 = nn.matmul %x, %w : tensor<?x64xf32>, tensor<64x8xf32> -> tensor<?x8xf32>
  // CHECK: nn.relu %{{.*}} : tensor<?x8xf32>
  %1 = nn.relu %0 : tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// Optimizer updates: the scalars take the parameter's element type, the
// hyper-parameters print (shortest round-trip) when they differ from their
// defaults.
// CHECK-LABEL: func.func @optimizer_updates
func.func @optimizer_updates(%w: tensor<4x2xf32>, %g: tensor<4x2xf32>, %s: tensor<4x2xf32>, %lr: tensor<f32>, %c: tensor<f32>) {
  // CHECK: nn.sgd_update %{{.*}}, %{{.*}} lr(%{{.*}}) : tensor<4x2xf32>
  %0 = nn.sgd_update %w, %g lr(%lr) : tensor<4x2xf32>
  // CHECK: nn.sgd_update %{{.*}}, %{{.*}} momentum_buffer(%{{.*}}) lr(%{{.*}}) clip(%{{.*}}) momentum = 0.9 weight_decay = 0.01 : tensor<4x2xf32>
  %1, %2 = nn.sgd_update %w, %g momentum_buffer(%s) lr(%lr) clip(%c) momentum = 0.9 weight_decay = 0.01 : tensor<4x2xf32>
  // CHECK: nn.adamw_update %{{.*}}, %{{.*}} state(%{{.*}}, %{{.*}}) lr(%{{.*}}) bias_correction(%{{.*}}, %{{.*}}) : tensor<4x2xf32>
  %3, %4, %5 = nn.adamw_update %w, %g state(%s, %s) lr(%lr) bias_correction(%c, %c) : tensor<4x2xf32>
  // CHECK: nn.adamw_update %{{.*}}, %{{.*}} state(%{{.*}}, %{{.*}}) lr(%{{.*}}) bias_correction(%{{.*}}, %{{.*}}) clip(%{{.*}}) beta1 = 0.8 beta2 = 0.99 eps = 1.0E-6 weight_decay = 0.1 : tensor<4x2xf32>
  %6, %7, %8 = nn.adamw_update %w, %g state(%s, %s) lr(%lr) bias_correction(%c, %c) clip(%c) beta1 = 0.8 beta2 = 0.99 eps = 1.0e-6 weight_decay = 0.1 : tensor<4x2xf32>
  return
}
