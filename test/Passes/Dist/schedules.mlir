// The order in which each stage runs its units (F: a microbatch's forward
// ops, B: its backward ops or, for zb1p, the input-gradient part, W: the
// weight-gradient part; .c: model chunk c) for 4 microbatches.
// DEFINE: %{step} = -dist-assign-stages=stages=4 -nn-build-training-step="loss=l optimizer=sgd grad-accum=4 microbatch-loop=1" -nn-expand-optimizers
// RUN: for s in 0 1 2 3; do loom-opt %S/Inputs/mlp4-pp4.mlir %{step} -dist-split-stages="stages=4 stage=$s schedule=gpipe" -dist-unroll-microbatches=print-units=1 -o /dev/null 2>&1; done | FileCheck %s --check-prefix=GPIPE
// RUN: for s in 0 1 2 3; do loom-opt %S/Inputs/mlp4-pp4.mlir %{step} -dist-split-stages="stages=4 stage=$s schedule=1f1b" -dist-unroll-microbatches=print-units=1 -o /dev/null 2>&1; done | FileCheck %s --check-prefix=ONEF
// RUN: for s in 0 1 2 3; do loom-opt %S/Inputs/mlp4-pp4.mlir %{step} -dist-split-stages="stages=4 stage=$s schedule=zb1p" -dist-unroll-microbatches=print-units=1 -o /dev/null 2>&1; done | FileCheck %s --check-prefix=ZB
// RUN: sed 's/"pp" = 4/"pp" = 2/' %S/Inputs/mlp4-pp4.mlir > %t.pp2.mlir
// RUN: for s in 0 1; do loom-opt %t.pp2.mlir %{step} -dist-split-stages="stages=2 stage=$s schedule=interleaved chunks=2" -dist-unroll-microbatches=print-units=1 -o /dev/null 2>&1; done | FileCheck %s --check-prefix=INTERLEAVED

// GPipe runs every forward unit, then every backward unit.
// GPIPE: remark: stage 0 of 4 runs F0 F1 F2 F3 B0 B1 B2 B3
// GPIPE: remark: stage 3 of 4 runs F0 F1 F2 F3 B0 B1 B2 B3

// 1F1B warms stage s up with 3 - s forward units.
// ONEF: remark: stage 0 of 4 runs F0 F1 F2 F3 B0 B1 B2 B3
// ONEF: remark: stage 1 of 4 runs F0 F1 F2 B0 F3 B1 B2 B3
// ONEF: remark: stage 2 of 4 runs F0 F1 B0 F2 B1 F3 B2 B3
// ONEF: remark: stage 3 of 4 runs F0 B0 F1 B1 F2 B2 F3 B3

// ZB-H1 keeps 1F1B's forward and input-gradient order; stage s puts off up to s
// weight-gradient units.
// ZB: remark: stage 0 of 4 runs F0 F1 F2 F3 B0 W0 B1 W1 B2 W2 B3 W3
// ZB: remark: stage 1 of 4 runs F0 F1 F2 B0 F3 B1 W0 B2 W1 B3 W2 W3
// ZB: remark: stage 2 of 4 runs F0 F1 B0 F2 B1 F3 B2 W0 B3 W1 W2 W3
// ZB: remark: stage 3 of 4 runs F0 B0 F1 B1 F2 B2 F3 B3 W0 W1 W2 W3

// Megatron's interleaved 1F1B, two chunks per stage (virtual stages 0 and
// 2 on stage 0, 1 and 3 on stage 1): microbatches go through the chunks in
// groups of two.
// INTERLEAVED: remark: stage 0 of 2 runs F0 F1 F0.1 F1.1 F2 B0.1 F3 B1.1 F2.1 B0 F3.1 B1 B2.1 B3.1 B2 B3
// INTERLEAVED: remark: stage 1 of 2 runs F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3

// The interleaved schedule takes the microbatches in groups of one per stage.
// RUN: not loom-opt %t.pp2.mlir -dist-assign-stages=stages=4 -nn-build-training-step="loss=l optimizer=sgd grad-accum=3 microbatch-loop=1" -nn-expand-optimizers -dist-split-stages="stages=2 stage=0 schedule=interleaved chunks=2" -dist-unroll-microbatches -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUPS
// GROUPS: error: 'dist.microbatches' op cannot schedule 3 microbatches on 2 stages ('interleaved'): the interleaved schedule sends microbatches through the chunks in groups of one per stage: 3 microbatches are not a multiple of the 2 stages
