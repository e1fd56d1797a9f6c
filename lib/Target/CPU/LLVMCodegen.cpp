//===- LLVMCodegen.cpp - From the LLVM dialect to an object file ----------===//
//
// The CPU target's last steps: LLVM IR with `loom_entry` around the program,
// parallel loops handed to the runtime's thread pool, LLVM's O3 tuned for
// these loops, machine code.
//
//===----------------------------------------------------------------------===//

#include "LLVMCodegen.h"
#include "loom/Target/Artifact/ArtifactFormat.h"
#include "loom/Target/CPU/Passes.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Passes/PassBuilder.h"

using namespace mlir;
using namespace loom;
using namespace loom::cpu;

namespace {

/// Adds `void loom_entry(void **buffers)`, which builds the memref
/// descriptors of the contiguous buffers and calls the program.
LogicalResult addEntryWrapper(llvm::Module &module, StringRef programName,
                              ArrayRef<RankedTensorType> types, Location loc) {
  llvm::Function *program = module.getFunction(programName);
  if (!program)
    return emitError(loc) << "internal error: no " << programName;
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *fnTy =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy}, false);
  llvm::Function *entry = llvm::Function::Create(
      fnTy, llvm::GlobalValue::ExternalLinkage, LOOM_ENTRY_SYMBOL, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  SmallVector<llvm::Value *> args;
  for (auto [i, t] : llvm::enumerate(types)) {
    llvm::Value *slot = b.CreateConstGEP1_64(ptrTy, entry->getArg(0), i);
    llvm::Value *p = b.CreateLoad(ptrTy, slot);
    args.append({p, p, llvm::ConstantInt::get(i64, 0)});
    for (int64_t d : t.getShape())
      args.push_back(llvm::ConstantInt::get(i64, d));
    int64_t stride = 1;
    SmallVector<llvm::Value *> strides;
    for (int64_t d : llvm::reverse(t.getShape())) {
      strides.push_back(llvm::ConstantInt::get(i64, stride));
      stride *= d;
    }
    args.append(strides.rbegin(), strides.rend());
  }
  if (program->arg_size() != args.size())
    return emitError(loc) << "internal error: " << programName << " takes "
                          << program->arg_size() << " arguments, expected "
                          << args.size();
  b.CreateCall(program, args);
  b.CreateRetVoid();
  // Internal, so LLVM specialises it for the constant shapes and inlines it.
  program->setLinkage(llvm::GlobalValue::InternalLinkage);
  return success();
}

/// Exports the entry's signature, a NUL-terminated JSON string, so that the
/// runtime can check a manifest against what the code was compiled for.
void addSignature(llvm::Module &module, StringRef signature) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Constant *text = llvm::ConstantDataArray::getString(ctx, signature);
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           LOOM_ENTRY_SYMBOL LOOM_SIGNATURE_SUFFIX);
}

/// LLVM's O3 without loop unrolling: the loops have constant trip counts,
/// and fully unrolled and peeled copies of hundreds of loop nests cost
/// seconds of code generation for no measured speed-up. Vectorisation
/// (with interleaving) stays.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&machine, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  // LLVM vectorises at 256 bits on AVX-512 CPUs by default (for the clock
  // penalty of 512-bit code). The kernels' GEMMs already run at 512 bits,
  // and the wide loops measured about 4% faster on the decoder benchmark.
  if (machine.getMCSubtargetInfo()->checkFeatures("+avx512f"))
    for (llvm::Function &f : module)
      if (!f.isDeclaration())
        f.addFnAttr("prefer-vector-width", "512");
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

/// Turns each call of an outlined op marked `loom-parallel-extent` into
/// `loom_parallel_for(task, ctx, extent)`: `task(ctx, lo, hi)` unpacks the
/// arguments the caller stored in `ctx` and calls the op on [lo, hi).
void addParallelDispatch(llvm::Module &module) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *voidTy = llvm::Type::getVoidTy(ctx);
  llvm::FunctionCallee parallelFor = module.getOrInsertFunction(
      LOOM_PARALLEL_FOR_SYMBOL, voidTy, ptrTy, ptrTy, i64);
  SmallVector<llvm::Function *> marked;
  for (llvm::Function &f : module)
    if (f.hasFnAttribute(kParallelExtentAttr))
      marked.push_back(&f);
  for (llvm::Function *f : marked) {
    int64_t extent = 0;
    if (f->getFnAttribute(kParallelExtentAttr)
            .getValueAsString()
            .getAsInteger(10, extent) ||
        f->arg_size() < 2)
      continue;
    f->removeFnAttr(kParallelExtentAttr);
    SmallVector<llvm::Type *> fields;
    for (llvm::Argument &arg : llvm::drop_end(f->args(), 2))
      fields.push_back(arg.getType());
    auto *frame = llvm::StructType::get(ctx, fields);
    auto *task = llvm::Function::Create(
        llvm::FunctionType::get(voidTy, {ptrTy, i64, i64}, false),
        llvm::GlobalValue::InternalLinkage, f->getName() + ".task", module);
    {
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", task));
      SmallVector<llvm::Value *> args;
      for (auto [i, t] : llvm::enumerate(fields))
        args.push_back(
            b.CreateLoad(t, b.CreateStructGEP(frame, task->getArg(0), i)));
      args.push_back(task->getArg(1));
      args.push_back(task->getArg(2));
      b.CreateCall(f, args);
      b.CreateRetVoid();
    }
    SmallVector<llvm::CallInst *> calls;
    for (llvm::User *user : f->users())
      if (auto *call = dyn_cast<llvm::CallInst>(user))
        if (call->getCalledFunction() == f && call->getFunction() != task)
          calls.push_back(call);
    for (llvm::CallInst *call : calls) {
      llvm::Function *caller = call->getFunction();
      llvm::IRBuilder<> entry(&caller->getEntryBlock(),
                              caller->getEntryBlock().begin());
      llvm::AllocaInst *slot = entry.CreateAlloca(frame);
      llvm::IRBuilder<> b(call);
      for (unsigned i = 0; i < fields.size(); ++i)
        b.CreateStore(call->getArgOperand(i),
                      b.CreateStructGEP(frame, slot, i));
      b.CreateCall(parallelFor,
                   {task, slot, llvm::ConstantInt::get(i64, extent)});
      call->eraseFromParent();
    }
  }
}

} // namespace

FailureOr<SmallString<0>>
loom::cpu::emitObject(ModuleOp module, StringRef programName,
                      ArrayRef<RankedTensorType> bufferTypes,
                      StringRef signature, HostMachine &host) {
  Location loc = module.getLoc();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "loom_program");
  if (!llvmModule)
    return emitError(loc) << "internal error: translation to LLVM IR failed";
  llvmModule->setDataLayout(host.machine->createDataLayout());
  llvmModule->setTargetTriple(host.triple);
  if (failed(addEntryWrapper(*llvmModule, programName, bufferTypes, loc)))
    return failure();
  addSignature(*llvmModule, signature);
  addParallelDispatch(*llvmModule);
  optimizeModule(*llvmModule, *host.machine);
  SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if (host.machine->addPassesToEmitFile(pm, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
    return emitError(loc) << "the target cannot emit object files";
  pm.run(*llvmModule);
  return object;
}
