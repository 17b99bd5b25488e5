//===- CampaignTest.cpp - campaign plans, shards, merging ------------------===//

#include "kgen/runtime/Campaign.h"

#include "kgen/runtime/Synthetic.h"

#include "TempDirTest.h"
#include "TestOps.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace kgen::rt;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using kgen::rt::test::gemmOp;

CampaignItem item(const std::string &id, const std::string &target,
                  double seconds) {
  CampaignItem i;
  i.id = id;
  i.target = target;
  i.module = "m.mlir:" + id;
  i.opFolder = "packages/m0." + target + "/" + id;
  i.candidates = {"c0/pkg", "c1/pkg"};
  i.keyOp = gemmOp(64);
  i.estimatedSeconds = seconds;
  return i;
}

CampaignPlan planOf(std::vector<CampaignItem> items, double shardSeconds) {
  CampaignPlan plan;
  plan.createdAt = "2026-12-02T00:00:00Z";
  plan.budget.shardSeconds = shardSeconds;
  plan.items = std::move(items);
  plan.shards = cutShards(plan.items, plan.budget);
  return plan;
}

TEST(CampaignTest, ItemEstimateIsCappedByTheSearchBudget) {
  CampaignBudget b;
  b.maxSeconds = 60;
  b.secondsPerCandidate = 10;
  EXPECT_DOUBLE_EQ(estimateItemSeconds(3, b), 40);   // 3 x 10 + set-up
  EXPECT_DOUBLE_EQ(estimateItemSeconds(100, b), 70); // the budget + set-up
}

TEST(CampaignTest, ShardsAreCutFirstFitDecreasingPerTarget) {
  const CampaignPlan plan =
      planOf({item("a", "sm_90a", 30), item("b", "sm_80", 50),
              item("c", "sm_90a", 60), item("d", "sm_90a", 40),
              item("e", "sm_90a", 200)},
             100);
  ASSERT_EQ(plan.shards.size(), 4u);
  // sm_90a first (its item came first), longest first: e alone (longer
  // than a shard), then c + d, then a; then sm_80's.
  EXPECT_EQ(plan.shards[0].items, std::vector<std::string>({"e"}));
  EXPECT_EQ(plan.shards[1].items, std::vector<std::string>({"c", "d"}));
  EXPECT_EQ(plan.shards[2].items, std::vector<std::string>({"a"}));
  EXPECT_EQ(plan.shards[3].items, std::vector<std::string>({"b"}));
  EXPECT_EQ(plan.shards[3].target, "sm_80");
  EXPECT_DOUBLE_EQ(plan.shards[1].estimatedSeconds, 100);
  for (size_t s = 0; s < plan.shards.size(); ++s)
    EXPECT_EQ(plan.shards[s].index, static_cast<int>(s));
  // The same items, the same shards.
  EXPECT_EQ(toJson(plan), toJson(planOf(plan.items, 100)));
}

using CampaignFileTest = kgen::rt::test::TempDirTest;

TEST_F(CampaignFileTest, PlanRoundTripsAndSetsItsRoot) {
  CampaignPlan plan = planOf({item("i000", "sm_90a", 10)}, 100);
  plan.items[0].alsoServes = {"other.mlir:gemm3"};
  std::string err;
  ASSERT_TRUE(writeCampaignPlan(pathOf("plan.json"), plan, err)) << err;
  CampaignPlan back;
  ASSERT_TRUE(readCampaignPlan(pathOf("plan.json"), back, err)) << err;
  EXPECT_EQ(toJson(back), toJson(plan));
  EXPECT_EQ(fs::path(back.root), fs::path(dir).lexically_normal());
  EXPECT_EQ(shardFolder(back, 7), (fs::path(dir) / "shards" / "s007").string());
}

/// The plan's JSON with `edit` applied, read back: the reader's message.
std::string refusal(const std::function<void(json &)> &edit) {
  CampaignPlan plan =
      planOf({item("i000", "sm_90a", 10), item("i001", "sm_90a", 10)}, 100);
  json j = toJson(plan);
  edit(j);
  CampaignPlan back;
  std::string err;
  return fromJson(j, back, err) ? "accepted" : err;
}

TEST(CampaignTest, ReaderRefusesPlansThatWouldMisdirectWork) {
  EXPECT_EQ(refusal([](json &) {}), "accepted");
  EXPECT_NE(refusal([](json &j) { j["schema"] = "kgen.results"; })
                .find("schema: expected \"kgen.campaign-plan\""),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["version"] = 2; }).find("version 2"),
            std::string::npos);
  // Ids and paths name files: nothing may leave the campaign folder.
  EXPECT_NE(refusal([](json &j) { j["items"][0]["id"] = "../x"; })
                .find("items[0].id: expected an id"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) {
              j["items"][0]["op_folder"] = "packages/../../etc";
            }).find("items[0].op_folder: expected a relative path"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["items"][0]["candidates"][1] = "/abs"; })
                .find("items[0].candidates[1]"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["items"][0]["target"] = "sm_9x"; })
                .find("items[0].target"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["items"][1]["id"] = "i000"; })
                .find("appears twice"),
            std::string::npos);
  // Every item in exactly one shard of its own target, shards in order.
  EXPECT_NE(refusal([](json &j) { j["shards"][0]["items"].push_back("i000"); })
                .find("in two shards"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["shards"][0]["items"] = {"i000"}; })
                .find("\"i001\" is in no shard"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["shards"][0]["items"].push_back("i009"); })
                .find("no item \"i009\""),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["shards"][0]["target"] = "sm_80"; })
                .find("is for sm_90a, the shard for sm_80"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["shards"][0]["index"] = 3; })
                .find("shards[0].index: expected 0"),
            std::string::npos);
  EXPECT_NE(refusal([](json &j) { j["budget"]["max_seconds"] = -1; })
                .find("budget.max_seconds"),
            std::string::npos);
}

TEST(CampaignTest, NodesOfOneDeviceAreComparedBeyondTheirNoise) {
  const std::string h200 = "NVIDIA H200";
  // Three nodes; c's matmul ceiling 12% low, its copy within the noise.
  std::vector<NodeBaseline> b = {
      {"a", 0, h200, 4000, 700}, {"a", 1, h200, 4010, 702},
      {"b", 2, h200, 3990, 698}, {"c", 3, h200, 3980, 616},
      // Another device type is compared only with its own kind.
      {"d", 4, "NVIDIA A100", 1500, 280}};
  const std::vector<NodeFlag> flags = flagNodes(b);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].node, "c");
  EXPECT_EQ(flags[0].metric, "matmul");
  EXPECT_NEAR(flags[0].deviation, 616.0 / 698 - 1, 1e-9);
  EXPECT_NE(flags[0].message.find("node c: matmul ceiling 616"),
            std::string::npos);
  // A noisy node widens the threshold: a's own shards 20% apart.
  b[1].matmulTflops = 840;
  EXPECT_TRUE(flagNodes(b).empty());
  // One node: nothing to compare.
  EXPECT_TRUE(flagNodes({{"a", 0, h200, 4000, 700}, {"a", 1, h200, 2000, 300}})
                  .empty());
}

TuningCandidate measuredOn(const std::string &host, double ms, int blockM) {
  TuningCandidate c;
  c.config = {{"block_m", blockM}};
  c.status = RunStatus::Ok;
  c.correct = true;
  c.time = summarize({ms * 0.99, ms, ms * 1.01});
  c.measuredAt = "2026-12-02T00:00:00Z";
  c.host = host;
  return c;
}

TEST(CampaignTest, ACandidateMeasuredOnTwoNodesThatDisagreeIsNamed) {
  TuningKey key;
  key.op = gemmOp(64);
  key.arch = "sm_90a";
  TuningDb db;
  db.add(key, measuredOn("a", 1.0, 64));
  db.add(key, measuredOn("b", 1.3, 64));  // the same config, 30% slower
  db.add(key, measuredOn("a", 2.0, 128));
  db.add(key, measuredOn("b", 2.01, 128)); // within the noise
  const std::vector<CandidateSpread> s = spreadAcrossNodes(db);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(s[0].ratio, 1.3, 1e-9);
  ASSERT_EQ(s[0].nodes.size(), 2u);
  EXPECT_EQ(s[0].nodes[1].first, "b");
  // Both stay in the database as two measurements.
  EXPECT_EQ(db.entries[0].candidates.size(), 4u);
}

/// A plan of two shards over one item each, and `done` items' databases.
class CampaignMergeTest : public kgen::rt::test::TempDirTest {
protected:
  CampaignPlan plan;

  void SetUp() override {
    TempDirTest::SetUp();
    plan = planOf({item("i000", "sm_90a", 10), item("i001", "sm_90a", 10)}, 10);
    plan.items[1].keyOp = gemmOp(128);
    std::string err;
    ASSERT_TRUE(writeCampaignPlan(pathOf("plan.json"), plan, err)) << err;
  }

  void finish(int shard, const std::string &id, int64_t m,
              const std::string &host) {
    fs::create_directories(shardFolder(plan, shard));
    TuningKey key;
    key.op = gemmOp(m);
    key.arch = "sm_90a";
    TuningDb db;
    TuningCandidate c = measuredOn(host, 1.0 + m / 1000.0, 64);
    c.provenance = {{"gpu", "NVIDIA H200"}, {"sm_clock_mhz", 1980}};
    db.add(key, c);
    std::string err;
    ASSERT_TRUE(writeTuningDb(itemDbPath(plan, shard, id), db, err)) << err;
    ResultsFile results;
    results.host = host;
    results.device.name = "NVIDIA H200";
    results.results.push_back(KernelResult());
    results.results.back().name = id;
    results.results.back().implementation = "kgen";
    results.results.back().op = gemmOp(m);
    ASSERT_TRUE(writeResults(itemResultsPath(plan, shard, id), results, err))
        << err;
  }
};

TEST_F(CampaignMergeTest, MissingItemsAreCountedAndTheRestMerged) {
  ASSERT_EQ(plan.shards.size(), 2u);
  finish(1, "i001", 128, "node-b");
  EXPECT_FALSE(itemDone(plan, 0, "i000"));
  EXPECT_TRUE(itemDone(plan, 1, "i001"));
  // A half-written database (a killed writer cannot leave one, a broken
  // disk can) is a warning and a missing item, not a crash.
  fs::create_directories(shardFolder(plan, 0));
  writeRaw("shards/s000/i000.db.json", "{\"schema\": \"kgen.tuning-db\", ");
  const MergeOutcome m = mergeCampaign(plan);
  EXPECT_EQ(m.itemsMerged, 1u);
  EXPECT_EQ(m.itemsMissing, 1u);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("i000.db.json"), std::string::npos);
  EXPECT_NE(formatMerge(m).find("shard 0 incomplete: 0 of 1 items, missing i000"),
            std::string::npos);
  EXPECT_EQ(m.missing.at(0), std::vector<std::string>({"i000"}));
  EXPECT_EQ(m.missing.count(1), 0u);
}

TEST_F(CampaignMergeTest, MergeIsDeterministicAndStampsProvenance) {
  finish(1, "i001", 128, "node-b");
  finish(0, "i000", 64, "node-a");
  std::string err;
  const MergeOutcome m = mergeCampaign(plan);
  EXPECT_EQ(m.itemsMerged, 2u);
  EXPECT_EQ(m.itemsMissing, 0u);
  ASSERT_EQ(m.db.entries.size(), 2u);
  // Shard order, whatever order the shards finished in.
  EXPECT_EQ(m.db.entries[0].key.op["m"], 64);
  const TuningCandidate &c = m.db.entries[0].candidates[0];
  EXPECT_EQ(c.provenance["shard"], 0);
  EXPECT_EQ(c.provenance["node"], "node-a");
  EXPECT_EQ(c.provenance["sm_clock_mhz"], 1980); // what the task recorded
  ASSERT_EQ(m.results.count("sm_90a"), 1u);
  EXPECT_EQ(m.results.at("sm_90a").results.size(), 2u);
  EXPECT_EQ(m.results.at("sm_90a").host, "node-a,node-b");
  // Each node's ceilings, one file per node and shard, are its baseline.
  Ceilings measured;
  measured.copyGBps = 4000;
  measured.matmulTflops = 700;
  for (const char *host : {"node-a", "node b/1"}) {
    ResultsFile ceilings;
    ceilings.host = host;
    ceilings.device.name = "NVIDIA H200";
    ceilings.ceilings = measured;
    ASSERT_TRUE(writeResults(shardCeilingsPath(plan, 0, host), ceilings, err))
        << err;
  }
  EXPECT_EQ(fs::path(shardCeilingsPath(plan, 0, "node b/1")).filename(),
            "ceilings-node_b_1.json");
  const MergeOutcome withCeilings = mergeCampaign(plan);
  ASSERT_EQ(withCeilings.baselines.size(), 2u);
  EXPECT_EQ(withCeilings.baselines[0].node, "node-a"); // files by name
  EXPECT_TRUE(withCeilings.flags.empty());
  ASSERT_TRUE(writeMerge(plan, m, err)) << err;
  const std::string first = readRaw(mergedFolder(plan) + "/tuning.json");
  ASSERT_TRUE(writeMerge(plan, mergeCampaign(plan), err)) << err;
  EXPECT_EQ(readRaw(mergedFolder(plan) + "/tuning.json"), first);
  TuningDb back;
  ASSERT_TRUE(readTuningDb(mergedFolder(plan) + "/tuning.json", back, err))
      << err;
  EXPECT_EQ(back.entries[1].candidates[0].provenance["shard"], 1);
}

TEST(SyntheticTest, AStandInIsLabelledAndDeterministic) {
  KernelPackage pkg;
  pkg.name = "p";
  pkg.op = gemmOp(64);
  pkg.config = {{"predicted_ms", 2.0}};
  pkg.sourceSha256 = std::string(64, 'f');
  const KernelResult a = syntheticRun(pkg);
  EXPECT_EQ(a.status, RunStatus::Ok);
  EXPECT_EQ(a.reason.rfind("synthetic", 0), 0u);
  ASSERT_TRUE(a.time);
  EXPECT_NEAR(a.time->medianMs, 2.0 * 1.25, 1e-3); // hash all ones: the top
  EXPECT_EQ(syntheticRun(pkg).time->medianMs, a.time->medianMs);
  pkg.sourceSha256 = std::string(64, '0');
  EXPECT_NEAR(syntheticRun(pkg).time->medianMs, 2.0 * 0.8, 1e-9);
  EXPECT_EQ(syntheticDevice().name, kSyntheticDevice);
}

} // namespace
