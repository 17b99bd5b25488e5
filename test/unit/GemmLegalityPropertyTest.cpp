//===- GemmLegalityPropertyTest.cpp - what legality accepts, compiles -----===//
//
// The property the GEMM families' legality (dialect/GemmLegality.h) promises:
// every config it accepts lowers (kgen-lower-gemm-to-tiles), emits
// (assemblePackage) and compiles with NVRTC for its target with no stack and
// no spills; every config it refuses gets an error that names a config field
// and its limit.
//
// Configs are drawn at random (fixed seed; KGEN_PROPERTY_SEED and
// KGEN_PROPERTY_DRAWS override it for longer runs) near each family's
// tiling rules, one field sometimes pushed past them, for every family, the
// element types it takes and every transposition, with batches, broadcast
// B, split-K and clusters among the draws. Until each of those
// combinations has its accepted configs, draws go on (a bounded number).
// With KGEN_PROPERTY_DUMP=DIR the accepted gemms are written to DIR as MLIR
// functions, for the CPU check of their schedules
// (test/Run/legal-configs-cpu-check.test) and their emulated runs
// (test/Run/legal-configs-emulated*.test); KGEN_PROPERTY_DUMP_ONLY=1 then
// stops before the NVRTC compile (those tests' kgen-opt compiles each
// package again; ctest runs this test whole).
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/EmitCuda.h"
#include "dialect/GemmLegality.h"
#include "passes/Passes.h"
#include "tools/Register.h"

#include "kgen/runtime/Nvrtc.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>

using namespace mlir;
using namespace mlir::kgen;
namespace rt = ::kgen::rt;

namespace {
/// A gemm's operands: element type, transposes, batching.
struct Problem {
  std::string elem; // MLIR spelling
  bool transA = false, transB = false;
  int64_t batch = 1;      // > 1: batched A and D
  bool batchedB = false;  // B batched too (else broadcast)
  // Partial tiles in M, N and K; K-major rows of 16-byte multiples for every
  // element type (TMA).
  int64_t m = 136, n = 264, k = 336;
  // The fused epilogue, drawn per config: D's type, a bias, a residual C of
  // D's type, an activation.
  std::string out = "bf16", bias, activation = "none";
  bool residual = false;

  std::string type(int64_t rows, int64_t cols, bool batched) const {
    std::string shape = batched ? std::to_string(batch) + "x" : "";
    return "tensor<" + shape + std::to_string(rows) + "x" +
           std::to_string(cols) + "x" + elem + ">";
  }
  std::string typeA() const {
    return transA ? type(k, m, batch > 1) : type(m, k, batch > 1);
  }
  std::string typeB() const {
    return transB ? type(n, k, batchedB) : type(k, n, batchedB);
  }
  std::string typeD() const {
    std::string shape = batch > 1 ? std::to_string(batch) + "x" : "";
    return "tensor<" + shape + std::to_string(m) + "x" + std::to_string(n) +
           "x" + out + ">";
  }
  std::string describe() const {
    return llvm::formatv("{0}{1}{2}{3}{4} -> {5}{6}{7} {8}", elem,
                         transA ? " transpose_a" : "",
                         transB ? " transpose_b" : "",
                         batch > 1 ? " batch " + std::to_string(batch) : "",
                         batch > 1 && !batchedB ? " (broadcast B)" : "", out,
                         bias.empty() ? "" : " bias " + bias,
                         residual ? " residual" : "", activation)
        .str();
  }
};

std::string configText(const GemmConfigFields &c) {
  return llvm::formatv(
             "#kgen.gemm_config<target = {0}, instruction = {1}, block_m = "
             "{2}, block_n = {3}, block_k = {4}, warps_m = {5}, warps_n = {6}, "
             "stages = {7}, tma = {8}, warp_specialized = {9}, cluster_m = "
             "{10}, cluster_n = {11}, split_k = {12}, raster_group = {13}, "
             "epilogue_vector = {14}, source = user>",
             stringifyTarget(c.target), stringifyInstructionFamily(c.instruction),
             c.blockM, c.blockN, c.blockK, c.warpsM, c.warpsN, c.stages,
             c.tma ? "true" : "false", c.warpSpecialized ? "true" : "false",
             c.clusterM, c.clusterN, c.splitK, c.rasterGroup, c.epilogueVector)
      .str();
}

std::string moduleText(const Problem &p, const GemmConfigFields &c) {
  std::string attrs, args, operands;
  if (p.transA)
    attrs += "transpose_a, ";
  if (p.transB)
    attrs += "transpose_b, ";
  attrs += "activation = #kgen.activation<" + p.activation + ">, ";
  if (!p.bias.empty()) {
    std::string t = "tensor<" + std::to_string(p.n) + "x" + p.bias + ">";
    args += ", %bias: " + t;
    operands += " bias(%bias : " + t + ")";
  }
  if (p.residual) {
    args += ", %c: " + p.typeD();
    operands += " residual(%c : " + p.typeD() + ")";
    attrs += "beta = 0.5 : f32, ";
  }
  return llvm::formatv(R"mlir(
func.func @main(%a: {0}, %b: {1}{5}) -> {2} {{
  %d = kgen.gemm %a, %b{6} {{{3}config = {4}} : {0}, {1} -> {2}
  return %d : {2}
})mlir",
                       p.typeA(), p.typeB(), p.typeD(), attrs, configText(c),
                       args, operands)
      .str();
}

Type typeNamed(MLIRContext *ctx, const std::string &name) {
  return name == "f32"        ? Type(Float32Type::get(ctx))
         : name == "f16"      ? Type(Float16Type::get(ctx))
         : name == "bf16"     ? Type(BFloat16Type::get(ctx))
         : name == "f8E4M3FN" ? Type(Float8E4M3FNType::get(ctx))
                              : Type();
}

/// The operands as the legality reads them off the gemm `p` describes.
GemmOperands operandsOf(const Problem &p, MLIRContext *ctx) {
  GemmOperands o;
  o.elem = typeNamed(ctx, p.elem);
  o.transA = p.transA;
  o.transB = p.transB;
  o.batchedA = p.batch > 1;
  o.batchedB = p.batchedB;
  o.rowElemsA = p.transA ? p.m : p.k;
  o.rowElemsB = p.transB ? p.k : p.n;
  o.outElem = typeNamed(ctx, p.out);
  if (p.residual)
    o.cElem = typeNamed(ctx, p.out);
  if (!p.bias.empty())
    o.biasElem = typeNamed(ctx, p.bias);
  return o;
}

/// A random config near `family`'s tiling rules for `bytes`-byte operands;
/// with `push`, one field is then moved somewhere it may break a rule.
GemmConfigFields draw(std::mt19937 &rng, Target target,
                      InstructionFamily family, int64_t bytes, bool push) {
  auto pick = [&](std::initializer_list<int64_t> values) {
    std::uniform_int_distribution<size_t> d(0, values.size() - 1);
    return *(values.begin() + d(rng));
  };
  GemmConfigFields c;
  c.target = target;
  c.instruction = family;
  c.stages = pick({1, 2, 3, 4, 5, 6});
  c.splitK = pick({1, 1, 1, 2, 3, 4});
  c.rasterGroup = pick({1, 4, 8});
  c.epilogueVector = pick({2, 4, 8});
  switch (family) {
  case InstructionFamily::simt:
    c.warpsM = pick({1, 2, 4});
    c.warpsN = pick({1, 2, 4});
    c.blockM = 4 * c.warpsM * pick({1, 2, 4, 8});
    c.blockN = 16 * c.warpsN * pick({1, 2, 4});
    c.blockK = pick({8, 16, 32}) * 4 / bytes;
    break;
  case InstructionFamily::mma_sync:
    c.warpsM = pick({1, 2, 4});
    c.warpsN = pick({1, 2, 4});
    c.blockM = 16 * c.warpsM * pick({1, 2, 4});
    c.blockN = 16 * c.warpsN * pick({1, 2, 4});
    c.blockK = pick({32, 64, 128}) / bytes;
    break;
  case InstructionFamily::wgmma: {
    int64_t consumers = pick({1, 2, 3});
    c.warpsM = 4 * consumers;
    c.warpsN = 1;
    c.blockM = 64 * consumers;
    std::uniform_int_distribution<int64_t> n8(1, 32);
    c.blockN = 8 * n8(rng);
    c.blockK = 128 / bytes;
    c.tma = c.warpSpecialized = true;
    c.clusterM = pick({1, 1, 2, 4});
    break;
  }
  }
  if (push) {
    switch (pick({0, 1, 2, 3, 4, 5, 6, 7})) {
    case 0: c.blockM = pick({8, 24, 48, 96, 256, 320}); break;
    case 1: c.blockN = pick({8, 40, 72, 96, 200, 264, 512}); break;
    case 2: c.blockK = pick({4, 8, 12, 16, 24, 48, 64, 128, 256}); break;
    case 3: c.warpsM = pick({1, 3, 4, 6, 8, 12, 16}); break;
    case 4: c.stages = pick({1, 8, 12, 16}); break;
    case 5: c.clusterM = pick({2, 3, 4, 8}); break;
    case 6: c.tma = !c.tma; break;
    case 7: c.warpsN = pick({2, 4, 8}); break;
    }
  }
  return c;
}

const std::set<std::string> kFields = {
    "target",   "instruction", "block_m",   "block_n",     "block_k",
    "warps_m",  "warps_n",     "stages",    "tma",         "warp_specialized",
    "cluster_m", "cluster_n",  "split_k",   "raster_group", "epilogue_vector"};

int64_t envInt(const char *name, int64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

/// One combination the draws must cover.
struct Case {
  Target target;
  InstructionFamily family;
  Problem problem;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto layouts = [&](Target t, InstructionFamily f, const std::string &elem,
                     bool kMajorOnly) {
    for (int layout = 0; layout < 4; ++layout) {
      Problem p;
      p.elem = elem;
      p.transA = layout & 1;
      p.transB = layout & 2;
      if (kMajorOnly && (p.transA || !p.transB))
        continue;
      out.push_back({t, f, p});
    }
  };
  using F = InstructionFamily;
  for (const char *elem : {"bf16", "f16", "f32", "f8E4M3FN"})
    layouts(Target::sm_80, F::simt, elem, false);
  for (const char *elem : {"bf16", "f16", "f32"})
    layouts(Target::sm_80, F::mma_sync, elem, false);
  layouts(Target::sm_90a, F::mma_sync, "f8E4M3FN", true);
  layouts(Target::sm_90a, F::simt, "bf16", false);
  for (const char *elem : {"bf16", "f16"})
    layouts(Target::sm_90a, F::wgmma, elem, false);
  layouts(Target::sm_90a, F::wgmma, "f8E4M3FN", true);
  // Batches: 3-D operands (batched wgmma: 3-D tensor maps) and broadcast B.
  for (bool batchedB : {true, false})
    for (F f : {F::mma_sync, F::wgmma}) {
      Problem p;
      p.elem = "bf16";
      p.transB = true;
      p.batch = 3;
      p.batchedB = batchedB;
      out.push_back({f == F::wgmma ? Target::sm_90a : Target::sm_80, f, p});
    }
  return out;
}

struct Accepted {
  std::string what; // case and config, for a failure message
  rt::KernelPackage package;
};

TEST(GemmLegalityPropertyTest, AcceptedConfigsCompileRefusedOnesNameTheRule) {
  DialectRegistry registry;
  registerKgenDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Refusals are expected by the hundred: the legality's own answer is
  // checked below, the diagnostics are not printed.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });

  std::mt19937 rng(uint32_t(envInt("KGEN_PROPERTY_SEED", 20261201)));
  const int64_t perCase = envInt("KGEN_PROPERTY_DRAWS", 1);
  std::vector<Accepted> accepted;
  std::string dumpExact, dumpSplit; // accepted gemms as MLIR functions
  std::set<std::string> splitK, clusters, refusedFields;
  size_t refused = 0;
  for (Case cs : cases()) {
    int64_t bytes = cs.problem.elem == "f32"        ? 4
                    : cs.problem.elem == "f8E4M3FN" ? 1
                                                    : 2;
    int64_t found = 0;
    for (int attempt = 0; attempt < 400 && found < perCase; ++attempt) {
      std::bernoulli_distribution push(0.3), coin(0.5);
      const char *outs[] = {"bf16", "f16", "f32", "f8E4M3FN"};
      const char *biases[] = {"", "f32", "bf16"};
      const char *acts[] = {"none", "relu", "gelu", "silu"};
      cs.problem.out = outs[std::uniform_int_distribution<int>(0, 3)(rng)];
      cs.problem.bias = biases[std::uniform_int_distribution<int>(0, 2)(rng)];
      cs.problem.activation =
          acts[std::uniform_int_distribution<int>(0, 3)(rng)];
      cs.problem.residual = coin(rng);
      GemmConfigFields c =
          draw(rng, cs.target, cs.family, bytes, push(rng));
      std::string text = moduleText(cs.problem, c);
      std::string label =
          llvm::formatv("{0} {1}: {2}", stringifyInstructionFamily(cs.family),
                        cs.problem.describe(), configText(c))
              .str();
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
      if (!module) {
        // Refused while parsing: by the attribute verifier (the rules for
        // any operands) or by kgen.gemm's. Legality must say why.
        GemmOperands ops = operandsOf(cs.problem, &context);
        std::optional<GemmLegalityError> e = checkGemmLegality(c, &ops);
        ASSERT_TRUE(e) << "the verifier refused a config legality accepts: "
                       << label;
        EXPECT_TRUE(kFields.count(e->field)) << e->str();
        EXPECT_TRUE(e->message.find_first_of("0123456789") !=
                        std::string::npos ||
                    e->message.find("expected") != std::string::npos)
            << "no limit in: " << e->str();
        refusedFields.insert(e->field);
        ++refused;
        continue;
      }
      PassManager pm(&context);
      pm.addPass(createKgenLowerGemmToTiles());
      ASSERT_TRUE(succeeded(pm.run(*module)))
          << "a legal config does not lower: " << label;
      SmallVector<KernelOp> kernels(module->getOps<KernelOp>());
      ASSERT_FALSE(kernels.empty()) << label;
      FailureOr<rt::KernelPackage> pkg = assemblePackage(kernels);
      ASSERT_TRUE(succeeded(pkg)) << "a legal config does not emit: " << label;
      accepted.push_back({label, std::move(*pkg)});
      // The gemm itself, for the CPU check of its schedule
      // (test/Run/legal-configs-cpu-check.test): split-K changes the
      // summation order, so those go to a file compared with a tolerance.
      std::string fn = "@case" + std::to_string(accepted.size() - 1);
      std::string &dump = c.splitK > 1 ? dumpSplit : dumpExact;
      std::string renamed = text;
      renamed.replace(renamed.find("@main"), 5, fn);
      dump += "// " + label + "\n" + renamed + "\n";
      if (c.splitK > 1)
        splitK.insert(label);
      if (c.clusterM > 1)
        clusters.insert(label);
      ++found;
    }
    EXPECT_EQ(found, perCase)
        << "no legal config drawn for " << stringifyTarget(cs.target).str()
        << " " << stringifyInstructionFamily(cs.family).str() << " "
        << cs.problem.describe();
  }
  EXPECT_FALSE(splitK.empty()) << "no split-K config among the draws";
  EXPECT_FALSE(clusters.empty()) << "no cluster among the draws";
  EXPECT_GT(refused, 0u);

  if (const char *dir = std::getenv("KGEN_PROPERTY_DUMP")) {
    for (auto [file, text] : {std::pair<std::string, std::string *>{
                                  "/accepted-exact.mlir", &dumpExact},
                              {"/accepted-split-k.mlir", &dumpSplit}}) {
      std::FILE *f = std::fopen((dir + file).c_str(), "w");
      ASSERT_TRUE(f) << "cannot write " << dir << file;
      std::fputs(text->c_str(), f);
      std::fclose(f);
    }
    // The dump alone (KGEN_PROPERTY_DUMP_ONLY=1): for the lit checks, whose
    // kgen-opt compiles each package with NVRTC again at emission; the
    // compile below, with its stack and spill checks, is this test's own
    // (ctest runs it).
    if (envInt("KGEN_PROPERTY_DUMP_ONLY", 0)) {
      std::printf("[ property ] %zu accepted configs dumped, not compiled "
                  "(%zu with split-K, %zu with clusters); %zu refused, "
                  "naming %zu fields\n",
                  accepted.size(), splitK.size(), clusters.size(), refused,
                  refusedFields.size());
      return;
    }
  }

  // Every accepted config, compiled for its target at once.
  std::vector<const rt::KernelPackage *> packages;
  std::vector<rt::CompileOptions> options;
  for (const Accepted &a : accepted) {
    packages.push_back(&a.package);
    rt::CompileOptions o;
    o.arch = a.package.target;
    options.push_back(o);
  }
  std::vector<rt::PackageCompile> compiled =
      rt::compilePackages(packages, options, /*jobs=*/std::getenv("J1") ? 1 : 0);
  ASSERT_EQ(compiled.size(), accepted.size());
  for (size_t i = 0; i < accepted.size(); ++i) {
    const rt::PackageCompile &r = compiled[i];
    ASSERT_TRUE(r.ok) << "a legal config does not compile: "
                      << accepted[i].what << "\n"
                      << compileErrorSummary(r.error);
    for (size_t k = 0; k < r.result.perKernel.size(); ++k) {
      const rt::ResourceUsage &u = r.result.perKernel[k];
      EXPECT_EQ(u.stackBytes, 0) << "kernel " << k << " of " << accepted[i].what;
      EXPECT_EQ(u.spillStoreBytes + u.spillLoadBytes, 0)
          << "kernel " << k << " of " << accepted[i].what;
    }
  }
  std::printf("[ property ] %zu accepted configs compiled (%zu with split-K, "
              "%zu with clusters); %zu refused, naming %zu fields\n",
              accepted.size(), splitK.size(), clusters.size(), refused,
              refusedFields.size());
}

// A failed compile prints its first error lines and a count, not the log.
TEST(CompileErrorSummary, FirstErrorLinesAndACount) {
  std::string log;
  for (int i = 0; i < 7; ++i)
    log += "kernel.cu(" + std::to_string(10 + i) +
           "): error: identifier \"x" + std::to_string(i) +
           "\" is undefined\n  x" + std::to_string(i) + " = 1;\n";
  std::string summary = compileErrorSummary(log, 3);
  EXPECT_NE(summary.find("kernel.cu(10): error"), std::string::npos);
  EXPECT_NE(summary.find("kernel.cu(12): error"), std::string::npos);
  EXPECT_EQ(summary.find("kernel.cu(13)"), std::string::npos);
  EXPECT_NE(summary.find("(4 more errors)"), std::string::npos);
  EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 4);
  // No line says "error": the log's first lines.
  EXPECT_EQ(compileErrorSummary("ptxas fatal: out of memory\nmore\n", 1),
            "  ptxas fatal: out of memory\n");
}
} // namespace
