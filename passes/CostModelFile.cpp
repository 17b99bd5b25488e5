//===- CostModelFile.cpp - a fitted cost model on disk --------------------===//
//
// Every value is checked against its meaning where it is read (and before
// it is written): rates and scales positive, finite and within bounds no
// GPU comes near, the SM count an integer. A refusal is one line naming the
// file and the field.
//
//===----------------------------------------------------------------------===//

#include "passes/CostModelFile.h"

#include "kgen/runtime/Results.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

using mlir::kgen::InstructionFamily;
using mlir::kgen::MachineModel;

namespace mlir::kgen {
namespace {
constexpr const char *kSchema = "kgen.cost-model";
constexpr int kVersion = 1;
const InstructionFamily kFamilies[] = {InstructionFamily::simt,
                                       InstructionFamily::mma_sync,
                                       InstructionFamily::wgmma};

/// What each value may be: (lo, hi] for the rates, [lo, hi] for the scales.
struct Range {
  double lo, hi;
  bool loIncluded;
};
constexpr Range kMatmulTflops = {0, 1e5, false};
constexpr Range kCopyGBps = {0, 1e6, false};
constexpr Range kLaunchUs = {0, 1e4, false};
constexpr Range kScale = {1e-3, 1e3, true};
constexpr int64_t kMaxFittedOn = int64_t{1} << 53;

/// "a positive number in (0, 100000]".
std::string rangeText(const Range &r) {
  auto number = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return std::string(text);
  };
  return "a positive number in " + std::string(r.loIncluded ? "[" : "(") +
         number(r.lo) + ", " + number(r.hi) + "]";
}

/// A value as a message shows it: JSON's own text, cut when long.
std::string shown(const nlohmann::json &j) {
  std::string text =
      j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (j.is_structured())
    return j.is_object() ? "an object" : "an array";
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

bool inRange(double v, const Range &r) {
  return std::isfinite(v) && v <= r.hi && (r.loIncluded ? v >= r.lo : v > r.lo);
}

/// `field` of the model holding `v`, checked against `r`.
bool checkValue(double v, const std::string &field, const Range &r,
                std::string &err) {
  if (inRange(v, r))
    return true;
  err = field + ": expected " + rangeText(r) + ", got " +
        (std::isnan(v) ? std::string("nan") : shown(nlohmann::json(v)));
  return false;
}

/// obj[key] (named `field` in messages) as a number in `r`.
bool readValue(const nlohmann::json &obj, const char *key,
               const std::string &field, const Range &r, double &out,
               std::string &err) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    err = field + ": missing; expected " + rangeText(r);
    return false;
  }
  if (!it->is_number() || !inRange(it->get<double>(), r)) {
    err = field + ": expected " + rangeText(r) + ", got " +
          shown(*it);
    return false;
  }
  out = it->get<double>();
  return true;
}

/// obj[key] as an integer in [lo, hi]: 132, not 132.5 or 2^62.
bool readInteger(const nlohmann::json &obj, const char *key, int64_t lo,
                 int64_t hi, int64_t &out, std::string &err) {
  auto it = obj.find(key);
  const std::string expected =
      llvm::formatv("an integer in [{0}, {1}]", lo, hi).str();
  if (it == obj.end()) {
    err = std::string(key) + ": missing; expected " + expected;
    return false;
  }
  bool ok = it->is_number_integer();
  if (ok && it->is_number_unsigned())
    ok = it->get<uint64_t>() <= uint64_t(hi);
  if (ok)
    ok = it->get<int64_t>() >= lo && it->get<int64_t>() <= hi;
  if (!ok) {
    err = std::string(key) + ": expected " + expected + ", got " + shown(*it);
    return false;
  }
  out = it->get<int64_t>();
  return true;
}

/// The model's fields from `j`, each checked; `err` names the field.
bool modelFromJson(const nlohmann::json &j, MachineModel &out,
                   std::string &err) {
  if (!j.is_object()) {
    err = "expected a JSON object, got " + shown(j);
    return false;
  }
  auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string() || *schema != kSchema) {
    err = std::string("schema: expected \"") + kSchema + "\"";
    return false;
  }
  auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kVersion) {
    err = "version: expected 1 (what this reader understands)";
    return false;
  }
  MachineModel m;
  int64_t sms = 0, fittedOn = 0;
  if (!readValue(j, "matmul_tflops", "matmul_tflops", kMatmulTflops,
                 m.matmulTflops, err) ||
      !readValue(j, "copy_gbps", "copy_gbps", kCopyGBps, m.copyGBps, err) ||
      !readInteger(j, "sm_count", 1, kMaxCostModelSmCount, sms, err) ||
      !readValue(j, "launch_us", "launch_us", kLaunchUs, m.launchUs, err) ||
      !readValue(j, "memory_scale", "memory_scale", kScale, m.memoryScale,
                 err) ||
      !readInteger(j, "fitted_on", 0, kMaxFittedOn, fittedOn, err))
    return false;
  m.smCount = int(sms);
  auto scales = j.find("compute_scale");
  if (scales == j.end() || !scales->is_object()) {
    err = "compute_scale: expected an object";
    return false;
  }
  for (InstructionFamily f : kFamilies) {
    const std::string name = stringifyInstructionFamily(f).str();
    if (!readValue(*scales, name.c_str(), "compute_scale." + name, kScale,
                   m.computeScale[familyIndex(f)], err))
      return false;
  }
  out = m;
  return true;
}
} // namespace

bool checkCostModel(const MachineModel &m, std::string &err) {
  if (!checkValue(m.matmulTflops, "matmul_tflops", kMatmulTflops, err) ||
      !checkValue(m.copyGBps, "copy_gbps", kCopyGBps, err))
    return false;
  if (m.smCount < 1 || m.smCount > kMaxCostModelSmCount) {
    err = llvm::formatv("sm_count: expected an integer in [1, {0}], got {1}",
                        kMaxCostModelSmCount, m.smCount)
              .str();
    return false;
  }
  if (!checkValue(m.launchUs, "launch_us", kLaunchUs, err) ||
      !checkValue(m.memoryScale, "memory_scale", kScale, err))
    return false;
  for (InstructionFamily f : kFamilies)
    if (!checkValue(m.computeScale[familyIndex(f)],
                    "compute_scale." + stringifyInstructionFamily(f).str(),
                    kScale, err))
      return false;
  return true;
}

bool writeCostModel(const std::string &path, const MachineModel &model,
                    size_t fittedOn, std::string &err) {
  // Never write what readCostModel would refuse.
  std::string why;
  if (fittedOn > size_t(kMaxFittedOn))
    why = "fitted_on: more than 2^53 measurements";
  if (!why.empty() || !checkCostModel(model, why)) {
    err = path + ": not written, the model is out of range: " + why;
    return false;
  }
  nlohmann::json scales;
  for (InstructionFamily f : kFamilies)
    scales[stringifyInstructionFamily(f).str()] =
        model.computeScale[familyIndex(f)];
  nlohmann::json j = {{"schema", kSchema},
                      {"version", kVersion},
                      {"matmul_tflops", model.matmulTflops},
                      {"copy_gbps", model.copyGBps},
                      {"sm_count", model.smCount},
                      {"launch_us", model.launchUs},
                      {"compute_scale", scales},
                      {"memory_scale", model.memoryScale},
                      {"fitted_on", fittedOn}};
  return ::kgen::rt::writeJsonAtomic(path, j, err);
}

bool readCostModel(const std::string &path, MachineModel &out,
                   std::string &err) {
  nlohmann::json j;
  if (!::kgen::rt::readJson(path, j, err))
    return false; // the message names the file
  if (modelFromJson(j, out, err))
    return true;
  err = path + ": " + err;
  return false;
}

} // namespace mlir::kgen
