//===- CostModelFile.cpp - a fitted cost model on disk --------------------===//

#include "passes/CostModelFile.h"

#include "kgen/runtime/Results.h"

#include <cmath>

using mlir::kgen::InstructionFamily;
using mlir::kgen::MachineModel;

namespace mlir::kgen {
namespace {
constexpr const char *kSchema = "kgen.cost-model";
constexpr int kVersion = 1;
const InstructionFamily kFamilies[] = {InstructionFamily::simt,
                                       InstructionFamily::mma_sync,
                                       InstructionFamily::wgmma};

/// obj[key] as a positive finite number into `out`.
bool readPositive(const nlohmann::json &obj, const std::string &where,
                  const char *key, double &out, std::string &err) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
      it->get<double>() <= 0) {
    err = where + key + ": expected a positive number";
    return false;
  }
  out = it->get<double>();
  return true;
}
} // namespace

bool writeCostModel(const std::string &path, const MachineModel &model,
                    size_t fittedOn, std::string &err) {
  nlohmann::json scales;
  for (InstructionFamily f : kFamilies)
    scales[mlir::kgen::stringifyInstructionFamily(f).str()] =
        model.computeScale[mlir::kgen::familyIndex(f)];
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
  const std::string where = path + ": ";
  if (!j.is_object() || j.value("schema", "") != kSchema) {
    err = where + "schema: expected \"" + kSchema + "\"";
    return false;
  }
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int64_t>() != kVersion) {
    err = where + "version: expected 1 (what this reader understands)";
    return false;
  }
  MachineModel m;
  double sms = 0;
  if (!readPositive(j, where, "matmul_tflops", m.matmulTflops, err) ||
      !readPositive(j, where, "copy_gbps", m.copyGBps, err) ||
      !readPositive(j, where, "sm_count", sms, err) ||
      !readPositive(j, where, "launch_us", m.launchUs, err) ||
      !readPositive(j, where, "memory_scale", m.memoryScale, err))
    return false;
  m.smCount = int(sms);
  auto scales = j.find("compute_scale");
  if (scales == j.end() || !scales->is_object()) {
    err = where + "compute_scale: expected an object";
    return false;
  }
  for (InstructionFamily f : kFamilies)
    if (!readPositive(*scales, where + "compute_scale.",
                      mlir::kgen::stringifyInstructionFamily(f).str().c_str(),
                      m.computeScale[mlir::kgen::familyIndex(f)], err))
      return false;
  out = m;
  return true;
}

} // namespace mlir::kgen
