//===- HostSchedule.cpp - What the CUDA device runs on the host -----------===//

#include "HostSchedule.h"
#include "ArenaPlan.h"
#include "HostOps.h"
#include "loom/Target/Artifact/EntrySignature.h"
#include "loom/runtime/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace loom;
using namespace loom::cuda;

namespace {

enum class Space { Arg, Const, Arena };

struct Buffer {
  Space space;
  /// Arg: the entry argument's index.
  int64_t index = -1;
  /// Const and Arena: the byte offset in the constants or the arena.
  uint64_t offset = 0;
  uint64_t bytes = 0;
  /// The first and last instruction that touch it.
  int64_t first = -1, last = -1;
};

/// A view of a buffer: the type's static strides and offset are relative
/// to the buffer's first byte, since views keep the base pointer.
struct View {
  int64_t buffer;
  MemRefType type;
  int64_t elementBytes;
  int64_t offset;
  SmallVector<int64_t> strides;
};

struct Instruction {
  llvm::json::Object json;
  SmallVector<int64_t> touches;
  bool dead = false;
  /// A zero memset of a whole range: [buffer, byte offset, bytes].
  std::optional<std::array<int64_t, 3>> zeroFill;
};

FailureOr<int64_t> elementBytes(Type t, Location loc) {
  if (t.isIndex())
    return 8;
  if (t.isIntOrFloat())
    return std::max<int64_t>(1, (t.getIntOrFloatBitWidth() + 7) / 8);
  return emitError(loc) << "the cuda target cannot store " << t
                        << " in device memory";
}

/// Bytes of `n` elements of `bytes` each, or failure on overflow.
FailureOr<uint64_t> checkedBytes(int64_t n, int64_t bytes, Location loc) {
  int64_t out;
  if (n < 0 || bytes < 0 || llvm::MulOverflow(n, bytes, out) ||
      out > (int64_t(1) << 62))
    return emitError(loc) << "a buffer of " << n << " elements of " << bytes
                          << " bytes is too large";
  return static_cast<uint64_t>(out);
}

const char *typeName(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  return "?";
}

class ScheduleBuilder {
public:
  ScheduleBuilder(func::FuncOp fn, ArrayRef<RankedTensorType> bufferTypes)
      : fn(fn), bufferTypes(bufferTypes),
        module(fn->getParentOfType<ModuleOp>()) {}

  FailureOr<HostSchedule> build(const KernelImages &images);

private:
  LogicalResult addArguments();
  LogicalResult visit(Operation *op);
  FailureOr<int64_t> constantBuffer(memref::GetGlobalOp op);
  FailureOr<View> resolve(Value v, Operation *user);
  llvm::json::Array ref(const View &view, int64_t extraBytes = 0) {
    return llvm::json::Array{view.buffer,
                             view.offset * view.elementBytes + extraBytes};
  }
  size_t emit(llvm::json::Object json, ArrayRef<int64_t> touches);
  LogicalResult launch(gpu::LaunchFuncOp op);
  LogicalResult gemm(Operation *op, const LibraryGemm &g);
  LogicalResult fill(Operation *op, const HostFill &f);
  LogicalResult copy(memref::CopyOp op);
  LogicalResult collective(func::CallOp op);
  LogicalResult planArenaOffsets();

  func::FuncOp fn;
  ArrayRef<RankedTensorType> bufferTypes;
  ModuleOp module;
  std::vector<Buffer> buffers;
  DenseMap<Value, int64_t> roots;
  llvm::StringMap<int64_t> globals;
  std::string constants;
  std::vector<Instruction> instructions;
  DenseMap<int64_t, size_t> lastToucher;
  llvm::StringMap<int64_t> kernelIndex;
  std::vector<std::string> kernels;
  uint64_t arenaBytes = 0;
};

LogicalResult ScheduleBuilder::addArguments() {
  Block &body = fn.getBody().front();
  if (body.getNumArguments() != bufferTypes.size())
    return fn.emitError("internal error: the entry takes ")
           << body.getNumArguments() << " buffers, the signature "
           << bufferTypes.size();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape() ||
        type.getShape() != bufferTypes[i].getShape())
      return fn.emitError("internal error: entry argument ")
             << i << " is " << arg.getType() << ", not a buffer of "
             << bufferTypes[i];
    FailureOr<int64_t> eb = elementBytes(type.getElementType(), fn.getLoc());
    if (failed(eb))
      return failure();
    FailureOr<uint64_t> bytes =
        checkedBytes(type.getNumElements(), *eb, fn.getLoc());
    if (failed(bytes))
      return failure();
    roots[arg] = static_cast<int64_t>(buffers.size());
    buffers.push_back({Space::Arg, static_cast<int64_t>(i), 0, *bytes});
  }
  return success();
}

FailureOr<int64_t> ScheduleBuilder::constantBuffer(memref::GetGlobalOp op) {
  auto it = globals.find(op.getName());
  if (it != globals.end())
    return it->second;
  auto global = module.lookupSymbol<memref::GlobalOp>(op.getNameAttr());
  auto value =
      global ? dyn_cast_or_null<ElementsAttr>(global.getConstantInitValue())
             : nullptr;
  if (!global || !global.getConstant() || !value)
    return op.emitError("the cuda target needs '")
           << op.getName() << "' to be a constant with a value";
  std::string bytes;
  Type et = value.getElementType();
  if (et.isInteger(1)) {
    for (bool b : cast<DenseElementsAttr>(value).getValues<bool>())
      bytes.push_back(b ? 1 : 0);
  } else {
    bytes = tensorBytes(value);
  }
  FailureOr<int64_t> eb = elementBytes(et, op.getLoc());
  if (failed(eb))
    return failure();
  if (bytes.size() != static_cast<uint64_t>(value.getNumElements() * *eb))
    return op.emitError("constant '")
           << op.getName() << "' has " << bytes.size() << " bytes, expected "
           << value.getNumElements() * *eb;
  constants.resize(llvm::alignTo(constants.size(), LOOM_CUDA_BUFFER_ALIGNMENT),
                   '\0');
  int64_t id = static_cast<int64_t>(buffers.size());
  buffers.push_back({Space::Const, -1, constants.size(), bytes.size()});
  constants += bytes;
  globals[op.getName()] = id;
  return id;
}

FailureOr<View> ScheduleBuilder::resolve(Value v, Operation *user) {
  Value root = v;
  while (Operation *def = root.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::ReinterpretCastOp, memref::TransposeOp>(
            def))
      break;
    root = cast<ViewLikeOpInterface>(def).getViewSource();
  }
  auto it = roots.find(root);
  if (it == roots.end())
    return user->emitError("internal error: the cuda target cannot tell "
                           "which buffer this operand views");
  auto type = dyn_cast<MemRefType>(v.getType());
  View view;
  view.buffer = it->second;
  view.type = type;
  int64_t offset;
  if (!type || !type.hasStaticShape() ||
      failed(getStridesAndOffset(type, view.strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(view.strides, ShapedType::isDynamic))
    return user->emitError("the cuda target needs static shapes and layouts, "
                           "not ")
           << v.getType();
  view.offset = offset;
  FailureOr<int64_t> eb = elementBytes(type.getElementType(), user->getLoc());
  if (failed(eb))
    return failure();
  view.elementBytes = *eb;
  // Every element the view can reach lies in its buffer.
  if (type.getNumElements() > 0) {
    int64_t last = offset;
    for (auto [size, stride] : llvm::zip(type.getShape(), view.strides))
      last += (size - 1) * stride;
    if (offset < 0 || last < 0 ||
        static_cast<uint64_t>(last + 1) * *eb > buffers[view.buffer].bytes)
      return user->emitError("internal error: a view of ")
             << type << " reaches past its buffer of "
             << buffers[view.buffer].bytes << " bytes";
  }
  return view;
}

size_t ScheduleBuilder::emit(llvm::json::Object json,
                             ArrayRef<int64_t> touches) {
  size_t index = instructions.size();
  Instruction instr;
  instr.json = std::move(json);
  for (int64_t b : touches) {
    if (!llvm::is_contained(instr.touches, b))
      instr.touches.push_back(b);
    lastToucher[b] = index;
  }
  instructions.push_back(std::move(instr));
  return index;
}

LogicalResult ScheduleBuilder::launch(gpu::LaunchFuncOp op) {
  StringRef name = op.getKernelName().getValue();
  auto [it, inserted] =
      kernelIndex.try_emplace(name, static_cast<int64_t>(kernels.size()));
  if (inserted)
    kernels.push_back(name.str());
  auto constant = [&](Value v, int64_t &out) -> LogicalResult {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (!c || *c < 0 || *c > INT32_MAX)
      return op.emitError("the cuda target needs constant launch sizes");
    out = *c;
    return success();
  };
  gpu::KernelDim3 grid = op.getGridSizeOperandValues();
  gpu::KernelDim3 block = op.getBlockSizeOperandValues();
  int64_t g[3], bl[3], shared = 0;
  if (failed(constant(grid.x, g[0])) || failed(constant(grid.y, g[1])) ||
      failed(constant(grid.z, g[2])) || failed(constant(block.x, bl[0])) ||
      failed(constant(block.y, bl[1])) || failed(constant(block.z, bl[2])))
    return failure();
  if (Value smem = op.getDynamicSharedMemorySize())
    if (failed(constant(smem, shared)))
      return failure();
  llvm::json::Array args;
  SmallVector<int64_t> touches;
  for (Value operand : op.getKernelOperands()) {
    Type t = operand.getType();
    if (isa<MemRefType>(t)) {
      FailureOr<View> view = resolve(operand, op);
      if (failed(view))
        return failure();
      touches.push_back(view->buffer);
      llvm::json::Array sizes, strides;
      for (int64_t s : view->type.getShape())
        sizes.push_back(s);
      for (int64_t s : view->strides)
        strides.push_back(s);
      args.push_back(
          llvm::json::Object{{"memref", llvm::json::Array{view->buffer, 0}},
                             {"elem", view->elementBytes},
                             {"offset", view->offset},
                             {"sizes", std::move(sizes)},
                             {"strides", std::move(strides)}});
      continue;
    }
    Attribute value;
    if (!matchPattern(operand, m_Constant(&value)))
      return op.emitError("internal error: the cuda target cannot pass a "
                          "value computed on the host to a kernel");
    if (auto i = dyn_cast<IntegerAttr>(value);
        i && (t.isIndex() || t.isInteger(64))) {
      args.push_back(llvm::json::Object{{"i64", i.getInt()}});
    } else if (i && t.isInteger(32)) {
      args.push_back(llvm::json::Object{{"i32", i.getInt()}});
    } else if (auto f = dyn_cast<FloatAttr>(value); f && t.isF32()) {
      args.push_back(llvm::json::Object{{"f32", f.getValueAsDouble()}});
    } else if (f && t.isF64()) {
      args.push_back(llvm::json::Object{{"f64", f.getValueAsDouble()}});
    } else {
      return op.emitError("the cuda target cannot pass a kernel argument of "
                          "type ")
             << t;
    }
  }
  emit(llvm::json::Object{{"op", "launch"},
                          {"kernel", it->second},
                          {"grid", llvm::json::Array{g[0], g[1], g[2]}},
                          {"block", llvm::json::Array{bl[0], bl[1], bl[2]}},
                          {"shared", shared},
                          {"args", std::move(args)}},
       touches);
  return success();
}

LogicalResult ScheduleBuilder::gemm(Operation *op, const LibraryGemm &g) {
  SmallVector<int64_t> touches;
  llvm::json::Object matrices;
  std::optional<View> cView;
  for (auto [key, m] : {std::pair<const char *, const GemmMatrix *>{"a", &g.a},
                        {"b", &g.b},
                        {"c", &g.c}}) {
    FailureOr<View> view = resolve(m->memref, op);
    if (failed(view))
      return failure();
    touches.push_back(view->buffer);
    if (StringRef(key) == "c")
      cView = *view;
    matrices[key] = llvm::json::Object{
        {"ref", ref(*view)}, {"rows", m->rows},
        {"cols", m->cols},   {"order", m->rowMajor ? "row" : "col"},
        {"ld", m->ld},       {"stride", m->batchStride}};
  }
  // C = A B + C, unless C was just zeroed as a whole: then C = A B, and
  // the memset goes.
  int64_t beta = 1;
  auto last = lastToucher.find(cView->buffer);
  if (last != lastToucher.end()) {
    Instruction &prev = instructions[last->second];
    int64_t elems = g.m * g.n * g.batch;
    bool dense =
        g.c.ld == g.n && (g.batch == 1 || g.c.batchStride == g.m * g.n);
    if (prev.zeroFill && dense && (*prev.zeroFill)[0] == cView->buffer &&
        (*prev.zeroFill)[1] == cView->offset * cView->elementBytes &&
        (*prev.zeroFill)[2] == elems * cView->elementBytes) {
      prev.dead = true;
      beta = 0;
    }
  }
  llvm::json::Object json{{"op", "gemm"},
                          {"type_ab", typeName(g.abType)},
                          {"type_c", typeName(g.cType)},
                          {"m", g.m},
                          {"n", g.n},
                          {"k", g.k},
                          {"batch", g.batch},
                          {"beta", beta}};
  for (auto &kv : matrices)
    json[kv.first] = std::move(kv.second);
  emit(std::move(json), touches);
  return success();
}

LogicalResult ScheduleBuilder::fill(Operation *op, const HostFill &f) {
  FailureOr<View> view = resolve(f.memref, op);
  if (failed(view))
    return failure();
  FailureOr<uint64_t> bytes = checkedBytes(view->type.getNumElements(),
                                           view->elementBytes, op->getLoc());
  if (failed(bytes))
    return failure();
  size_t index =
      emit(llvm::json::Object{{"op", "fill"},
                              {"dst", ref(*view)},
                              {"bytes", static_cast<int64_t>(*bytes)},
                              {"pattern", static_cast<int64_t>(f.pattern)},
                              {"size", f.patternBytes}},
           {view->buffer});
  if (f.pattern == 0)
    instructions[index].zeroFill = {view->buffer,
                                    view->offset * view->elementBytes,
                                    static_cast<int64_t>(*bytes)};
  return success();
}

LogicalResult ScheduleBuilder::copy(memref::CopyOp op) {
  FailureOr<View> src = resolve(op.getSource(), op);
  FailureOr<View> dst = resolve(op.getTarget(), op);
  if (failed(src) || failed(dst))
    return failure();
  FailureOr<uint64_t> bytes =
      checkedBytes(src->type.getNumElements(), src->elementBytes, op.getLoc());
  if (failed(bytes))
    return failure();
  emit(llvm::json::Object{{"op", "copy"},
                          {"src", ref(*src)},
                          {"dst", ref(*dst)},
                          {"bytes", static_cast<int64_t>(*bytes)}},
       {src->buffer, dst->buffer});
  return success();
}

LogicalResult ScheduleBuilder::collective(func::CallOp op) {
  StringRef kind =
      op.getCallee().drop_front(strlen(LOOM_COLLECTIVE_SYMBOL_PREFIX));
  // A transfer between pipeline stages has one buffer (read by a send,
  // written by a receive): it is both ends, the other of no bytes.
  bool transfer = kind == "send" || kind == "recv";
  unsigned buffers = transfer ? 1 : 2;
  if (op.getNumOperands() < buffers || op.getNumResults() != 0)
    return op.emitError("a call of @")
           << op.getCallee()
           << " that is not a collective (source, destination, sizes)";
  llvm::json::Object json{{"op", "collective"}, {"kind", kind}};
  SmallVector<int64_t> touches;
  const char *keys[] = {"src", "dst"};
  for (unsigned i = 0; i < 2; ++i) {
    const char *key = keys[i];
    if (transfer && i == 1) {
      llvm::json::Value bytes = json["src_bytes"];
      json["dst"] = json["src"];
      json["dst_bytes"] = kind == "recv" ? bytes : llvm::json::Value(0);
      if (kind == "recv")
        json["src_bytes"] = 0;
      break;
    }
    auto pointer =
        op.getOperand(i)
            .template getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>();
    if (!pointer)
      return op.emitError("the cuda target needs the collective's buffers "
                          "as memref.extract_aligned_pointer_as_index");
    FailureOr<View> view = resolve(pointer.getSource(), op);
    if (failed(view))
      return failure();
    // The aligned pointer: the buffer's start, whatever the view.
    FailureOr<uint64_t> bytes = checkedBytes(view->type.getNumElements(),
                                             view->elementBytes, op.getLoc());
    if (failed(bytes))
      return failure();
    if (view->offset != 0)
      return op.emitError("internal error: a collective on a view at an "
                          "offset");
    touches.push_back(view->buffer);
    json[key] = llvm::json::Array{view->buffer, 0};
    json[std::string(key) + "_bytes"] = static_cast<int64_t>(*bytes);
  }
  llvm::json::Array ints;
  for (Value v : op.getOperands().drop_front(buffers)) {
    std::optional<int64_t> c = getConstantIntValue(v);
    if (!c)
      return op.emitError("internal error: the cuda target needs constant "
                          "collective arguments");
    ints.push_back(*c);
  }
  json["ints"] = std::move(ints);
  emit(std::move(json), touches);
  return success();
}

LogicalResult ScheduleBuilder::visit(Operation *op) {
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return op->emitError("the cuda target needs static allocations");
    FailureOr<int64_t> eb = elementBytes(type.getElementType(), op->getLoc());
    if (failed(eb))
      return failure();
    FailureOr<uint64_t> bytes =
        checkedBytes(type.getNumElements(), *eb, op->getLoc());
    if (failed(bytes))
      return failure();
    roots[alloc.getResult()] = static_cast<int64_t>(buffers.size());
    buffers.push_back({Space::Arena, -1, 0, *bytes});
    return success();
  }
  if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
    FailureOr<int64_t> id = constantBuffer(global);
    if (failed(id))
      return failure();
    roots[global.getResult()] = *id;
    return success();
  }
  if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
          memref::CastOp, memref::ReinterpretCastOp, memref::TransposeOp,
          memref::ExtractAlignedPointerAsIndexOp, memref::DeallocOp,
          arith::ConstantOp, func::ReturnOp>(op))
    return success();
  if (auto l = dyn_cast<gpu::LaunchFuncOp>(op))
    return launch(l);
  if (std::optional<LibraryGemm> g = matchLibraryGemm(op))
    return gemm(op, *g);
  if (std::optional<HostFill> f = matchHostFill(op))
    return fill(op, *f);
  if (isHostCopy(op))
    return copy(cast<memref::CopyOp>(op));
  if (auto call = dyn_cast<func::CallOp>(op))
    if (call.getCallee().starts_with(LOOM_COLLECTIVE_SYMBOL_PREFIX))
      return collective(call);
  return op->emitError("the cuda target cannot run this op on the host");
}

LogicalResult ScheduleBuilder::planArenaOffsets() {
  // Lifetimes over the live instructions, renumbered.
  std::vector<int64_t> number(instructions.size(), -1);
  int64_t next = 0;
  for (size_t i = 0; i < instructions.size(); ++i)
    if (!instructions[i].dead)
      number[i] = next++;
  for (size_t i = 0; i < instructions.size(); ++i) {
    if (instructions[i].dead)
      continue;
    for (int64_t b : instructions[i].touches) {
      Buffer &buffer = buffers[b];
      if (buffer.first < 0)
        buffer.first = number[i];
      buffer.last = number[i];
    }
  }
  std::vector<ArenaBuffer> arena;
  std::vector<size_t> ids;
  for (size_t b = 0; b < buffers.size(); ++b) {
    if (buffers[b].space != Space::Arena)
      continue;
    // Never touched: it still needs a valid address.
    if (buffers[b].first < 0)
      buffers[b].first = buffers[b].last = 0;
    arena.push_back({buffers[b].bytes, buffers[b].first, buffers[b].last});
    ids.push_back(b);
  }
  std::optional<ArenaPlan> plan = planArena(arena, LOOM_CUDA_BUFFER_ALIGNMENT);
  if (!plan)
    return fn.emitError("the program's buffers do not fit a 2^63-byte arena");
  for (size_t i = 0; i < ids.size(); ++i)
    buffers[ids[i]].offset = plan->offsets[i];
  arenaBytes = plan->bytes;
  return success();
}

FailureOr<HostSchedule> ScheduleBuilder::build(const KernelImages &images) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitError("the cuda target needs a straight-line entry");
  if (failed(addArguments()))
    return failure();
  for (Operation &op : fn.getBody().front())
    if (failed(visit(&op)))
      return failure();
  if (failed(planArenaOffsets()))
    return failure();

  llvm::json::Array buffersJson;
  for (const Buffer &b : buffers) {
    llvm::json::Object o{{"bytes", static_cast<int64_t>(b.bytes)}};
    switch (b.space) {
    case Space::Arg:
      o["space"] = "arg";
      o["index"] = b.index;
      break;
    case Space::Const:
      o["space"] = "const";
      o["offset"] = static_cast<int64_t>(b.offset);
      break;
    case Space::Arena:
      o["space"] = "arena";
      o["offset"] = static_cast<int64_t>(b.offset);
      o["live"] = llvm::json::Array{b.first, b.last};
      break;
    }
    buffersJson.push_back(std::move(o));
  }
  llvm::json::Array instrJson;
  for (Instruction &instr : instructions)
    if (!instr.dead)
      instrJson.push_back(std::move(instr.json));
  // One buffer or instruction per line: diffable, and a person can find
  // instruction N on line N.
  std::string text;
  llvm::raw_string_ostream os(text);
  auto list = [&](StringRef key, llvm::json::Array &items, bool last) {
    os << " \"" << key << "\": [";
    for (size_t i = 0; i < items.size(); ++i)
      os << (i ? ",\n  " : "\n  ") << items[i];
    os << (items.empty() ? "]" : "\n ]") << (last ? "\n" : ",\n");
  };
  llvm::json::Array kernelsJson;
  for (const std::string &k : kernels)
    kernelsJson.push_back(k);
  llvm::json::Array cubins;
  for (const std::string &chip : images.cubinChips)
    cubins.push_back(llvm::json::Object{
        {"chip", chip},
        {"file", (LOOM_CUDA_CUBIN_PREFIX + chip + LOOM_CUDA_CUBIN_SUFFIX)}});
  os << "{\n \"format\": \"" << LOOM_CUDA_PROGRAM_FORMAT << "\",\n"
     << " \"version\": " << LOOM_CUDA_PROGRAM_VERSION << ",\n";
  if (!images.ptxChip.empty())
    os << " \"ptx\": "
       << llvm::json::Value(llvm::json::Object{{"chip", images.ptxChip},
                                               {"file", LOOM_CUDA_PTX_FILE}})
       << ",\n";
  os << " \"cubins\": " << llvm::json::Value(std::move(cubins)) << ",\n";
  if (!constants.empty())
    os << " \"constants\": \"" << LOOM_CUDA_CONSTANTS_FILE << "\",\n";
  os << " \"constants_bytes\": " << constants.size() << ",\n"
     << " \"arena_bytes\": " << arenaBytes << ",\n";
  list("kernels", kernelsJson, false);
  list("buffers", buffersJson, false);
  list("instructions", instrJson, true);
  os << "}\n";

  HostSchedule schedule;
  schedule.numInstructions = static_cast<int64_t>(llvm::count_if(
      instructions, [](const Instruction &i) { return !i.dead; }));
  schedule.arenaBytes = arenaBytes;
  schedule.program = std::move(text);
  schedule.constants = std::move(constants);
  return schedule;
}

} // namespace

FailureOr<HostSchedule>
loom::cuda::buildHostSchedule(func::FuncOp entry,
                              ArrayRef<RankedTensorType> bufferTypes,
                              const KernelImages &images) {
  return ScheduleBuilder(entry, bufferTypes).build(images);
}
