//===- Package.h - kernel packages (manifest.json + .cu) --------*- C++ -*-===//
//
// The contract between kgen's code generator and the runtime; the format is
// documented in docs/kernel-package.md. Loading validates everything the
// runtime relies on, so later stages can trust the fields.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_PACKAGE_H
#define KGEN_RUNTIME_PACKAGE_H

#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/JsonLimits.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

/// The version written. Version 1 manifests (one kernel: top-level entry,
/// launch and resources, every parameter passed in order) are still read.
constexpr int kPackageVersion = 2;

/// Largest source file a package may have (its manifest: kMaxManifestBytes,
/// JsonLimits.h).
constexpr int64_t kMaxSourceBytes = int64_t{64} << 20;

/// Longest package name, in bytes.
constexpr size_t kMaxPackageNameLength = 256;

/// ptxas's resource report for one kernel (parsed by PtxasReport.h), as
/// manifests and results record it.
struct ResourceUsage {
  int registers = 0;
  int64_t sharedBytes = 0;     // static shared memory
  int64_t stackBytes = 0;      // stack frame
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t constantBytes = 0;   // cmem[0] (kernel parameters and constants)
};

struct LaunchConfig {
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  std::array<uint32_t, 3> cluster = {1, 1, 1};
  uint32_t dynamicSmemBytes = 0;
};

enum class ParamKind { Tensor, Scalar, TmaDescriptor };
/// Workspace tensors hold intermediates between a package's kernels (split-K
/// partial sums): the runtime allocates them, poisons them with NaN, and
/// neither fills nor compares them.
enum class ParamRole { Input, Output, InOut, Workspace };

/// "input", "output", "inout", "workspace": the manifest's spelling.
const char *paramRoleName(ParamRole role);

struct KernelParam {
  std::string name;
  ParamKind kind = ParamKind::Tensor;
  ElemType dtype = ElemType::F32;     // Tensor, Scalar
  std::vector<int64_t> shape;         // Tensor
  ParamRole role = ParamRole::Input;  // Tensor
  double value = 0;                   // Scalar
  std::string tmaTensor;              // TmaDescriptor: a Tensor param's name
  std::vector<int64_t> tmaBox;        // TmaDescriptor: tile shape, innermost last
  int tmaSwizzleBytes = 0;            // TmaDescriptor: 0, 32, 64 or 128
};

/// One kernel of a package: launched in `kernels` order on one stream, each
/// after the previous one finished.
struct PackageKernel {
  std::string entry;         // extern "C" __global__ function
  LaunchConfig launch;
  std::vector<size_t> args;  // its parameters, as indices into params
  std::optional<ResourceUsage> resources; // ptxas's report, when known
};

struct KernelPackage {
  std::string dir;           // folder holding manifest.json
  std::string name;
  std::string target;        // "sm_80", "sm_90a", ...
  std::string sourceFile;    // relative to dir
  std::string source;        // the CUDA source text
  std::string sourceSha256;
  std::vector<PackageKernel> kernels; // at least one
  std::vector<KernelParam> params;    // every kernel's, each once
  nlohmann::json op;         // op signature; op["kind"] is a string
  nlohmann::json config;     // lowering strategy, opaque here
  double flops = 0;
  double bytes = 0;

  /// Index of the parameter named `name`, if any.
  std::optional<size_t> findParam(const std::string &name) const;
};

/// "sm_" followed by two or three digits and an optional 'a' or 'f' suffix
/// ("sm_80", "sm_90a", "sm_100f"): a real architecture, which NVRTC
/// compiles to SASS; what a manifest's target and kgen-bench's --arch must
/// be.
bool isTargetName(const std::string &name);

/// Reads `dir`/manifest.json and the source it names, and validates them:
/// schema and version, required fields and their types, a name of at most
/// kMaxPackageNameLength bytes without control characters, dtype names,
/// non-negative shapes within `maxElements` each, launch dimensions within
/// CUDA's limits, at most 1024 parameters with unique names, kernel entries
/// and parameter names that are C identifiers (identifierProblem in
/// Names.h), TMA descriptors naming a tensor parameter, kernels with
/// distinct entries whose arguments name parameters (each parameter used by
/// some kernel), and a source that is a plain file name (fileNameProblem)
/// inside the folder, has no NUL byte and hashes to source_sha256. Neither
/// manifest.json nor the source may be a symbolic link, a FIFO or a device;
/// the manifest is at most kMaxManifestBytes and nests at most
/// kMaxJsonDepth levels, the source at most kMaxSourceBytes. On failure
/// returns false with a one-line message naming the file and the field.
bool loadPackage(const std::string &dir, KernelPackage &out, std::string &err,
                 int64_t maxElements = int64_t{1} << 32);

/// Writes a package into `dir`; sourceSha256 is computed here. For
/// generators and tests. Atomic: the package is written into a temporary
/// folder beside `dir` and renamed into place, or exchanged with a `dir`
/// that holds only a package's files; a `dir` with other files in it gets
/// the two files written in place, each atomically (source first). An
/// interrupt or a failure leaves the old package and no temporaries
/// (FileUtil.h).
bool writePackage(const std::string &dir, const KernelPackage &pkg,
                  std::string &err);

/// The values of input tensor `param` of `pkg` in a run seeded `runSeed`,
/// the one rule of the GPU run and the emulated device:
/// makeRandom(dtype, shape, packageInputSeed(runSeed, name)), except an
/// attention package's kv_lens, whose lengths attentionKvLens (Attention.h)
/// draws from that seed so that they lie in [0, Skv], and its block_table
/// (attentionBlockTable: distinct shuffled pages, -1 past each sequence's
/// length), its q_descale, k_descale and v_descale (attentionDescale:
/// in [0.5, 2]) and its cu_seqlens_q and cu_seqlens_k (attentionCuSeqlens:
/// seeded partitions of the token totals; over a paged cache cu_seqlens_k
/// is attentionPagedCuSeqlensK, key counts within each sequence's pages,
/// and block_table attentionVarlenBlockTable), all through attentionInput, and
/// a moe package's
/// inputs, filled by moeInput (Moe.h: weights scaled by 1 / sqrt(K),
/// router logits without ties), and a grouped_gemm package's, filled by
/// groupedGemmInput (GroupedGemm.h: B scaled likewise, non-decreasing
/// expert_offsets). Precondition: `pkg`
/// was loaded (its op checked) and `param` is one of its tensors.
HostTensor makePackageInput(const KernelPackage &pkg, const KernelParam &param,
                            uint64_t runSeed);

/// The worst of several kernels' reports: the most registers, shared memory,
/// stack and constant bytes, the sum of the spills. What a package costs
/// when any of its kernels matters.
ResourceUsage worstOf(const std::vector<ResourceUsage> &usages);

/// JSON forms of ResourceUsage (the "resources" object of manifests and
/// results).
nlohmann::json toJson(const ResourceUsage &usage);
bool fromJson(const nlohmann::json &j, ResourceUsage &usage, std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_PACKAGE_H
