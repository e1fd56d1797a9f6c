//===- NNToLinalg.cpp - Lower nn ops to linalg, tensor, arith and math ----===//
//
// Every nn op becomes linalg/tensor/arith/math on tensors, so that upstream
// elementwise fusion, one-shot bufferization and the LLVM lowering apply.
// Elementwise ops become `linalg.generic`s whose indexing maps do the
// numpy broadcasting, which lets fusion merge whole chains into one loop
// nest. Contractions stay named ops (`linalg.matmul`, `batch_matmul`,
// `*_transpose_b`) so that a later pass can hand them to a BLAS library.
//
// f16 and bf16 arithmetic is done in f32 (extended on load, truncated on
// store): x86 has no native half arithmetic and the ONNX references compute
// the same way.
//
// arith computes on signless integers and LLVM has no 8-bit floats, so the
// pass first runs -nn-legalize-storage-types (LegalizeStorageTypes.cpp),
// which stores unsigned integers, 8-bit floats and 4-bit integers as
// signless ones and marks the ops whose meaning depended on the erased type
// (`nn.unsigned`, `nn.cast_from`). nn.cast converts them bit by bit.
//
// The patterns are split by op family, each file with its populate
// function: Elementwise.cpp, Named.cpp (contractions and pools),
// Reductions.cpp and DataMovement.cpp; Utils.h has the shared builders.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "loom/Conversion/Passes.h"
#include "loom/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace loom {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "loom/Conversion/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

struct ConvertNNToLinalg
    : loom::impl::ConvertNNToLinalgBase<ConvertNNToLinalg> {
  using ConvertNNToLinalgBase::ConvertNNToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NNDialect>();
    target.addLegalDialect<arith::ArithDialect, LLVM::LLVMDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect,
                           func::FuncDialect>();
    // The patterns build static shapes only.
    WalkResult dynamic = getOperation()->walk([](Operation *op) {
      if (!isa<NNDialect>(op->getDialect()))
        return WalkResult::advance();
      SmallVector<Type> types(op->getOperandTypes());
      llvm::append_range(types, op->getResultTypes());
      for (Type t : types)
        if (auto rt = dyn_cast<RankedTensorType>(t);
            rt && !rt.hasStaticShape()) {
          op->emitError("cannot lower an op on a tensor of dynamic shape (")
              << rt << ") to linalg; fix the model's input shapes";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
    if (failed(legalizeNNStorageTypes(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    populateNNToLinalgPatterns(patterns, checkIndices);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void loom::populateNNToLinalgPatterns(RewritePatternSet &patterns,
                                      bool checkIndices) {
  populateNNToLinalgElementwisePatterns(patterns);
  populateNNToLinalgNamedPatterns(patterns);
  populateNNToLinalgReductionPatterns(patterns);
  populateNNToLinalgDataMovementPatterns(patterns, checkIndices);
}
