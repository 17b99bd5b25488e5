//===- Campaign.h - tuning campaigns: plans, shards, merging ----*- C++ -*-===//
//
// A campaign is the measured search of many ops on many targets, split into
// shards that run as the tasks of a Slurm job array (docs/campaigns.md).
// Everything lives in one folder on a file system the nodes share: the
// plan (PLAN.json), the candidate packages the plan prepared (packages/),
// each shard's outputs (shards/sNNN/), the submissions (submissions.json)
// and the merged database (merged/). A shard's outputs are one tuning
// database and one results file per item, each written atomically by
// `kgen-bench tune`, so a task killed mid-way loses only the item in
// flight and a resumed task skips what is done.
//
// This library holds what the GPU nodes need too (they have no MLIR):
// reading the plan, the shards' state, the merge. kgen-tune's `campaign`
// driver writes plans (it needs MLIR to prepare packages) and talks to
// Slurm.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CAMPAIGN_H
#define KGEN_RUNTIME_CAMPAIGN_H

#include "kgen/runtime/Results.h"
#include "kgen/runtime/TuningDb.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

constexpr const char *kCampaignPlanSchema = "kgen.campaign-plan";
constexpr int kCampaignPlanVersion = 1;
/// The most shards a plan may hold (Slurm's default MaxArraySize is 1001).
constexpr size_t kMaxCampaignShards = 1000;

/// One measured search: the candidates of one op on one target, as
/// `kgen-tune --packages` wrote them.
struct CampaignItem {
  std::string id;               // "i007": unique, [a-z0-9_-]
  std::string target;           // "sm_90a"
  std::string module;           // the module it came from (for messages)
  std::string opFolder;         // relative to the campaign folder
  std::vector<std::string> candidates; // package folders in opFolder,
                                       // in the order the search takes them
  nlohmann::json keyOp;         // the tuning key's op (tuningRecordOf)
  double estimatedSeconds = 0;  // what the search will take at most
  /// Other ops of the campaign's modules with the same key (same op,
  /// target and tokens bucket), which this item's measurement serves.
  std::vector<std::string> alsoServes;
};

/// The items one array task measures, in order.
struct CampaignShard {
  int index = 0;                // the array task id
  std::string target;           // every item's target
  std::vector<std::string> items;
  double estimatedSeconds = 0;
};

/// How the measured search runs (kgen-bench tune's options) and how the
/// work was cut.
struct CampaignBudget {
  double maxSeconds = 300;          // kgen-bench tune --max-seconds, per item
  double secondsPerCandidate = 10;  // compile + verify + time one candidate
  double shardSeconds = 3600;       // a shard's estimated length, at most
  int finalists = 3;
  int rounds = 3;
  uint64_t seed = 1;
};

struct CampaignPlan {
  std::string createdAt;
  CampaignBudget budget;
  std::vector<CampaignItem> items;
  std::vector<CampaignShard> shards;
  /// The folder of PLAN.json, absolute: the campaign's root. Not written;
  /// set by readCampaignPlan and writeCampaignPlan.
  std::string root;

  const CampaignItem *item(const std::string &id) const;
  const CampaignShard *shard(int index) const;
};

/// An item's estimated length: its candidates at secondsPerCandidate each,
/// at most the search's budget (the search stops there), plus one
/// candidate's worth for setting up.
double estimateItemSeconds(size_t candidates, const CampaignBudget &budget);

/// Cuts `items` into shards of at most budget.shardSeconds each (an item
/// longer than that gets a shard alone): per target, in the order of the
/// targets' first items, longest items first into the first shard that
/// has room (first-fit decreasing; ties keep the items' order), so the
/// same items always give the same shards. Fills each shard's estimate.
std::vector<CampaignShard> cutShards(const std::vector<CampaignItem> &items,
                                     const CampaignBudget &budget);

nlohmann::json toJson(const CampaignPlan &plan);
/// Validates schema, version, fields, ids ([a-z0-9_-], unique), relative
/// paths without ".." or control characters, shards indexed 0..N-1 each
/// naming known items of its own target, every item in exactly one shard.
bool fromJson(const nlohmann::json &j, CampaignPlan &plan, std::string &err);
bool readCampaignPlan(const std::string &path, CampaignPlan &plan,
                      std::string &err);
/// Writes atomically; sets plan.root to the file's folder.
bool writeCampaignPlan(const std::string &path, CampaignPlan &plan,
                       std::string &err);

/// Where a shard's outputs live.
std::string shardFolder(const CampaignPlan &plan, int shard);
std::string itemDbPath(const CampaignPlan &plan, int shard,
                       const std::string &item);
std::string itemResultsPath(const CampaignPlan &plan, int shard,
                            const std::string &item);
/// The ceilings node `host` measured for the shard: one file per node, so
/// a shard resumed on another node keeps the first node's baseline.
std::string shardCeilingsPath(const CampaignPlan &plan, int shard,
                              const std::string &host);
std::string mergedFolder(const CampaignPlan &plan);

/// Whether an item is done: its database exists and reads. The database
/// is written last and atomically, so a killed search leaves none.
bool itemDone(const CampaignPlan &plan, int shard, const std::string &item);

struct ShardProgress {
  int index = 0;
  size_t done = 0, total = 0;
  bool complete() const { return done == total; }
};
std::vector<ShardProgress> shardProgress(const CampaignPlan &plan);

/// A node's measured ceilings in one shard: the baseline nodes are
/// compared by.
struct NodeBaseline {
  std::string node;
  int shard = 0;
  std::string device;
  double copyGBps = 0;
  double matmulTflops = 0;
};

/// A node whose baseline disagrees with the others' beyond the noise.
struct NodeFlag {
  std::string node;
  std::string metric;   // "copy" or "matmul"
  double value = 0;     // the node's median
  double reference = 0; // the median over the nodes of the same device
  double deviation = 0; // value / reference - 1
  double threshold = 0; // what counts as beyond the noise
  std::string message;
};

/// Per device type and metric: each node's median over its shards, the
/// median over those nodes, and the noise (the median, over nodes with
/// two or more shards, of (max - min) / median within a node; 0 if none).
/// A node is flagged when its median differs from the nodes' median by
/// more than max(minPractical, 3 x noise). Fewer than two nodes: nothing
/// to compare, no flag.
std::vector<NodeFlag> flagNodes(const std::vector<NodeBaseline> &baselines,
                                double minPractical = 0.05);

/// One candidate measured on two or more nodes whose medians disagree
/// beyond their own spread: kept as separate measurements, and named.
struct CandidateSpread {
  std::string key;       // the entry's key, canonical text
  std::string config;    // the candidate's config, canonical text
  std::vector<std::pair<std::string, double>> nodes; // node, median ms
  double ratio = 0;      // slowest / fastest median
};

/// Candidates of the same key and config measured on several nodes whose
/// medians differ by more than max(minPractical, the larger relative IQR).
std::vector<CandidateSpread>
spreadAcrossNodes(const TuningDb &db, double minPractical = 0.05);

struct MergeOutcome {
  TuningDb db;
  std::map<std::string, ResultsFile> results; // by target
  std::vector<ShardProgress> progress;
  std::vector<NodeBaseline> baselines;
  std::vector<NodeFlag> flags;
  std::vector<CandidateSpread> spreads;
  std::vector<std::string> warnings; // unreadable shard files, skipped
  size_t itemsMerged = 0, itemsMissing = 0;
  std::map<int, std::vector<std::string>> missing; // shard -> item ids
};

/// Merges every finished item of every shard, shards in index order and
/// items in shard order, so the same shards always give the same files:
/// the databases' entries (TuningDb::merge: a candidate measured on two
/// nodes stays two measurements), each candidate stamped with its
/// provenance's "shard" and "node" (its host); the results files per
/// target. Unreadable files are warnings and count as missing.
MergeOutcome mergeCampaign(const CampaignPlan &plan);

/// Writes merged/tuning.json, merged/results-<target>.json and
/// merged/merge.json (progress, flags, spreads, warnings), each
/// atomically.
bool writeMerge(const CampaignPlan &plan, const MergeOutcome &merged,
                std::string &err);

/// A few lines for people: items merged and missing (named), flags,
/// spreads.
std::string formatMerge(const MergeOutcome &merged);

/// The merge step (kgen-bench campaign merge, kgen-tune campaign merge):
/// mergeCampaign, writeMerge, and in `report` formatMerge's lines and
/// where the database went; `complete` when no item is missing. False with
/// `err` when a file cannot be written.
bool mergeAndWrite(const CampaignPlan &plan, std::string &report,
                   bool &complete, std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CAMPAIGN_H
