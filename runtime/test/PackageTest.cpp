//===- PackageTest.cpp - Tests of kernel package loading and writing ------===//

#include "kgen/runtime/Package.h"

#include "kgen/runtime/Sha256.h"

#include "TempDirTest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kgen::rt;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kData = KGEN_RUNTIME_TEST_DATA;
const std::string kNaiveGemm = kData + "/packages/naive_gemm_f32";
const std::string kFaulting = kData + "/packages/faulting_kernel";

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The manifest of docs/kernel-package.md (bf16 4096^3 gemm with a TMA
/// descriptor), without source_sha256.
json docExampleManifest() {
  return json::parse(R"({
    "schema": "kgen.kernel-package",
    "version": 2,
    "name": "gemm_bf16_m4096_n4096_k4096",
    "source": "kernel.cu",
    "target": "sm_90a",
    "kernels": [{
      "entry": "kgen_gemm_bf16_m4096_n4096_k4096",
      "launch": {
        "grid": [32, 32, 1], "block": [384, 1, 1], "cluster": [1, 1, 1],
        "dynamic_smem_bytes": 196608
      },
      "args": ["A", "B", "D", "alpha", "tma_a"],
      "resources": {"registers": 168, "shared_bytes": 196608, "stack_bytes": 0,
                    "spill_store_bytes": 0, "spill_load_bytes": 0}
    }],
    "params": [
      {"name": "A", "kind": "tensor", "dtype": "bf16", "shape": [4096, 4096], "role": "input"},
      {"name": "B", "kind": "tensor", "dtype": "bf16", "shape": [4096, 4096], "role": "input"},
      {"name": "D", "kind": "tensor", "dtype": "bf16", "shape": [4096, 4096], "role": "output"},
      {"name": "alpha", "kind": "scalar", "dtype": "f32", "value": 1.0},
      {"name": "tma_a", "kind": "tma_descriptor", "tensor": "A", "box": [64, 64], "swizzle_bytes": 128}
    ],
    "op": {
      "kind": "gemm", "batch": 1, "m": 4096, "n": 4096, "k": 4096,
      "transpose_a": false, "transpose_b": true, "batched_b": false,
      "dtype_a": "bf16", "dtype_b": "bf16", "dtype_d": "bf16",
      "dtype_bias": null, "dtype_c": null,
      "alpha": 1.0, "beta": 0.0, "activation": "none"
    },
    "config": {"source": "default", "block_m": 128, "block_n": 256, "block_k": 64},
    "flops": 137438953472,
    "bytes": 100663296
  })");
}

/// The same package as a version 1 manifest: the one kernel's fields at the
/// top level, every parameter passed in order.
json toVersion1(json manifest) {
  json kernel = manifest["kernels"][0];
  manifest.erase("kernels");
  manifest["version"] = 1;
  manifest["entry"] = kernel["entry"];
  manifest["launch"] = kernel["launch"];
  if (kernel.contains("resources"))
    manifest["resources"] = kernel["resources"];
  return manifest;
}

const char *const kExampleSource =
    "extern \"C\" __global__ void kgen_gemm_bf16_m4096_n4096_k4096() {}\n";

class PackageTest : public kgen::rt::test::TempDirTest {
protected:
  /// Writes `manifest` (with the right source_sha256 unless it has one)
  /// and kernel.cu into a new package folder `name`.
  std::string writeRawPackage(const std::string &name, json manifest,
                              const std::string &source = kExampleSource) {
    const std::string pkgDir = dir + "/" + name;
    fs::create_directories(pkgDir);
    if (!manifest.contains("source_sha256"))
      manifest["source_sha256"] = sha256Hex(source);
    std::ofstream(pkgDir + "/manifest.json") << manifest.dump(2);
    std::ofstream(pkgDir + "/kernel.cu", std::ios::binary) << source;
    return pkgDir;
  }

  /// Loads a package expected to be refused; checks that the message is one
  /// line naming `file` (relative to the package) and returns it.
  std::string expectRefused(const std::string &pkgDir,
                            const std::string &file = "manifest.json",
                            int64_t maxElements = int64_t{1} << 32) {
    KernelPackage pkg;
    pkg.name = "untouched";
    std::string err;
    EXPECT_FALSE(loadPackage(pkgDir, pkg, err, maxElements)) << pkgDir;
    EXPECT_EQ(err.rfind(pkgDir + "/" + file + ": ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(pkg.name, "untouched");
    return err;
  }

};

TEST_F(PackageTest, LoadsTheNaiveGemmPackage) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaiveGemm, pkg, err)) << err;
  EXPECT_EQ(pkg.dir, kNaiveGemm);
  // A version 1 manifest: one kernel taking every parameter in order.
  ASSERT_EQ(pkg.kernels.size(), 1u);
  EXPECT_EQ(pkg.kernels[0].entry, "kgen_naive_gemm_f32");
  EXPECT_EQ(pkg.kernels[0].args, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(pkg.target, "sm_80");
  EXPECT_EQ(pkg.sourceFile, "kernel.cu");
  EXPECT_EQ(pkg.source, readText(kNaiveGemm + "/kernel.cu"));
  EXPECT_EQ(pkg.sourceSha256, sha256Hex(pkg.source));
  EXPECT_NE(pkg.source.find("extern \"C\" __global__ void kgen_naive_gemm_f32("),
            std::string::npos);

  constexpr int64_t M = 64, N = 48, K = 32;
  ASSERT_EQ(pkg.params.size(), 4u);
  const std::vector<std::vector<int64_t>> shapes = {{M, K}, {K, N}, {M, N}};
  const char *names[] = {"A", "B", "D"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pkg.params[i].name, names[i]);
    EXPECT_EQ(pkg.params[i].kind, ParamKind::Tensor);
    EXPECT_EQ(pkg.params[i].dtype, ElemType::F32);
    EXPECT_EQ(pkg.params[i].shape, shapes[i]);
    EXPECT_EQ(pkg.params[i].role, i < 2 ? ParamRole::Input : ParamRole::Output);
  }
  EXPECT_EQ(pkg.params[3].kind, ParamKind::Scalar);
  EXPECT_EQ(pkg.params[3].value, 1.0);
  EXPECT_EQ(pkg.findParam("alpha"), std::optional<size_t>(3));
  EXPECT_EQ(pkg.findParam("nothing"), std::nullopt);

  // One thread per output element: the grid covers D exactly.
  const LaunchConfig &l = pkg.kernels[0].launch;
  EXPECT_EQ(int64_t{l.grid[0]} * l.block[0], N);
  EXPECT_EQ(int64_t{l.grid[1]} * l.block[1], M);
  EXPECT_EQ(l.grid[2] * l.block[2], 1u);
  EXPECT_EQ(l.cluster, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(l.dynamicSmemBytes, 0u);

  EXPECT_EQ(pkg.op["kind"], "gemm");
  EXPECT_EQ(pkg.op["m"], M);
  EXPECT_EQ(pkg.op["n"], N);
  EXPECT_EQ(pkg.op["k"], K);
  EXPECT_EQ(pkg.flops, 2.0 * M * N * K);
  EXPECT_EQ(pkg.bytes, 4.0 * (M * K + K * N + M * N));
  EXPECT_TRUE(pkg.config.is_object());
  EXPECT_FALSE(pkg.kernels[0].resources.has_value());
}

TEST_F(PackageTest, LoadsTheFaultingPackage) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kFaulting, pkg, err)) << err;
  EXPECT_EQ(pkg.kernels.at(0).entry, "kgen_faulting_kernel");
  EXPECT_NE(pkg.source.find("nullptr"), std::string::npos);
}

TEST_F(PackageTest, AcceptsTheDocumentedExample) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(writeRawPackage("doc", docExampleManifest()), pkg,
                          err))
      << err;
  ASSERT_EQ(pkg.params.size(), 5u);
  const KernelParam &tma = pkg.params[4];
  EXPECT_EQ(tma.kind, ParamKind::TmaDescriptor);
  EXPECT_EQ(tma.tmaTensor, "A");
  EXPECT_EQ(tma.tmaBox, (std::vector<int64_t>{64, 64}));
  EXPECT_EQ(tma.tmaSwizzleBytes, 128);
  EXPECT_EQ(pkg.params[0].dtype, ElemType::BF16);
  ASSERT_EQ(pkg.kernels.size(), 1u);
  const PackageKernel &kernel = pkg.kernels[0];
  EXPECT_EQ(kernel.args, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(kernel.launch.dynamicSmemBytes, 196608u);
  ASSERT_TRUE(kernel.resources.has_value());
  EXPECT_EQ(kernel.resources->registers, 168);
  EXPECT_EQ(kernel.resources->sharedBytes, 196608);
  EXPECT_EQ(kernel.resources->constantBytes, 0); // optional, absent

  // The same package in the version 1 form reads the same.
  KernelPackage v1;
  ASSERT_TRUE(loadPackage(writeRawPackage("v1", toVersion1(docExampleManifest())),
                          v1, err))
      << err;
  ASSERT_EQ(v1.kernels.size(), 1u);
  EXPECT_EQ(v1.kernels[0].entry, kernel.entry);
  EXPECT_EQ(v1.kernels[0].args, kernel.args);
  EXPECT_EQ(v1.kernels[0].launch.grid, kernel.launch.grid);
  ASSERT_TRUE(v1.kernels[0].resources.has_value());
  EXPECT_EQ(toJson(*v1.kernels[0].resources), toJson(*kernel.resources));
}

/// Every field of two packages, compared.
void expectSamePackage(const KernelPackage &a, const KernelPackage &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.sourceFile, b.sourceFile);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.sourceSha256, b.sourceSha256);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    const PackageKernel &x = a.kernels[k], &y = b.kernels[k];
    EXPECT_EQ(x.entry, y.entry);
    EXPECT_EQ(x.args, y.args);
    EXPECT_EQ(x.launch.grid, y.launch.grid);
    EXPECT_EQ(x.launch.block, y.launch.block);
    EXPECT_EQ(x.launch.cluster, y.launch.cluster);
    EXPECT_EQ(x.launch.dynamicSmemBytes, y.launch.dynamicSmemBytes);
    ASSERT_EQ(x.resources.has_value(), y.resources.has_value());
    if (x.resources) {
      EXPECT_EQ(toJson(*x.resources), toJson(*y.resources));
    }
  }
  ASSERT_EQ(a.params.size(), b.params.size());
  for (size_t i = 0; i < a.params.size(); ++i) {
    const KernelParam &p = a.params[i], &q = b.params[i];
    EXPECT_EQ(p.name, q.name);
    EXPECT_EQ(p.kind, q.kind);
    EXPECT_EQ(p.dtype, q.dtype);
    EXPECT_EQ(p.shape, q.shape);
    EXPECT_EQ(p.role, q.role);
    EXPECT_EQ(p.value, q.value);
    EXPECT_EQ(p.tmaTensor, q.tmaTensor);
    EXPECT_EQ(p.tmaBox, q.tmaBox);
    EXPECT_EQ(p.tmaSwizzleBytes, q.tmaSwizzleBytes);
  }
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.flops, b.flops);
  EXPECT_EQ(a.bytes, b.bytes);
}

KernelParam scalar(const char *name, ElemType dtype, double value) {
  KernelParam p;
  p.name = name;
  p.kind = ParamKind::Scalar;
  p.dtype = dtype;
  p.value = value;
  return p;
}

TEST_F(PackageTest, WriteThenLoadRoundTrips) {
  KernelPackage original;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaiveGemm, original, err)) << err;
  PackageKernel &kernel = original.kernels.at(0);
  kernel.resources = ResourceUsage{40, 1024, 16, 8, 4, 372};
  kernel.launch.cluster = {1, 2, 1};
  kernel.launch.grid = {3, 4, 1};
  original.params.push_back(scalar("count", ElemType::I64, -(int64_t{1} << 40)));
  original.params.push_back(scalar("n", ElemType::I32, 48));
  KernelParam tma;
  tma.name = "tma_b";
  tma.kind = ParamKind::TmaDescriptor;
  tma.tmaTensor = "B";
  tma.tmaBox = {8, 16};
  tma.tmaSwizzleBytes = 64;
  original.params.push_back(tma);
  // The kernel takes them in another order than the parameters list them.
  kernel.args = {6, 0, 1, 2, 3, 4, 5};
  original.params[3].value = 0.1; // not exact in binary: must survive
  original.config = {{"block_m", 16}, {"note", "round trip"}};

  const std::string out = dir + "/nested/folder";
  ASSERT_TRUE(writePackage(out, original, err)) << err;
  KernelPackage back;
  ASSERT_TRUE(loadPackage(out, back, err)) << err;
  EXPECT_EQ(back.dir, out);
  expectSamePackage(original, back);

  // Writing again over the package replaces it, leaving no temporary files.
  original.flops = 1;
  ASSERT_TRUE(writePackage(out, original, err)) << err;
  ASSERT_TRUE(loadPackage(out, back, err)) << err;
  EXPECT_EQ(back.flops, 1);
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(out))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kernel.cu", "manifest.json"}));
}

TEST_F(PackageTest, WriteComputesTheHashAndRefusesInvalidPackages) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaiveGemm, pkg, err)) << err;
  pkg.sourceSha256 = "stale";
  pkg.source += "// edited\n";
  const std::string out = dir + "/pkg";
  ASSERT_TRUE(writePackage(out, pkg, err)) << err;
  KernelPackage back;
  ASSERT_TRUE(loadPackage(out, back, err)) << err;
  EXPECT_EQ(back.sourceSha256, sha256Hex(pkg.source));

  KernelPackage bad = pkg;
  bad.params[1].name = "A";
  const std::string badDir = dir + "/bad";
  EXPECT_FALSE(writePackage(badDir, bad, err));
  EXPECT_NE(err.find("params[1].name: duplicate parameter name A"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(badDir));

  bad = pkg;
  bad.sourceFile = "../escape.cu";
  EXPECT_FALSE(writePackage(badDir, bad, err));
  EXPECT_NE(err.find("source"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir + "/escape.cu"));
}

TEST_F(PackageTest, RefusesUnreadableManifests) {
  EXPECT_NE(expectRefused(dir + "/absent").find("No such file"),
            std::string::npos);

  const std::string pkgDir = writeRawPackage("p", docExampleManifest());
  const std::string text = readText(pkgDir + "/manifest.json");
  const std::pair<std::string, const char *> cases[] = {
      {"", "empty"},
      {"   \n", "empty"},
      {"{", "not valid JSON"},
      {text.substr(0, text.size() / 2), "not valid JSON"},
      {"{\"schema\": \"kgen.kernel-package\",}", "not valid JSON"},
      {"[1, 2]", "expected an object"},
      {"\"kgen\"", "expected an object"},
  };
  for (const auto &[content, expected] : cases) {
    std::ofstream(pkgDir + "/manifest.json", std::ios::trunc) << content;
    EXPECT_NE(expectRefused(pkgDir).find(expected), std::string::npos)
        << content;
  }
  fs::remove(pkgDir + "/manifest.json");
  fs::create_directory(pkgDir + "/manifest.json");
  EXPECT_NE(expectRefused(pkgDir).find("directory"), std::string::npos);
}

/// A change to the documented example and a part of the message it must
/// give (which names the field).
struct Mutation {
  const char *pointer; // JSON pointer of the field changed
  json value;          // its new value; discarded: remove the field
  const char *expected;
};

TEST_F(PackageTest, RefusesMalformedFields) {
  const json removed = json(json::value_t::discarded);
  const Mutation mutations[] = {
      {"/schema", "kgen.results", "schema: expected \"kgen.kernel-package\""},
      {"/schema", removed, "schema: missing"},
      {"/version", 3, "version: expected 1 or 2 (what this reader understands), got 3"},
      {"/version", "1", "version: expected an integer"},
      {"/version", 1.5, "version: expected an integer"},
      {"/name", 5, "name: expected a string, got 5"},
      {"/name", "", "name: is empty"},
      {"/kernels", removed, "kernels: missing"},
      {"/kernels", json::array(), "kernels: expected an array of 1 to 16 kernels"},
      {"/kernels/0", "main", "kernels[0]: expected an object"},
      {"/kernels/0/entry", removed, "kernels[0].entry: missing"},
      {"/kernels/0/entry", "not an identifier", "kernels[0].entry: expected a C identifier"},
      {"/kernels/0/args", removed, "kernels[0].args: missing"},
      {"/kernels/0/args", "A", "kernels[0].args: expected an array"},
      {"/kernels/0/args/0", 0, "kernels[0].args[0]: expected a string"},
      {"/kernels/0/args/0", "Z", "kernels[0].args[0]: names no parameter: \"Z\""},
      {"/kernels/0/args/1", "A", "kernels[0].args[1]: passes A twice"},
      {"/kernels/0/args", json::array({"A", "B", "D", "alpha"}), "params[4]: tma_a is no kernel's argument"},
      {"/target", "compute_90a", "target: expected a real architecture"},
      {"/target", "sm_", "target"},
      {"/source", "../kernel.cu", "source: expected a file name"},
      {"/source", "sub/kernel.cu", "source: expected a file name"},
      {"/source", "..", "source: expected a file name"},
      {"/source", "", "source: expected a file name"},
      {"/source_sha256", "abc", "source_sha256: expected 64 lowercase hex"},
      {"/source_sha256", std::string(64, '0'),
       "source_sha256: kernel.cu hashes to"},
      {"/kernels/0/launch", "big", "kernels[0].launch: expected an object"},
      {"/kernels/0/launch/grid/0", 0, "kernels[0].launch.grid[0]: expected an integer in [1, "},
      {"/kernels/0/launch/grid/1", 70000, "kernels[0].launch.grid[1]: expected an integer in [1, 65535]"},
      {"/kernels/0/launch/grid", json::array({1, 1}), "kernels[0].launch.grid: expected 3 to 3 elements"},
      {"/kernels/0/launch/grid", "32", "kernels[0].launch.grid: expected an array"},
      {"/kernels/0/launch/block/0", 2048, "kernels[0].launch.block[0]"},
      {"/kernels/0/launch/block", json::array({64, 64, 1}), "kernels[0].launch.block: more than 1024 threads"},
      {"/kernels/0/launch/block/2", -1, "kernels[0].launch.block[2]"},
      {"/kernels/0/launch/cluster", removed, "kernels[0].launch.cluster: missing"},
      {"/kernels/0/launch/cluster", json::array({3, 1, 1}), "kernels[0].launch.grid: dimension 0 is not a multiple"},
      {"/kernels/0/launch/cluster", json::array({4, 8, 1}), "kernels[0].launch.cluster: more than 16 blocks"},
      {"/kernels/0/launch/dynamic_smem_bytes", -1, "kernels[0].launch.dynamic_smem_bytes"},
      {"/kernels/0/launch/dynamic_smem_bytes", 1e12, "kernels[0].launch.dynamic_smem_bytes"},
      {"/kernels/0/launch/dynamic_smem_bytes", int64_t{1} << 40, "kernels[0].launch.dynamic_smem_bytes"},
      {"/params", json::object(), "params: expected an array"},
      {"/params/0", 3, "params[0]: expected an object"},
      {"/params/0/kind", "matrix", "params[0].kind: unknown value \"matrix\""},
      {"/params/0/kind", removed, "params[0].kind: missing"},
      {"/params/0/dtype", "f64", "params[0].dtype: unknown value \"f64\""},
      {"/params/0/dtype", "float", "params[0].dtype: unknown value"},
      {"/params/0/role", "scratch", "params[0].role: unknown value"},
      {"/params/0/shape/0", -1, "params[0].shape: tensor of shape -1x4096 has a negative dimension -1"},
      {"/params/0/shape/1", 1.5, "params[0].shape[1]: expected an integer"},
      {"/params/0/shape", json::array({1000000, 1000000, 1000000}), "params[0].shape: tensor of shape 1000000x1000000x1000000 has more than the limit"},
      {"/params/0/shape", json::array({1, 1, 1, 1, 1, 1, 1, 1, 1}), "params[0].shape: expected 0 to 8 elements"},
      {"/params/0/name", "", "params[0].name: expected a C identifier"},
      {"/params/1/name", "A", "params[1].name: duplicate parameter name A"},
      {"/params/3/dtype", "bf16", "params[3].dtype: unknown value \"bf16\""},
      {"/params/3/value", "one", "params[3].value: expected a number"},
      {"/params/3/value", 1e300, "params[3].value: out of the range of f32"},
      {"/params/3/value", removed, "params[3].value: missing"},
      {"/params/4/tensor", "nothing", "params[4].tensor: names no tensor parameter"},
      {"/params/4/tensor", "alpha", "params[4].tensor: names no tensor parameter"},
      {"/params/4/swizzle_bytes", 48, "params[4].swizzle_bytes: expected 0, 32, 64 or 128"},
      {"/params/4/box", json::array({64, 64, 64}), "params[4].box: has 3 dimensions"},
      {"/params/4/box", json::array({64, 0}), "params[4].box[1]"},
      {"/params/4/box", json::array({64, 512}), "params[4].box[1]"},
      {"/params/4/box", json::array({64, 4}), "params[4].box: innermost extent is 8 bytes"},
      {"/params/4/swizzle_bytes", 64, "params[4].box: innermost extent of 128 bytes exceeds swizzle_bytes"},
      {"/op", removed, "op: missing"},
      {"/op", json::array(), "op: expected an object"},
      {"/op/kind", "conv", "op.kind: unknown value \"conv\""},
      {"/op/kind", 1, "op.kind: expected a string"},
      {"/op/m", 0, "op.m: expected an integer in [1, "},
      {"/op/batch", removed, "op.batch: missing"},
      {"/op/transpose_b", "yes", "op.transpose_b: expected true or false"},
      {"/op/dtype_a", "f64", "op.dtype_a: unknown value"},
      {"/op/dtype_c", "f32", "params: op.kind gemm needs a tensor parameter C"},
      {"/op/activation", "tanh", "op.activation: unknown value"},
      {"/op/alpha", "1", "op.alpha: expected a number"},
      {"/op/k", 2048, "params[0].shape: 4096x4096 does not match the op (expected 4096x2048)"},
      {"/op/n", 2048, "params[1].shape: 4096x4096 does not match the op (expected 2048x4096)"},
      {"/op/dtype_d", "f32", "params[2].dtype: bf16 differs from the op's f32"},
      {"/flops", -1, "flops: is negative"},
      {"/flops", "many", "flops: expected a number"},
      {"/bytes", removed, "bytes: missing"},
      {"/config", 5, "config: expected an object or null"},
      {"/kernels/0/resources/registers", -3, "kernels[0].resources.registers: expected an integer in [0, 255]"},
      {"/kernels/0/resources/spill_load_bytes", removed, "kernels[0].resources.spill_load_bytes: missing"},
      {"/kernels/0/resources", "none", "kernels[0].resources: expected an object"},
      // Names reach generated source, NVRTC's command line and terminals:
      // identifiers as identifierProblem (Names.h) defines them, plain
      // file names, package names without control characters (issue 16).
      {"/kernels/0/entry", "int", "kernels[0].entry: expected a C identifier, got \"int\", which is a C++ or CUDA keyword"},
      {"/kernels/0/entry", "__LINE__", "kernels[0].entry: expected a C identifier, got \"__LINE__\", which is reserved"},
      {"/kernels/0/entry", "evil\n#include </etc/passwd>\nint x;", "kernels[0].entry: expected a C identifier, got \"evil\\n#include"},
      {"/kernels/0/entry", std::string(129, 'k'), "kernels[0].entry: expected a C identifier, got a long string, which is longer than 128"},
      {"/params/0/name", "threadIdx", "params[0].name: expected a C identifier, got \"threadIdx\", which is a C++ or CUDA keyword or built-in"},
      {"/params/3/name", "a)", "params[3].name: expected a C identifier"},
      {"/params/3/name", "_Pragma", "params[3].name: expected a C identifier"},
      {"/source", ".kernel.cu", "source: expected a file name inside the package folder, got \".kernel.cu\", which starts with"},
      {"/source", "-o.cu", "source: expected a file name"},
      {"/source", std::string("kernel\0.cu", 10), "source: expected a file name"},
      {"/source", "/etc/passwd", "source: expected a file name"},
      {"/name", "gemm\n== forged line", "name: has a control character"},
      {"/name", "gemm\x1b[2J", "name: has a control character"},
      {"/name", std::string(257, 'n'), "name: is longer than 256 bytes"},
      {"/params", json::array({json::object()}) , "params[0].name: missing"},
  };
  for (const Mutation &m : mutations) {
    json manifest = docExampleManifest();
    const json::json_pointer ptr(m.pointer);
    if (m.value.is_discarded())
      manifest[ptr.parent_pointer()].erase(ptr.back());
    else
      manifest[ptr] = m.value;
    const std::string err = expectRefused(writeRawPackage("m", manifest));
    EXPECT_NE(err.find(m.expected), std::string::npos)
        << m.pointer << " -> " << err;
  }
}

TEST_F(PackageTest, AcceptsOptionalAndOpaqueFields) {
  json manifest = docExampleManifest();
  manifest["kernels"][0].erase("resources");
  manifest["kernels"][0]["args"].push_back("bias");
  manifest.erase("config");
  manifest["op"].erase("dtype_c");                     // absent is null
  manifest["op"]["dtype_bias"] = "bf16";
  manifest["params"].push_back({{"name", "bias"}, {"kind", "tensor"},
                                {"dtype", "bf16"}, {"shape", {4096}},
                                {"role", "input"}});
  manifest["generator"] = {{"commit", "abc"}}; // unknown keys are ignored
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(writeRawPackage("opt", manifest), pkg, err)) << err;
  EXPECT_FALSE(pkg.kernels[0].resources.has_value());
  EXPECT_TRUE(pkg.config.is_null());

  // Opaque op kinds (moe) are kept as they are.
  manifest = docExampleManifest();
  manifest["op"] = {{"kind", "moe"}, {"experts", 16}};
  ASSERT_TRUE(loadPackage(writeRawPackage("moe", manifest), pkg, err)) << err;
  EXPECT_EQ(pkg.op["experts"], 16);
}

/// A split-K gemm as a package: partial sums into a workspace, then a
/// reduction that applies the epilogue.
json twoKernelManifest() {
  json m = docExampleManifest();
  m["params"] = json::parse(R"([
    {"name": "A", "kind": "tensor", "dtype": "bf16", "shape": [4096, 4096], "role": "input"},
    {"name": "B", "kind": "tensor", "dtype": "bf16", "shape": [4096, 4096], "role": "input"},
    {"name": "W", "kind": "tensor", "dtype": "f32", "shape": [4, 1, 4096, 4096], "role": "workspace"},
    {"name": "D", "kind": "tensor", "dtype": "bf16", "shape": [4096, 4096], "role": "output"}
  ])");
  json main = m["kernels"][0];
  main["entry"] = "kgen_partials";
  main["args"] = {"A", "B", "W"};
  json reduce = main;
  reduce["entry"] = "kgen_reduce";
  reduce["args"] = {"W", "D"};
  reduce["launch"]["dynamic_smem_bytes"] = 0;
  m["kernels"] = {main, reduce};
  return m;
}

TEST_F(PackageTest, HoldsSeveralKernelsAndAWorkspace) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(writeRawPackage("two", twoKernelManifest()), pkg, err))
      << err;
  ASSERT_EQ(pkg.kernels.size(), 2u);
  EXPECT_EQ(pkg.kernels[0].entry, "kgen_partials");
  EXPECT_EQ(pkg.kernels[0].args, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(pkg.kernels[1].entry, "kgen_reduce");
  EXPECT_EQ(pkg.kernels[1].args, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(pkg.params[2].role, ParamRole::Workspace);

  const std::string out = dir + "/written";
  ASSERT_TRUE(writePackage(out, pkg, err)) << err;
  KernelPackage back;
  ASSERT_TRUE(loadPackage(out, back, err)) << err;
  expectSamePackage(pkg, back);

  json dup = twoKernelManifest();
  dup["kernels"][1]["entry"] = "kgen_partials";
  EXPECT_NE(expectRefused(writeRawPackage("dup", dup))
                .find("kernels[1].entry: duplicate entry kgen_partials"),
            std::string::npos);
}

TEST(ResourceUsageTest, WorstOfTakesMaximaAndSumsSpills) {
  const ResourceUsage a{168, 1024, 0, 8, 4, 372}, b{40, 0, 16, 0, 12, 400};
  const ResourceUsage w = worstOf({a, b});
  EXPECT_EQ(w.registers, 168);
  EXPECT_EQ(w.sharedBytes, 1024);
  EXPECT_EQ(w.stackBytes, 16);
  EXPECT_EQ(w.spillStoreBytes, 8);
  EXPECT_EQ(w.spillLoadBytes, 16);
  EXPECT_EQ(w.constantBytes, 400);
  EXPECT_EQ(toJson(worstOf({})), toJson(ResourceUsage{}));
}

TEST_F(PackageTest, RefusesBadSources) {
  // Missing source file: the message names it.
  const std::string pkgDir = writeRawPackage("nosrc", docExampleManifest());
  fs::remove(pkgDir + "/kernel.cu");
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu").find("No such file"),
            std::string::npos);

  // Edited source: the hash no longer matches.
  json manifest = docExampleManifest();
  manifest["source_sha256"] = sha256Hex("something else");
  const std::string edited = writeRawPackage("edited", manifest);
  EXPECT_NE(expectRefused(edited).find("stale or edited package"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Hostile packages (issue 16)
//===----------------------------------------------------------------------===//

TEST_F(PackageTest, RefusesASourceThatIsASymbolicLink) {
  // A kernel.cu linking to a file outside the package would make NVRTC
  // compile it, and its log, the cache and the results quote it.
  const std::string secret = writeRaw("secret.txt", kExampleSource);
  json manifest = docExampleManifest();
  const std::string pkgDir = writeRawPackage("link", manifest);
  fs::remove(pkgDir + "/kernel.cu");
  fs::create_symlink(secret, pkgDir + "/kernel.cu");
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu").find("is a symbolic link"),
            std::string::npos);
  // Relative, to a file inside the package: still refused.
  std::ofstream(pkgDir + "/real.cu") << kExampleSource;
  fs::remove(pkgDir + "/kernel.cu");
  fs::create_symlink("real.cu", pkgDir + "/kernel.cu");
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu").find("is a symbolic link"),
            std::string::npos);
  // A dangling link too.
  fs::remove(pkgDir + "/kernel.cu");
  fs::create_symlink("/no/such/file", pkgDir + "/kernel.cu");
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu").find("is a symbolic link"),
            std::string::npos);
}

TEST_F(PackageTest, RefusesAManifestThatIsASymbolicLink) {
  const std::string pkgDir = writeRawPackage("link", docExampleManifest());
  fs::rename(pkgDir + "/manifest.json", dir + "/elsewhere.json");
  fs::create_symlink(dir + "/elsewhere.json", pkgDir + "/manifest.json");
  EXPECT_NE(expectRefused(pkgDir).find("is a symbolic link"),
            std::string::npos);
  // The package folder itself may be a link.
  fs::remove(pkgDir + "/manifest.json");
  fs::rename(dir + "/elsewhere.json", pkgDir + "/manifest.json");
  fs::create_directory_symlink(pkgDir, dir + "/alias");
  KernelPackage pkg;
  std::string err;
  EXPECT_TRUE(loadPackage(dir + "/alias", pkg, err)) << err;
}

TEST_F(PackageTest, RefusesASourceWithANulByte) {
  // NVRTC compiles the text before a NUL; the hash covers all of it.
  const std::string source =
      std::string(kExampleSource) + std::string("\0#include </etc/passwd>\n", 24);
  const std::string pkgDir =
      writeRawPackage("nul", docExampleManifest(), source);
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu")
                .find("has a NUL byte at offset " +
                      std::to_string(std::strlen(kExampleSource)) +
                      " (NVRTC would compile only the text before it)"),
            std::string::npos);

  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaiveGemm, pkg, err)) << err;
  pkg.source += std::string("\0", 1);
  EXPECT_FALSE(writePackage(dir + "/out", pkg, err));
  EXPECT_NE(err.find("NUL"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST_F(PackageTest, RefusesSourcesThatAreNotRegularFiles) {
  const std::string pkgDir = writeRawPackage("fifo", docExampleManifest());
  fs::remove(pkgDir + "/kernel.cu");
  ASSERT_EQ(::mkfifo((pkgDir + "/kernel.cu").c_str(), 0600), 0);
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu").find("is not a regular file"),
            std::string::npos);
  fs::remove(pkgDir + "/kernel.cu");
  fs::create_directory(pkgDir + "/kernel.cu");
  EXPECT_NE(expectRefused(pkgDir, "kernel.cu").find("is a directory"),
            std::string::npos);
  fs::remove(pkgDir + "/manifest.json");
  ASSERT_EQ(::mkfifo((pkgDir + "/manifest.json").c_str(), 0600), 0);
  EXPECT_NE(expectRefused(pkgDir).find("is not a regular file"),
            std::string::npos);
}

TEST_F(PackageTest, RefusesDeepOrHugeManifests) {
  const std::string pkgDir = writeRawPackage("deep", docExampleManifest());
  // 200k levels made kgen-bench compile segfault (issue 16).
  for (const std::string &text :
       {std::string(200000, '[') + std::string(200000, ']'),
        "{\"config\": " + std::string(65, '[') + std::string(65, ']') + "}"}) {
    std::ofstream(pkgDir + "/manifest.json", std::ios::trunc) << text;
    EXPECT_NE(expectRefused(pkgDir).find(
                  "arrays and objects nested deeper than 64 levels"),
              std::string::npos);
  }
  json manifest = docExampleManifest();
  manifest["config"]["deep"] = json::parse(std::string(60, '[') + std::string(60, ']'));
  KernelPackage pkg;
  std::string err;
  EXPECT_TRUE(loadPackage(writeRawPackage("ok", manifest), pkg, err)) << err;

  { std::ofstream(pkgDir + "/manifest.json", std::ios::trunc) << "{}"; }
  fs::resize_file(pkgDir + "/manifest.json", kMaxManifestBytes + 1);
  EXPECT_NE(expectRefused(pkgDir).find("larger than the limit"),
            std::string::npos);

  json many = docExampleManifest();
  for (int i = 0; i < 1100; ++i)
    many["params"].push_back({{"name", "s" + std::to_string(i)},
                              {"kind", "scalar"}, {"dtype", "i32"}, {"value", i}});
  EXPECT_NE(expectRefused(writeRawPackage("many", many))
                .find("params: has 1105 parameters, more than the limit of 1024"),
            std::string::npos);
}

TEST_F(PackageTest, WritesANewPackageAsOneFolder) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaiveGemm, pkg, err)) << err;
  ASSERT_TRUE(writePackage(dir + "/p1", pkg, err)) << err;
  ASSERT_TRUE(writePackage(dir + "/p2/", pkg, err)) << err; // trailing slash
  // Nothing beside the packages: no temporary folder, file or leftover.
  EXPECT_EQ(listDir(), (std::vector<std::string>{"p1", "p2"}));
  KernelPackage back;
  ASSERT_TRUE(loadPackage(dir + "/p2", back, err)) << err;

  // Rewriting a package folder replaces it whole.
  pkg.flops = 7;
  pkg.source += "// v2\n";
  ASSERT_TRUE(writePackage(dir + "/p1", pkg, err)) << err;
  ASSERT_TRUE(loadPackage(dir + "/p1", back, err)) << err;
  EXPECT_EQ(back.flops, 7);
  EXPECT_EQ(listDir(), (std::vector<std::string>{"p1", "p2"}));

  // A folder holding other files too: the package's files are replaced
  // one by one, the others kept.
  writeRaw("p1/notes.txt", "mine");
  pkg.flops = 8;
  ASSERT_TRUE(writePackage(dir + "/p1", pkg, err)) << err;
  ASSERT_TRUE(loadPackage(dir + "/p1", back, err)) << err;
  EXPECT_EQ(back.flops, 8);
  EXPECT_EQ(readRaw(pathOf("p1/notes.txt")), "mine");
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dir + "/p1"))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kernel.cu", "manifest.json",
                                             "notes.txt"}));

  // A file or a link where the folder should be: refused, left as it is.
  writeRaw("file", "x");
  EXPECT_FALSE(writePackage(dir + "/file", pkg, err));
  EXPECT_NE(err.find("exists and is not a folder"), std::string::npos) << err;
  fs::create_directory_symlink(dir + "/p2", dir + "/link");
  EXPECT_FALSE(writePackage(dir + "/link", pkg, err));
  EXPECT_EQ(readRaw(pathOf("file")), "x");
  EXPECT_EQ(listDir(), (std::vector<std::string>{"file", "link", "p1", "p2"}));
}

TEST_F(PackageTest, WritingRemovesTemporariesOfDeadProcesses) {
  // A package write interrupted by SIGKILL leaves its temporary folder; the
  // next write into the same folder removes it, as it does a results
  // file's temporary. A live process's temporaries stay.
  const pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  ASSERT_GT(dead, 0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  const std::string stale = "old.tmp." + std::to_string(dead) + ".0";
  fs::create_directories(pathOf(stale));
  writeRaw(stale + "/kernel.cu", "partial");
  writeRaw("r.json.tmp." + std::to_string(dead) + ".3", "{");
  const std::string live = "other.tmp." + std::to_string(getppid()) + ".0";
  writeRaw(live, "in progress");
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaiveGemm, pkg, err)) << err;
  ASSERT_TRUE(writePackage(dir + "/new", pkg, err)) << err;
  EXPECT_EQ(listDir(), (std::vector<std::string>{"new", live}));
}

TEST_F(PackageTest, AppliesTheElementLimit) {
  const std::string pkgDir = writeRawPackage("p", docExampleManifest());
  EXPECT_NE(expectRefused(pkgDir, "manifest.json", 1000).find(
                "params[0].shape: tensor of shape 4096x4096 has more than "
                "the limit of 1000 elements"),
            std::string::npos);
}

TEST_F(PackageTest, ResourceUsageJsonRoundTrips) {
  const ResourceUsage usage{168, 196608, 16, 8, 4, 372};
  ResourceUsage back;
  std::string err;
  ASSERT_TRUE(fromJson(toJson(usage), back, err)) << err;
  EXPECT_EQ(toJson(back), toJson(usage));
  EXPECT_FALSE(fromJson(json::array(), back, err));
  EXPECT_EQ(err, "resources: expected an object, got an array");
}

} // namespace
