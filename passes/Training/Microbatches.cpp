//===- Microbatches.cpp - Gradient accumulation as a microbatch loop ------===//
//
// With grad-accum K the step takes K times the model's batch and runs the
// forward and backward pass once per microbatch, inside a dist.microbatches
// loop: the loop is what a pipeline schedule orders and what
// -dist-unroll-microbatches turns into straight code.
//
//===----------------------------------------------------------------------===//

#include "Math.h"
#include "TrainingStep.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Passes/NN/Autodiff.h"

using namespace mlir;
using namespace loom;
using namespace loom::training;

FailureOr<Value> loom::training::buildMicrobatchLoop(
    func::FuncOp fn, OpBuilder &b, ArrayRef<Operation *> forward, Value loss,
    Value lossScale, unsigned numDataInputs, int64_t count,
    MutableArrayRef<Trained> trained) {
  Location loc = fn.getLoc();
  Math m{b, loc, b.getF32Type()};
  SmallVector<Value> dataArgs;
  for (unsigned i = 0; i < numDataInputs; ++i) {
    BlockArgument arg = fn.getArgument(i);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 || !type.hasStaticShape())
      return fn.emitError("--grad-accum needs every input to have a batch "
                          "dimension first; input #")
             << i << " is " << arg.getType();
    dataArgs.push_back(arg);
  }
  // The inputs take `count` times the batch; the loop hands the body one
  // model-sized microbatch of each.
  for (Value arg : dataArgs) {
    auto micro = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> big(micro.getShape());
    big[0] *= count;
    arg.setType(micro.clone(big));
  }
  SmallVector<Type> argTypes;
  for (BlockArgument a : fn.getArguments())
    argTypes.push_back(a.getType());
  fn.setType(FunctionType::get(fn.getContext(), argTypes,
                               fn.getFunctionType().getResults()));

  Value seed = m.mul(lossScale, 1.0 / double(count));
  SmallVector<Value> targets;
  SmallVector<Type> gradTypes;
  for (Trained &t : trained) {
    targets.push_back(t.param.getResult());
    gradTypes.push_back(t.param.getType());
  }
  // The body: the model on one microbatch, then its gradients. The loop's
  // results are known once the gradients are: the ops are gathered in a
  // first loop whose body a second one, with the results, takes over.
  auto loop = b.create<dist::MicrobatchesOp>(loc, TypeRange{}, dataArgs, count);
  Block &body = loop.getBodyBlock();
  for (Operation *op : forward)
    op->moveBefore(&body, body.end());
  for (auto [arg, microArg] : llvm::zip(dataArgs, body.getArguments()))
    arg.replaceUsesWithIf(microArg, [&](OpOperand &use) {
      return loop->isProperAncestor(use.getOwner());
    });
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  SmallVector<Value> grads;
  // What the backward pass builds is marked `dist.backward`, and each op's
  // gradient ops take its `dist.stage`: a pipeline schedule runs them as the
  // microbatch's backward unit, on the stage of the op they differentiate.
  auto mark = [&](Operation *built, Operation *of) {
    built->setAttr(dist::kBackwardAttrName, inner.getUnitAttr());
    if (Attribute stage = of ? of->getAttr(dist::kStageAttrName) : nullptr)
      if (!built->hasAttr(dist::kStageAttrName))
        built->setAttr(dist::kStageAttrName, stage);
  };
  if (failed(buildGradients(inner, loc, forward, loss, seed, targets, grads,
                            mark)))
    return failure();
  // The loop yields the gradients that flow, then the loss.
  SmallVector<Value> yields;
  SmallVector<Type> types;
  for (Value g : grads)
    if (g) {
      yields.push_back(g);
      types.push_back(g.getType());
    }
  yields.push_back(loss);
  types.push_back(loss.getType());
  inner.create<dist::YieldOp>(loc, yields);
  b.setInsertionPoint(loop);
  auto typed = b.create<dist::MicrobatchesOp>(loc, types, dataArgs, count);
  typed.getBody().takeBody(loop.getBody());
  loop.erase();
  b.setInsertionPointAfter(typed);
  unsigned next = 0;
  for (auto [t, g] : llvm::zip(trained, grads))
    if (g)
      t.grad = typed.getResult(next++);
  return m.mul(typed.getResult(next), 1.0 / double(count));
}
