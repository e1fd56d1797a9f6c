//===- NNState.h - Model state that is not trained --------------*- C++ -*-===//
//
// A model may carry state that a forward pass updates rather than an
// optimizer (BatchNormalization's running mean and variance in training
// mode). Such a parameter's new value is a result of the model function
// named `state:NAME`, NAME being the `nn.parameter` it replaces. The ONNX
// importer writes these results when asked (ImportOptions::stateResults);
// the training step returns them as the parameter's update and never gives
// the parameter a gradient.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_NN_NNSTATE_H
#define LOOM_DIALECT_NN_NNSTATE_H

#include "llvm/ADT/StringRef.h"

namespace loom::nn {

inline constexpr llvm::StringLiteral kStateResultPrefix = "state:";

/// The parameter a result named `resultName` updates, or "" when the name
/// does not follow the `state:NAME` convention.
inline llvm::StringRef getStateResultParameter(llvm::StringRef resultName) {
  if (!resultName.consume_front(kStateResultPrefix))
    return "";
  return resultName;
}

} // namespace loom::nn

#endif // LOOM_DIALECT_NN_NNSTATE_H
