//===- Suite.cpp - GEMM shape and attention suites ------------------------===//

#include "kgen/runtime/Suite.h"

#include "kgen/runtime/Results.h"

#include <map>
#include <set>

namespace kgen::rt {

namespace {

using json = nlohmann::json;

/// Largest M, N or K of a suite gemm: what a gemm package's op accepts.
constexpr int64_t kMaxDim = int64_t{1} << 31;
/// Most shapes one suite expands to (models x gemms x M values, anchors).
constexpr size_t kMaxShapes = 100000;

/// An integer in [1, kMaxDim].
bool isDim(const json &j) {
  if (j.is_number_unsigned()) // how the parser holds a non-negative integer
    return j.get<uint64_t>() >= 1 &&
           j.get<uint64_t>() <= static_cast<uint64_t>(kMaxDim);
  return j.is_number_integer() && j.get<int64_t>() >= 1 &&
         j.get<int64_t>() <= kMaxDim;
}

bool positiveInt(const json &obj, const char *key, const std::string &where,
                 int64_t &out, std::string &err) {
  const auto it = obj.find(key);
  if (it == obj.end() || !isDim(*it)) {
    err = where + ": '" + key + "' must be an integer in [1, " +
          std::to_string(kMaxDim) + "]";
    return false;
  }
  out = it->get<int64_t>();
  return true;
}

/// Adds `shape`, or false once the suite has kMaxShapes.
bool addShape(std::vector<SuiteShape> &shapes, SuiteShape shape,
              std::string &err) {
  if (shapes.size() >= kMaxShapes) {
    err = "suite: expands to more than " + std::to_string(kMaxShapes) +
          " shapes";
    return false;
  }
  shapes.push_back(std::move(shape));
  return true;
}

bool nameOf(const json &obj, const std::string &where, std::string &out,
            std::string &err) {
  if (!obj.is_object() || !obj.contains("name") || !obj["name"].is_string() ||
      obj["name"].get<std::string>().empty()) {
    err = where + ": needs a non-empty string 'name'";
    return false;
  }
  out = obj["name"].get<std::string>();
  return true;
}

bool mValues(const json &obj, const std::string &where, std::vector<int64_t> &out,
             std::string &err) {
  if (!obj["m"].is_array() || obj["m"].empty()) {
    err = where + ": 'm' must be a non-empty array of integers >= 1";
    return false;
  }
  out.clear();
  for (const json &m : obj["m"]) {
    if (!isDim(m)) {
      err = where + ": 'm' must be a non-empty array of integers in [1, " +
            std::to_string(kMaxDim) + "]";
      return false;
    }
    out.push_back(m.get<int64_t>());
  }
  return true;
}

GemmSpec suiteSpec(ElemType dtype, bool transposeB, int64_t m, int64_t n,
                   int64_t k) {
  GemmSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.transposeB = transposeB;
  spec.a = spec.b = spec.d = dtype;
  return spec;
}

bool parseModel(const json &model, size_t index, ElemType dtype, bool transposeB,
                const std::vector<int64_t> &defaultM,
                std::vector<SuiteShape> &shapes, std::string &err) {
  std::string name;
  if (!nameOf(model, "suite: models[" + std::to_string(index) + "]", name, err))
    return false;
  std::vector<int64_t> ms = defaultM;
  if (model.contains("m") && !mValues(model, "suite: model " + name, ms, err))
    return false;
  if (!model.contains("gemms") || !model["gemms"].is_array() ||
      model["gemms"].empty()) {
    err = "suite: model " + name + ": 'gemms' must be a non-empty array";
    return false;
  }
  for (const json &gemm : model["gemms"]) {
    std::string gemmName;
    int64_t n = 0, k = 0;
    const std::string where = "suite: model " + name;
    if (!nameOf(gemm, where + " gemm", gemmName, err) ||
        !positiveInt(gemm, "n", where + " gemm " + gemmName, n, err) ||
        !positiveInt(gemm, "k", where + " gemm " + gemmName, k, err))
      return false;
    for (int64_t m : ms)
      if (!addShape(shapes,
                    {name, name + "/" + gemmName + " m=" + std::to_string(m),
                     suiteSpec(dtype, transposeB, m, n, k)},
                    err))
        return false;
  }
  return true;
}

bool parseAnchors(const json &j, ElemType dtype, bool transposeB,
                  std::vector<SuiteShape> &shapes, std::string &err) {
  if (!j.contains("anchors"))
    return true;
  if (!j["anchors"].is_array()) {
    err = "suite: 'anchors' must be an array";
    return false;
  }
  for (const json &anchor : j["anchors"]) {
    std::string name;
    int64_t m = 0, n = 0, k = 0;
    if (!nameOf(anchor, "suite: anchor", name, err) ||
        !positiveInt(anchor, "m", "suite: anchor " + name, m, err) ||
        !positiveInt(anchor, "n", "suite: anchor " + name, n, err) ||
        !positiveInt(anchor, "k", "suite: anchor " + name, k, err))
      return false;
    if (!addShape(shapes,
                  {"anchor", "anchor/" + name,
                   suiteSpec(dtype, transposeB, m, n, k)},
                  err))
      return false;
  }
  return true;
}

} // namespace

bool parseGemmSuite(const json &j, GemmSuite &suite, std::string &err) {
  if (!j.is_object() || !j.contains("schema") || j["schema"] != "kgen.gemm-suite" ||
      !j.contains("version") || j["version"] != 1) {
    err = "suite: expected schema \"kgen.gemm-suite\" version 1";
    return false;
  }
  const std::optional<ElemType> dtype =
      j.contains("dtype") && j["dtype"].is_string()
          ? parseElemType(j["dtype"].get<std::string>())
          : std::nullopt;
  if (!dtype || (*dtype != ElemType::BF16 && *dtype != ElemType::F16 &&
                 *dtype != ElemType::F32)) {
    err = "suite: 'dtype' must be bf16, f16 or f32";
    return false;
  }
  if (!j.contains("transpose_b") || !j["transpose_b"].is_boolean()) {
    err = "suite: 'transpose_b' must be true or false";
    return false;
  }
  const bool transposeB = j["transpose_b"].get<bool>();
  std::vector<int64_t> ms;
  if (!j.contains("m") || !mValues(j, "suite", ms, err)) {
    if (err.empty())
      err = "suite: missing 'm'";
    return false;
  }
  if (!j.contains("models") || !j["models"].is_array()) {
    err = "suite: 'models' must be an array";
    return false;
  }
  suite = GemmSuite{};
  if (j.contains("name") && j["name"].is_string())
    suite.name = j["name"].get<std::string>();
  for (size_t i = 0; i < j["models"].size(); ++i)
    if (!parseModel(j["models"][i], i, *dtype, transposeB, ms, suite.shapes, err))
      return false;
  return parseAnchors(j, *dtype, transposeB, suite.shapes, err);
}

bool loadGemmSuite(const std::string &path, GemmSuite &suite, std::string &err) {
  json j;
  if (!readJson(path, j, err) || !parseGemmSuite(j, suite, err)) {
    if (err.rfind(path, 0) != 0)
      err = path + ": " + err;
    return false;
  }
  if (suite.name.empty())
    suite.name = path;
  return true;
}

bool parseAttentionSuite(const json &j, AttentionSuite &suite,
                         std::string &err) {
  if (!j.is_object() || !j.contains("schema") ||
      j["schema"] != "kgen.attention-suite" || !j.contains("version") ||
      j["version"] != 1) {
    err = "suite: expected schema \"kgen.attention-suite\" version 1";
    return false;
  }
  if (!j.contains("entries") || !j["entries"].is_array() ||
      j["entries"].empty()) {
    err = "suite: 'entries' must be a non-empty array";
    return false;
  }
  if (j["entries"].size() > kMaxShapes) {
    err = "suite: more than " + std::to_string(kMaxShapes) + " entries";
    return false;
  }
  AttentionSuite out;
  if (j.contains("name") && j["name"].is_string())
    out.name = j["name"].get<std::string>();
  std::set<std::string> names;
  for (size_t i = 0; i < j["entries"].size(); ++i) {
    const json &entry = j["entries"][i];
    AttentionSuiteEntry e;
    if (!nameOf(entry, "suite: entries[" + std::to_string(i) + "]", e.name, err))
      return false;
    const std::string where = "suite: entry " + e.name;
    if (!names.insert(e.name).second) {
      err = where + ": the name is used twice";
      return false;
    }
    if (!entry.contains("op") ||
        !parseAttentionOp(entry["op"], e.spec, err)) {
      err = where + ": " + (entry.contains("op") ? err : "needs an 'op'");
      return false;
    }
    e.group = e.name.substr(0, e.name.find('/'));
    out.entries.push_back(std::move(e));
  }
  suite = std::move(out);
  return true;
}

bool loadAttentionSuite(const std::string &path, AttentionSuite &suite,
                        std::string &err) {
  json j;
  if (!readJson(path, j, err) || !parseAttentionSuite(j, suite, err)) {
    if (err.rfind(path, 0) != 0)
      err = path + ": " + err;
    return false;
  }
  if (suite.name.empty())
    suite.name = path;
  return true;
}

std::vector<SuiteShape> distinctShapes(const std::vector<SuiteShape> &shapes) {
  std::vector<SuiteShape> distinct;
  std::map<std::string, size_t> firstIndex; // op JSON text -> index in distinct
  for (const SuiteShape &shape : shapes) {
    const std::string key = gemmOpJson(shape.spec).dump();
    auto [it, inserted] = firstIndex.emplace(key, distinct.size());
    if (inserted)
      distinct.push_back(shape);
    else
      distinct[it->second].name += " = " + shape.name;
  }
  return distinct;
}

std::vector<std::vector<SuiteShape>> groupShapes(const std::vector<SuiteShape> &shapes) {
  std::vector<std::vector<SuiteShape>> groups;
  std::map<std::string, size_t> index;
  for (const SuiteShape &shape : shapes) {
    auto [it, inserted] = index.emplace(shape.group, groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(shape);
  }
  return groups;
}

} // namespace kgen::rt
