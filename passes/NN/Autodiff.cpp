//===- Autodiff.cpp - Reverse-mode differentiation of nn functions --------===//
//
// Builds, at the end of a function whose first result is a scalar loss, the
// gradients of that loss with respect to the function's parameters (the
// float `nn.parameter` values) or its float arguments, by walking the body
// backwards through each op's GradientOpInterface and summing gradients that
// meet at a value. The gradients become extra results named `grad:NAME`.
//
//===----------------------------------------------------------------------===//

#include "loom/Passes/NN/Autodiff.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/NN/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

namespace loom {
#define GEN_PASS_DEF_NNAUTODIFF
#include "NN/NNPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

bool isFloatTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && isa<FloatType>(rt.getElementType());
}

Value zerosLike(OpBuilder &b, Location loc, Type type) {
  auto rt = cast<RankedTensorType>(type);
  return b.create<nn::ConstantOp>(
      loc, DenseElementsAttr::get(rt, b.getFloatAttr(rt.getElementType(), 0)));
}

} // namespace

LogicalResult loom::buildGradients(OpBuilder &b, Location loc,
                                   ArrayRef<Operation *> ops, Value loss,
                                   Value seed, ArrayRef<Value> targets,
                                   SmallVectorImpl<Value> &targetGrads,
                                   GradientOpHook onBuilt) {
  // Only ops on a path from a target need a gradient rule (a frozen
  // embedding table's gather does not).
  llvm::DenseSet<Value> active(targets.begin(), targets.end());
  for (Operation *op : ops)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op->result_begin(), op->result_end());
  llvm::DenseMap<Value, Value> grads;
  grads[loss] = seed;
  // The ops built since `before`, for the hook.
  Block *block = b.getInsertionBlock();
  auto lastBefore = [&]() -> Operation * {
    Block::iterator ip = b.getInsertionPoint();
    return ip == block->begin() ? nullptr : &*std::prev(ip);
  };
  auto report = [&](Operation *before, Operation *of) {
    if (!onBuilt)
      return;
    for (Block::iterator it = before ? std::next(Block::iterator(before))
                                     : block->begin();
         it != b.getInsertionPoint(); ++it)
      onBuilt(&*it, of);
  };
  auto accumulate = [&](Value v, Value g) {
    auto it = grads.find(v);
    if (it == grads.end())
      grads[v] = g;
    else
      it->second = b.create<nn::AddOp>(loc, it->second, g);
  };
  for (Operation *op : llvm::reverse(ops)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      Value g = grads.lookup(r);
      resultGrads.push_back(g);
      any |= static_cast<bool>(g);
    }
    // Ops on no path from a target (sources, integer arithmetic, frozen
    // parts) need no gradient.
    if (!any || llvm::none_of(op->getOperands(), [&](Value v) {
          return isFloatTensor(v.getType()) && active.contains(v);
        }))
      continue;
    auto vjp = dyn_cast<GradientOpInterface>(op);
    if (!vjp)
      return op->emitError("cannot differentiate through '")
             << op->getName() << "': it has no gradient rule";
    SmallVector<Value> operandGrads(op->getNumOperands());
    Operation *before = lastBefore();
    auto reportThisOp = llvm::make_scope_exit([&] { report(before, op); });
    if (failed(vjp.buildVJP(b, resultGrads, operandGrads)))
      return op->emitError("the gradient rule of '")
             << op->getName() << "' failed";
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && isFloatTensor(operand.getType()))
        accumulate(operand, g);
  }
  targetGrads.clear();
  for (Value t : targets)
    targetGrads.push_back(grads.lookup(t));
  return success();
}

namespace {
LogicalResult differentiate(func::FuncOp fn, bool wrtArguments) {
  Block &body = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() == 0)
    return fn.emitError("cannot differentiate '")
           << fn.getName() << "': it returns nothing (the loss is result 0)";
  Value loss = ret.getOperand(0);
  auto lossType = dyn_cast<RankedTensorType>(loss.getType());
  if (!lossType || !isFloatTensor(lossType) || lossType.getNumElements() != 1)
    return fn.emitError("cannot differentiate '")
           << fn.getName() << "': result 0 (the loss) must be a float scalar, "
           << "not " << loss.getType();

  OpBuilder b(ret);
  Location loc = fn.getLoc();
  Value seed = b.create<nn::ConstantOp>(
      loc, DenseElementsAttr::get(
               lossType, b.getFloatAttr(lossType.getElementType(), 1)));
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  // What the gradients are of, with their names.
  SmallVector<std::pair<Value, std::string>> targets;
  if (wrtArguments) {
    for (BlockArgument arg : fn.getArguments())
      if (isFloatTensor(arg.getType())) {
        auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    nn::kNameAttrName);
        targets.push_back(
            {arg,
             name ? name.str() : "arg" + std::to_string(arg.getArgNumber())});
      }
  } else {
    for (Operation *op : ops)
      if (auto param = dyn_cast<nn::ParameterOp>(op))
        if (isFloatTensor(param.getType()))
          targets.push_back({param.getResult(), param.getName().str()});
  }

  SmallVector<Value> values, grads;
  for (auto &target : targets)
    values.push_back(target.first);
  if (failed(buildGradients(b, loc, ops, loss, seed, values, grads)))
    return failure();
  SmallVector<Value> results(ret.getOperands());
  unsigned first = results.size();
  for (auto [value, g] : llvm::zip(values, grads))
    results.push_back(g ? g : zerosLike(b, loc, value.getType()));
  b.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  SmallVector<Type> resultTypes;
  for (Value v : results)
    resultTypes.push_back(v.getType());
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < first; ++i)
    resultAttrs.push_back(fn.getResultAttrDict(i));
  fn.setType(
      FunctionType::get(fn.getContext(), fn.getArgumentTypes(), resultTypes));
  for (unsigned i = 0; i < first; ++i)
    if (resultAttrs[i])
      fn.setResultAttrs(i, resultAttrs[i]);
  for (auto [i, target] : llvm::enumerate(targets))
    fn.setResultAttr(first + i, nn::kNameAttrName,
                     b.getStringAttr("grad:" + target.second));
  return success();
}

struct NNAutodiffPass : loom::impl::NNAutodiffBase<NNAutodiffPass> {
  using Base::Base;
  void runOnOperation() override {
    if (wrt != "parameters" && wrt != "arguments") {
      getOperation().emitError("-nn-autodiff: wrt must be parameters or "
                               "arguments, not '")
          << wrt << "'";
      return signalPassFailure();
    }
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        if (failed(differentiate(fn, wrt == "arguments")))
          return signalPassFailure();
  }
};
} // namespace
