// Options the passes reject, each named; and the cross-entropy form's
// errors, which depend on the options too. The optimizer and the schedule
// are enum options: the option parser rejects other names.
// RUN: not loom-opt %s -nn-build-training-step 2>&1 | FileCheck %s --check-prefix=NOLOSS
// RUN: not loom-opt %s -nn-build-training-step="loss=l optimizer=adam" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not loom-opt %s -nn-build-training-step="loss=l lr=0" 2>&1 | FileCheck %s --check-prefix=LR
// RUN: not loom-opt %s -nn-build-training-step="loss=l momentum=1" 2>&1 | FileCheck %s --check-prefix=MOM
// RUN: not loom-opt %s -nn-build-training-step="loss=l beta2=1.5" 2>&1 | FileCheck %s --check-prefix=BETA
// RUN: not loom-opt %s -nn-build-training-step="loss=l eps=0" 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: not loom-opt %s -nn-build-training-step="loss=l weight-decay=-1" 2>&1 | FileCheck %s --check-prefix=WD
// RUN: not loom-opt %s -nn-build-training-step="loss=l lr-schedule=linear" 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: not loom-opt %s -nn-build-training-step="loss=l lr-schedule=cosine" 2>&1 | FileCheck %s --check-prefix=COS
// RUN: not loom-opt %s -nn-build-training-step="loss=l warmup=-2" 2>&1 | FileCheck %s --check-prefix=WARM
// RUN: not loom-opt %s -nn-build-training-step="loss=l grad-accum=0" 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: not loom-opt %s -nn-build-training-step="loss=l clip-grad-norm=-1" 2>&1 | FileCheck %s --check-prefix=CLIP
// RUN: not loom-opt %s -nn-build-training-step="loss=l" -dist-zero-layouts=stage=4 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -nn-build-training-step="loss=l freeze=(" 2>&1 | FileCheck %s --check-prefix=REGEX
// RUN: not loom-opt %s -nn-build-training-step="loss=l freeze=w" 2>&1 | FileCheck %s --check-prefix=FROZEN
// RUN: not loom-opt %s -nn-build-training-step="loss=l logits=y" 2>&1 | FileCheck %s --check-prefix=LOGITSONLY
// RUN: not loom-opt %s -nn-build-training-step="loss=cross_entropy" 2>&1 | FileCheck %s --check-prefix=NOLOGITS
// RUN: not loom-opt %s -nn-build-training-step="loss=cross_entropy logits=z" 2>&1 | FileCheck %s --check-prefix=BADLOGITS
// RUN: not loom-opt %s -nn-build-training-step="loss=cross_entropy logits=y labels=x" 2>&1 | FileCheck %s --check-prefix=CLASH
// RUN: not loom-opt %s -nn-build-training-step="loss=cross_entropy logits=l" 2>&1 | FileCheck %s --check-prefix=RANK0
// RUN: not loom-opt %s -nn-build-training-step="loss=l grad-accum=2" 2>&1 | FileCheck %s --check-prefix=NOBATCH
// loomc names the flag and the values it takes.
// RUN: not loomc %s --train --loss=l --optimizer=adam 2>&1 | FileCheck %s --check-prefix=LOOMC-OPT
// RUN: not loomc %s --train --loss=l --lr-schedule=linear 2>&1 | FileCheck %s --check-prefix=LOOMC-SCHED

// NOLOSS: error: training needs --loss: the name of a scalar output, or cross_entropy (with --logits and --labels); the model's outputs are y, l
// OPT: for the --optimizer option: Cannot find option named 'adam'!
// LR: error: training: --lr must be positive
// MOM: error: training: --momentum must be in [0, 1)
// BETA: error: training: --beta1 and --beta2 must be in [0, 1)
// EPS: error: training: --eps must be positive
// WD: error: training: --weight-decay must not be negative
// SCHED: for the --lr-schedule option: Cannot find option named 'linear'!
// COS: error: training: --lr-schedule=cosine needs --decay-steps N
// WARM: error: training: --warmup and --decay-steps must not be negative
// ACC: error: training: --grad-accum must be between 1 and 4096
// CLIP: error: training: --clip-grad-norm must not be negative
// ZERO: error: training: --zero must be 0, 1, 2 or 3
// REGEX: error: --freeze: invalid regular expression '('
// FROZEN: error: training: the model has no trainable parameters (--freeze matches them all)
// LOGITSONLY: error: --logits applies to --loss=cross_entropy only
// NOLOGITS: error: --loss=cross_entropy needs --logits=OUTPUT; the model's outputs are y, l
// BADLOGITS: error: --logits: the model has no output 'z'; its outputs are y, l
// CLASH: error: --labels: the model already has an input 'x'; name the labels input otherwise
// RANK0: error: --logits: output 'l' must be a float tensor of static shape with the classes last, not 'tensor<f32>'
// LOOMC-OPT: loomc: for the --optimizer option: must be sgd or adamw, not 'adam'
// LOOMC-SCHED: loomc: for the --lr-schedule option: must be constant or cosine, not 'linear'
// NOBATCH: error: --grad-accum needs every input to have a batch dimension first; input #1 is 'tensor<f32>'
func.func @main(%x: tensor<8x4xf32> {nn.name = "x"}, %s: tensor<f32> {nn.name = "s"}) -> (tensor<8x2xf32> {nn.name = "y"}, tensor<f32> {nn.name = "l"}) {
  %w = nn.parameter "w" = dense<0.5> : tensor<4x2xf32>
  %y = nn.matmul %x, %w : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  %q = nn.mul %y, %s : tensor<8x2xf32>, tensor<f32>
  %l = nn.reduce_mean %q axes = [0, 1] : tensor<8x2xf32> -> tensor<f32>
  return %y, %l : tensor<8x2xf32>, tensor<f32>
}
