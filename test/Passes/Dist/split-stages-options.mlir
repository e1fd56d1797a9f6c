// -dist-split-stages names what is wrong with its options.
// RUN: not loom-opt %s -dist-split-stages="stages=2 stage=0 chunks=2" 2>&1 | FileCheck %s --check-prefix=CHUNKS
// RUN: not loom-opt %s -dist-split-stages="stages=2 stage=0 recompute=some" 2>&1 | FileCheck %s --check-prefix=RECOMPUTE
// RUN: not loom-opt %s -dist-split-stages="stages=2 stage=0 schedule=dualpipe" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not loom-opt %s -dist-split-stages="stages=2 stage=2" 2>&1 | FileCheck %s --check-prefix=STAGE
// CHUNKS: error: -dist-split-stages: 2 chunks per stage (more than 1 only with the interleaved schedule)
// RECOMPUTE: error: -dist-split-stages: unknown recomputation 'some' (off, full, selective)
// SCHEDULE: error: -dist-split-stages: unknown schedule 'dualpipe' (gpipe, 1f1b, interleaved, zb1p)
// STAGE: error: -dist-split-stages: stage 2 of 2 stages (a pipeline has at least 2)
dist.mesh @m axes [<"pp" = 2, intra_node>]
