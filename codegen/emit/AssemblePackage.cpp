//===- AssemblePackage.cpp - kernel packages from tile-level kernels ------===//
//
// A package (docs/kernel-package.md) of one op's kernels: their CUDA in one
// source with the kgen headers inlined, launches, parameters (a tensor one
// kernel writes and a later one reads is a workspace), the op signature and
// config, FLOPs and bytes; then, in emitPackage, NVRTC's ptxas report and
// the folder.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/KernelPrinter.h"
#include "dialect/AttentionJson.h"
#include "dialect/MoeJson.h"

#include "kgen/runtime/Attention.h"
#include "kgen/runtime/Moe.h"
#include "kgen/runtime/Package.h"
#if KGEN_HAVE_NVRTC
#include "kgen/runtime/Nvrtc.h"
#endif

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::detail;
namespace rt = ::kgen::rt;

namespace {
/// `source` with every `#include "kgen/..."` replaced by that header's text
/// (recursively, each header once), so a package's kernel.cu is complete:
/// its SHA-256 and the runtime's compile cache cover all the code, and the
/// GPU machine needs no include path for kgen. System includes stay.
FailureOr<std::string> inlineKgenHeaders(StringRef source,
                                         llvm::StringSet<> &seen,
                                         std::string &err) {
  std::string out;
  llvm::SmallVector<StringRef> lines;
  source.split(lines, '\n');
  for (StringRef line : lines) {
    StringRef trimmed = line.trim();
    if (!trimmed.consume_front("#include \"kgen/")) {
      out += line.str() + "\n";
      continue;
    }
    StringRef rel = trimmed.take_until([](char c) { return c == '"'; });
    std::string path = std::string(KGEN_CUDA_INCLUDE_DIR) + "/kgen/" + rel.str();
    if (!seen.insert(path).second)
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      err = "cannot read " + path + ": " + buffer.getError().message();
      return failure();
    }
    FailureOr<std::string> body =
        inlineKgenHeaders((*buffer)->getBuffer(), seen, err);
    if (failed(body))
      return failure();
    out += "// ---- kgen/" + rel.str() + "\n" + *body;
  }
  return out;
}

/// "bf16" etc. for the manifest; fails for types the runtime cannot hold.
FailureOr<rt::ElemType> runtimeType(Type t) {
  std::optional<rt::ElemType> e = rt::parseElemType(typeName(t));
  if (!e)
    return failure();
  return *e;
}

/// Adds `p` to the package's parameters, or checks it against the one of
/// that name another kernel already added; returns its index.
FailureOr<size_t> addParam(KernelOp kernel, rt::KernelPackage &pkg,
                           const rt::KernelParam &p) {
  std::optional<size_t> at = pkg.findParam(p.name);
  if (!at) {
    pkg.params.push_back(p);
    return pkg.params.size() - 1;
  }
  const rt::KernelParam &q = pkg.params[*at];
  if (q.kind != p.kind || q.dtype != p.dtype || q.shape != p.shape ||
      q.tmaTensor != p.tmaTensor || q.tmaBox != p.tmaBox)
    return kernel.emitOpError()
           << "parameter " << p.name
           << " differs from the one of that name in an earlier kernel of "
              "the package";
  return *at;
}
/// The config of a package of grouped GEMM kernels: an MoE layer's two
/// expert GEMMs ("gate_up": the gated one, "down"; "instruction" their
/// family, as every config names it), or a grouped GEMM's.
nlohmann::json groupedConfigJson(ArrayRef<KernelOp> kernels) {
  nlohmann::json gateUp, plain;
  for (KernelOp kernel : kernels) {
    if (!hasPipelineIn(kernel))
      continue;
    auto config = cast<GroupedGemmConfigAttr>(kernel.getConfigAttr());
    bool gated = !kernel.getBody().front().getOps<TileGatedEpilogueOp>().empty();
    (gated ? gateUp : plain) = toJson(config);
  }
  if (DictionaryAttr sig = KernelOp(kernels.front()).getSignatureAttr())
    if (auto kind = dyn_cast_or_null<StringAttr>(sig.get("kind")))
      if (kind.getValue() == "moe")
        return {{"instruction", gateUp.value("instruction", "")},
                {"gate_up", gateUp},
                {"down", plain}};
  return gateUp.is_null() ? plain : gateUp;
}
} // namespace

FailureOr<rt::KernelPackage>
mlir::kgen::assemblePackage(ArrayRef<KernelOp> kernels) {
  assert(!kernels.empty() && "a package has at least one kernel");
  KernelOp first = kernels.front();
  auto gemmConfig = dyn_cast_or_null<GemmConfigAttr>(first.getConfigAttr());
  auto attentionConfig =
      dyn_cast_or_null<AttentionConfigAttr>(first.getConfigAttr());
  auto groupedConfig =
      dyn_cast_or_null<GroupedGemmConfigAttr>(first.getConfigAttr());
  if (!gemmConfig && !attentionConfig && !groupedConfig)
    return first.emitOpError("has no config: the emitter needs the family");
  rt::KernelPackage pkg;
  pkg.name = first.getSymName().str();
  pkg.target = stringifyTarget(gemmConfig        ? gemmConfig.getTarget()
                               : attentionConfig ? attentionConfig.getTarget()
                                                 : groupedConfig.getTarget())
                   .str();
  pkg.sourceFile = "kernel.cu";
  std::string emitted;
  llvm::raw_string_ostream os(emitted);
  // A tensor some kernel writes and a later one reads is a workspace.
  llvm::StringSet<> written;
  for (KernelOp kernel : kernels) {
    EmittedKernel info;
    if (!emitted.empty())
      os << "\n";
    if (failed(emitCuda(kernel, os, &info)))
      return failure();
    rt::PackageKernel k;
    k.entry = kernel.getSymName().str();
    ArrayRef<int64_t> grid = kernel.getGrid();
    k.launch.grid = {uint32_t(grid[0]), uint32_t(grid[1]), uint32_t(grid[2])};
    k.launch.block = {uint32_t(kernel.getThreads()), 1, 1};
    k.launch.cluster = {uint32_t(info.clusterM), 1, 1};
    k.launch.dynamicSmemBytes = uint32_t(info.dynamicSmemBytes);
    ArrayAttr paramNames = *kernel.getParamNames();
    size_t firstOutput = kernel.getParams().size() - kernel.getNumOutputs();
    for (auto [i, param] : llvm::enumerate(kernel.getParams())) {
      auto t = cast<MemRefType>(param.getType());
      FailureOr<rt::ElemType> elem = runtimeType(t.getElementType());
      if (failed(elem))
        return kernel.emitOpError() << "parameter " << i
                                    << " has no runtime element type";
      rt::KernelParam p;
      p.name = cast<StringAttr>(paramNames[i]).str();
      p.kind = rt::ParamKind::Tensor;
      p.dtype = *elem;
      p.shape.assign(t.getShape().begin(), t.getShape().end());
      bool isOutput = i >= firstOutput;
      p.role = isOutput ? rt::ParamRole::Output : rt::ParamRole::Input;
      FailureOr<size_t> index = addParam(kernel, pkg, p);
      if (failed(index))
        return failure();
      if (isOutput)
        written.insert(p.name);
      else if (written.contains(p.name))
        pkg.params[*index].role = rt::ParamRole::Workspace;
      k.args.push_back(*index);
    }
    for (const EmittedKernel::Tma &tma : info.tmaParams) {
      rt::KernelParam p;
      p.name = tma.name;
      p.kind = rt::ParamKind::TmaDescriptor;
      p.tmaTensor = tma.tensor;
      p.tmaBox = {tma.boxOuter, tma.boxInner};
      p.tmaBox.insert(p.tmaBox.begin(), tma.unitDims, 1); // one plane
      p.tmaSwizzleBytes = tma.swizzleBytes;
      FailureOr<size_t> index = addParam(kernel, pkg, p);
      if (failed(index))
        return failure();
      k.args.push_back(*index);
    }
    pkg.kernels.push_back(std::move(k));
  }
  llvm::StringSet<> seen;
  std::string err;
  FailureOr<std::string> source = inlineKgenHeaders(emitted, seen, err);
  if (failed(source))
    return first.emitOpError() << "cannot inline the tile primitives: " << err;
  pkg.source = *source;
  // The fewest bytes the op moves: its operands once, no workspace.
  double bytes = 0;
  for (const rt::KernelParam &p : pkg.params)
    if (p.kind == rt::ParamKind::Tensor && p.role != rt::ParamRole::Workspace) {
      double count = 1;
      for (int64_t d : p.shape)
        count *= double(d);
      bytes += count * double(rt::elemTypeBytes(p.dtype));
    }
  // The op signature and the config, as JSON.
  DictionaryAttr signature = first.getSignatureAttr();
  nlohmann::json op =
      signature ? toJson(signature) : nlohmann::json::object();
  pkg.op = op;
  if (gemmConfig)
    pkg.config = toJson(gemmConfig);
  else if (attentionConfig)
    pkg.config = toJson(attentionConfig);
  else
    pkg.config = groupedConfigJson(kernels);
  if (op.value("kind", "") == "moe") {
    rt::MoeSpec spec;
    std::string why;
    if (!rt::parseMoeOp(op, spec, why))
      return first.emitOpError() << "writes an MoE signature the runtime "
                                    "refuses: "
                                 << why;
    pkg.flops = rt::moeFlops(spec); // the expert GEMMs run
  } else if (op.value("kind", "") == "grouped_gemm") {
    pkg.flops = 2.0 * op["rows"].get<int64_t>() * op["k"].get<int64_t>() *
                op["n"].get<int64_t>() * (op["gated"].get<bool>() ? 2 : 1);
  } else if (op.value("kind", "") == "attention") {
    rt::AttentionSpec spec;
    std::string why;
    if (!rt::parseAttentionOp(op, spec, why))
      return first.emitOpError() << "writes an attention signature the "
                                    "runtime refuses: "
                                 << why;
    pkg.flops = rt::attentionFlops(spec); // as FlashAttention counts them
    // A paged cache's pool holds other sequences' pages too: count the
    // pages the block table names, as the runtime does.
    if (spec.paged)
      bytes = rt::attentionBytes(spec);
  } else if (op.contains("m")) {
    pkg.flops = 2.0 * op.value("batch", int64_t(1)) * op["m"].get<int64_t>() *
                op["n"].get<int64_t>() * op["k"].get<int64_t>();
  }
  pkg.bytes = bytes;
  return pkg;
}

std::string mlir::kgen::compileErrorSummary(const std::string &log,
                                            size_t maxLines) {
  std::string out;
  size_t shown = 0, errors = 0;
  llvm::SmallVector<StringRef> lines;
  StringRef(log).split(lines, '\n');
  for (StringRef line : lines) {
    if (!line.contains("error"))
      continue;
    ++errors;
    if (shown < maxLines) {
      out += "  " + line.trim().str() + "\n";
      ++shown;
    }
  }
  if (errors == 0) // no error line: the log's first lines
    for (StringRef line : lines) {
      if (shown == maxLines || line.trim().empty())
        continue;
      out += "  " + line.trim().str() + "\n";
      ++shown;
    }
  if (errors > shown)
    out += "  (" + std::to_string(errors - shown) + " more errors)\n";
  return out;
}

LogicalResult mlir::kgen::emitPackage(ArrayRef<KernelOp> kernels,
                                      StringRef dir, bool compile) {
  FailureOr<rt::KernelPackage> assembled = assemblePackage(kernels);
  if (failed(assembled))
    return failure();
  rt::KernelPackage &pkg = *assembled;
  KernelOp first = kernels.front();
  std::string err;
#if KGEN_HAVE_NVRTC
  // The resource report of ptxas for the target: registers, shared memory,
  // stack and spills of every kernel, what performance checks read before
  // any GPU run. A failure says which config and why in a few lines.
  if (compile) {
    rt::CompileOptions options;
    options.arch = pkg.target;
    rt::CompileResult compiled;
    if (!rt::compilePackage(pkg, options, compiled, err))
      return first.emitOpError()
             << "the emitted CUDA does not compile with NVRTC for "
             << pkg.target << " (config " << first.getConfigAttr()
             << "):\n"
             << compileErrorSummary(err);
    for (auto [k, usage] : llvm::zip(pkg.kernels, compiled.perKernel))
      k.resources = usage;
  }
#else
  (void)compile;
#endif
  if (!rt::writePackage(dir.str(), pkg, err))
    return first.emitOpError() << "cannot write the package: " << err;
  return success();
}
