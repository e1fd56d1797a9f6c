// RUN: loom-opt %s -nn-print-sharding-rules -split-input-file -verify-diagnostics -o /dev/null

// Rules as propagation will read them in real models.

func.func @attention_block(%x: tensor<4x16x64xf32>, %wqkv: tensor<64x192xf32>, %mask: tensor<16x16xi1>, %ninf: tensor<f32>) {
  // expected-remark@+1 {{([i, j, l], [l, k]) -> ([i, j, k]) {i=4, j=16, k=192, l=64} reduction={l}}}
  %qkv = nn.matmul %x, %wqkv : tensor<4x16x64xf32>, tensor<64x192xf32> -> tensor<4x16x192xf32>
  // expected-remark@+1 {{([i, j, k]) -> ([i, j, l], [i, j, m], [i, j, n]) {i=4, j=16, k=192, l=64, m=64, n=64} replicated={k, l, m, n}}}
  %q, %k, %v = nn.split %qkv axis = 2 sizes = [64, 64, 64] : tensor<4x16x192xf32> -> tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<4x16x64xf32>
  // Heads split out of the hidden dimension: the head count is its own factor.
  // expected-remark@+1 {{([i, j, k*l]) -> ([i, j, k, l]) {i=4, j=16, k=4, l=16}}}
  %qh = nn.reshape %q [4, 16, 4, 16] : tensor<4x16x64xf32> -> tensor<4x16x4x16xf32>
  // expected-remark@+1 {{([i, j, k, l]) -> ([i, k, j, l]) {i=4, j=16, k=4, l=16}}}
  %qt = nn.transpose %qh [0, 2, 1, 3] : tensor<4x16x4x16xf32> -> tensor<4x4x16x16xf32>
  // expected-remark@+1 {{([i, j, k*l]) -> ([i, j, k, l]) {i=4, j=16, k=4, l=16}}}
  %kh = nn.reshape %k [4, 16, 4, 16] : tensor<4x16x64xf32> -> tensor<4x16x4x16xf32>
  // expected-remark@+1 {{([i, j, k, l]) -> ([i, k, l, j]) {i=4, j=16, k=4, l=16}}}
  %kt = nn.transpose %kh [0, 2, 3, 1] : tensor<4x16x4x16xf32> -> tensor<4x4x16x16xf32>
  // expected-remark@+1 {{([i, j, k, m], [i, j, m, l]) -> ([i, j, k, l]) {i=4, j=4, k=16, l=16, m=16} reduction={m}}}
  %s = nn.matmul %qt, %kt : tensor<4x4x16x16xf32>, tensor<4x4x16x16xf32> -> tensor<4x4x16x16xf32>
  // The mask broadcasts over batch and heads.
  // expected-remark@+1 {{([k, l], [i, j, k, l], []) -> ([i, j, k, l]) {i=4, j=4, k=16, l=16}}}
  %masked = nn.where %mask, %s, %ninf : tensor<16x16xi1>, tensor<4x4x16x16xf32>, tensor<f32>
  // Softmax over a sharded axis needs it whole.
  // expected-remark@+1 {{([i, j, k, l]) -> ([i, j, k, l]) {i=4, j=4, k=16, l=16} replicated={l}}}
  %p = nn.softmax %masked axis = 3 : tensor<4x4x16x16xf32>
  return
}

// -----

func.func @embedding_and_loss(%table: tensor<1000x64xf32>, %tokens: tensor<4x16xi64>, %g: tensor<64xf32>,
                              %head: tensor<64x1000xf32>, %labels: tensor<4x16xi64>) {
  // A sharded vocabulary is a masked lookup whose results add up: the
  // gathered axis is a sum reduction.
  // expected-remark@+1 {{([i, j], [k, l]) -> ([k, l, j]) {i=1000, j=64, k=4, l=16} reduction={i}}}
  %e = nn.gather %table[%tokens] axis = 0 : tensor<1000x64xf32>, tensor<4x16xi64> -> tensor<4x16x64xf32>
  // LayerNorm over a sharded hidden dimension needs it whole.
  // expected-remark@+1 {{([i, j, k], [k]) -> ([i, j, k]) {i=4, j=16, k=64} replicated={k}}}
  %n = nn.layer_norm %e scale(%g : tensor<64xf32>) axis = 2 : tensor<4x16x64xf32>
  // expected-remark@+1 {{([i, j, l], [l, k]) -> ([i, j, k]) {i=4, j=16, k=1000, l=64} reduction={l}}}
  %logits = nn.matmul %n, %head : tensor<4x16x64xf32>, tensor<64x1000xf32> -> tensor<4x16x1000xf32>
  // expected-remark@+1 {{([i, j, k], [i, j]) -> ([]) {i=4, j=16, k=1000} reduction={i:mean, j:mean} replicated={k}}}
  %loss = nn.cross_entropy %logits, %labels class_axis = 2 : tensor<4x16x1000xf32>, tensor<4x16xi64> -> tensor<f32>
  return
}

// -----

func.func @reshapes(%a: tensor<8x6xf32>, %b: tensor<2x3x4xf32>, %c: tensor<6x4xf32>) {
  // Merging dimensions: both survive as factors of the merged one.
  // expected-remark@+1 {{([i, j]) -> ([i*j]) {i=8, j=6}}}
  %0 = nn.reshape %a [48] : tensor<8x6xf32> -> tensor<48xf32>
  // Re-splitting at a different boundary refines into common factors.
  // expected-remark@+1 {{([i, j*k]) -> ([i*j, k]) {i=8, j=2, k=3}}}
  %1 = nn.reshape %a [16, 3] : tensor<8x6xf32> -> tensor<16x3xf32>
  // expected-remark@+1 {{([i, j, k]) -> ([i*j, k]) {i=2, j=3, k=4}}}
  %2 = nn.reshape %b [6, 4] : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // No common refinement: each side keeps its own replicated factors.
  // expected-remark@+1 {{([i, j]) -> ([k, l]) {i=6, j=4, k=4, l=6} replicated={i, j, k, l}}}
  %3 = nn.reshape %c [4, 6] : tensor<6x4xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @non_nn_ops_are_skipped(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
