//===- Campaign.cpp - tuning campaigns: plans, shards, merging ------------===//

#include "kgen/runtime/Campaign.h"

#include "JsonRead.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

namespace kgen::rt {

using namespace jsonread;
namespace fs = std::filesystem;

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

const CampaignItem *CampaignPlan::item(const std::string &id) const {
  for (const CampaignItem &i : items)
    if (i.id == id)
      return &i;
  return nullptr;
}

const CampaignShard *CampaignPlan::shard(int index) const {
  return index >= 0 && static_cast<size_t>(index) < shards.size()
             ? &shards[static_cast<size_t>(index)]
             : nullptr;
}

double estimateItemSeconds(size_t candidates, const CampaignBudget &budget) {
  return std::min(budget.maxSeconds,
                  static_cast<double>(candidates) * budget.secondsPerCandidate) +
         budget.secondsPerCandidate;
}

std::vector<CampaignShard> cutShards(const std::vector<CampaignItem> &items,
                                     const CampaignBudget &budget) {
  std::vector<std::string> targets; // in the order of their first items
  for (const CampaignItem &i : items)
    if (std::find(targets.begin(), targets.end(), i.target) == targets.end())
      targets.push_back(i.target);
  std::vector<CampaignShard> shards;
  for (const std::string &target : targets) {
    std::vector<const CampaignItem *> mine;
    for (const CampaignItem &i : items)
      if (i.target == target)
        mine.push_back(&i);
    std::stable_sort(mine.begin(), mine.end(),
                     [](const CampaignItem *a, const CampaignItem *b) {
                       return a->estimatedSeconds > b->estimatedSeconds;
                     });
    const size_t first = shards.size();
    for (const CampaignItem *i : mine) {
      CampaignShard *into = nullptr;
      for (size_t s = first; s < shards.size() && !into; ++s)
        if (shards[s].estimatedSeconds + i->estimatedSeconds <=
            budget.shardSeconds)
          into = &shards[s];
      if (!into) {
        shards.emplace_back();
        shards.back().index = static_cast<int>(shards.size() - 1);
        shards.back().target = target;
        into = &shards.back();
      }
      into->items.push_back(i->id);
      into->estimatedSeconds += i->estimatedSeconds;
    }
  }
  return shards;
}

namespace {

/// Ids name files: lower-case letters, digits, '_' and '-', 1 to 64 of
/// them, not starting with '-'.
bool idProblem(const std::string &id, const std::string &path,
               std::string &err) {
  const bool ok =
      !id.empty() && id.size() <= 64 && id[0] != '-' &&
      std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
               c == '-';
      });
  return ok ? false
            : !fieldError(path,
                          "expected an id of 1 to 64 characters among a-z "
                          "0-9 _ - (not starting with -), got " +
                              describe(json(id)),
                          err);
}

/// A path inside the campaign folder: relative, no "..", no empty or "."
/// components, printable ASCII.
bool relativePathProblem(const std::string &p, const std::string &path,
                         std::string &err) {
  bool ok = !p.empty() && p.size() <= 4096 && p[0] != '/' &&
            std::all_of(p.begin(), p.end(), [](char c) {
              return static_cast<unsigned char>(c) >= 0x20 &&
                     static_cast<unsigned char>(c) < 0x7f;
            });
  for (size_t start = 0; ok && start <= p.size();) {
    const size_t end = std::min(p.find('/', start), p.size());
    const std::string part = p.substr(start, end - start);
    ok = !part.empty() && part != "." && part != "..";
    start = end + 1;
  }
  return ok ? false
            : !fieldError(path,
                          "expected a relative path inside the campaign "
                          "folder (no '..', printable), got " +
                              describe(json(p)),
                          err);
}

bool readPositive(const json &obj, const std::string &path, const char *key,
                  double &out, std::string &err) {
  const json *v = require(obj, path, key, err);
  if (!v || !readNumber(*v, fieldPath(path, key), out, err))
    return false;
  if (!(out > 0) || !std::isfinite(out))
    return fieldError(fieldPath(path, key), "expected a positive number", err);
  return true;
}

bool budgetFromJson(const json &j, CampaignBudget &b, std::string &err) {
  const std::string path = "budget";
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  int64_t finalists = 0, rounds = 0, seed = 0;
  const json *f = require(j, path, "finalists", err);
  const json *r = f ? require(j, path, "rounds", err) : nullptr;
  const json *s = r ? require(j, path, "seed", err) : nullptr;
  if (!readPositive(j, path, "max_seconds", b.maxSeconds, err) ||
      !readPositive(j, path, "seconds_per_candidate", b.secondsPerCandidate,
                    err) ||
      !readPositive(j, path, "shard_seconds", b.shardSeconds, err) || !s ||
      !readInt(*f, fieldPath(path, "finalists"), 1, 100, finalists, err) ||
      !readInt(*r, fieldPath(path, "rounds"), 1, 100, rounds, err) ||
      !readInt(*s, fieldPath(path, "seed"), 0,
               std::numeric_limits<int64_t>::max(), seed, err))
    return false;
  b.finalists = static_cast<int>(finalists);
  b.rounds = static_cast<int>(rounds);
  b.seed = static_cast<uint64_t>(seed);
  return true;
}

bool stringArray(const json &j, const std::string &path,
                 std::vector<std::string> &out, std::string &err) {
  if (!j.is_array())
    return typeError(path, "an array of strings", j, err);
  out.clear();
  for (size_t i = 0; i < j.size(); ++i) {
    std::string s;
    if (!readString(j[i], indexPath(path, i), s, err))
      return false;
    out.push_back(s);
  }
  return true;
}

bool itemFromJson(const json &j, const std::string &path, CampaignItem &item,
                  std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  const json *id = require(j, path, "id", err);
  const json *target = id ? require(j, path, "target", err) : nullptr;
  const json *module = target ? require(j, path, "module", err) : nullptr;
  const json *folder = module ? require(j, path, "op_folder", err) : nullptr;
  const json *cands = folder ? require(j, path, "candidates", err) : nullptr;
  const json *keyOp = cands ? require(j, path, "key_op", err) : nullptr;
  if (!keyOp || !readString(*id, fieldPath(path, "id"), item.id, err) ||
      idProblem(item.id, fieldPath(path, "id"), err) ||
      !readString(*target, fieldPath(path, "target"), item.target, err) ||
      !readString(*module, fieldPath(path, "module"), item.module, err) ||
      !readString(*folder, fieldPath(path, "op_folder"), item.opFolder, err) ||
      relativePathProblem(item.opFolder, fieldPath(path, "op_folder"), err) ||
      !stringArray(*cands, fieldPath(path, "candidates"), item.candidates,
                   err) ||
      !readPositive(j, path, "estimated_seconds", item.estimatedSeconds, err))
    return false;
  if (!isTargetName(item.target))
    return fieldError(fieldPath(path, "target"),
                      "expected a target such as sm_90a, got " +
                          describe(*target),
                      err);
  if (item.candidates.empty())
    return fieldError(fieldPath(path, "candidates"), "expected at least one",
                      err);
  for (size_t c = 0; c < item.candidates.size(); ++c)
    if (relativePathProblem(item.candidates[c],
                            indexPath(fieldPath(path, "candidates"), c), err))
      return false;
  if (!keyOp->is_object())
    return typeError(fieldPath(path, "key_op"), "an object", *keyOp, err);
  item.keyOp = *keyOp;
  item.alsoServes.clear();
  if (!isAbsent(j, "also_serves") &&
      !stringArray(*member(j, "also_serves"), fieldPath(path, "also_serves"),
                   item.alsoServes, err))
    return false;
  return true;
}

bool shardFromJson(const json &j, const std::string &path, CampaignShard &s,
                   std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  const json *index = require(j, path, "index", err);
  const json *target = index ? require(j, path, "target", err) : nullptr;
  const json *items = target ? require(j, path, "items", err) : nullptr;
  int64_t i = 0;
  if (!items ||
      !readInt(*index, fieldPath(path, "index"), 0,
               static_cast<int64_t>(kMaxCampaignShards) - 1, i, err) ||
      !readString(*target, fieldPath(path, "target"), s.target, err) ||
      !stringArray(*items, fieldPath(path, "items"), s.items, err) ||
      !readPositive(j, path, "estimated_seconds", s.estimatedSeconds, err))
    return false;
  s.index = static_cast<int>(i);
  if (s.items.empty())
    return fieldError(fieldPath(path, "items"), "expected at least one item",
                      err);
  return true;
}

} // namespace

nlohmann::json toJson(const CampaignPlan &plan) {
  json items = json::array(), shards = json::array();
  for (const CampaignItem &i : plan.items) {
    json j = {{"id", i.id},
              {"target", i.target},
              {"module", i.module},
              {"op_folder", i.opFolder},
              {"candidates", i.candidates},
              {"key_op", i.keyOp},
              {"estimated_seconds", i.estimatedSeconds}};
    if (!i.alsoServes.empty())
      j["also_serves"] = i.alsoServes;
    items.push_back(std::move(j));
  }
  for (const CampaignShard &s : plan.shards)
    shards.push_back({{"index", s.index},
                      {"target", s.target},
                      {"items", s.items},
                      {"estimated_seconds", s.estimatedSeconds}});
  const CampaignBudget &b = plan.budget;
  return {{"schema", kCampaignPlanSchema},
          {"version", kCampaignPlanVersion},
          {"created_at", plan.createdAt},
          {"budget",
           {{"max_seconds", b.maxSeconds},
            {"seconds_per_candidate", b.secondsPerCandidate},
            {"shard_seconds", b.shardSeconds},
            {"finalists", b.finalists},
            {"rounds", b.rounds},
            {"seed", b.seed}}},
          {"items", std::move(items)},
          {"shards", std::move(shards)}};
}

bool fromJson(const nlohmann::json &j, CampaignPlan &out, std::string &err) {
  if (!j.is_object())
    return typeError("(top level)", "an object", j, err);
  std::string schema;
  const json *s = require(j, "", "schema", err);
  if (!s || !readString(*s, "schema", schema, err))
    return false;
  if (schema != kCampaignPlanSchema)
    return fieldError("schema",
                      std::string("expected \"") + kCampaignPlanSchema +
                          "\", got " + describe(*s),
                      err);
  const json *v = require(j, "", "version", err);
  int64_t version = 0;
  if (!v || !readInt(*v, "version", 0, 1000000, version, err))
    return false;
  if (version != kCampaignPlanVersion)
    return fieldError("version",
                      "the plan has version " + std::to_string(version) +
                          ", this reader understands only version " +
                          std::to_string(kCampaignPlanVersion),
                      err);
  CampaignPlan plan;
  const json *created = require(j, "", "created_at", err);
  const json *budget = created ? require(j, "", "budget", err) : nullptr;
  const json *items = budget ? require(j, "", "items", err) : nullptr;
  const json *shards = items ? require(j, "", "shards", err) : nullptr;
  if (!shards || !readString(*created, "created_at", plan.createdAt, err) ||
      !budgetFromJson(*budget, plan.budget, err))
    return false;
  if (!items->is_array())
    return typeError("items", "an array", *items, err);
  if (!shards->is_array())
    return typeError("shards", "an array", *shards, err);
  if (shards->size() > kMaxCampaignShards)
    return fieldError("shards",
                      "more than " + std::to_string(kMaxCampaignShards) +
                          " shards (raise --shard-seconds)",
                      err);
  std::set<std::string> ids;
  for (size_t i = 0; i < items->size(); ++i) {
    CampaignItem item;
    if (!itemFromJson((*items)[i], indexPath("items", i), item, err))
      return false;
    if (!ids.insert(item.id).second)
      return fieldError(indexPath("items", i) + ".id",
                        "\"" + item.id + "\" appears twice", err);
    plan.items.push_back(std::move(item));
  }
  std::set<std::string> placed;
  for (size_t i = 0; i < shards->size(); ++i) {
    CampaignShard shard;
    const std::string path = indexPath("shards", i);
    if (!shardFromJson((*shards)[i], path, shard, err))
      return false;
    if (shard.index != static_cast<int>(i))
      return fieldError(path + ".index",
                        "expected " + std::to_string(i) +
                            " (shards are indexed 0, 1, ... in order)",
                        err);
    for (size_t k = 0; k < shard.items.size(); ++k) {
      const std::string itemPath = indexPath(path + ".items", k);
      const CampaignItem *item = plan.item(shard.items[k]);
      if (!item)
        return fieldError(itemPath,
                          "no item \"" + shard.items[k] + "\" in items",
                          err);
      if (item->target != shard.target)
        return fieldError(itemPath,
                          "item \"" + item->id + "\" is for " +
                              item->target + ", the shard for " +
                              shard.target,
                          err);
      if (!placed.insert(item->id).second)
        return fieldError(itemPath,
                          "item \"" + item->id + "\" is in two shards", err);
    }
    plan.shards.push_back(std::move(shard));
  }
  for (const CampaignItem &item : plan.items)
    if (!placed.count(item.id))
      return fieldError("shards", "item \"" + item.id + "\" is in no shard",
                        err);
  out = std::move(plan);
  return true;
}

bool readCampaignPlan(const std::string &path, CampaignPlan &plan,
                      std::string &err) {
  json j;
  if (!readJson(path, j, err))
    return false;
  if (!fromJson(j, plan, err)) {
    err = path + ": " + err;
    return false;
  }
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  plan.root = (ec ? fs::path(path) : abs).parent_path().lexically_normal();
  return true;
}

bool writeCampaignPlan(const std::string &path, CampaignPlan &plan,
                       std::string &err) {
  CampaignPlan check;
  if (!fromJson(toJson(plan), check, err)) {
    err = path + ": not written, the plan is invalid: " + err;
    return false;
  }
  if (!writeJsonAtomic(path, toJson(plan), err))
    return false;
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  plan.root = (ec ? fs::path(path) : abs).parent_path().lexically_normal();
  return true;
}

//===----------------------------------------------------------------------===//
// Shards on disk
//===----------------------------------------------------------------------===//

std::string shardFolder(const CampaignPlan &plan, int shard) {
  char name[16];
  std::snprintf(name, sizeof(name), "s%03d", shard);
  return (fs::path(plan.root) / "shards" / name).string();
}

std::string itemDbPath(const CampaignPlan &plan, int shard,
                       const std::string &item) {
  return (fs::path(shardFolder(plan, shard)) / (item + ".db.json")).string();
}

std::string itemResultsPath(const CampaignPlan &plan, int shard,
                            const std::string &item) {
  return (fs::path(shardFolder(plan, shard)) / (item + ".results.json"))
      .string();
}

std::string shardCeilingsPath(const CampaignPlan &plan, int shard,
                              const std::string &host) {
  std::string name = host.empty() ? "unknown-host" : host;
  for (char &c : name) // a file name whatever the host is called
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
      c = '_';
  return (fs::path(shardFolder(plan, shard)) / ("ceilings-" + name + ".json"))
      .string();
}

std::string mergedFolder(const CampaignPlan &plan) {
  return (fs::path(plan.root) / "merged").string();
}

bool itemDone(const CampaignPlan &plan, int shard, const std::string &item) {
  TuningDb db;
  std::string err;
  return readTuningDb(itemDbPath(plan, shard, item), db, err);
}

std::vector<ShardProgress> shardProgress(const CampaignPlan &plan) {
  std::vector<ShardProgress> out;
  for (const CampaignShard &s : plan.shards) {
    ShardProgress p;
    p.index = s.index;
    p.total = s.items.size();
    for (const std::string &item : s.items)
      p.done += itemDone(plan, s.index, item) ? 1 : 0;
    out.push_back(p);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Nodes that disagree
//===----------------------------------------------------------------------===//

namespace {

double medianOf(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%+.1f%%", 100 * fraction);
  return buf;
}

} // namespace

std::vector<NodeFlag> flagNodes(const std::vector<NodeBaseline> &baselines,
                                double minPractical) {
  std::vector<NodeFlag> flags;
  std::vector<std::string> devices;
  for (const NodeBaseline &b : baselines)
    if (std::find(devices.begin(), devices.end(), b.device) == devices.end())
      devices.push_back(b.device);
  for (const std::string &device : devices)
    for (const char *metric : {"copy", "matmul"}) {
      // Each node's values, in the order the nodes first appear.
      std::vector<std::pair<std::string, std::vector<double>>> nodes;
      for (const NodeBaseline &b : baselines) {
        const double v =
            std::string(metric) == "copy" ? b.copyGBps : b.matmulTflops;
        if (b.device != device || !(v > 0) || !std::isfinite(v))
          continue;
        auto it = std::find_if(nodes.begin(), nodes.end(),
                               [&](const auto &n) { return n.first == b.node; });
        if (it == nodes.end())
          nodes.push_back({b.node, {v}});
        else
          it->second.push_back(v);
      }
      if (nodes.size() < 2)
        continue;
      std::vector<double> medians, spreads;
      for (const auto &n : nodes) {
        const double m = medianOf(n.second);
        medians.push_back(m);
        if (n.second.size() >= 2)
          spreads.push_back(
              (*std::max_element(n.second.begin(), n.second.end()) -
               *std::min_element(n.second.begin(), n.second.end())) /
              m);
      }
      const double reference = medianOf(medians);
      const double threshold = std::max(minPractical, 3 * medianOf(spreads));
      for (size_t i = 0; i < nodes.size(); ++i) {
        const double deviation = medians[i] / reference - 1;
        if (std::fabs(deviation) <= threshold)
          continue;
        NodeFlag f;
        f.node = nodes[i].first;
        f.metric = metric;
        f.value = medians[i];
        f.reference = reference;
        f.deviation = deviation;
        f.threshold = threshold;
        char line[512];
        std::snprintf(line, sizeof(line),
                      "node %s: %s ceiling %.4g %s, %s from the median of "
                      "the %zu %s nodes (%.4g; beyond the noise: > %.1f%%)",
                      f.node.c_str(), metric, f.value,
                      std::string(metric) == "copy" ? "GB/s" : "TFLOP/s",
                      percent(deviation).c_str(), nodes.size(),
                      device.empty() ? "(unknown device)" : device.c_str(),
                      reference, 100 * threshold);
        f.message = line;
        flags.push_back(std::move(f));
      }
    }
  return flags;
}

std::vector<CandidateSpread> spreadAcrossNodes(const TuningDb &db,
                                               double minPractical) {
  std::vector<CandidateSpread> out;
  for (const TuningEntry &e : db.entries) {
    std::map<std::string, std::vector<const TuningCandidate *>> byConfig;
    std::vector<std::string> order;
    for (const TuningCandidate &c : e.candidates) {
      if (!c.correct || !c.time || c.status != RunStatus::Ok)
        continue;
      // Configs compared as keys are (numbers by value): the identity of
      // a candidate with nothing but the config.
      TuningCandidate bare;
      bare.config = c.config;
      const std::string config = bare.identity();
      if (!byConfig.count(config))
        order.push_back(config);
      byConfig[config].push_back(&c);
    }
    for (const std::string &config : order) {
      const auto &cs = byConfig[config];
      std::set<std::string> hosts;
      double fastest = 0, slowest = 0, noise = 0;
      for (const TuningCandidate *c : cs) {
        hosts.insert(c->host);
        const double m = c->time->medianMs;
        fastest = fastest == 0 ? m : std::min(fastest, m);
        slowest = std::max(slowest, m);
        noise = std::max(noise, c->time->iqrMs() / m);
      }
      if (hosts.size() < 2 || slowest / fastest - 1 <= std::max(minPractical, noise))
        continue;
      CandidateSpread s;
      s.key = e.key.canonical();
      s.config = cs.front()->config.dump();
      for (const TuningCandidate *c : cs)
        s.nodes.push_back({c->host, c->time->medianMs});
      s.ratio = slowest / fastest;
      out.push_back(std::move(s));
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

MergeOutcome mergeCampaign(const CampaignPlan &plan) {
  MergeOutcome m;
  for (const CampaignShard &shard : plan.shards) {
    // Progress as itemDone counts it, from the databases read below (each
    // once).
    ShardProgress &progress = m.progress.emplace_back();
    progress.index = shard.index;
    progress.total = shard.items.size();
    // Every node's ceilings for the shard (ceilings-HOST.json), by name.
    std::vector<std::string> ceilingFiles;
    std::error_code ec;
    for (const fs::directory_entry &e :
         fs::directory_iterator(shardFolder(plan, shard.index), ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("ceilings-", 0) == 0 && e.path().extension() == ".json")
        ceilingFiles.push_back(e.path().string());
    }
    std::sort(ceilingFiles.begin(), ceilingFiles.end());
    for (const std::string &path : ceilingFiles) {
      ResultsFile ceilings;
      std::string err;
      if (readResults(path, ceilings, err) && ceilings.ceilings)
        m.baselines.push_back({ceilings.host, shard.index,
                               ceilings.device.name,
                               ceilings.ceilings->copyGBps,
                               ceilings.ceilings->matmulTflops});
      else
        m.warnings.push_back(err.empty() ? path + ": holds no ceilings" : err);
    }
    for (const std::string &id : shard.items) {
      const std::string dbPath = itemDbPath(plan, shard.index, id);
      std::string err;
      TuningDb db;
      if (!fs::exists(dbPath) || !readTuningDb(dbPath, db, err)) {
        if (!err.empty())
          m.warnings.push_back(err + " (item skipped)");
        ++m.itemsMissing;
        m.missing[shard.index].push_back(id);
        continue;
      }
      ++progress.done;
      for (TuningEntry &e : db.entries)
        for (TuningCandidate &c : e.candidates) {
          if (!c.provenance.is_object())
            c.provenance = json::object();
          c.provenance["shard"] = shard.index;
          c.provenance["node"] = c.host;
        }
      m.db.merge(db);
      ++m.itemsMerged;
      const std::string resultsPath = itemResultsPath(plan, shard.index, id);
      ResultsFile results;
      err.clear();
      if (!readResults(resultsPath, results, err)) {
        m.warnings.push_back(err + " (results not merged; the database was)");
        continue;
      }
      auto [slot, first] = m.results.try_emplace(shard.target, results);
      if (first)
        continue;
      ResultsFile &into = slot->second;
      if (!results.host.empty() &&
          ("," + into.host + ",").find("," + results.host + ",") ==
              std::string::npos)
        into.host += (into.host.empty() ? "" : ",") + results.host;
      if (results.device.name != into.device.name)
        m.warnings.push_back(resultsPath + ": measured on " +
                             results.device.name + ", other " +
                             shard.target + " shards on " +
                             into.device.name +
                             " (the merged results name the first)");
      for (KernelResult &r : results.results)
        into.results.push_back(std::move(r));
    }
  }
  m.flags = flagNodes(m.baselines);
  m.spreads = spreadAcrossNodes(m.db);
  return m;
}

bool writeMerge(const CampaignPlan &plan, const MergeOutcome &m,
                std::string &err) {
  const fs::path dir = mergedFolder(plan);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    err = dir.string() + ": cannot make the folder: " + ec.message();
    return false;
  }
  if (!writeTuningDb((dir / "tuning.json").string(), m.db, err))
    return false;
  for (const auto &[target, results] : m.results)
    if (!writeResults((dir / ("results-" + target + ".json")).string(),
                      results, err))
      return false;
  json progress = json::array(), flags = json::array(),
       spreads = json::array(), baselines = json::array();
  for (const ShardProgress &p : m.progress) {
    json entry = {{"shard", p.index}, {"done", p.done}, {"items", p.total}};
    auto missing = m.missing.find(p.index);
    entry["missing"] = missing == m.missing.end()
                           ? json::array()
                           : json(missing->second);
    progress.push_back(std::move(entry));
  }
  for (const NodeBaseline &b : m.baselines)
    baselines.push_back({{"node", b.node},
                         {"shard", b.shard},
                         {"device", b.device},
                         {"copy_gbps", b.copyGBps},
                         {"matmul_tflops", b.matmulTflops}});
  for (const NodeFlag &f : m.flags)
    flags.push_back({{"node", f.node},
                     {"metric", f.metric},
                     {"value", f.value},
                     {"reference", f.reference},
                     {"deviation", f.deviation},
                     {"threshold", f.threshold},
                     {"message", f.message}});
  for (const CandidateSpread &s : m.spreads) {
    json nodes = json::array();
    for (const auto &[node, ms] : s.nodes)
      nodes.push_back({{"node", node}, {"median_ms", ms}});
    spreads.push_back({{"key", json::parse(s.key, nullptr, false)},
                       {"config", json::parse(s.config, nullptr, false)},
                       {"nodes", nodes},
                       {"ratio", s.ratio}});
  }
  const json report = {{"schema", "kgen.campaign-merge"},
                       {"version", 1},
                       {"items_merged", m.itemsMerged},
                       {"items_missing", m.itemsMissing},
                       {"shards", progress},
                       {"baselines", baselines},
                       {"flagged_nodes", flags},
                       {"spread_across_nodes", spreads},
                       {"warnings", m.warnings}};
  return writeJsonAtomic((dir / "merge.json").string(), report, err);
}

std::string formatMerge(const MergeOutcome &m) {
  std::string out;
  size_t complete = 0;
  for (const ShardProgress &p : m.progress)
    complete += p.complete() ? 1 : 0;
  size_t candidates = 0;
  for (const TuningEntry &e : m.db.entries)
    candidates += e.candidates.size();
  char line[512];
  std::snprintf(line, sizeof(line),
                "merged %zu items (%zu missing) from %zu of %zu complete "
                "shards: %zu entries, %zu candidates\n",
                m.itemsMerged, m.itemsMissing, complete, m.progress.size(),
                m.db.entries.size(), candidates);
  out += line;
  for (const ShardProgress &p : m.progress)
    if (!p.complete()) {
      std::string names;
      auto missing = m.missing.find(p.index);
      if (missing != m.missing.end())
        for (const std::string &id : missing->second)
          names += (names.empty() ? "" : " ") + id;
      std::snprintf(line, sizeof(line),
                    "  shard %d incomplete: %zu of %zu items, missing %s "
                    "(kgen-tune campaign resume)\n",
                    p.index, p.done, p.total, names.c_str());
      out += line;
    }
  for (const NodeFlag &f : m.flags)
    out += "  flagged: " + f.message + "\n";
  for (const CandidateSpread &s : m.spreads) {
    std::string nodes;
    for (const auto &[node, ms] : s.nodes) {
      std::snprintf(line, sizeof(line), "%s%s %.4g ms",
                    nodes.empty() ? "" : ", ", node.c_str(), ms);
      nodes += line;
    }
    std::snprintf(line, sizeof(line), "%.2fx", s.ratio);
    out += "  measured on several nodes, " + std::string(line) +
           " apart: " + s.config + " (" + nodes + ")\n";
  }
  for (const std::string &w : m.warnings)
    out += "  warning: " + w + "\n";
  return out;
}

bool mergeAndWrite(const CampaignPlan &plan, std::string &report,
                   bool &complete, std::string &err) {
  const MergeOutcome merged = mergeCampaign(plan);
  if (!writeMerge(plan, merged, err))
    return false;
  report = formatMerge(merged) + "wrote " + mergedFolder(plan) +
           "/tuning.json\n";
  complete = merged.itemsMissing == 0;
  return true;
}

} // namespace kgen::rt
