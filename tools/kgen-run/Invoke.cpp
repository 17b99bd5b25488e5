//===- Invoke.cpp - JIT-run a function through the reference pipeline -----===//
//
// The entry function gets `llvm.emit_c_interface`; after the reference
// pipeline its signature is (inputs..., outputs...) with every memref passed
// as a pointer to a strided descriptor:
//   { T *allocated; T *aligned; int64 offset; int64 sizes[R]; int64 strides[R] }
// which is built here over the HostTensors' storage (row-major, offset 0).
//
//===----------------------------------------------------------------------===//

#include "tools/kgen-run/Invoke.h"

#include "passes/Passes.h"
#include "tools/Register.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

using namespace mlir;

std::optional<::kgen::rt::ElemType> mlir::kgen::toElemType(Type type) {
  using ::kgen::rt::ElemType;
  if (type.isF32())
    return ElemType::F32;
  if (type.isF16())
    return ElemType::F16;
  if (type.isBF16())
    return ElemType::BF16;
  if (isa<Float8E4M3FNType>(type))
    return ElemType::F8E4M3FN;
  if (type.isF64())
    return ElemType::F64;
  if (type.isSignlessInteger(64))
    return ElemType::I64;
  if (type.isSignlessInteger(32))
    return ElemType::I32;
  if (type.isSignlessInteger(16))
    return ElemType::I16;
  if (type.isSignlessInteger(8))
    return ElemType::I8;
  if (type.isSignlessInteger(1))
    return ElemType::I1;
  return std::nullopt;
}

namespace {
/// A strided memref descriptor over a HostTensor's bytes.
std::vector<int64_t> makeDescriptor(::kgen::rt::HostTensor &t) {
  size_t rank = t.shape.size();
  std::vector<int64_t> desc(3 + 2 * rank);
  auto ptr = reinterpret_cast<int64_t>(t.data.data());
  desc[0] = desc[1] = ptr;
  desc[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    desc[3 + i] = t.shape[i];
    desc[3 + rank + i] = stride;
    stride *= t.shape[i];
  }
  return desc;
}

sigjmp_buf faultJump;
volatile sig_atomic_t faultSignal = 0;
void *volatile faultAddress = nullptr;

/// Runs on the alternate signal stack (ensureSignalStack): after a stack
/// overflow there is no stack left to run it on.
void onFault(int sig, siginfo_t *info, void *) {
  faultSignal = sig;
  faultAddress = info ? info->si_addr : nullptr;
  siglongjmp(faultJump, 1);
}

/// Whether a SIGSEGV at `addr` was the stack running out: an address below
/// `top` (a local of the guarding frame, above every frame of the call)
/// by at most the thread's stack size (`limit`, set) plus 16 MiB (the guard
/// gap, and a large frame may reach past it). Other mappings start far
/// below the stack (128 MiB or more on Linux), so a fault in them is not
/// taken for one.
bool isStackOverflow(const void *addr, const char *top, size_t &limit) {
  pthread_attr_t attr;
  void *low = nullptr;
  limit = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &low, &limit);
    pthread_attr_destroy(&attr);
  }
  if (!limit)
    return false;
  auto a = reinterpret_cast<uintptr_t>(addr);
  auto t = reinterpret_cast<uintptr_t>(top);
  constexpr uintptr_t kGuardGap = uintptr_t(16) << 20;
  return a < t && t - a <= limit + kGuardGap;
}

/// Calls `call` with fault and timeout signals turned into an error.
bool guardedCall(llvm::function_ref<llvm::Error()> call, unsigned timeout,
                 std::string &err) {
  const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM};
  struct sigaction action = {}, previous[std::size(signals)];
  action.sa_sigaction = onFault;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  mlir::kgen::ensureSignalStack();
  for (size_t i = 0; i < std::size(signals); ++i)
    sigaction(signals[i], &action, &previous[i]);
  auto restore = [&] {
    alarm(0);
    for (size_t i = 0; i < std::size(signals); ++i)
      sigaction(signals[i], &previous[i], nullptr);
  };
  char top;
  if (sigsetjmp(faultJump, /*savemask=*/1)) {
    restore();
    size_t limit;
    if (faultSignal == SIGALRM)
      err = "the run exceeded the time limit of " + std::to_string(timeout) +
            " s";
    else if (faultSignal == SIGSEGV &&
             isStackOverflow(faultAddress, &top, limit))
      err = "the generated code overflowed the stack (" +
            std::to_string(limit >> 10) + " KiB; see `ulimit -s`)";
    else
      err = std::string("the generated code faulted (") +
            strsignal(faultSignal) + ")";
    return false;
  }
  alarm(timeout);
  llvm::Error e = call();
  restore();
  if (e) {
    err = llvm::toString(std::move(e));
    return false;
  }
  return true;
}
} // namespace

bool mlir::kgen::runReference(ModuleOp module, StringRef entry,
                        std::vector<rt::HostTensor> &inputs,
                        std::vector<rt::HostTensor> &outputs,
                        std::string &err, unsigned timeoutSeconds,
                        void (*onPhase)(const char *)) {
  auto phase = [&](const char *what) {
    if (onPhase)
      onPhase(what);
  };
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func) {
    err = ("no function @" + entry + " in the module").str();
    return false;
  }
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(module.getContext()));
  // The caller's input buffers are read-only: bufferization copies instead of
  // writing results into them.
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttr(i, "bufferization.writable",
                    BoolAttr::get(module.getContext(), false));

  // Diagnostics of the pipeline are collected into `err`.
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    diagStream << diag.getLocation() << ": " << diag << "\n";
    return success();
  });
  PassManager pm(module.getContext());
  if (failed(kgen::buildReferencePipeline(pm))) {
    err = "the reference pipeline could not be built";
    return false;
  }
  phase("lowering the module (kgen-reference-pipeline)");
  if (failed(pm.run(module))) {
    err = "the reference pipeline failed:\n" + diagnostics;
    return false;
  }

  phase("JIT-compiling the module");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                                  /*sizeLevel=*/0, nullptr);
  // memrefCopy and friends, for copies of strided buffers.
  llvm::StringRef runtimeLibs[] = {KGEN_MLIR_C_RUNNER_UTILS};
  options.sharedLibPaths = runtimeLibs;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    err = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return false;
  }

  std::vector<std::vector<int64_t>> descriptors;
  for (rt::HostTensor &t : inputs)
    descriptors.push_back(makeDescriptor(t));
  for (rt::HostTensor &t : outputs)
    descriptors.push_back(makeDescriptor(t));
  std::vector<void *> descPtrs;
  for (auto &d : descriptors)
    descPtrs.push_back(d.data());
  std::vector<void *> packed;
  for (void *&p : descPtrs)
    packed.push_back(&p);

  // The lookup compiles the code (the JIT is lazy); then the call.
  std::string wrapper = ("_mlir_ciface_" + entry).str();
  auto function = (*engine)->lookupPacked(wrapper);
  if (!function) {
    err = "JIT compilation failed: " + llvm::toString(function.takeError());
    return false;
  }
  phase("running the entry function");
  std::string callErr;
  if (!guardedCall(
          [&] {
            (*function)(packed.data());
            return llvm::Error::success();
          },
          timeoutSeconds, callErr)) {
    err = "running @" + entry.str() + " failed: " + callErr;
    return false;
  }
  return true;
}
