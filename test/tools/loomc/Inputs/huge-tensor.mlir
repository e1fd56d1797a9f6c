// 2^62 x 4 float32 elements: 2^66 bytes, more than an int64 counts.
func.func @main(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  return %x : tensor<4611686018427387904x4xf32>
}
