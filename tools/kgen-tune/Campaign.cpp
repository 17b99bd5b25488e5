//===- Campaign.cpp - kgen-tune campaign plan|submit|status|... -----------===//

#include "tools/kgen-tune/Campaign.h"

#include "runtime/tools/BenchPerfArgs.h"

#include "kgen/runtime/Campaign.h"
#include "kgen/runtime/FileUtil.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Process.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/TuningDb.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace kgen::tune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using rt::ArgParser;
using rt::CampaignPlan;

constexpr const char *kHelp = R"(usage:
  kgen-tune campaign plan MODULE.mlir... --out DIR/plan.json
                     [--targets sm_90a,sm_80] [--max-candidates N]
                     [--max-seconds S] [--seconds-per-candidate S]
                     [--shard-seconds S] [--finalists F] [--rounds R]
                     [--seed N] [--jobs J] [--force]
  kgen-tune campaign submit DIR/plan.json [--partition P] [--gres G]
                     [--time T] [--slurm-config F.json] [--bench PATH]
                     [--synthetic] [--synthetic-delay-ms MS]
  kgen-tune campaign status DIR/plan.json
  kgen-tune campaign wait DIR/plan.json [--timeout S]
  kgen-tune campaign resume DIR/plan.json
  kgen-tune campaign merge DIR/plan.json

Tuning campaigns on a Slurm cluster (docs/campaigns.md). DIR must be on a
file system the nodes share.

plan    each op of each module on each target (--targets, default sm_90a)
        is one measured search, an item: its candidate packages are
        written here (kgen-tune MODULE --packages, --max-candidates of
        them) under DIR/packages/; items of the same tuning key (op,
        target, tokens bucket) are measured once. Items are cut into shards
        of at most --shard-seconds (default 3600) of estimated time: an
        item takes min(--max-seconds, candidates x --seconds-per-candidate)
        plus one candidate's worth (defaults 300 and 10). A folder that
        holds a campaign already is refused (--force discards it: its
        packages, shards, merge and submissions).
submit  one Slurm job array per target, a task per shard (one GPU each:
        --gres, default gpu:1; --partition, --time; or per target from
        --slurm-config), each running `kgen-bench campaign task` (--bench:
        the kgen-bench the nodes run, default the one beside this
        kgen-tune); then a job after any end of them (--dependency=afterany)
        running `kgen-bench campaign merge`. Recorded in
        DIR/submissions.json. --synthetic: stand-in measurements, no GPU
        (testing the workflow; labelled in every output).
status  each shard's items done on disk, its state in squeue (and in sacct
        where accounting is on), the merge's.
wait    until no job of the campaign is queued or running (--timeout S,
        default 86400: exit 1 when it passes).
resume  submit again the shards with items not done and no job queued or
        running, with the last submission's options, and a new merge;
        nothing finished is measured again.
merge   the merge, here: DIR/merged/tuning.json (kgen-select-strategy
        db=...), DIR/merged/results-TARGET.json, DIR/merged/merge.json.

exit codes: 0 done; 1 a step failed (sbatch refused, items missing, wait
timed out); 2 usage or input error.
)";

int usage(const std::string &err) {
  std::fprintf(stderr, "kgen-tune: campaign: %s (kgen-tune campaign --help)\n",
               rt::escapeForTerminal(err).c_str());
  return 2;
}

int failure(const std::string &err, int code = 1) {
  std::fprintf(stderr, "kgen-tune: campaign: %s\n",
               rt::escapeForTerminal(err).c_str());
  return code;
}

bool parsePositive(const ArgParser &p, const char *opt, double &out,
                   std::string &err) {
  if (!p.has(opt))
    return true;
  if (!rt::parseNumber(p.value(opt), out) || !(out > 0)) {
    err = std::string("bad value '") + p.value(opt) + "' for " + opt +
          " (expected a positive number)";
    return false;
  }
  return true;
}

bool parseInt(const ArgParser &p, const char *opt, int64_t lo, int64_t hi,
              int64_t &out, std::string &err) {
  if (!p.has(opt))
    return true;
  if (!rt::parseCount(p.value(opt), out) || out < lo || out > hi) {
    err = std::string("bad value '") + p.value(opt) + "' for " + opt +
          " (expected an integer in [" + std::to_string(lo) + ", " +
          std::to_string(hi) + "])";
    return false;
  }
  return true;
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty())
      out.push_back(part);
  return out;
}

/// Folder names ordered as people number them: "c2" before "c10".
bool naturalLess(const std::string &a, const std::string &b) {
  const size_t da = a.find_first_of("0123456789"),
               db = b.find_first_of("0123456789");
  if (da != std::string::npos && db != std::string::npos &&
      a.substr(0, da) == b.substr(0, db) &&
      a.find_first_not_of("0123456789", da) == std::string::npos &&
      b.find_first_not_of("0123456789", db) == std::string::npos) {
    const std::string na = a.substr(da), nb = b.substr(db);
    if (na.size() != nb.size())
      return na.size() < nb.size();
  }
  return a < b;
}

std::vector<std::string> sortedChildren(const fs::path &dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && e.path().filename().string()[0] != '.')
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end(), naturalLess);
  return names;
}

/// The measured searches kgen-tune --packages wrote under `dir`: op
/// folder (relative to `dir`: gemm0, moe0/gate_up) -> its candidates, the
/// packages cJ/NAME in rank order. A package is a folder holding
/// manifest.json; its op folder is the parent of its cJ.
void findOpFolders(const fs::path &dir, const std::string &rel,
                   std::map<std::string, std::vector<std::string>> &out,
                   std::vector<std::string> &order) {
  for (const std::string &child : sortedChildren(dir)) {
    const fs::path p = dir / child;
    const std::string r = rel.empty() ? child : rel + "/" + child;
    if (!fs::exists(p / "manifest.json")) {
      findOpFolders(p, r, out, order);
      continue;
    }
    const size_t cut = rel.rfind('/');
    const std::string op = cut == std::string::npos ? "" : rel.substr(0, cut);
    const std::string candidate =
        (cut == std::string::npos ? rel : rel.substr(cut + 1)) + "/" + child;
    if (!out.count(op))
      order.push_back(op);
    out[op].push_back(candidate);
  }
}

/// Why `root` cannot hold a campaign, or "": Slurm reads '%' and '\\' in
/// the --output paths under it as patterns, and control characters would
/// reach logs and terminals.
std::string rootProblem(const std::string &root) {
  for (char c : root)
    if (c == '%' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
        c == 0x7f)
      return "the campaign folder " + rt::escapeForTerminal(root) +
             " holds '%', a backslash or a control character, which Slurm's "
             "output file patterns would read: choose another";
  return "";
}

//===----------------------------------------------------------------------===//
// plan
//===----------------------------------------------------------------------===//

int planMain(const std::vector<std::string> &args) {
  ArgParser p("campaign plan", {"--force"},
              {"--out", "--targets", "--max-candidates", "--max-seconds",
               "--seconds-per-candidate", "--shard-seconds", "--finalists",
               "--rounds", "--seed", "--jobs"});
  std::string err;
  if (!p.parse(args, err))
    return usage(err);
  if (p.inputs.empty())
    return usage("plan: no modules given");
  if (!p.has("--out"))
    return usage("plan: --out DIR/plan.json is required");
  CampaignPlan plan;
  rt::CampaignBudget &b = plan.budget;
  int64_t finalists = b.finalists, rounds = b.rounds, seed = 1, jobs = 0,
          maxCandidates = 0;
  if (!parsePositive(p, "--max-seconds", b.maxSeconds, err) ||
      !parsePositive(p, "--seconds-per-candidate", b.secondsPerCandidate,
                     err) ||
      !parsePositive(p, "--shard-seconds", b.shardSeconds, err) ||
      !parseInt(p, "--finalists", 1, 100, finalists, err) ||
      !parseInt(p, "--rounds", 1, 100, rounds, err) ||
      !parseInt(p, "--seed", 0, int64_t{1} << 62, seed, err) ||
      !parseInt(p, "--jobs", 1, 1024, jobs, err) ||
      !parseInt(p, "--max-candidates", 1, 100000, maxCandidates, err))
    return usage(err);
  b.finalists = static_cast<int>(finalists);
  b.rounds = static_cast<int>(rounds);
  b.seed = static_cast<uint64_t>(seed);
  const std::vector<std::string> targets =
      splitList(p.has("--targets") ? p.value("--targets") : "sm_90a");
  if (targets.empty())
    return usage("plan: --targets names no target");
  for (const std::string &t : targets)
    if (t != "sm_80" && t != "sm_90a")
      return usage("plan: unknown target '" + t +
                   "' (kgen lowers for sm_80 and sm_90a)");
  for (const std::string &m : p.inputs)
    if (!fs::is_regular_file(m))
      return usage("plan: " + m + ": no such module file");

  const fs::path planPath = fs::absolute(p.value("--out")).lexically_normal();
  const fs::path root = planPath.parent_path();
  if (const std::string why = rootProblem(root.string()); !why.empty())
    return usage("plan: " + why);
  // A plan's shards and submissions belong to it: planning again into the
  // same folder would let the old shards count as done.
  static const char *const kOwned[] = {"plan.json", "packages", "shards",
                                       "merged", "submissions.json", "slurm",
                                       "logs"};
  std::error_code ec;
  for (const char *owned : kOwned)
    if (fs::exists(root / owned, ec) && owned != std::string("packages")) {
      if (!p.has("--force"))
        return failure(root.string() + " holds a campaign already (" + owned +
                           "): plan into a new folder, or --force to "
                           "discard it (its shards, merge and submissions)",
                       2);
    }
  if (p.has("--force"))
    for (const char *owned : kOwned)
      fs::remove_all(root / owned, ec);
  fs::create_directories(root / "packages", ec);
  if (ec)
    return failure(root.string() + ": cannot make the folder: " + ec.message(),
                   2);
  const std::string self = rt::selfExecutable();
  if (self.empty())
    return failure("cannot find this program (/proc/self/exe)");

  std::map<std::string, size_t> byKey; // target + key op text -> item
  for (size_t m = 0; m < p.inputs.size(); ++m)
    for (const std::string &target : targets) {
      const std::string folder = "m" + std::to_string(m) + "." + target;
      std::vector<std::string> argv = {self, p.inputs[m], "--target=" + target,
                                       "--packages=" +
                                           (root / "packages" / folder).string()};
      if (maxCandidates)
        argv.push_back("--max-candidates=" + std::to_string(maxCandidates));
      if (jobs)
        argv.push_back("--jobs=" + std::to_string(jobs));
      std::fprintf(stderr, "kgen-tune: campaign: preparing %s for %s\n",
                   p.inputs[m].c_str(), target.c_str());
      const rt::ProcessResult r = rt::runProcess(argv);
      if (!r.ok())
        return failure("preparing the packages of " + p.inputs[m] + " for " +
                       target + " failed (" + r.describe() + "): " +
                       r.errText.substr(0, 2000));
      std::map<std::string, std::vector<std::string>> opFolders;
      std::vector<std::string> opOrder;
      findOpFolders(root / "packages" / folder, "", opFolders, opOrder);
      for (const std::string &op : opOrder) {
        const std::string rel = "packages/" + folder + "/" + op;
        const std::vector<std::string> &candidates = opFolders[op];
        rt::KernelPackage first;
        json keyOp, keyConfig;
        if (!rt::loadPackage((root / rel / candidates.front()).string(), first,
                             err) ||
            !rt::tuningRecordOf(first.op, first.config, keyOp, keyConfig,
                                err))
          return failure(rel + ": " + err);
        const std::string key = target + " " + keyOp.dump();
        const std::string where = p.inputs[m] + ":" + op;
        if (auto it = byKey.find(key); it != byKey.end()) {
          plan.items[it->second].alsoServes.push_back(where);
          continue;
        }
        rt::CampaignItem item;
        char id[16];
        std::snprintf(id, sizeof(id), "i%03zu", plan.items.size());
        item.id = id;
        item.target = target;
        item.module = where;
        item.opFolder = rel;
        item.candidates = candidates;
        item.keyOp = keyOp;
        item.estimatedSeconds =
            rt::estimateItemSeconds(candidates.size(), plan.budget);
        byKey.emplace(key, plan.items.size());
        plan.items.push_back(std::move(item));
      }
    }
  if (plan.items.empty())
    return failure("the modules hold no op kgen-tune tunes (kgen.gemm, "
                   "kgen.attention, kgen.moe)");
  plan.shards = rt::cutShards(plan.items, plan.budget);
  if (plan.shards.size() > rt::kMaxCampaignShards)
    return failure("the plan needs " + std::to_string(plan.shards.size()) +
                       " shards, more than " +
                       std::to_string(rt::kMaxCampaignShards) +
                       ": raise --shard-seconds",
                   2);
  plan.createdAt = rt::utcNow();
  if (!rt::writeCampaignPlan(planPath.string(), plan, err))
    return failure(err);
  double total = 0;
  for (const rt::CampaignShard &s : plan.shards)
    total += s.estimatedSeconds;
  std::printf("plan %s: %zu items, %zu shards, about %.0f GPU-seconds in all\n",
              planPath.c_str(), plan.items.size(), plan.shards.size(), total);
  for (const rt::CampaignShard &s : plan.shards)
    std::printf("  shard %d (%s): %zu items, about %.0f s\n", s.index,
                s.target.c_str(), s.items.size(), s.estimatedSeconds);
  return 0;
}

//===----------------------------------------------------------------------===//
// Slurm
//===----------------------------------------------------------------------===//

/// How tasks are submitted: from the command line, else the
/// --slurm-config file's target entry, else its top level, else defaults.
struct SlurmOptions {
  std::string bench;
  std::string partition, gres = "gpu:1", time, mergePartition;
  std::vector<std::string> sbatchArgs;
  std::map<std::string, std::pair<std::string, std::string>> perTarget;
  bool synthetic = false;
  std::string syntheticDelayMs;

  std::string partitionFor(const std::string &target) const {
    auto it = perTarget.find(target);
    return it != perTarget.end() && !it->second.first.empty()
               ? it->second.first
               : partition;
  }
  std::string gresFor(const std::string &target) const {
    auto it = perTarget.find(target);
    return it != perTarget.end() && !it->second.second.empty()
               ? it->second.second
               : gres;
  }

  json toJson() const {
    json targets = json::object();
    for (const auto &[t, pg] : perTarget)
      targets[t] = {{"partition", pg.first}, {"gres", pg.second}};
    return {{"bench", bench},          {"partition", partition},
            {"gres", gres},            {"time", time},
            {"merge_partition", mergePartition},
            {"sbatch_args", sbatchArgs}, {"targets", targets},
            {"synthetic", synthetic},  {"synthetic_delay_ms", syntheticDelayMs}};
  }
};

bool stringField(const json &j, const char *key, std::string &out,
                 const std::string &where, std::string &err) {
  if (!j.contains(key) || j[key].is_null())
    return true;
  if (!j[key].is_string()) {
    err = where + "." + key + ": expected a string";
    return false;
  }
  out = j[key].get<std::string>();
  return true;
}

/// Reads a --slurm-config file or a recorded submission's options.
bool slurmFromJson(const json &j, const std::string &where, SlurmOptions &o,
                   std::string &err) {
  if (!j.is_object()) {
    err = where + ": expected an object";
    return false;
  }
  if (!stringField(j, "bench", o.bench, where, err) ||
      !stringField(j, "partition", o.partition, where, err) ||
      !stringField(j, "gres", o.gres, where, err) ||
      !stringField(j, "time", o.time, where, err) ||
      !stringField(j, "merge_partition", o.mergePartition, where, err) ||
      !stringField(j, "synthetic_delay_ms", o.syntheticDelayMs, where, err))
    return false;
  if (j.contains("synthetic")) {
    if (!j["synthetic"].is_boolean()) {
      err = where + ".synthetic: expected true or false";
      return false;
    }
    o.synthetic = j["synthetic"].get<bool>();
  }
  if (j.contains("sbatch_args")) {
    const json &a = j["sbatch_args"];
    if (!a.is_array() ||
        !std::all_of(a.begin(), a.end(), [](const json &x) { return x.is_string(); })) {
      err = where + ".sbatch_args: expected an array of strings";
      return false;
    }
    o.sbatchArgs = a.get<std::vector<std::string>>();
  }
  if (j.contains("targets")) {
    const json &t = j["targets"];
    if (!t.is_object()) {
      err = where + ".targets: expected an object {TARGET: {partition, gres}}";
      return false;
    }
    for (auto it = t.begin(); it != t.end(); ++it) {
      std::pair<std::string, std::string> pg;
      const std::string w = where + ".targets." + it.key();
      if (!it->is_object() || !stringField(*it, "partition", pg.first, w, err) ||
          !stringField(*it, "gres", pg.second, w, err)) {
        if (err.empty())
          err = w + ": expected an object {partition, gres}";
        return false;
      }
      o.perTarget[it.key()] = pg;
    }
  }
  return true;
}

std::string submissionsPath(const CampaignPlan &plan) {
  return (fs::path(plan.root) / "submissions.json").string();
}

/// The submissions recorded so far ([] when none).
/// A Slurm job id as kgen records it: digits.
bool isJobId(const json &j) {
  return j.is_string() && !j.get<std::string>().empty() &&
         j.get<std::string>().find_first_not_of("0123456789") ==
             std::string::npos;
}

/// What submitShards writes, checked: each submission {submitted_at, why,
/// arrays: [{job, target, shards: [int]}], merge_job, options: {...}}.
bool checkSubmission(const json &s, const std::string &where,
                     std::string &err) {
  auto bad = [&](const std::string &field, const char *expected) {
    err = where + "." + field + ": expected " + expected;
    return false;
  };
  if (!s.is_object())
    return bad("", "an object");
  if (!s.contains("arrays") || !s["arrays"].is_array())
    return bad("arrays", "an array");
  for (size_t i = 0; i < s["arrays"].size(); ++i) {
    const json &a = s["arrays"][i];
    const std::string at = "arrays[" + std::to_string(i) + "]";
    if (!a.is_object() || !a.contains("job") || !isJobId(a["job"]))
      return bad(at + ".job", "a job id (digits)");
    if (!a.contains("target") || !a["target"].is_string())
      return bad(at + ".target", "a string");
    if (!a.contains("shards") || !a["shards"].is_array() ||
        !std::all_of(a["shards"].begin(), a["shards"].end(),
                     [](const json &x) { return x.is_number_integer(); }))
      return bad(at + ".shards", "an array of shard indices");
  }
  if (!s.contains("merge_job") || !isJobId(s["merge_job"]))
    return bad("merge_job", "a job id (digits)");
  if (!s.contains("options") || !s["options"].is_object())
    return bad("options", "an object");
  return true;
}

/// The submissions recorded so far ([] when none).
bool readSubmissions(const CampaignPlan &plan, json &out, std::string &err) {
  out = json::array();
  const std::string path = submissionsPath(plan);
  if (!fs::exists(path))
    return true;
  if (!rt::readJson(path, out, err))
    return false;
  if (!out.is_array()) {
    err = path + ": expected an array of submissions";
    return false;
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (!checkSubmission(out[i], "[" + std::to_string(i) + "]", err)) {
      err = path + ": " + err;
      return false;
    }
  return true;
}

/// "0-3,7": shard indices as Slurm's --array takes them.
std::string arraySpec(const std::vector<int> &shards) {
  std::string out;
  for (size_t i = 0; i < shards.size();) {
    size_t j = i;
    while (j + 1 < shards.size() && shards[j + 1] == shards[j] + 1)
      ++j;
    out += (out.empty() ? "" : ",") + std::to_string(shards[i]) +
           (j > i ? "-" + std::to_string(shards[j]) : "");
    i = j + 1;
  }
  return out;
}

/// The job id `sbatch --parsable` printed ("123" or "123;cluster").
bool parseJobId(const std::string &out, std::string &id) {
  id = out.substr(0, out.find_first_of(";\n"));
  return !id.empty() &&
         id.find_first_not_of("0123456789") == std::string::npos;
}

/// Writes an executable script atomically (FileUtil's writeFileAtomic).
bool writeScript(const fs::path &path, const std::string &text,
                 std::string &err) {
  if (!rt::writeFileAtomic(path.string(), {text}, err)) {
    err = path.string() + ": " + err;
    return false;
  }
  std::error_code ec;
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec,
                  ec);
  if (ec)
    err = path.string() + ": cannot make it executable: " + ec.message();
  return !ec;
}

/// The batch scripts: fixed text, the command in their arguments (sbatch
/// passes them as they are, no shell reads them), so no name of the
/// campaign's is ever interpreted.
bool writeScripts(const CampaignPlan &plan, std::string &err) {
  const fs::path dir = fs::path(plan.root) / "slurm";
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::create_directories(fs::path(plan.root) / "logs", ec);
  if (ec) {
    err = dir.string() + ": " + ec.message();
    return false;
  }
  return writeScript(dir / "task.sh",
                     "#!/bin/sh\n"
                     "# One array task of a kgen tuning campaign (kgen-tune "
                     "campaign submit wrote this):\n"
                     "# runs its arguments for the shard of the array task "
                     "id.\n"
                     "exec \"$@\" --shard \"$SLURM_ARRAY_TASK_ID\"\n",
                     err) &&
         writeScript(dir / "step.sh",
                     "#!/bin/sh\n"
                     "# A step of a kgen tuning campaign (kgen-tune campaign "
                     "submit wrote this): runs its arguments.\n"
                     "exec \"$@\"\n",
                     err);
}

/// Submits `shards` (each target's as one array) and a merge after them
/// and after `alsoWaitFor` (arrays of the campaign still queued), all
/// held; records the submission; then releases them. A refused sbatch
/// cancels what this call submitted, and an interrupted call leaves held
/// jobs that are recorded or none: nothing runs half-submitted.
int submitShards(const CampaignPlan &plan, const std::string &planPath,
                 const std::vector<int> &shards, const SlurmOptions &o,
                 const char *why,
                 const std::vector<std::string> &alsoWaitFor = {}) {
  std::string err;
  if (const std::string why = rootProblem(plan.root); !why.empty())
    return failure(why, 2);
  if (!writeScripts(plan, err))
    return failure(err);
  std::map<std::string, std::vector<int>> byTarget;
  std::vector<std::string> targetOrder;
  for (int s : shards) {
    const std::string &t = plan.shard(s)->target;
    if (!byTarget.count(t))
      targetOrder.push_back(t);
    byTarget[t].push_back(s);
  }
  const std::string logs = (fs::path(plan.root) / "logs").string();
  json arrays = json::array();
  std::vector<std::string> submitted;
  auto undo = [&](const std::string &msg) {
    if (submitted.empty())
      return failure(msg);
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), submitted.begin(), submitted.end());
    const rt::ProcessResult r = rt::runProcess(argv);
    std::string ids;
    for (const std::string &id : submitted)
      ids += " " + id;
    return failure(msg + (r.ok() ? " (cancelled the held jobs this submission "
                                   "made:" + ids + ")"
                                 : " (cancelling the held jobs this submission "
                                   "made failed, " + r.describe() +
                                       ": scancel" + ids + ")"));
  };
  for (const std::string &target : targetOrder) {
    std::vector<std::string> argv = {
        "sbatch", "--parsable", "--hold", "--job-name=kgen-campaign-" + target,
        "--array=" + arraySpec(byTarget[target]),
        "--output=" + logs + "/%A_%a.out"};
    if (!o.gresFor(target).empty())
      argv.push_back("--gres=" + o.gresFor(target));
    if (!o.partitionFor(target).empty())
      argv.push_back("--partition=" + o.partitionFor(target));
    if (!o.time.empty())
      argv.push_back("--time=" + o.time);
    argv.insert(argv.end(), o.sbatchArgs.begin(), o.sbatchArgs.end());
    argv.insert(argv.end(),
                {(fs::path(plan.root) / "slurm" / "task.sh").string(), o.bench,
                 "campaign", "task", planPath});
    if (o.synthetic)
      argv.push_back("--synthetic");
    if (!o.syntheticDelayMs.empty())
      argv.insert(argv.end(), {"--synthetic-delay-ms", o.syntheticDelayMs});
    const rt::ProcessResult r = rt::runProcess(argv);
    std::string id;
    if (!r.ok() || !parseJobId(r.out, id))
      return undo("sbatch refused the " + target + " array (" + r.describe() +
                  "): " + r.errText.substr(0, 2000));
    submitted.push_back(id);
    arrays.push_back({{"job", id}, {"target", target}, {"shards", byTarget[target]}});
    std::printf("submitted shards %s (%s) as job array %s\n",
                arraySpec(byTarget[target]).c_str(), target.c_str(), id.c_str());
  }
  std::string dependency = "afterany";
  for (const std::string &id : submitted)
    dependency += ":" + id;
  for (const std::string &id : alsoWaitFor)
    dependency += ":" + id;
  std::vector<std::string> argv = {"sbatch", "--parsable", "--hold",
                                   "--job-name=kgen-campaign-merge",
                                   "--dependency=" + dependency,
                                   "--output=" + logs + "/merge-%j.out"};
  const std::string mergePartition =
      o.mergePartition.empty() ? o.partition : o.mergePartition;
  if (!mergePartition.empty())
    argv.push_back("--partition=" + mergePartition);
  if (!o.time.empty())
    argv.push_back("--time=" + o.time);
  argv.insert(argv.end(), o.sbatchArgs.begin(), o.sbatchArgs.end());
  argv.insert(argv.end(), {(fs::path(plan.root) / "slurm" / "step.sh").string(),
                           o.bench, "campaign", "merge", planPath});
  const rt::ProcessResult r = rt::runProcess(argv);
  std::string mergeId;
  if (!r.ok() || !parseJobId(r.out, mergeId))
    return undo("sbatch refused the merge job (" + r.describe() +
                "): " + r.errText.substr(0, 2000));
  submitted.push_back(mergeId);
  std::printf("submitted the merge as job %s (after any end of %s)\n",
              mergeId.c_str(), dependency.substr(9).c_str());
  json submissions;
  if (!readSubmissions(plan, submissions, err))
    return undo(err);
  submissions.push_back({{"submitted_at", rt::utcNow()},
                         {"why", why},
                         {"arrays", arrays},
                         {"merge_job", mergeId},
                         {"options", o.toJson()}});
  if (!rt::writeJsonAtomic(submissionsPath(plan), submissions, err))
    return undo(err);
  // Recorded: now they may run.
  std::vector<std::string> release = {"scontrol", "release"};
  std::string ids;
  for (const std::string &id : submitted)
    ids += (ids.empty() ? "" : ",") + id;
  release.push_back(ids);
  const rt::ProcessResult released = rt::runProcess(release);
  if (!released.ok())
    return failure("the jobs are submitted and recorded but held: releasing "
                   "them failed (" + released.describe() + "): " +
                   released.errText.substr(0, 500) +
                   "; run: scontrol release " + ids);
  return 0;
}

/// The kgen-bench the nodes run: --bench, $KGEN_BENCH, or the one beside
/// this program.
bool findBench(const ArgParser &p, std::string &bench, std::string &err) {
  if (p.has("--bench"))
    bench = p.value("--bench");
  else if (const char *env = std::getenv("KGEN_BENCH"))
    bench = env;
  else
    bench = (fs::path(rt::selfExecutable()).parent_path() / "kgen-bench").string();
  std::error_code ec;
  const fs::path abs = fs::absolute(bench, ec);
  if (ec || access(abs.c_str(), X_OK) != 0) {
    err = "no kgen-bench at " + bench + " (--bench PATH: the nodes run it)";
    return false;
  }
  bench = abs.string();
  return true;
}

/// A step's command line and the campaign it names (one plan, then its
/// submissions so far).
struct Step {
  ArgParser args;
  CampaignPlan plan;
  std::string planPath; // absolute
  json submissions;     // [] before the first submit
};

/// Parses `args` for `step` and reads the plan and its submissions; the
/// exit code when something is wrong (after saying what).
std::optional<int> openStep(const std::string &step,
                            const std::vector<std::string> &args, Step &s) {
  std::string err;
  if (!s.args.parse(args, err))
    return usage(err);
  if (s.args.inputs.size() != 1)
    return usage(step + " takes one plan, got " +
                 std::to_string(s.args.inputs.size()) + " arguments");
  if (!rt::readCampaignPlan(s.args.inputs[0], s.plan, err))
    return failure(err, 2);
  s.planPath = fs::absolute(s.args.inputs[0]).lexically_normal().string();
  if (!readSubmissions(s.plan, s.submissions, err))
    return failure(err, 2);
  return std::nullopt;
}

int submitMain(const std::vector<std::string> &args) {
  Step s{ArgParser("campaign submit", {"--synthetic"},
                   {"--partition", "--gres", "--time", "--slurm-config",
                    "--bench", "--synthetic-delay-ms"}),
         {}, {}, {}};
  if (std::optional<int> stop = openStep("submit", args, s))
    return *stop;
  const ArgParser &p = s.args;
  std::string err;
  SlurmOptions o;
  if (p.has("--slurm-config")) {
    json j;
    if (!rt::readJson(p.value("--slurm-config"), j, err) ||
        !slurmFromJson(j, p.value("--slurm-config"), o, err))
      return failure(err, 2);
  }
  for (auto [opt, field] : {std::pair{"--partition", &o.partition},
                            std::pair{"--gres", &o.gres},
                            std::pair{"--time", &o.time},
                            std::pair{"--synthetic-delay-ms", &o.syntheticDelayMs}})
    if (p.has(opt))
      *field = p.value(opt);
  o.synthetic = o.synthetic || p.has("--synthetic");
  if (!o.syntheticDelayMs.empty() && !o.synthetic)
    return usage("--synthetic-delay-ms needs --synthetic");
  double delay = 0;
  if (!o.syntheticDelayMs.empty() &&
      (!rt::parseNumber(o.syntheticDelayMs, delay) || delay < 0 || delay > 60000))
    return usage("bad value '" + o.syntheticDelayMs +
                 "' for --synthetic-delay-ms (expected 0 to 60000)");
  if (!findBench(p, o.bench, err))
    return failure(err, 2);
  if (!s.submissions.empty())
    return failure("the campaign was submitted already (" +
                       submissionsPath(s.plan) +
                       "): kgen-tune campaign status, or resume",
                   2);
  std::vector<int> shards;
  for (const rt::CampaignShard &shard : s.plan.shards)
    shards.push_back(shard.index);
  return submitShards(s.plan, s.planPath, shards, o, "submit");
}

//===----------------------------------------------------------------------===//
// status, wait, resume
//===----------------------------------------------------------------------===//

/// A job of the campaign as squeue lists it.
struct QueuedTask {
  std::string job;   // the array job (or the job) id
  int shard = -1;    // the array task id; -1 for a job that is no array
  std::string state; // PENDING, RUNNING, ...
  std::string node;
};

/// The rows of squeue's or sacct's '|'-separated output, split into fields.
std::vector<std::vector<std::string>> pipeRows(const std::string &text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    rows.emplace_back();
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, '|');)
      rows.back().push_back(x);
  }
  return rows;
}

/// The campaign's jobs in the queue (every user's queue, filtered by the
/// submissions' job ids; -r: one line per array task, so no list of task
/// ids is cut short). False with a message when squeue fails.
bool queuedTasks(const std::set<std::string> &jobs,
                 std::vector<QueuedTask> &out, std::string &err) {
  const rt::ProcessResult r =
      rt::runProcess({"squeue", "-h", "-r", "-o", "%F|%K|%T|%N"});
  if (!r.ok()) {
    err = "squeue failed (" + r.describe() + "): " + r.errText.substr(0, 500);
    return false;
  }
  for (const std::vector<std::string> &f : pipeRows(r.out)) {
    if (f.size() < 3 || !jobs.count(f[0]))
      continue;
    // %K: the array task id ("N/A" for a job that is no array).
    int64_t task = -1;
    if (!rt::parseCount(f[1], task) ||
        task >= static_cast<int64_t>(rt::kMaxCampaignShards))
      task = -1;
    out.push_back({f[0], static_cast<int>(task), f[2],
                   f.size() > 3 ? f[3] : ""});
  }
  return true;
}

struct CampaignJobs {
  std::set<std::string> all;
  /// Every array job and its target, in the order submitted.
  std::vector<std::pair<std::string, std::string>> arrays;
  std::string lastMerge;
  json lastOptions;

  /// The target of array job `job`, or "" when it is none of the
  /// campaign's arrays.
  std::string targetOf(const std::string &job) const {
    for (const auto &[id, target] : arrays)
      if (id == job)
        return target;
    return "";
  }
};

/// The jobs of checked submissions (readSubmissions).
CampaignJobs jobsOf(const json &submissions) {
  CampaignJobs j;
  for (const json &s : submissions) {
    for (const json &a : s["arrays"]) {
      j.all.insert(a["job"].get<std::string>());
      j.arrays.push_back(
          {a["job"].get<std::string>(), a["target"].get<std::string>()});
    }
    j.lastMerge = s["merge_job"].get<std::string>();
    j.all.insert(j.lastMerge);
    j.lastOptions = s["options"];
  }
  return j;
}

/// sacct's view of the jobs: "JOBID_TASK" -> "STATE (exit X:Y) on NODE";
/// false (with sacct's message) where accounting is off.
bool accountedStates(const std::set<std::string> &jobs,
                     std::map<std::string, std::string> &out,
                     std::string &err) {
  std::string list;
  for (const std::string &j : jobs)
    list += (list.empty() ? "" : ",") + j;
  const rt::ProcessResult r = rt::runProcess(
      {"sacct", "-n", "-P", "-X", "-j", list, "-o", "JobID,State,ExitCode,NodeList"});
  if (!r.ok()) {
    std::string why = r.errText.empty() ? r.describe() : r.errText;
    err = why.substr(0, why.find('\n'));
    return false;
  }
  for (const std::vector<std::string> &f : pipeRows(r.out))
    if (f.size() >= 4)
      out[f[0]] = f[1] + " (exit " + f[2] + ") on " + f[3];
  return true;
}

int statusMain(const std::vector<std::string> &args) {
  Step s{ArgParser("campaign status", {}, {}), {}, {}, {}};
  if (std::optional<int> stop = openStep("status", args, s))
    return *stop;
  const CampaignPlan &plan = s.plan;
  const json &submissions = s.submissions;
  const std::string &planPath = s.planPath;
  std::string err;
  const CampaignJobs jobs = jobsOf(submissions);
  std::vector<QueuedTask> queued;
  std::string queueNote, acctNote;
  if (!jobs.all.empty() && !queuedTasks(jobs.all, queued, err))
    queueNote = err;
  std::map<std::string, std::string> accounted;
  if (!jobs.all.empty() && !accountedStates(jobs.all, accounted, err))
    acctNote = err;
  std::printf("campaign %s: %zu items in %zu shards, %zu submissions\n",
              planPath.c_str(), plan.items.size(), plan.shards.size(),
              submissions.size());
  std::printf("%-6s %-7s %-8s %-24s %s\n", "shard", "target", "items",
              "queue", "last accounted");
  size_t complete = 0;
  for (const rt::ShardProgress &s : rt::shardProgress(plan)) {
    complete += s.complete() ? 1 : 0;
    std::string queue = "-";
    for (const QueuedTask &t : queued)
      if (t.shard == s.index &&
          jobs.targetOf(t.job) == plan.shard(s.index)->target)
        queue = t.state + (t.node.empty() ? "" : " on " + t.node) + " (" +
                t.job + "_" + std::to_string(t.shard) + ")";
    std::string acct = "-";
    for (const auto &[job, target] : jobs.arrays) { // the newest last
      auto it = accounted.find(job + "_" + std::to_string(s.index));
      if (target == plan.shard(s.index)->target && it != accounted.end())
        acct = it->second;
    }
    char items[32];
    std::snprintf(items, sizeof(items), "%zu/%zu", s.done, s.total);
    std::printf("%-6d %-7s %-8s %-24s %s\n", s.index,
                plan.shard(s.index)->target.c_str(), items, queue.c_str(),
                acct.c_str());
  }
  std::string merge = "not submitted";
  if (!jobs.lastMerge.empty()) {
    merge = "job " + jobs.lastMerge + ": ";
    std::string state;
    for (const QueuedTask &t : queued)
      if (t.job == jobs.lastMerge)
        state = t.state;
    merge += state.empty() ? (accounted.count(jobs.lastMerge)
                                  ? accounted[jobs.lastMerge]
                                  : "not queued")
                           : state;
  }
  const bool merged = fs::exists(fs::path(rt::mergedFolder(plan)) / "tuning.json");
  std::printf("merge: %s; %s\n", merge.c_str(),
              merged ? ("merged database " + rt::mergedFolder(plan) +
                        "/tuning.json").c_str()
                     : "no merged database yet");
  std::printf("%zu of %zu shards complete%s\n", complete, plan.shards.size(),
              complete == plan.shards.size() ? ""
              : queued.empty() ? " (kgen-tune campaign resume submits the rest)"
                               : "");
  if (!queueNote.empty())
    std::printf("note: %s\n", queueNote.c_str());
  if (!acctNote.empty())
    std::printf("note: sacct: %s (accounting off: the shards on disk tell "
                "what finished)\n",
                acctNote.c_str());
  return 0;
}

int waitMain(const std::vector<std::string> &args) {
  Step s{ArgParser("campaign wait", {}, {"--timeout"}), {}, {}, {}};
  if (std::optional<int> stop = openStep("wait", args, s))
    return *stop;
  std::string err;
  double timeout = 86400;
  if (!parsePositive(s.args, "--timeout", timeout, err))
    return usage(err);
  const CampaignJobs jobs = jobsOf(s.submissions);
  const auto start = std::chrono::steady_clock::now();
  // Every second for a minute, then every 15 s: a long campaign's wait
  // does not load slurmctld. squeue may fail for a moment (slurmctld
  // restarting): five failures in a row end the wait.
  int failures = 0;
  while (true) {
    std::vector<QueuedTask> queued;
    const bool listed = jobs.all.empty() || queuedTasks(jobs.all, queued, err);
    failures = listed ? 0 : failures + 1;
    if (failures >= 5)
      return failure(err);
    if (listed && queued.empty()) {
      std::printf("no job of the campaign is queued or running\n");
      return 0;
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (waited > timeout)
      return failure("still " + std::to_string(queued.size()) +
                     " jobs queued or running after " +
                     std::to_string(static_cast<long>(timeout)) + " s");
    std::this_thread::sleep_for(std::chrono::seconds(waited < 60 ? 1 : 15));
  }
}

int resumeMain(const std::vector<std::string> &args) {
  Step s{ArgParser("campaign resume", {}, {}), {}, {}, {}};
  if (std::optional<int> stop = openStep("resume", args, s))
    return *stop;
  const CampaignPlan &plan = s.plan;
  std::string err;
  if (s.submissions.empty())
    return failure("the campaign was never submitted: kgen-tune campaign "
                   "submit first",
                   2);
  const CampaignJobs jobs = jobsOf(s.submissions);
  SlurmOptions o;
  if (!slurmFromJson(jobs.lastOptions, submissionsPath(plan) + ": options", o,
                     err))
    return failure(err, 2);
  std::vector<QueuedTask> queued;
  if (!queuedTasks(jobs.all, queued, err))
    return failure(err);
  std::vector<int> again;
  for (const rt::ShardProgress &s : rt::shardProgress(plan)) {
    const bool inQueue = std::any_of(
        queued.begin(), queued.end(), [&](const QueuedTask &t) {
          return t.shard == s.index &&
                 jobs.targetOf(t.job) == plan.shard(s.index)->target;
        });
    if (!s.complete() && !inQueue)
      again.push_back(s.index);
    else if (!s.complete())
      std::printf("shard %d: still queued or running, left alone\n", s.index);
  }
  if (again.empty()) {
    std::printf("nothing to resume: every shard is complete or queued\n");
    return 0;
  }
  // The new merge waits for the campaign's arrays still queued too.
  std::vector<std::string> stillQueued;
  for (const QueuedTask &t : queued)
    if (!jobs.targetOf(t.job).empty() &&
        std::find(stillQueued.begin(), stillQueued.end(), t.job) ==
            stillQueued.end())
      stillQueued.push_back(t.job);
  return submitShards(plan, s.planPath, again, o, "resume", stillQueued);
}

int mergeMain(const std::vector<std::string> &args) {
  Step s{ArgParser("campaign merge", {}, {}), {}, {}, {}};
  if (std::optional<int> stop = openStep("merge", args, s))
    return *stop;
  std::string report, err;
  bool complete = false;
  if (!rt::mergeAndWrite(s.plan, report, complete, err))
    return failure(err);
  std::fputs(report.c_str(), stdout);
  return complete ? 0 : 1;
}

} // namespace

int campaignMain(const std::vector<std::string> &args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fputs(kHelp, stdout);
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
      std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  const std::string &step = args[0];
  if (step == "plan")
    return planMain(rest);
  if (step == "submit")
    return submitMain(rest);
  if (step == "status")
    return statusMain(rest);
  if (step == "wait")
    return waitMain(rest);
  if (step == "resume")
    return resumeMain(rest);
  if (step == "merge")
    return mergeMain(rest);
  return usage("unknown step '" + step +
               "' (expected plan, submit, status, wait, resume or merge)");
}

} // namespace kgen::tune
