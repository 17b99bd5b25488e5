//===- kgen-run.cpp - run a function on the CPU reference -----------------===//
//
// kgen-run FILE.mlir [--entry=NAME] [--seed=N] [--input=A.npy,...]
//                    [--output-dir=DIR] [--print-values]
//                    [--compare=I:J,...] [--compare-file=I:REF.npy,...]
//                    [--tolerance=T] [--max-elements=N] [--max-gflop=G]
//                    [--timeout=S]
//
// Parses and verifies the module, makes the entry function's inputs (seeded
// random, or .npy files), JIT-runs it through kgen-reference-pipeline and
// reports the results. Exit code 70: an internal error (see
// tools/Register.h). Sizes, estimated work and run time are bounded, and a
// fault in the generated code is reported, so no input makes it crash or
// hang: the input is a regular file or stdin within the limits of
// readToolInput (tools/Register.h), and --timeout covers the whole run
// (parsing, lowering, JIT compilation, making inputs, running). Exit
// codes: 0 success; 1 bad input, options or failed run (a time-out
// included); 2 a requested comparison exceeded the tolerance.
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"
#include "tools/kgen-run/Invoke.h"

#include "dialect/KgenOps.h"
#include "kgen/runtime/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::kgen::rt;

static cl::OptionCategory category("kgen-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    entryName("entry", cl::desc("Function to run (default: @main, or the only "
                                "public function)"),
              cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(1), cl::cat(category));
static cl::list<std::string>
    inputNpy("input", cl::desc("One .npy file per argument, in order"),
             cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string>
    intRange("int-range",
             cl::desc("Range lo:hi (hi excluded) of random integer inputs"),
             cl::init("0:16"), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write result I to DIR/resultI.npy (bf16 and "
                       "f8E4M3FN as exact float32)"),
              cl::cat(category));
static cl::opt<bool> printValues("print-values",
                                 cl::desc("Print every element of every result"),
                                 cl::cat(category));
static cl::list<std::string>
    compareResults("compare", cl::desc("Compare results I and J (I:J)"),
                   cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    compareFiles("compare-file",
                 cl::desc("Compare result I with a .npy file (I:PATH)"),
                 cl::CommaSeparated, cl::cat(category));
static cl::opt<double>
    tolerance("tolerance",
              cl::desc("Largest relative Frobenius error a comparison may "
                       "have (default 0: identical)"),
              cl::init(0.0), cl::cat(category));
static cl::opt<int64_t>
    maxElements("max-elements",
                cl::desc("Largest number of elements of one tensor"),
                cl::init(int64_t{1} << 28), cl::cat(category));
static cl::opt<double>
    maxGflop("max-gflop",
             cl::desc("Largest estimated work (GFLOP) to run on the CPU"),
             cl::init(20.0), cl::cat(category));
static cl::opt<unsigned>
    timeoutSeconds("timeout",
                   cl::desc("Seconds the whole run may take: parsing, "
                            "lowering, JIT compilation, inputs and running "
                            "(0: no limit)"),
                   cl::init(300), cl::cat(category));

namespace {
int fail(const llvm::Twine &msg) {
  llvm::errs() << "kgen-run: error: " << msg << "\n";
  return 1;
}

/// What the run is doing, for the time-out message (a string literal).
std::atomic<const char *> runPhase{"starting"};

void enterPhase(const char *what) { runPhase.store(what); }

/// --timeout over the whole run: a thread that waits out the limit, then
/// ends the process with a one-line message naming the phase it was in.
/// Parsing, the pass pipeline and the JIT cannot be interrupted safely, and
/// nothing needs cleaning up (kgen-run writes its results only at the end),
/// so the process exits at once (_exit: no destructor runs under the
/// thread still working).
void startWatchdog(unsigned seconds) {
  if (seconds == 0)
    return;
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::string msg = "kgen-run: error: the run exceeded the time limit of " +
                      std::to_string(seconds) + " s (--timeout) while " +
                      runPhase.load() + "\n";
    ssize_t written = ::write(STDERR_FILENO, msg.data(), msg.size());
    (void)written;
    _exit(1);
  }).detach();
}

/// An option that takes one value, given more than once: the last would
/// win silently.
bool checkRepeatedOptions(std::string &err) {
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    if (option->getNumOccurrences() > 1 &&
        option->getNumOccurrencesFlag() == cl::Optional &&
        option->getValueExpectedFlag() == cl::ValueRequired &&
        llvm::is_contained(option->Categories, &category)) {
      err = ("--" + option->ArgStr + " is given " +
             llvm::Twine(option->getNumOccurrences()) + " times; give it once")
                .str();
      return false;
    }
  }
  return true;
}

/// Splits "A:B" at the first colon.
bool splitPair(StringRef s, StringRef &a, StringRef &b) {
  std::tie(a, b) = s.split(':');
  return !a.empty() && !b.empty() && s.contains(':');
}

/// The shape and element type of a static ranked tensor, or an error.
bool describeTensor(Type type, const llvm::Twine &what, rt::HostTensor &t,
                    std::string &err) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::string typeStr;
  llvm::raw_string_ostream(typeStr) << type;
  if (!tensor || !tensor.hasStaticShape()) {
    err = (what + " has type " + typeStr +
           "; kgen-run passes only statically shaped tensors")
              .str();
    return false;
  }
  std::optional<rt::ElemType> elem = mlir::kgen::toElemType(tensor.getElementType());
  if (!elem) {
    err = (what + " has unsupported element type in " + typeStr).str();
    return false;
  }
  t.type = *elem;
  t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  int64_t n;
  if (!rt::checkedNumElements(t.shape, maxElements, n, err)) {
    err = (what + ": " + err + " (see --max-elements)").str();
    return false;
  }
  return true;
}

func::FuncOp findEntry(ModuleOp module, std::string &err) {
  if (!entryName.empty()) {
    if (auto f = module.lookupSymbol<func::FuncOp>(entryName))
      if (!f.isExternal())
        return f;
    err = "no function @" + entryName + " with a body in the module";
    return {};
  }
  if (auto f = module.lookupSymbol<func::FuncOp>("main")) {
    if (!f.isExternal())
      return f;
    err = "@main is a declaration, not a function with a body: pick one "
          "with --entry";
    return {};
  }
  func::FuncOp only;
  int count = 0;
  for (auto f : module.getOps<func::FuncOp>())
    if (f.isPublic() && !f.isExternal()) {
      only = f;
      ++count;
    }
  if (count == 1)
    return only;
  err = count ? "several public functions and no @main: pick one with --entry"
              : "no public function with a body in the module";
  return {};
}

/// Prints a summary line per result, and every value with --print-values.
void printResult(size_t i, Type type, const rt::HostTensor &t) {
  llvm::raw_ostream &os = llvm::outs();
  int64_t n = t.numElements();
  double sum = 0, sq = 0;
  int64_t nans = 0;
  for (int64_t k = 0; k < n; ++k) {
    double v = t.getAsDouble(k);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    sum += v;
    sq += v * v;
  }
  os << "result " << i << ": " << type << " sum=" << llvm::format("%.6g", sum)
     << " l2=" << llvm::format("%.6g", std::sqrt(sq)) << " nan=" << nans
     << "\n";
  if (!printValues)
    return;
  int64_t row = t.shape.empty() ? 1 : t.shape.back();
  for (int64_t k = 0; k < n; ++k) {
    os << (k % row ? " " : "  ") << llvm::format("%.9g", t.getAsDouble(k));
    if ((k + 1) % row == 0)
      os << "\n";
  }
}

/// Prints one comparison; true when within tolerance.
bool report(const llvm::Twine &what, const rt::HostTensor &got,
            const rt::HostTensor &ref) {
  rt::CompareStats stats;
  std::string err;
  if (!rt::compare(got, ref, stats, err)) {
    llvm::outs() << "compare " << what << ": MISMATCH (" << err << ")\n";
    return false;
  }
  bool ok = stats.nonFiniteMismatches == 0 && stats.relFrobErr <= tolerance;
  llvm::outs() << "compare " << what << ": " << (ok ? "OK" : "MISMATCH")
               << " rel_frob=" << llvm::format("%.3e", stats.relFrobErr)
               << " max_abs=" << llvm::format("%.3e", stats.maxAbsErr)
               << " nonfinite_mismatches=" << stats.nonFiniteMismatches << "\n";
  return ok;
}

/// Every tensor in the module is static and within --max-elements, so no
/// allocation of the run can be absurd.
bool checkSizes(ModuleOp module, std::string &err) {
  WalkResult result = module.walk([&](Operation *op) {
    auto check = [&](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return true;
      std::string typeStr;
      llvm::raw_string_ostream(typeStr) << type;
      if (!tensor.hasStaticShape()) {
        err = "kgen-run needs static shapes; found " + typeStr;
        return false;
      }
      int64_t n;
      std::vector<int64_t> shape(tensor.getShape().begin(),
                                 tensor.getShape().end());
      if (!rt::checkedNumElements(shape, maxElements, n, err)) {
        err = typeStr + ": " + err + " (see --max-elements)";
        return false;
      }
      return true;
    };
    for (Type t : op->getResultTypes())
      if (!check(t))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type t : block.getArgumentTypes())
          if (!check(t))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// FLOPs of the kgen ops plus, for other tensor code, 2 per point of each
/// linalg iteration space and 1 per element of other tensor results: an
/// upper estimate of what the reference loops will do.
double estimateWork(ModuleOp module) {
  double work = 0;
  module.walk([&](Operation *op) {
    if (std::optional<double> f = mlir::kgen::estimateFlops(op)) {
      work += *f;
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      double points = 1;
      for (int64_t r : linalgOp.getStaticLoopRanges())
        points *= ShapedType::isDynamic(r) ? 1 : double(r);
      work += 2 * points;
    } else {
      for (Type t : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t))
          if (tensor.hasStaticShape())
            work += double(tensor.getNumElements());
    }
  });
  return work;
}

bool parseIndex(StringRef s, size_t limit, size_t &out) {
  return !s.getAsInteger(10, out) && out < limit;
}
} // namespace

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-run");
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category, &mlir::kgen::inputLimitsCategory()});
  cl::ParseCommandLineOptions(
      argc, argv,
      "kgen-run: run a function of a kgen module on the CPU reference\n");
  startWatchdog(timeoutSeconds);

  DialectRegistry registry;
  mlir::kgen::registerKgenDialects(registry);
  mlir::kgen::registerAllKgenPasses();
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false); // one line per diagnostic, not the IR
  context.loadAllAvailableDialects();

  std::string err;
  if (!checkRepeatedOptions(err))
    return fail(err);
  if (!(maxGflop >= 0)) // also rejects NaN
    return fail("--max-gflop must be a non-negative number");
  if (maxElements < 0)
    return fail("--max-elements must be non-negative");
  if (!(tolerance >= 0))
    return fail("--tolerance must be a non-negative number");
  enterPhase("reading the module");
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::kgen::readToolInput(inputFile, err);
  if (!file)
    return fail(err);
  enterPhase("parsing the module");
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("could not parse " + inputFile);

  enterPhase("checking the module");
  func::FuncOp entry = findEntry(*module, err);
  if (!entry)
    return fail(err);
  std::string name = entry.getName().str();
  FunctionType ftype = entry.getFunctionType();

  if (!checkSizes(*module, err))
    return fail(err);
  double flops = estimateWork(*module);
  if (flops > maxGflop * 1e9)
    return fail(llvm::formatv("the module does about {0} GFLOP, more than "
                              "the limit of {1} GFLOP for the CPU reference "
                              "(see --max-gflop)",
                              llvm::format(flops >= 1e9 ? "%.1f" : "%.3g",
                                           flops / 1e9),
                              llvm::format("%g", maxGflop.getValue())));

  enterPhase("making the inputs");
  std::vector<rt::HostTensor> inputs(ftype.getNumInputs());
  std::vector<rt::HostTensor> outputs(ftype.getNumResults());
  for (auto [i, type] : llvm::enumerate(ftype.getInputs()))
    if (!describeTensor(type, "argument " + llvm::Twine(i), inputs[i], err))
      return fail(err);
  for (auto [i, type] : llvm::enumerate(ftype.getResults())) {
    if (!describeTensor(type, "result " + llvm::Twine(i), outputs[i], err))
      return fail(err);
    outputs[i] = rt::makeZeros(outputs[i].type, outputs[i].shape);
    for (int64_t k = 0, n = outputs[i].numElements(); k < n; ++k)
      if (rt::isFloat(outputs[i].type)) // poison: unwritten outputs show
        outputs[i].setFromDouble(k, std::nan(""));
  }

  StringRef loStr, hiStr;
  int64_t lo, hi;
  if (!splitPair(intRange, loStr, hiStr) || loStr.getAsInteger(10, lo) ||
      hiStr.getAsInteger(10, hi) || lo >= hi)
    return fail("--int-range must be lo:hi with lo < hi; got '" + intRange +
                "'");
  if (!inputNpy.empty() && inputNpy.size() != inputs.size())
    return fail(llvm::formatv("@{0} takes {1} arguments; --input gave {2} "
                              "files",
                              name, inputs.size(), inputNpy.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    rt::HostTensor &in = inputs[i];
    if (inputNpy.empty()) {
      in = rt::makeRandom(in.type, in.shape, seed + 7919 * i, lo, hi);
      continue;
    }
    rt::HostTensor file;
    if (!rt::readNpy(inputNpy[i], file, err, maxElements))
      return fail(err);
    if (file.shape != in.shape)
      return fail(llvm::formatv("{0} has shape {1}; argument {2} needs {3}",
                                inputNpy[i], rt::formatShape(file.shape), i,
                                rt::formatShape(in.shape)));
    rt::HostTensor converted = rt::makeZeros(in.type, in.shape);
    for (int64_t k = 0, n = in.numElements(); k < n; ++k)
      converted.setFromDouble(k, file.getAsDouble(k));
    in = std::move(converted);
  }

  // Comparisons are checked (and reference files read) before the run.
  enterPhase("reading the reference files");
  std::vector<std::pair<size_t, size_t>> resultPairs;
  for (StringRef spec : compareResults) {
    StringRef a, b;
    size_t ia, ib;
    if (!splitPair(spec, a, b) || !parseIndex(a, outputs.size(), ia) ||
        !parseIndex(b, outputs.size(), ib))
      return fail("--compare needs I:J with result indices below " +
                  llvm::Twine(outputs.size()) + "; got '" + spec + "'");
    resultPairs.push_back({ia, ib});
  }
  std::vector<std::pair<size_t, rt::HostTensor>> fileRefs;
  for (StringRef spec : compareFiles) {
    StringRef a, path;
    size_t ia;
    if (!splitPair(spec, a, path) || !parseIndex(a, outputs.size(), ia))
      return fail("--compare-file needs I:PATH with a result index below " +
                  llvm::Twine(outputs.size()) + "; got '" + spec + "'");
    rt::HostTensor ref;
    if (!rt::readNpy(path.str(), ref, err, maxElements))
      return fail(err);
    fileRefs.push_back({ia, std::move(ref)});
  }

  auto start = std::chrono::steady_clock::now();
  // The watchdog's --timeout covers the call; it names the phase.
  if (!mlir::kgen::runReference(*module, name, inputs, outputs, err,
                                /*timeoutSeconds=*/0, enterPhase))
    return fail(err);
  enterPhase("writing the results");
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  llvm::outs() << "ran @" << name << " in " << llvm::format("%.1f", ms)
               << " ms (compile + run)\n";

  for (auto [i, type] : llvm::enumerate(ftype.getResults()))
    printResult(i, type, outputs[i]);

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create " + outputDir + ": " + ec.message());
    for (size_t i = 0; i < outputs.size(); ++i) {
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
      if (!rt::writeNpy(path.str().str(), outputs[i], err))
        return fail(err);
    }
  }

  bool allOk = true;
  for (auto [spec, pair] : llvm::zip(compareResults, resultPairs))
    allOk &= report(spec, outputs[pair.first], outputs[pair.second]);
  for (auto [spec, ref] : llvm::zip(compareFiles, fileRefs))
    allOk &= report(spec, outputs[ref.first], ref.second);
  return allOk ? 0 : 2;
}
