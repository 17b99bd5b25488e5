//===- Emulate.cpp - run a kernel package on the emulated device ----------===//

#include "Emulate.h"

#include "include/kgen/emulate/TensorMap.h"
#include "kgen/runtime/Attention.h"
#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/GroupedGemm.h"
#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Moe.h"
#include "kgen/runtime/Npy.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

namespace kgen::emu {
namespace rt = ::kgen::rt;

std::string defaultIncludeDir() { return KGEN_EMULATE_INCLUDE_DIR; }

namespace {

constexpr size_t kPage = 4096;
constexpr unsigned char kCanary = 0xa5;

/// A tensor between two inaccessible pages, its end as close to the upper
/// one as a 256-byte aligned start allows; the slack on both sides holds a
/// canary checked after every kernel.
struct Guarded {
  std::string name;
  char *map = nullptr;
  size_t mapBytes = 0;
  char *data = nullptr;
  size_t bytes = 0;

  bool allocate(const std::string &n, size_t b) {
    name = n;
    bytes = b;
    const size_t body = (std::max<size_t>(b, 1) + 255) / 256 * 256;
    const size_t pages = (body + kPage - 1) / kPage;
    mapBytes = (pages + 2) * kPage;
    void *m = mmap(nullptr, mapBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return false;
    map = static_cast<char *>(m);
    char *hi = map + mapBytes - kPage;
    data = hi - body;
    std::memset(map + kPage, kCanary, size_t(hi - (map + kPage)));
    mprotect(map, kPage, PROT_NONE);
    mprotect(hi, kPage, PROT_NONE);
    return true;
  }
  /// The first byte outside [data, data + bytes) whose canary changed, or -1
  /// (as an offset from data).
  long long canaryHit() const {
    for (char *p = map + kPage; p < data; ++p)
      if (static_cast<unsigned char>(*p) != kCanary)
        return p - data;
    for (char *p = data + bytes; p < map + mapBytes - kPage; ++p)
      if (static_cast<unsigned char>(*p) != kCanary)
        return p - data;
    return -1;
  }
  ~Guarded() {
    if (map)
      munmap(map, mapBytes);
  }
};

std::string shellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  return bool(f);
}

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct WorkDir {
  std::string path;
  bool keep = false;
  ~WorkDir() {
    if (!path.empty() && !keep) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
};

bool fail(EmulateResult &r, const std::string &msg) {
  r.error = msg;
  return false;
}

/// The emulated device's encoding (kgen/emulate/TensorMap.h) of TMA
/// descriptor `p` over tensor `t` at `data`: the geometry the GPU path gives
/// cuTensorMapEncodeTiled (dimension 0 innermost, byte strides, the box).
struct alignas(64) TensorMapBytes {
  unsigned char bytes[128];
};
bool encodeTensorMap(const rt::KernelParam &p, const rt::KernelParam &t,
                     const void *data, TensorMapBytes &out, std::string &err) {
  TensorMapDesc d;
  d.rank = uint32_t(t.shape.size());
  if (d.rank < 1 || d.rank > 5 || p.tmaBox.size() != t.shape.size()) {
    err = "TMA descriptor " + p.name + ": rank or box does not match " + t.name;
    return false;
  }
  d.elemBytes = uint32_t(rt::elemTypeBytes(t.dtype));
  const int sw = p.tmaSwizzleBytes;
  d.swizzle = sw == 0 ? 0 : sw == 32 ? 1 : sw == 64 ? 2 : sw == 128 ? 3 : 99;
  if (d.swizzle == 99) {
    err = "TMA descriptor " + p.name + ": swizzle of " + std::to_string(sw) +
          " bytes";
    return false;
  }
  d.base = reinterpret_cast<uint64_t>(data);
  uint64_t stride = d.elemBytes;
  for (uint32_t i = 0; i < d.rank; ++i) {
    d.dims[i] = uint64_t(t.shape[d.rank - 1 - i]);
    // cuTensorMapEncodeTiled refuses a global stride (of every dimension
    // but the innermost) that is not a multiple of 16 bytes.
    if (i > 0 && stride % 16 != 0) {
      err = "TMA descriptor " + p.name + ": the global stride of " + t.name +
            "'s dimension " + std::to_string(d.rank - 1 - i) + " is " +
            std::to_string(stride) +
            " bytes, not a multiple of 16 (cuTensorMapEncodeTiled refuses "
            "it)";
      return false;
    }
    d.strides[i] = stride;
    stride *= d.dims[i];
    d.box[i] = uint32_t(p.tmaBox[d.rank - 1 - i]);
  }
  encodeTensorMapDesc(d, out.bytes);
  return true;
}

/// Writes every tensor parameter to dir/NAME.npy: inputs from `host` (as
/// filled), outputs and workspaces from the emulated memory. Parameter
/// names are C identifiers (loadPackage checks them), so safe file names.
bool saveTensors(const rt::KernelPackage &pkg,
                 const std::vector<rt::HostTensor> &host,
                 const std::vector<std::unique_ptr<Guarded>> &mem,
                 const std::string &dir, std::string &err) {
  for (size_t i = 0; i < pkg.params.size(); ++i) {
    const rt::KernelParam &p = pkg.params[i];
    if (p.kind != rt::ParamKind::Tensor)
      continue;
    rt::HostTensor t = host[i];
    std::memcpy(t.data.data(), mem[i]->data, t.data.size());
    if (!rt::writeNpy(dir + "/" + p.name + ".npy", t, err))
      return false;
  }
  return true;
}

/// The index of parameter `name` in `pkg`, or -1.
int paramIndex(const rt::KernelPackage &pkg, const char *name) {
  std::optional<size_t> i = pkg.findParam(name);
  return i ? int(*i) : -1;
}

/// Tensor `index` as the kernels left it in emulated memory.
rt::HostTensor computed(const std::vector<rt::HostTensor> &host,
                        const std::vector<std::unique_ptr<Guarded>> &mem,
                        int index) {
  rt::HostTensor got = host[index];
  std::memcpy(got.data.data(), mem[index]->data, got.data.size());
  return got;
}

/// Compares D with the host reference (Gemm.h), every element.
bool verifyGemm(const rt::KernelPackage &pkg, const rt::GemmSpec &spec,
                const std::vector<rt::HostTensor> &host,
                const std::vector<std::unique_ptr<Guarded>> &mem,
                EmulateResult &result) {
  std::string err;
  auto find = [&](const char *name) { return paramIndex(pkg, name); };
  const int iA = find("A"), iB = find("B"), iD = find("D"), iC = find("C"),
            iBias = find("bias");
  rt::HostTensor got = computed(host, mem, iD);
  rt::HostView a{&host[iA], 0}, b{&host[iB], 0};
  rt::HostView c{iC >= 0 ? &host[iC] : nullptr, 0};
  rt::HostView bias{iBias >= 0 ? &host[iBias] : nullptr, 0};
  std::vector<int64_t> all(size_t(got.numElements()));
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = int64_t(i);
  rt::HostTensor expected =
      rt::gemmExpected(spec, a, b, spec.c ? &c : nullptr,
                       spec.bias ? &bias : nullptr, all);
  rt::HostTensor gotFlat = got;
  gotFlat.shape = {got.numElements()};
  rt::CompareStats stats;
  if (!rt::compare(gotFlat, expected, stats, err))
    return fail(result, err);
  result.relError = stats.gotNaNs > 0 || stats.nonFiniteMismatches > 0
                        ? INFINITY
                        : stats.relFrobErr;
  result.tolerance = rt::gemmTolerance(spec, rt::usesTf32(spec, pkg.config));
  result.correct = result.relError <= result.tolerance;
  if (!result.correct) {
    std::ostringstream os;
    os << "wrong result: relative error " << result.relError << " over "
       << result.tolerance;
    if (stats.gotNaNs > 0)
      os << " (" << stats.gotNaNs << " NaN elements)";
    return fail(result, os.str());
  }
  return true;
}

/// Compares out (and lse) with the host's double-precision reference
/// (Attention.h) at every query row, or at kAttentionSampledRows rows drawn
/// from the seed (the first and the last always) when there are more than
/// kAttentionAllRows.
bool verifyAttention(const rt::KernelPackage &pkg, const rt::AttentionSpec &spec,
                     const std::vector<rt::HostTensor> &host,
                     const std::vector<std::unique_ptr<Guarded>> &mem,
                     uint64_t seed, EmulateResult &result) {
  constexpr int64_t kAttentionAllRows = 4096;
  constexpr int64_t kAttentionSampledRows = 1024;
  constexpr uint64_t kRowSalt = 0x4154544e; // "ATTN"
  const int64_t rowCount = rt::attentionRowCount(spec);
  const std::vector<int64_t> rows = rt::sampleIndices(
      rowCount, rowCount <= kAttentionAllRows ? rowCount : kAttentionSampledRows,
      rt::mixSeed(seed, kRowSalt));
  const rt::AttentionExtras extras = rt::attentionExtras(
      [&](const std::string &name) -> const rt::HostTensor * {
        const int i = paramIndex(pkg, name.c_str());
        return i >= 0 ? &host[i] : nullptr;
      });
  const rt::AttentionExpected expected = rt::attentionExpected(
      spec, host[paramIndex(pkg, "q")], host[paramIndex(pkg, "k")],
      host[paramIndex(pkg, "v")], extras, rows);
  const rt::HostTensor got = rt::gatherRows(
      computed(host, mem, paramIndex(pkg, "out")), rows, spec.headDim);
  rt::CompareStats stats;
  std::string err;
  if (!rt::compare(got, expected.out, stats, err))
    return fail(result, err);
  result.relError = stats.gotNaNs > 0 || stats.nonFiniteMismatches > 0
                        ? INFINITY
                        : stats.relFrobErr;
  result.tolerance = rt::attentionTolerance(spec, pkg.config);
  std::string lseProblem;
  if (spec.lse) {
    const rt::HostTensor gotLse =
        rt::gatherRows(computed(host, mem, paramIndex(pkg, "lse")),
                       rt::attentionLseElements(spec, rows), 1);
    rt::HostTensor expectedLse = expected.lse;
    expectedLse.shape = gotLse.shape;
    (void)rt::checkLse(gotLse, expectedLse, rt::attentionLseTolerance(spec),
                       result.lseMaxAbsError, lseProblem);
  }
  result.correct = result.relError <= result.tolerance && lseProblem.empty();
  if (!result.correct) {
    std::ostringstream os;
    os << "wrong result over " << rows.size() << " of " << rowCount
       << " query rows: ";
    if (result.relError > result.tolerance) {
      os << "out: relative error " << result.relError << " over "
         << result.tolerance;
      if (stats.gotNaNs > 0)
        os << " (" << stats.gotNaNs << " NaN elements)";
      if (!lseProblem.empty())
        os << "; ";
    }
    os << lseProblem;
    return fail(result, os.str());
  }
  return true;
}

/// The host copy of the package's tensor `name`, or null where it has none
/// (the optional inputs of moe and grouped_gemm).
std::function<const rt::HostTensor *(const char *)>
inputLookup(const rt::KernelPackage &pkg,
            const std::vector<rt::HostTensor> &host) {
  return [&pkg, &host](const char *name) -> const rt::HostTensor * {
    const int i = paramIndex(pkg, name);
    return i >= 0 ? &host[i] : nullptr;
  };
}

/// Compares y with the host's reference (Moe.h) at moeCheckedTokens (every
/// token of a small layer), and, when the package has the expert_ids
/// workspace, the routing of every token exactly.
bool verifyMoe(const rt::KernelPackage &pkg, const rt::MoeSpec &spec,
               const std::vector<rt::HostTensor> &host,
               const std::vector<std::unique_ptr<Guarded>> &mem, uint64_t seed,
               EmulateResult &result) {
  const rt::HostTensor &logits = host[paramIndex(pkg, "router_logits")];
  // The DeepSeek inputs and the block scales, where the package has them.
  const rt::MoeExtras extras = rt::moeExtras(inputLookup(pkg, host));
  const std::vector<int64_t> tokens =
      rt::moeCheckedTokens(spec, logits, seed, extras);
  const rt::MoeExpected expected = rt::moeExpected(
      spec, host[paramIndex(pkg, "x")], logits, host[paramIndex(pkg, "w_gate")],
      host[paramIndex(pkg, "w_up")], host[paramIndex(pkg, "w_down")], tokens,
      extras);
  const rt::HostTensor got = rt::gatherRows(
      computed(host, mem, paramIndex(pkg, "y")), tokens, spec.hidden);
  rt::CompareStats stats;
  std::string err;
  if (!rt::compare(got, expected.y, stats, err))
    return fail(result, err);
  result.relError = stats.gotNaNs > 0 || stats.nonFiniteMismatches > 0
                        ? INFINITY
                        : stats.relFrobErr;
  result.tolerance = rt::moeTolerance(spec);
  std::string routing;
  const int iIds = paramIndex(pkg, "expert_ids");
  if (iIds >= 0)
    (void)rt::checkMoeRouting(spec, logits, computed(host, mem, iIds), routing,
                              extras);
  result.correct = result.relError <= result.tolerance && routing.empty();
  if (!result.correct) {
    std::ostringstream os;
    os << "wrong result over " << tokens.size() << " of " << spec.tokens
       << " tokens: ";
    if (result.relError > result.tolerance) {
      os << "y: relative error " << result.relError << " over "
         << result.tolerance;
      if (stats.gotNaNs > 0)
        os << " (" << stats.gotNaNs << " NaN elements)";
      if (!routing.empty())
        os << "; ";
    }
    os << routing;
    return fail(result, os.str());
  }
  return true;
}

/// Compares D with the host's reference (GroupedGemm.h) at
/// groupedGemmCheckedRows (every row of a small op), and checks every row:
/// zero where it is in no group, no NaN anywhere.
bool verifyGroupedGemm(const rt::KernelPackage &pkg,
                       const rt::GroupedGemmSpec &spec,
                       const std::vector<rt::HostTensor> &host,
                       const std::vector<std::unique_ptr<Guarded>> &mem,
                       uint64_t seed, EmulateResult &result) {
  const rt::HostTensor &offsets = host[paramIndex(pkg, "expert_offsets")];
  const auto input = inputLookup(pkg, host);
  const std::vector<int64_t> rows =
      rt::groupedGemmCheckedRows(spec, offsets, seed);
  const rt::HostTensor expected = rt::groupedGemmExpected(
      spec, host[paramIndex(pkg, "A")], host[paramIndex(pkg, "B")],
      input("B_up"), offsets, rows,
      rt::WeightScales{input("B_scale"), input("B_up_scale")});
  const rt::HostTensor d = computed(host, mem, paramIndex(pkg, "D"));
  const rt::HostTensor got = rt::gatherRows(d, rows, spec.n);
  rt::CompareStats stats;
  std::string err;
  if (!rt::compare(got, expected, stats, err))
    return fail(result, err);
  result.relError = stats.gotNaNs > 0 || stats.nonFiniteMismatches > 0
                        ? INFINITY
                        : stats.relFrobErr;
  result.tolerance = rt::groupedGemmTolerance(spec);
  std::string coverage;
  (void)rt::checkGroupedGemmCoverage(spec, offsets, d, coverage);
  result.correct = result.relError <= result.tolerance && coverage.empty();
  if (!result.correct) {
    std::ostringstream os;
    os << "wrong result over " << rows.size() << " of " << spec.rows
       << " rows: ";
    if (result.relError > result.tolerance) {
      os << "D: relative error " << result.relError << " over "
         << result.tolerance;
      if (stats.gotNaNs > 0)
        os << " (" << stats.gotNaNs << " NaN elements)";
      if (!coverage.empty())
        os << "; ";
    }
    os << coverage;
    return fail(result, os.str());
  }
  return true;
}

} // namespace

bool emulatePackage(const rt::KernelPackage &pkg, const EmulateOptions &opts,
                    EmulateResult &result) {
  result = EmulateResult{};
  result.flops = pkg.flops;
  if (pkg.config.is_object() && pkg.config.contains("instruction") &&
      pkg.config["instruction"].is_string())
    result.family = pkg.config["instruction"].get<std::string>();
  const bool attention = pkg.op.is_object() && pkg.op.contains("kind") &&
                         pkg.op["kind"] == "attention";
  const bool gemm = pkg.op.is_object() && pkg.op.contains("kind") &&
                    pkg.op["kind"] == "gemm";
  const bool moe = pkg.op.is_object() && pkg.op.contains("kind") &&
                   pkg.op["kind"] == "moe";
  const bool grouped = pkg.op.is_object() && pkg.op.contains("kind") &&
                       pkg.op["kind"] == "grouped_gemm";
  if (!gemm && !attention && !moe && !grouped)
    return fail(result, "only gemm, attention, moe and grouped_gemm packages "
                        "are emulated so far");
  rt::GemmSpec spec;
  rt::AttentionSpec attentionSpec;
  rt::MoeSpec moeSpec;
  rt::GroupedGemmSpec groupedSpec;
  std::string err;
  if (gemm && (!rt::parseGemmOp(pkg.op, spec, err) ||
               !rt::checkGemmParams(pkg, spec, err)))
    return fail(result, err);
  if (attention && (!rt::parseAttentionOp(pkg.op, attentionSpec, err) ||
                    !rt::checkAttentionParams(pkg, attentionSpec, err)))
    return fail(result, err);
  if (moe && (!rt::parseMoeOp(pkg.op, moeSpec, err) ||
              !rt::checkMoeParams(pkg, moeSpec, err)))
    return fail(result, err);
  if (grouped && (!rt::parseGroupedGemmOp(pkg.op, groupedSpec, err) ||
                  !rt::checkGroupedGemmParams(pkg, groupedSpec, err)))
    return fail(result, err);

  // Build.
  WorkDir work;
  work.keep = opts.keepWorkDir;
  char tmpl[] = "/tmp/kgen-emulate-XXXXXX";
  if (!mkdtemp(tmpl))
    return fail(result, "cannot create a temporary folder");
  work.path = tmpl;
  std::string source = pkg.source;
  if (!opts.sourceOverride.empty()) {
    source = readFile(opts.sourceOverride);
    if (source.empty())
      return fail(result, "cannot read " + opts.sourceOverride);
  }
  std::string wrapper = "#define KGEN_EMULATE 1\n#include \"kernel.cu\"\n"
                        "#include <kgen/emulate/Entry.h>\nKGEN_EMU_ENTRIES(";
  for (const rt::PackageKernel &k : pkg.kernels)
    wrapper += "KGEN_EMU_ENTRY(" + k.entry + ") ";
  wrapper += ")\n";
  if (!writeFile(work.path + "/kernel.cu", source) ||
      !writeFile(work.path + "/emulate.cpp", wrapper))
    return fail(result, "cannot write into " + work.path);
  const std::string inc =
      opts.includeDir.empty() ? defaultIncludeDir() : opts.includeDir;
  const std::string so = work.path + "/kernel.so";
  const std::string log = work.path + "/compile.log";
  const std::string cmd =
      shellQuote(opts.cxx) + " -O1 -std=c++17 -fPIC -shared -U_FORTIFY_SOURCE "
      "-w -I" + shellQuote(inc) + " " + shellQuote(work.path + "/emulate.cpp") +
      " -o " + shellQuote(so) + " > " + shellQuote(log) + " 2>&1";
  if (opts.verbose)
    std::fprintf(stderr, "kgen-emulate: %s\n", cmd.c_str());
  if (std::system(cmd.c_str()) != 0) {
    std::string text = readFile(log);
    std::istringstream lines(text);
    std::string line, first;
    int n = 0;
    while (std::getline(lines, line) && n < 12) {
      first += "\n  " + line;
      ++n;
    }
    return fail(result, "the host compiler failed on " + pkg.name + ":" + first);
  }
  result.compiled = true;
  void *lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return fail(result, std::string("dlopen: ") + dlerror());
  struct Closer {
    void *h;
    ~Closer() { dlclose(h); }
  } closer{lib};
  using LaunchFn = int (*)(const char *, void **, const unsigned *,
                           const unsigned *, unsigned);
  auto launch = reinterpret_cast<LaunchFn>(dlsym(lib, "kgen_emu_launch"));
  auto setSeed =
      reinterpret_cast<void (*)(unsigned long long)>(dlsym(lib, "kgen_emu_set_seed"));
  auto addBuffer = reinterpret_cast<void (*)(const char *, const void *,
                                             unsigned long long)>(
      dlsym(lib, "kgen_emu_add_buffer"));
  auto setCluster = reinterpret_cast<void (*)(const unsigned *)>(
      dlsym(lib, "kgen_emu_set_cluster"));
  if (!launch || !setSeed || !addBuffer || !setCluster)
    return fail(result, "the kernel library lacks the kgen_emu_* interface");
  setSeed(opts.seed);

  // Tensors: inputs filled as kgen-bench's GPU run fills them, outputs and
  // workspaces poisoned with NaN.
  std::vector<std::unique_ptr<Guarded>> mem(pkg.params.size());
  std::vector<rt::HostTensor> host(pkg.params.size());
  std::vector<void *> ptrs(pkg.params.size(), nullptr);
  std::vector<double> scalarF(pkg.params.size());
  std::vector<float> scalarF32(pkg.params.size());
  std::vector<int64_t> scalarI(pkg.params.size());
  std::vector<TensorMapBytes> maps(pkg.params.size());
  for (size_t i = 0; i < pkg.params.size(); ++i) {
    const rt::KernelParam &p = pkg.params[i];
    if (p.kind != rt::ParamKind::Tensor)
      continue;
    const bool input =
        p.role == rt::ParamRole::Input || p.role == rt::ParamRole::InOut;
    host[i] = input ? rt::makePackageInput(pkg, p, opts.seed)
                    : rt::makeZeros(p.dtype, p.shape);
    mem[i] = std::make_unique<Guarded>();
    if (!mem[i]->allocate(p.name, host[i].data.size()))
      return fail(result, "cannot allocate " + p.name);
    if (input)
      std::memcpy(mem[i]->data, host[i].data.data(), host[i].data.size());
    else
      std::memset(mem[i]->data, 0xff, host[i].data.size());
    ptrs[i] = mem[i]->data;
    addBuffer(p.name.c_str(), mem[i]->data, host[i].data.size());
  }

  // Run the kernels in order.
  const auto t0 = std::chrono::steady_clock::now();
  for (const rt::PackageKernel &k : pkg.kernels) {
    std::vector<void *> args;
    for (size_t a : k.args) {
      const rt::KernelParam &p = pkg.params[a];
      if (p.kind == rt::ParamKind::Tensor) {
        args.push_back(&ptrs[a]);
      } else if (p.kind == rt::ParamKind::TmaDescriptor) {
        std::optional<size_t> t = pkg.findParam(p.tmaTensor);
        if (!t || pkg.params[*t].kind != rt::ParamKind::Tensor)
          return fail(result, "TMA descriptor " + p.name + " names no tensor");
        if (!encodeTensorMap(p, pkg.params[*t], ptrs[*t], maps[a], err))
          return fail(result, err);
        args.push_back(&maps[a]);
      } else if (p.dtype == rt::ElemType::F32) {
        scalarF32[a] = float(p.value);
        args.push_back(&scalarF32[a]);
      } else if (p.dtype == rt::ElemType::F64) {
        scalarF[a] = p.value;
        args.push_back(&scalarF[a]);
      } else {
        scalarI[a] = int64_t(p.value);
        args.push_back(&scalarI[a]);
      }
    }
    const rt::LaunchConfig &l = k.launch;
    setCluster(l.cluster.data());
    if (launch(k.entry.c_str(), args.data(), l.grid.data(), l.block.data(),
               l.dynamicSmemBytes) != 0)
      return fail(result, "kernel " + k.entry + " failed on the emulated "
                          "device (report above)");
    for (const auto &g : mem)
      if (g) {
        const long long off = g->canaryHit();
        if (off >= 0) {
          std::fprintf(stderr,
                       "kgen-emulate: error: out-of-bounds store: kernel %s "
                       "wrote tensor %s (%zu bytes) at byte offset %lld\n",
                       k.entry.c_str(), g->name.c_str(), g->bytes, off);
          return fail(result, "kernel " + k.entry +
                                  " stored outside tensor " + g->name);
        }
      }
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.ran = true;
  if (!opts.saveDir.empty() && !saveTensors(pkg, host, mem, opts.saveDir, err))
    return fail(result, err);

  if (attention)
    return verifyAttention(pkg, attentionSpec, host, mem, opts.seed, result);
  if (moe)
    return verifyMoe(pkg, moeSpec, host, mem, opts.seed, result);
  if (grouped)
    return verifyGroupedGemm(pkg, groupedSpec, host, mem, opts.seed, result);
  return verifyGemm(pkg, spec, host, mem, result);
}

} // namespace kgen::emu
