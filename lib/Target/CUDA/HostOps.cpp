//===- HostOps.cpp - What the host schedule runs without a kernel ---------===//

#include "HostOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace loom::cuda;

namespace {

/// The matrix of logical dims (`rowDim`, `colDim`) of a memref of `rank` 2
/// or 3 (dimension 0 the batch).
std::optional<GemmMatrix> matrixOf(Value v, int64_t rowDim, int64_t colDim) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(getStridesAndOffset(type, strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  GemmMatrix m;
  m.memref = v;
  m.offset = offset;
  m.rows = type.getDimSize(rowDim);
  m.cols = type.getDimSize(colDim);
  int64_t rs = strides[rowDim], cs = strides[colDim];
  // A dimension of one element has no meaningful stride.
  if (m.cols == 1)
    cs = 1;
  if (m.rows == 1)
    rs = std::max<int64_t>(m.cols, 1);
  if (cs == 1 && rs >= std::max<int64_t>(m.cols, 1)) {
    m.rowMajor = true;
    m.ld = rs;
  } else if (rs == 1 && cs >= std::max<int64_t>(m.rows, 1)) {
    m.rowMajor = false;
    m.ld = cs;
  } else {
    return std::nullopt;
  }
  m.batchStride = type.getRank() == 3 ? strides[0] : 0;
  if (type.getRank() == 3 && type.getDimSize(0) > 1 && m.batchStride <= 0)
    return std::nullopt;
  return m;
}

bool typesSupported(Type ab, Type b, Type c) {
  if (ab != b)
    return false;
  if (ab == c)
    return ab.isF32() || ab.isF64() || ab.isF16() || ab.isBF16();
  return (ab.isF16() || ab.isBF16()) && c.isF32();
}

} // namespace

std::optional<LibraryGemm> loom::cuda::matchLibraryGemm(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics())
    return std::nullopt;
  bool batched =
      isa<linalg::BatchMatmulOp, linalg::BatchMatmulTransposeBOp>(op);
  bool transB =
      isa<linalg::MatmulTransposeBOp, linalg::BatchMatmulTransposeBOp>(op);
  if (!batched && !transB && !isa<linalg::MatmulOp>(op) &&
      !isa<linalg::MatmulTransposeBOp>(op))
    return std::nullopt;
  // Named matmuls may carry a cast; only the plain form maps to cuBLASLt.
  if (op->getNumOperands() != 3)
    return std::nullopt;
  Value a = op->getOperand(0), b = op->getOperand(1), c = op->getOperand(2);
  Type at = getElementTypeOrSelf(a.getType());
  Type bt = getElementTypeOrSelf(b.getType());
  Type ct = getElementTypeOrSelf(c.getType());
  if (!typesSupported(at, bt, ct))
    return std::nullopt;
  int64_t base = batched ? 1 : 0;
  std::optional<GemmMatrix> ma = matrixOf(a, base, base + 1);
  std::optional<GemmMatrix> mb =
      transB ? matrixOf(b, base + 1, base) : matrixOf(b, base, base + 1);
  std::optional<GemmMatrix> mc = matrixOf(c, base, base + 1);
  if (!ma || !mb || !mc || !mc->rowMajor)
    return std::nullopt;
  LibraryGemm g{*ma, *mb, *mc};
  g.m = mc->rows;
  g.n = mc->cols;
  g.k = ma->cols;
  g.batch = batched ? cast<MemRefType>(c.getType()).getDimSize(0) : 1;
  g.abType = at;
  g.cType = ct;
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0 || ma->rows != g.m ||
      mb->rows != g.k || mb->cols != g.n)
    return std::nullopt;
  // cuBLASLt's batch count is 32-bit.
  if (g.batch > INT32_MAX)
    return std::nullopt;
  return g;
}

bool loom::cuda::isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() &&
         memref::isStaticShapeAndContiguousRowMajor(memref);
}

std::optional<HostFill> loom::cuda::matchHostFill(Operation *op) {
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !fill.hasPureBufferSemantics() ||
      !isContiguous(fill.getOutputs()[0].getType()))
    return std::nullopt;
  Attribute value;
  if (!matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return std::nullopt;
  APInt bits;
  if (auto f = dyn_cast<FloatAttr>(value))
    bits = f.getValue().bitcastToAPInt();
  else if (auto i = dyn_cast<IntegerAttr>(value))
    bits = i.getValue();
  else
    return std::nullopt;
  unsigned width = bits.getBitWidth();
  // The buffer holds whole bytes per element: i1 is stored as a byte.
  if (width == 1)
    bits = bits.zext(8), width = 8;
  // A wide value whose halves repeat is a narrower pattern (zero, -1).
  while (width > 8 && bits.extractBits(width / 2, 0) ==
                          bits.extractBits(width / 2, width / 2)) {
    bits = bits.trunc(width / 2);
    width /= 2;
  }
  if (width != 8 && width != 16 && width != 32)
    return std::nullopt;
  HostFill h;
  h.memref = fill.getOutputs()[0];
  h.pattern = static_cast<uint32_t>(bits.getZExtValue());
  h.patternBytes = static_cast<int>(width / 8);
  return h;
}

bool loom::cuda::isHostCopy(Operation *op) {
  auto copy = dyn_cast<memref::CopyOp>(op);
  return copy && isContiguous(copy.getSource().getType()) &&
         isContiguous(copy.getTarget().getType());
}
