// RUN: loom-opt %s -nn-legalize-storage-types -verify-diagnostics -split-input-file

// A 4-bit constant held in a resource blob cannot be widened to its i8
// storage in place (only dense elements are rewritten byte by byte).
func.func @int4_resource() -> tensor<2xi4> {
  // expected-error@+1 {{cannot store attribute 'value' in a signless type}}
  %c = nn.constant dense_resource<blob> : tensor<2xi4>
  return %c : tensor<2xi4>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000107"
    }
  }
#-}

