//===- BenchCampaign.cpp - kgen-bench campaign task|merge -----------------===//
//
// The two steps of a tuning campaign that run on the cluster's nodes, which
// have the runtime and no MLIR (docs/campaigns.md): `task`, one array
// task's shard, and `merge`, the dependent job. kgen-tune campaign writes
// the plan and submits them.
//
//===----------------------------------------------------------------------===//

#include "BenchPerf.h"
#include "BenchPerfArgs.h"

#include "kgen/runtime/Campaign.h"
#include "kgen/runtime/Process.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace kgen::rt {
namespace {

constexpr const char *kCampaignHelp =
    R"(usage: kgen-bench campaign task PLAN.json --shard N [--synthetic]
                          [--synthetic-delay-ms MS] [--cache DIR]
                          [--timeout S] [--no-ceilings]
       kgen-bench campaign merge PLAN.json

The steps of a tuning campaign that run on the cluster (kgen-tune campaign
plan writes PLAN.json, kgen-tune campaign submit submits these as a Slurm
job array and a dependent job; docs/campaigns.md).

task   measure shard N of the plan (in a job array: N = the array task id):
       the node's ceilings first, once per node (shards/sNNN/
       ceilings-HOST.json: the baseline the merge compares nodes by),
       then each item not done yet with
       `kgen-bench tune` over its candidate packages into the shard's
       ITEM.db.json and ITEM.results.json, each written atomically: a task
       killed mid-way loses only the item in flight, and runs again
       skipping what is done. --synthetic: stand-in measurements, no GPU
       (kgen-bench --help), for testing the workflow.
merge  merge every finished item of every shard, in shard order, into
       merged/tuning.json (the tuning database kgen-select-strategy db=
       reads), merged/results-TARGET.json and merged/merge.json (progress,
       nodes whose ceilings disagree beyond the noise, candidates measured
       on several nodes that disagree); prints a summary. Deterministic:
       the same shards give the same files.

exit codes:
  0  done (task: every item of the shard measured; merge: every item
     merged)
  1  task: an item's search failed or could not run; merge: items missing
     (the files are written all the same)
  2  usage or input error (bad option, unreadable plan, no such shard)
  3  task: no CUDA device
)";

/// Parses `args` for `step` and reads the one plan they name; the exit
/// code when something is wrong (after saying what).
std::optional<int> openPlan(ArgParser &parser,
                            const std::vector<std::string> &args,
                            const std::string &step, CampaignPlan &plan) {
  std::string err;
  if (!parser.parse(args, err))
    return usageError(err, "campaign");
  if (parser.inputs.size() != 1)
    return usageError("campaign " + step + " takes one plan, got " +
                          std::to_string(parser.inputs.size()) + " arguments",
                      "campaign");
  if (!readCampaignPlan(parser.inputs[0], plan, err))
    return inputError(err);
  return std::nullopt;
}

int taskMain(const std::vector<std::string> &args) {
  ArgParser parser("campaign task", {"--synthetic", "--no-ceilings"},
                   {"--shard", "--synthetic-delay-ms", "--cache", "--timeout"});
  CampaignPlan plan;
  if (std::optional<int> stop = openPlan(parser, args, "task", plan))
    return *stop;
  std::string err;
  int64_t shardIndex = -1;
  if (!parser.has("--shard") ||
      !parseCount(parser.value("--shard"), shardIndex) ||
      shardIndex >= static_cast<int64_t>(kMaxCampaignShards))
    return usageError("--shard N is required (N a shard index, below " +
                          std::to_string(kMaxCampaignShards) + ")",
                      "campaign");
  const CampaignShard *shard = plan.shard(static_cast<int>(shardIndex));
  if (!shard)
    return inputError(parser.inputs[0] + ": no shard " +
                      std::to_string(shardIndex) + " (the plan has " +
                      std::to_string(plan.shards.size()) + ")");
  const std::string folder = shardFolder(plan, shard->index);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec)
    return inputError(folder + ": cannot make the folder: " + ec.message());
  const std::string self = selfExecutable();
  if (self.empty())
    return inputError("cannot find this program (/proc/self/exe)");
  const bool synthetic = parser.has("--synthetic");

  // This node's baseline (the merge compares nodes by it), once per node
  // and shard; nothing to measure when the shard is complete.
  bool complete = true;
  for (const std::string &id : shard->items)
    complete = complete && itemDone(plan, shard->index, id);
  char host[256] = {};
  (void)gethostname(host, sizeof(host) - 1);
  const std::string ceilings = shardCeilingsPath(plan, shard->index, host);
  if (!parser.has("--no-ceilings") && !complete &&
      !std::filesystem::exists(ceilings)) {
    std::vector<std::string> argv = {self, "ceilings", "--out", ceilings};
    if (synthetic)
      argv.push_back("--synthetic");
    if (parser.has("--timeout"))
      argv.insert(argv.end(), {"--timeout", parser.value("--timeout")});
    const ProcessResult r = runProcess(argv, Output::Inherit);
    if (r.started && r.exitCode == 3)
      return 3;
    if (!r.ok())
      std::fprintf(stderr,
                   "kgen-bench: shard %d: measuring the ceilings failed (%s); "
                   "going on without them\n",
                   shard->index, r.describe().c_str());
  }
  const bool haveCeilings =
      !parser.has("--no-ceilings") && std::filesystem::exists(ceilings);

  size_t failed = 0, skipped = 0;
  for (size_t k = 0; k < shard->items.size(); ++k) {
    const CampaignItem &item = *plan.item(shard->items[k]);
    if (itemDone(plan, shard->index, item.id)) {
      ++skipped;
      continue;
    }
    std::fprintf(stderr, "kgen-bench: shard %d item %zu/%zu %s (%s, %zu candidates)\n",
                 shard->index, k + 1, shard->items.size(), item.id.c_str(),
                 item.target.c_str(), item.candidates.size());
    std::vector<std::string> argv = {self, "tune"};
    for (const std::string &c : item.candidates)
      argv.push_back(
          (std::filesystem::path(plan.root) / item.opFolder / c).string());
    const CampaignBudget &b = plan.budget;
    argv.insert(argv.end(),
                {"--db", itemDbPath(plan, shard->index, item.id), "--out",
                 itemResultsPath(plan, shard->index, item.id), "--max-seconds",
                 std::to_string(b.maxSeconds), "--finalists",
                 std::to_string(b.finalists), "--rounds",
                 std::to_string(b.rounds), "--seed", std::to_string(b.seed)});
    if (haveCeilings)
      argv.insert(argv.end(), {"--ceilings", ceilings});
    if (synthetic)
      argv.push_back("--synthetic");
    for (const char *opt : {"--synthetic-delay-ms", "--cache", "--timeout"})
      if (parser.has(opt))
        argv.insert(argv.end(), {opt, parser.value(opt)});
    const ProcessResult r = runProcess(argv, Output::Inherit);
    if (r.started && r.exitCode == 3)
      return 3; // no device: the next items would say the same
    // Exit 1 is a candidate that failed: the search is done all the same.
    if (!itemDone(plan, shard->index, item.id)) {
      std::fprintf(stderr, "kgen-bench: shard %d: item %s did not finish (%s)\n",
                   shard->index, item.id.c_str(), r.describe().c_str());
      ++failed;
    }
  }
  std::fprintf(stderr, "kgen-bench: shard %d: %zu items, %zu done before, %zu failed\n",
               shard->index, shard->items.size(), skipped, failed);
  return failed ? 1 : 0;
}

int mergeMain(const std::vector<std::string> &args) {
  ArgParser parser("campaign merge", {}, {});
  CampaignPlan plan;
  if (std::optional<int> stop = openPlan(parser, args, "merge", plan))
    return *stop;
  std::string report, err;
  bool complete = false;
  if (!mergeAndWrite(plan, report, complete, err)) {
    std::fprintf(stderr, "kgen-bench: %s\n", escapeForTerminal(err).c_str());
    return 1;
  }
  std::fputs(report.c_str(), stdout);
  return complete ? 0 : 1;
}

} // namespace

int campaignMain(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fputs(kCampaignHelp, stdout);
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const std::string &a : rest)
    if (a == "-h" || a == "--help") {
      std::fputs(kCampaignHelp, stdout);
      return 0;
    }
  if (args[0] == "task")
    return taskMain(rest);
  if (args[0] == "merge")
    return mergeMain(rest);
  return usageError("unknown campaign step '" + args[0] +
                        "' (expected task or merge)",
                    "campaign");
}

} // namespace kgen::rt
