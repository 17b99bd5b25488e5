//===- TuningDbTest.cpp - Tests of the tuning database ---------------------===//

#include "kgen/runtime/TuningDb.h"

#include "kgen/runtime/Attention.h"
#include "kgen/runtime/Search.h"

#include "TempDirTest.h"
#include "TestOps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>

using namespace kgen::rt;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// Fixtures
//===----------------------------------------------------------------------===//

using kgen::rt::test::gemmOp;

/// A complete attention signature, as dialect/AttentionJson.cpp writes it:
/// Llama-3-8B prefill at `seqKv` keys.
json attentionOp(int64_t seqKv = 4096) {
  return {{"kind", "attention"},  {"batch", 1},
          {"q_heads", 32},        {"kv_heads", 8},
          {"seq_q", 4096},        {"seq_kv", seqKv},
          {"head_dim", 128},      {"dtype", "bf16"},
          {"dtype_out", "bf16"},  {"kv_lens", false},
          {"lse", false},         {"scale", 0.08838834764831845},
          {"causal", true},       {"sliding_window", nullptr},
          {"window_left", nullptr}, {"window_right", nullptr},
          {"alibi", false},
          {"softcap", nullptr}};
}

/// An attention_config as AttentionJson.cpp's toJson writes it, with
/// kgen-tune's prediction.
json attentionConfig(int blockM, int splitKv = 1) {
  return {{"target", "sm_90a"},      {"instruction", "mma_sync"},
          {"block_m", blockM},       {"block_n", 64},
          {"warps_m", blockM / 16},  {"stages", 2},
          {"consumer_warpgroups", 1}, {"ping_pong", false},
          {"overlap_softmax", false}, {"pack_gqa", false},
          {"split_kv", splitKv},     {"source", "model"},
          {"entry", ""},             {"emitter_version", 1},
          {"predicted_ms", 1.25}};
}

TuningKey h200Key(json op = gemmOp()) {
  TuningKey k;
  k.op = std::move(op);
  k.arch = "sm_90a";
  k.smCount = 132;
  k.device = "NVIDIA H200";
  k.cudaVersion = "13.0";
  k.emitterVersion = 1;
  return k;
}

json config(int blockM, int blockN = 256) {
  return {{"source", "tuned"}, {"block_m", blockM}, {"block_n", blockN},
          {"block_k", 64}};
}

SampleStats stats(double median, int64_t samples = 20) {
  SampleStats s;
  s.medianMs = median;
  s.q1Ms = median * 0.99;
  s.q3Ms = median * 1.01;
  s.minMs = median * 0.98;
  s.maxMs = median * 1.1;
  s.samples = samples;
  return s;
}

TuningCandidate measured(json cfg, double median,
                         std::string at = "2026-11-29T15:41:56Z",
                         std::string host = "gpu-node-7") {
  TuningCandidate c;
  c.config = std::move(cfg);
  c.status = RunStatus::Ok;
  c.correct = true;
  c.time = stats(median);
  c.measuredAt = std::move(at);
  c.host = std::move(host);
  return c;
}

TuningCandidate failed(json cfg, RunStatus status) {
  TuningCandidate c;
  c.config = std::move(cfg);
  c.status = status;
  c.correct = false;
  c.measuredAt = "2026-11-29T15:42:10Z";
  c.host = "gpu-node-7";
  return c;
}

/// Two ops on an H200, one with a faulted candidate (kept: every measured
/// candidate is), and one candidate with no config and one sample.
TuningDb fullDb() {
  TuningDb db;
  db.add(h200Key(), measured(config(128), 0.225));
  db.add(h200Key(), measured(config(256), 0.2));
  db.add(h200Key(), failed(config(256, 512), RunStatus::Faulted));
  TuningCandidate odd = measured(json(), 1.5);
  odd.time->samples = 1;
  odd.time->minMs = odd.time->q1Ms = odd.time->q3Ms = odd.time->maxMs = 1.5;
  db.add(h200Key(gemmOp(1024)), odd);
  return db;
}

/// fullDb with an attention entry after the gemms' (entries[2]).
TuningDb mixedDb() {
  TuningDb db = fullDb();
  db.add(h200Key(attentionOp()), measured(attentionConfig(64), 1.9));
  db.add(h200Key(attentionOp()),
         failed(attentionConfig(128), RunStatus::CompileFailed));
  return db;
}

void expectSameDb(const TuningDb &a, const TuningDb &b) {
  // The serialised text compares every field, non-finite numbers included.
  EXPECT_EQ(toJson(a).dump(), toJson(b).dump());
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const TuningEntry &x = a.entries[i], &y = b.entries[i];
    EXPECT_EQ(x.key.canonical(), y.key.canonical());
    EXPECT_EQ(x.key.op, y.key.op);
    EXPECT_EQ(x.key.smCount, y.key.smCount);
    EXPECT_EQ(x.key.device, y.key.device);
    ASSERT_EQ(x.candidates.size(), y.candidates.size());
    for (size_t c = 0; c < x.candidates.size(); ++c) {
      const TuningCandidate &p = x.candidates[c], &q = y.candidates[c];
      EXPECT_EQ(p.config, q.config);
      EXPECT_EQ(p.status, q.status);
      EXPECT_EQ(p.correct, q.correct);
      EXPECT_EQ(p.time.has_value(), q.time.has_value());
      if (p.time && q.time) {
        EXPECT_EQ(p.time->medianMs, q.time->medianMs);
        EXPECT_EQ(p.time->minMs, q.time->minMs);
        EXPECT_EQ(p.time->samples, q.time->samples);
      }
      EXPECT_EQ(p.measuredAt, q.measuredAt);
      EXPECT_EQ(p.host, q.host);
    }
  }
}

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

TEST(TuningKeyTest, CanonicalTextHasSortedKeysAndIntegralNumbersAsIntegers) {
  TuningKey k = h200Key({{"kind", "gemm"}, {"m", 4096}, {"alpha", 1.0},
                         {"beta", 0.5}});
  EXPECT_EQ(k.canonical(),
            R"({"op":{"alpha":1,"beta":0.5,"kind":"gemm","m":4096},)"
            R"("target":{"arch":"sm_90a","device":"NVIDIA H200","sm_count":132},)"
            R"("toolchain":{"cuda":"13.0","emitter":1}})");
}

TEST(TuningKeyTest, CanonicalIgnoresKeyOrderAndIntegerVersusFloat) {
  // nlohmann::json keeps object keys sorted whatever the insertion order
  // or the order in the parsed text.
  const TuningKey a = h200Key(json::parse(
      R"({"kind": "gemm", "m": 4096, "alpha": 1.0, "beta": 0.0,
          "epilogue": {"scale": 2.0, "shape": [1.0, 2, 3.0]}})"));
  const TuningKey b = h200Key(json::parse(
      R"({"epilogue": {"shape": [1, 2.0, 3], "scale": 2}, "beta": -0.0,
          "alpha": 1, "m": 4096.0, "kind": "gemm"})"));
  EXPECT_EQ(a.canonical(), b.canonical());
  json built = json::object();
  built["m"] = 4096;
  built["kind"] = "gemm";
  json reversed = json::object();
  reversed["kind"] = "gemm";
  reversed["m"] = 4096;
  EXPECT_EQ(h200Key(built).canonical(), h200Key(reversed).canonical());

  // Values that differ stay different.
  EXPECT_NE(h200Key({{"alpha", 1.5}}).canonical(),
            h200Key({{"alpha", 1}}).canonical());
  EXPECT_NE(h200Key({{"alpha", 1}}).canonical(),
            h200Key({{"alpha", "1"}}).canonical());
  EXPECT_NE(h200Key({{"alpha", 1}}).canonical(),
            h200Key({{"alpha", true}}).canonical());
  // Fractions round-trip through the text exactly.
  EXPECT_EQ(h200Key({{"alpha", 0.1}}).canonical(),
            h200Key(json::parse(R"({"alpha": 0.1})")).canonical());
  EXPECT_NE(h200Key({{"alpha", 0.1}}).canonical(),
            h200Key({{"alpha", 0.1 + 1e-16}}).canonical());

  TuningKey other = h200Key();
  other.device = "NVIDIA H100 80GB HBM3";
  EXPECT_NE(other.canonical(), h200Key().canonical());
  other = h200Key();
  other.emitterVersion = 2;
  EXPECT_NE(other.canonical(), h200Key().canonical());
  other = h200Key();
  other.smCount = 0;
  EXPECT_NE(other.canonical(), h200Key().canonical());
}

TEST(TuningKeyTest, SameOpAndTargetAndSameToolchain) {
  const TuningKey a = h200Key();
  TuningKey b = h200Key(json::parse(gemmOp().dump())); // through text
  b.op["alpha"] = 1; // an integer instead of 1.0
  b.cudaVersion = "12.8";
  b.emitterVersion = 7;
  EXPECT_TRUE(a.sameOpAndTarget(b));
  EXPECT_TRUE(b.sameOpAndTarget(a));
  EXPECT_FALSE(a.sameToolchain(b));
  EXPECT_TRUE(a.sameToolchain(h200Key(gemmOp(1))));

  // Unknown SM count or device on either side: not compared.
  TuningKey unknown = h200Key();
  unknown.smCount = 0;
  unknown.device = "";
  EXPECT_TRUE(a.sameOpAndTarget(unknown));
  EXPECT_TRUE(unknown.sameOpAndTarget(a));

  TuningKey c = h200Key();
  c.smCount = 114;
  EXPECT_FALSE(a.sameOpAndTarget(c));
  c = h200Key();
  c.device = "NVIDIA H100 80GB HBM3";
  EXPECT_FALSE(a.sameOpAndTarget(c));
  c = h200Key();
  c.arch = "sm_90";
  EXPECT_FALSE(a.sameOpAndTarget(c));
  EXPECT_FALSE(a.sameOpAndTarget(h200Key(gemmOp(2048))));
}

//===----------------------------------------------------------------------===//
// best, add, find, merge
//===----------------------------------------------------------------------===//

TEST(TuningEntryTest, BestIsTheFastestCorrectMeasuredCandidate) {
  TuningEntry e;
  e.key = h200Key();
  EXPECT_EQ(e.best(), nullptr);

  TuningCandidate wrong = measured(config(64), 0.05);
  wrong.correct = false; // fastest, but wrong
  TuningCandidate wrongStatus = measured(config(64, 64), 0.06);
  wrongStatus.status = RunStatus::Wrong;
  TuningCandidate timedOut = measured(config(64, 128), 0.07);
  timedOut.status = RunStatus::TimedOut;
  TuningCandidate untimed = measured(config(32), 0.01);
  untimed.time.reset();
  TuningCandidate noSamples = measured(config(16), 0.0);
  noSamples.time->samples = 0;
  TuningCandidate nanMedian = measured(config(8), 0.0);
  nanMedian.time->medianMs = std::nan("");
  // Times no measurement gives (a hand-edited or corrupt database) never
  // win, whatever their sign.
  TuningCandidate negative = measured(config(4), -5.0);
  TuningCandidate zero = measured(config(2), 0.0);
  TuningCandidate negativeMin = measured(config(1), 0.01);
  negativeMin.time->minMs = -1;
  e.candidates = {negative, zero, negativeMin, nanMedian,
                  wrong,
                  wrongStatus,
                  timedOut,
                  failed(config(256, 512), RunStatus::Faulted),
                  failed(config(512), RunStatus::CompileFailed),
                  untimed,
                  noSamples};
  EXPECT_EQ(e.best(), nullptr);

  e.candidates.push_back(measured(config(128), 0.3));
  e.candidates.push_back(measured(config(256), 0.2));   // the fastest
  e.candidates.push_back(measured(config(192), 0.25));
  e.candidates.push_back(measured(config(224), 0.2));   // a tie: not chosen
  ASSERT_NE(e.best(), nullptr);
  EXPECT_EQ(e.best(), &e.candidates[e.candidates.size() - 3]);
  EXPECT_EQ(e.best()->config, config(256));

  // ranked: the candidates best() chooses from, fastest first, ties in
  // list order (what strategy selection walks when the best config is not
  // legal for a gemm).
  const std::vector<const TuningCandidate *> ranked = e.ranked();
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(ranked[0]->config, config(256));
  EXPECT_EQ(ranked[1]->config, config(224));
  EXPECT_EQ(ranked[2]->config, config(192));
  EXPECT_EQ(ranked[3]->config, config(128));
}

TEST(TuningDbTest, AddFindAndKeepEveryCandidate) {
  TuningDb db;
  EXPECT_EQ(db.find(h200Key()), nullptr);
  db.add(h200Key(), measured(config(128), 0.3));
  // The same key written with alpha 1 instead of 1.0: the same entry.
  json op = gemmOp();
  op["alpha"] = 1;
  db.add(h200Key(op), failed(config(256, 512), RunStatus::Faulted));
  db.add(h200Key(gemmOp(2048)), measured(config(128), 0.1));
  ASSERT_EQ(db.entries.size(), 2u);

  const TuningEntry *e = db.find(h200Key(op));
  ASSERT_EQ(e, &db.entries[0]);
  ASSERT_EQ(e->candidates.size(), 2u);
  EXPECT_EQ(e->candidates[1].status, RunStatus::Faulted); // kept
  EXPECT_EQ(e->best(), &e->candidates[0]);
  EXPECT_EQ(db.find(h200Key(gemmOp(2048))), &db.entries[1]);

  // find is exact: another toolchain or device is another key.
  TuningKey otherToolchain = h200Key();
  otherToolchain.emitterVersion = 2;
  EXPECT_EQ(db.find(otherToolchain), nullptr);
  TuningKey unknownDevice = h200Key();
  unknownDevice.device = "";
  EXPECT_EQ(db.find(unknownDevice), nullptr);

  // add never deduplicates: a re-measurement is another candidate.
  db.add(h200Key(), measured(config(128), 0.3));
  EXPECT_EQ(db.find(h200Key())->candidates.size(), 3u);
}

TEST(TuningDbTest, MergingWithItselfChangesNothing) {
  TuningDb db = fullDb();
  const std::string before = toJson(db).dump();
  db.merge(db);
  EXPECT_EQ(toJson(db).dump(), before);
  const TuningDb copy = db;
  db.merge(copy);
  EXPECT_EQ(toJson(db).dump(), before);
}

TEST(TuningDbTest, MergeAddsNewKeysAndNewCandidatesOnly) {
  TuningDb mine = fullDb();
  TuningDb theirs;
  // Known candidate (same config, time and host; config written with a
  // float), its re-measurement at another time, and one from another host.
  json sameConfig = config(128);
  sameConfig["block_k"] = 64.0;
  theirs.add(h200Key(), measured(sameConfig, 0.5));
  theirs.add(h200Key(), measured(config(128), 0.21, "2026-11-30T08:00:00Z"));
  theirs.add(h200Key(), measured(config(128), 0.22, "2026-11-29T15:41:56Z",
                                 "gpu-node-8"));
  // The same op on another machine: its own entry.
  TuningKey h100 = h200Key();
  h100.device = "NVIDIA H100 80GB HBM3";
  h100.smCount = 132;
  theirs.add(h100, measured(config(128), 0.4, "2026-11-29T15:41:56Z",
                            "h100-node-1"));
  // Another toolchain: another entry too.
  TuningKey newer = h200Key();
  newer.cudaVersion = "13.1";
  theirs.add(newer, measured(config(128), 0.19));

  mine.merge(theirs);
  ASSERT_EQ(mine.entries.size(), 4u);
  const TuningEntry &h200 = mine.entries[0];
  ASSERT_EQ(h200.candidates.size(), 5u); // 3 of mine + 2 new
  EXPECT_EQ(h200.candidates[2].status, RunStatus::Faulted);
  EXPECT_EQ(h200.candidates[3].measuredAt, "2026-11-30T08:00:00Z");
  EXPECT_EQ(h200.candidates[4].host, "gpu-node-8");
  EXPECT_EQ(mine.entries[2].key.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(mine.entries[3].key.cudaVersion, "13.1");
  EXPECT_TRUE(mine.entries[0].key.sameOpAndTarget(mine.entries[3].key));
  EXPECT_FALSE(mine.entries[0].key.sameOpAndTarget(mine.entries[2].key));

  // Merging again changes nothing; so does merging in the other order.
  const std::string merged = toJson(mine).dump();
  mine.merge(theirs);
  EXPECT_EQ(toJson(mine).dump(), merged);
  TuningDb reverse = theirs;
  reverse.merge(fullDb());
  EXPECT_EQ(reverse.entries.size(), 4u);
  size_t candidates = 0;
  for (const TuningEntry &e : reverse.entries)
    candidates += e.candidates.size();
  EXPECT_EQ(candidates, 5u + 3); // theirs' 5, fullDb's 4 less the known one
}

//===----------------------------------------------------------------------===//
// JSON forms
//===----------------------------------------------------------------------===//

TEST(TuningDbJsonTest, RoundTripsThroughText) {
  const TuningDb original = fullDb();
  const json parsed = json::parse(toJson(original).dump(2));
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(parsed, back, err)) << err;
  expectSameDb(original, back);
  // Where each candidate was read from, for messages about it.
  EXPECT_EQ(back.entries[0].candidates[2].origin, "entries[0].candidates[2]");
  EXPECT_EQ(back.entries[1].candidates[0].origin, "entries[1].candidates[0]");
  EXPECT_EQ(original.entries[0].candidates[0].origin, "");
}

TEST(TuningDbJsonTest, Layout) {
  const json j = toJson(fullDb());
  EXPECT_EQ(j["schema"], "kgen.tuning-db");
  EXPECT_EQ(j["version"], 1);
  const json &e = j["entries"][0];
  EXPECT_EQ(e["key"]["op"], gemmOp());
  EXPECT_EQ(e["key"]["target"],
            json({{"arch", "sm_90a"}, {"sm_count", 132}, {"device", "NVIDIA H200"}}));
  EXPECT_EQ(e["key"]["toolchain"], json({{"cuda", "13.0"}, {"emitter", 1}}));
  const json &ok = e["candidates"][1];
  EXPECT_EQ(ok["config"], config(256));
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["correct"], true);
  EXPECT_EQ(ok["time"]["median_ms"], 0.2);
  EXPECT_EQ(ok["time"]["samples"], 20);
  for (const char *field : {"q1_ms", "q3_ms", "min_ms", "max_ms"})
    EXPECT_TRUE(ok["time"][field].is_number()) << field;
  EXPECT_EQ(ok["measured_at"], "2026-11-29T15:41:56Z");
  EXPECT_EQ(ok["host"], "gpu-node-7");
  const json &faulted = e["candidates"][2];
  EXPECT_EQ(faulted["status"], "faulted");
  EXPECT_EQ(faulted["correct"], false);
  EXPECT_TRUE(faulted["time"].is_null());
  EXPECT_FALSE(ok.contains("origin"));
}

TEST(TuningDbJsonTest, ProvenanceIsWrittenWhenKnownAndIsNoPartOfIdentity) {
  TuningDb db = fullDb();
  TuningCandidate &c = db.entries[0].candidates[0];
  const std::string identity = c.identity();
  EXPECT_FALSE(toJson(db)["entries"][0]["candidates"][0].contains("provenance"));
  c.provenance = {{"gpu", "NVIDIA H200"}, {"sm_clock_mhz", 1980},
                  {"shard", 3}, {"node", "gpu-node-7"}};
  EXPECT_EQ(c.identity(), identity);
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(json::parse(toJson(db).dump()), back, err)) << err;
  EXPECT_EQ(back.entries[0].candidates[0].provenance, c.provenance);
  EXPECT_TRUE(back.entries[0].candidates[1].provenance.is_null());
}

TEST(TuningDbJsonTest, OptionalFieldsMayBeAbsentOrNull) {
  json j = toJson(fullDb());
  json &key = j["entries"][0]["key"];
  key["target"].erase("sm_count");
  key["target"]["device"] = nullptr;
  json &c = j["entries"][0]["candidates"][0];
  for (const char *field : {"config", "time", "measured_at", "host"})
    c.erase(field);
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  const TuningEntry &e = back.entries[0];
  EXPECT_EQ(e.key.smCount, 0);
  EXPECT_EQ(e.key.device, "");
  EXPECT_TRUE(e.candidates[0].config.is_null());
  EXPECT_FALSE(e.candidates[0].time.has_value());
  EXPECT_EQ(e.candidates[0].measuredAt, "");
  EXPECT_EQ(e.candidates[0].host, "");
}

TEST(TuningDbJsonTest, EntriesWithEqualKeysAreMergedOnRead) {
  json j = toJson(fullDb());
  json copy = j["entries"][0];
  copy["key"]["op"]["alpha"] = 1; // the same key, written differently
  copy["candidates"][0]["measured_at"] = "2026-12-01T00:00:00Z"; // new
  j["entries"].push_back(copy);
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  ASSERT_EQ(back.entries.size(), 2u);
  ASSERT_EQ(back.entries[0].candidates.size(), 4u);
  EXPECT_EQ(back.entries[0].candidates[3].measuredAt, "2026-12-01T00:00:00Z");
}

/// A change to a valid database JSON and a part of the message it gives.
struct Mutation {
  const char *pointer;
  json value; // discarded: remove the field
  const char *expected;
};

const json kRemoved = json(json::value_t::discarded);

const Mutation kMutations[] = {
    // A candidate's provenance: plain values only, as a config.
    {"/entries/0/candidates/0/provenance", json::array({1}),
     "entries[0].candidates[0].provenance: expected an object or null"},
    {"/entries/0/candidates/0/provenance", {{"shard", json::array()}},
     "entries[0].candidates[0].provenance.shard: expected a string, number"},
    {"/schema", "kgen.results", "schema: expected \"kgen.tuning-db\", got \"kgen.results\""},
    {"/schema", kRemoved, "schema: missing"},
    {"/schema", 1, "schema: expected a string, got 1"},
    {"/version", 2, "version: the database has version 2, this reader understands only version 1: skipped"},
    {"/version", 0, "version: the database has version 0"},
    {"/version", "1", "version: expected an integer, got \"1\""},
    {"/version", 1.0, "version: expected an integer, got 1.0"},
    {"/version", kRemoved, "version: missing"},
    {"/entries", kRemoved, "entries: missing"},
    {"/entries", json::object(), "entries: expected an array, got an object"},
    {"/entries/1", "x", "entries[1]: expected an object, got \"x\""},
    {"/entries/0/key", kRemoved, "entries[0].key: missing"},
    {"/entries/0/key", json::array(), "entries[0].key: expected an object"},
    {"/entries/0/key/op", kRemoved, "entries[0].key.op: missing"},
    {"/entries/0/key/op", "gemm", "entries[0].key.op: expected an object, got \"gemm\""},
    {"/entries/0/key/op", nullptr, "entries[0].key.op: expected an object, got null"},
    {"/entries/0/key/target", kRemoved, "entries[0].key.target: missing"},
    {"/entries/0/key/target/arch", 90, "entries[0].key.target.arch: expected a string, got 90"},
    {"/entries/0/key/target/arch", kRemoved, "entries[0].key.target.arch: missing"},
    {"/entries/0/key/target/sm_count", -1, "entries[0].key.target.sm_count: expected an integer in [0, 4096], got -1"},
    {"/entries/0/key/target/sm_count", 13.5, "entries[0].key.target.sm_count: expected an integer in [0, 4096], got 13.5"},
    {"/entries/0/key/target/sm_count", 4097, "entries[0].key.target.sm_count: expected an integer in [0, 4096], got 4097"},
    {"/entries/0/key/target/sm_count", int64_t{1} << 62, "entries[0].key.target.sm_count: expected an integer in [0, 4096], got 4611686018427387904"},
    {"/entries/0/key/target/arch", "", "entries[0].key.target.arch: expected an arch like \"sm_80\" or \"sm_90a\", got \"\""},
    {"/entries/0/key/target/arch", "sm_90a;rm -rf /", "entries[0].key.target.arch: expected an arch like"},
    {"/entries/0/key/target/arch", "sm_9", "entries[0].key.target.arch: expected an arch like"},
    // The op: a complete gemm signature, nothing else.
    {"/entries/0/key/op", {{"kind", "gemm"}}, "entries[0].key.op.batch: missing"},
    {"/entries/0/key/op/batched_b", kRemoved, "entries[0].key.op.batched_b: missing"},
    {"/entries/0/key/op/dtype_c", kRemoved, "entries[0].key.op.dtype_c: missing"},
    {"/entries/0/key/op/kind", "conv", "entries[0].key.op.kind: expected one of gemm attention grouped_gemm (the op kinds a tuning database holds), got \"conv\""},
    {"/entries/0/key/op/kind", 1, "entries[0].key.op.kind: expected one of gemm attention grouped_gemm"},
    // A gemm with attention's kind: the attention signature's fields.
    {"/entries/0/key/op/kind", "attention", "entries[0].key.op.q_heads: missing"},
    {"/entries/0/key/op/kind", kRemoved, "entries[0].key.op.kind: missing"},
    {"/entries/0/key/op/m", 0, "entries[0].key.op.m: expected an integer in [1, 2147483648], got 0"},
    {"/entries/0/key/op/k", 4096.5, "entries[0].key.op.k: expected an integer in [1, 2147483648], got 4096.5"},
    {"/entries/0/key/op/batch", "1", "entries[0].key.op.batch: expected an integer"},
    {"/entries/0/key/op/transpose_b", 1, "entries[0].key.op.transpose_b: expected true or false, got 1"},
    {"/entries/0/key/op/dtype_a", "int4", "entries[0].key.op.dtype_a: unknown value \"int4\" (expected f64 f32 f16 bf16 f8E4M3FN)"},
    {"/entries/0/key/op/dtype_d", nullptr, "entries[0].key.op.dtype_d: expected a string, got null"},
    {"/entries/0/key/op/dtype_bias", "x", "entries[0].key.op.dtype_bias: unknown value \"x\""},
    {"/entries/0/key/op/alpha", "1", "entries[0].key.op.alpha: expected a finite number, got \"1\""},
    {"/entries/0/key/op/activation", "tanh", "entries[0].key.op.activation: unknown value \"tanh\" (expected none relu gelu silu)"},
    {"/entries/0/key/op/x", json::array({json::array()}), "entries[0].key.op: unknown field \"x\" (a gemm signature has exactly: kind batch m n k"},
    {"/entries/0/key/target/device", false, "entries[0].key.target.device: expected a string, got false"},
    {"/entries/0/key/toolchain", "13.0", "entries[0].key.toolchain: expected an object"},
    {"/entries/0/key/toolchain/cuda", 13.0, "entries[0].key.toolchain.cuda: expected a string"},
    {"/entries/0/key/toolchain/emitter", kRemoved, "entries[0].key.toolchain.emitter: missing"},
    {"/entries/0/key/toolchain/emitter", "1", "entries[0].key.toolchain.emitter: expected an integer"},
    {"/entries/0/candidates", kRemoved, "entries[0].candidates: missing"},
    {"/entries/0/candidates", json::object(), "entries[0].candidates: expected an array"},
    {"/entries/0/candidates/2", 7, "entries[0].candidates[2]: expected an object, got 7"},
    {"/entries/0/candidates/0/config", json::array(), "entries[0].candidates[0].config: expected an object or null, got an array"},
    {"/entries/0/candidates/0/config/block_m", json::array({7}), "entries[0].candidates[0].config.block_m: expected a string, number, true, false or null, got an array"},
    {"/entries/0/candidates/0/status", "great", "entries[0].candidates[0].status: unknown status \"great\" (expected ok wrong compile_failed launch_failed faulted timed_out skipped)"},
    {"/entries/0/candidates/0/status", "OK", "entries[0].candidates[0].status: unknown status \"OK\""},
    {"/entries/0/candidates/0/status", kRemoved, "entries[0].candidates[0].status: missing"},
    {"/entries/0/candidates/0/status", 0, "entries[0].candidates[0].status: expected a string"},
    {"/entries/0/candidates/0/correct", "yes", "entries[0].candidates[0].correct: expected true or false, got \"yes\""},
    {"/entries/0/candidates/0/correct", kRemoved, "entries[0].candidates[0].correct: missing"},
    {"/entries/0/candidates/0/time", json::array(), "entries[0].candidates[0].time: expected an object, got an array"},
    {"/entries/0/candidates/0/time", 0.2, "entries[0].candidates[0].time: expected an object, got 0.2"},
    {"/entries/0/candidates/0/time/median_ms", "fast", "entries[0].candidates[0].time.median_ms: expected a number"},
    {"/entries/0/candidates/0/time/median_ms", kRemoved, "entries[0].candidates[0].time.median_ms: missing"},
    {"/entries/0/candidates/0/time/samples", -4, "entries[0].candidates[0].time.samples: expected an integer"},
    {"/entries/0/candidates/0/time/samples", 2.5, "entries[0].candidates[0].time.samples: expected an integer"},
    // Times: positive and finite, ordered, from at least one sample (the
    // results reader, which reads a time, may refuse them first).
    {"/entries/0/candidates/0/time/median_ms", -5, "entries[0].candidates[0].time.median_ms: expected a "},
    {"/entries/0/candidates/0/time/median_ms", 0, "entries[0].candidates[0].time.median_ms: expected a "},
    {"/entries/0/candidates/0/time/min_ms", "-inf", "entries[0].candidates[0].time.min_ms: expected a "},
    {"/entries/0/candidates/0/time/q3_ms", "nan", "entries[0].candidates[0].time.q3_ms: expected a "},
    {"/entries/0/candidates/0/time/max_ms", "inf", "entries[0].candidates[0].time.max_ms: expected a "},
    {"/entries/0/candidates/2/time", {{"median_ms", -1}, {"q1_ms", -1}, {"q3_ms", -1}, {"min_ms", -1}, {"max_ms", -1}, {"samples", 3}}, "entries[0].candidates[2].time."},
    {"/entries/0/candidates/0/time/samples", 0, "entries[0].candidates[0].time.samples: expected "},
    {"/entries/0/candidates/0/time/max_ms", 0.1, "entries[0].candidates[0].time: "},
    {"/entries/0/candidates/1/measured_at", 20261129, "entries[0].candidates[1].measured_at: expected a string"},
    {"/entries/1/candidates/0/host", json::object(), "entries[1].candidates[0].host: expected a string, got an object"},
};

/// Changes to the attention entry of mixedDb (entries[2]).
const Mutation kAttentionMutations[] = {
    {"/entries/2/key/op", {{"kind", "attention"}}, "entries[2].key.op.batch: missing"},
    {"/entries/2/key/op/kind", "gemm", "entries[2].key.op.m: missing"},
    {"/entries/2/key/op/q_heads", kRemoved, "entries[2].key.op.q_heads: missing"},
    {"/entries/2/key/op/softcap", kRemoved, "entries[2].key.op.softcap: missing"},
    {"/entries/2/key/op/seq_kv", 0, "entries[2].key.op.seq_kv: expected an integer in [1, 2147483648], got 0"},
    {"/entries/2/key/op/seq_q", 4096.5, "entries[2].key.op.seq_q: expected an integer in [1, 2147483648], got 4096.5"},
    {"/entries/2/key/op/head_dim", 20, "entries[2].key.op.head_dim: expected a multiple of 8 in [32, 256], got 20"},
    {"/entries/2/key/op/head_dim", 512, "entries[2].key.op.head_dim: expected a multiple of 8 in [32, 256], got 512"},
    {"/entries/2/key/op/kv_heads", 5, "entries[2].key.op.q_heads: expected a multiple of kv_heads (5), got 32"},
    {"/entries/2/key/op/dtype", "f64", "entries[2].key.op.dtype: unknown value \"f64\" (expected f32 f16 bf16 f8E4M3FN)"},
    {"/entries/2/key/op/dtype_out", nullptr, "entries[2].key.op.dtype_out: expected a string, got null"},
    {"/entries/2/key/op/causal", "yes", "entries[2].key.op.causal: expected true or false, got \"yes\""},
    {"/entries/2/key/op/lse", kRemoved, "entries[2].key.op.lse: missing"},
    {"/entries/2/key/op/scale", "0.1", "entries[2].key.op.scale: expected a finite number, got \"0.1\""},
    {"/entries/2/key/op/scale", 0, "entries[2].key.op.scale: expected a non-zero number"},
    {"/entries/2/key/op/sliding_window", 0, "entries[2].key.op.sliding_window: expected an integer in [1, 2147483648], got 0"},
    {"/entries/2/key/op/softcap", "30", "entries[2].key.op.softcap: expected a finite number or null, got \"30\""},
    {"/entries/2/key/op/softcap", -30, "entries[2].key.op.softcap: expected null or a number > 0, got -30"},
    {"/entries/2/key/op/m", 4096, "entries[2].key.op: unknown field \"m\" (an attention signature has exactly: kind batch q_heads kv_heads seq_q seq_kv head_dim dtype dtype_kv dtype_out kv_lens lse scale causal sliding_window window_left window_right alibi softcap paged page_size num_pages pages_nhd q_descale k_descale v_descale varlen)"},
    {"/entries/2/key/op/paged", "yes", "entries[2].key.op.paged: expected true or false, got \"yes\""},
    {"/entries/2/key/op/paged", true, "entries[2].key.op.page_size: a paged signature needs it"},
    {"/entries/2/key/op/page_size", 16, "entries[2].key.op.paged: expected true with page_size"},
    {"/entries/2/key/op/num_pages", 0, "entries[2].key.op.num_pages: expected an integer in [1, 2147483648], got 0"},
    {"/entries/2/candidates/0/config/block_m", json::object(), "entries[2].candidates[0].config.block_m: expected a string, number, true, false or null, got an object"},
};

json mutated(const Mutation &m, json j) {
  const json::json_pointer ptr(m.pointer);
  if (m.value.is_discarded())
    j[ptr.parent_pointer()].erase(ptr.back());
  else
    j[ptr] = m.value;
  return j;
}

json mutated(const Mutation &m) { return mutated(m, toJson(fullDb())); }

TEST(TuningDbJsonTest, RefusesMalformedFields) {
  for (const Mutation &m : kMutations) {
    TuningDb out;
    out.add(h200Key(), measured(config(1), 1)); // must stay as it is
    const std::string before = toJson(out).dump();
    std::string err;
    EXPECT_FALSE(fromJson(mutated(m), out, err)) << m.pointer;
    EXPECT_NE(err.find(m.expected), std::string::npos)
        << m.pointer << " -> " << err;
    EXPECT_EQ(err.rfind(m.expected, 0), 0u) << err; // starts with the field
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(toJson(out).dump(), before) << m.pointer;
  }
  TuningDb out;
  std::string err;
  EXPECT_FALSE(fromJson(json::array(), out, err));
  EXPECT_EQ(err, "(top level): expected an object, got an array");
  EXPECT_FALSE(fromJson(json(), out, err));
  EXPECT_EQ(err, "(top level): expected an object, got null");
}

TEST(TuningDbJsonTest, RefusesMalformedAttentionFields) {
  for (const Mutation &m : kAttentionMutations) {
    TuningDb out;
    std::string err;
    EXPECT_FALSE(fromJson(mutated(m, toJson(mixedDb())), out, err))
        << m.pointer;
    EXPECT_EQ(err.rfind(m.expected, 0), 0u) << m.pointer << " -> " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_TRUE(out.entries.empty()) << m.pointer;
  }
  // A sliding window without causal (kgen.attention's verifier refuses it).
  json j = toJson(mixedDb());
  j["entries"][2]["key"]["op"]["causal"] = false;
  j["entries"][2]["key"]["op"]["sliding_window"] = 4096;
  TuningDb out;
  std::string err;
  EXPECT_FALSE(fromJson(j, out, err));
  EXPECT_EQ(err, "entries[2].key.op.sliding_window: a sliding window needs "
                 "causal true");
}

TEST(TuningDbJsonTest, PagedAttentionKeysLoadAndOldOnesStillDo) {
  // An old key (no paged field) loads: mixedDb's attention entry has none.
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(toJson(mixedDb()), back, err)) << err;
  // A paged cache's key: the three fields, as the dialect writes them.
  json j = toJson(mixedDb());
  json &op = j["entries"][2]["key"]["op"];
  op["paged"] = true;
  op["page_size"] = 16;
  op["num_pages"] = 1024;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_EQ(back.entries[2].key.op["page_size"], 16);
  op["page_size"] = 512;
  EXPECT_FALSE(fromJson(j, back, err));
  EXPECT_EQ(err, "entries[2].key.op.page_size: expected an integer in "
                 "[1, 256], got 512");
  op["page_size"] = 48; // 4096 keys are not pages of 48
  EXPECT_FALSE(fromJson(j, back, err));
  EXPECT_EQ(err, "entries[2].key.op.seq_kv: expected a multiple of "
                 "page_size (48)");
  op["page_size"] = 16;
  op.erase("num_pages");
  EXPECT_FALSE(fromJson(j, back, err));
  EXPECT_EQ(err, "entries[2].key.op.num_pages: a paged signature needs it");
}

TEST(TuningDbJsonTest, Fp8AttentionKeysLoadAndOldOnesStillDo) {
  // mixedDb's attention key has none of dtype_kv and the descales.
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(toJson(mixedDb()), back, err)) << err;
  // An e4m3 KV cache under bf16 queries, with k and v descales; then an
  // e4m3 Q too, with its descale.
  json j = toJson(mixedDb());
  json &op = j["entries"][2]["key"]["op"];
  op["dtype_kv"] = "f8E4M3FN";
  op["k_descale"] = true;
  op["v_descale"] = true;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_EQ(back.entries[2].key.op["dtype_kv"], "f8E4M3FN");
  EXPECT_EQ(back.entries[2].key.op["v_descale"], true);
  // A key with the new fields is another op than the one without them.
  EXPECT_EQ(back.find(h200Key(attentionOp())), nullptr);
  EXPECT_NE(back.find(back.entries[2].key), nullptr);
  op["dtype"] = "f8E4M3FN";
  op["q_descale"] = true;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  op.erase("dtype_kv"); // K and V of dtype: e4m3 too
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  std::string why;
  EXPECT_TRUE(checkKey(back.entries[2].key, why)) << why;
  json written = attentionOp();
  written["dtype_kv"] = "bf16"; // dtype's, as parseAttentionOp accepts it
  written["q_descale"] = false;
  EXPECT_TRUE(checkKey(h200Key(written), why)) << why;
}

namespace {

/// Fields set on mixedDb's attention key (entries[2]) and the start of the
/// message fromJson refuses it with.
struct AttentionKeyCase {
  std::vector<std::pair<const char *, json>> set;
  const char *expected;
};

void expectAttentionKeyRefused(const AttentionKeyCase &c) {
  json j = toJson(mixedDb());
  for (const auto &[key, value] : c.set)
    j["entries"][2]["key"]["op"][key] = value;
  TuningDb out;
  std::string err;
  EXPECT_FALSE(fromJson(j, out, err)) << c.expected;
  EXPECT_EQ(err.rfind(c.expected, 0), 0u) << err;
  EXPECT_TRUE(out.entries.empty());
}

} // namespace

TEST(TuningDbJsonTest, VarlenAttentionKeysLoadAndOldOnesStillDo) {
  // mixedDb's attention key has no varlen field (and kv_lens false).
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(toJson(mixedDb()), back, err)) << err;
  EXPECT_FALSE(back.entries[2].key.op.contains("varlen"));
  // Packed sequences: seq_q and seq_kv are token totals, batch the count.
  json j = toJson(mixedDb());
  json &op = j["entries"][2]["key"]["op"];
  op["varlen"] = true;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_EQ(back.entries[2].key.op["varlen"], true);
  EXPECT_EQ(back.find(h200Key(attentionOp())), nullptr); // another op
  EXPECT_NE(back.find(back.entries[2].key), nullptr);
  op["varlen"] = false; // the default, as parseAttentionOp accepts it
  ASSERT_TRUE(fromJson(j, back, err)) << err;
}

TEST(TuningDbJsonTest, RefusesVarlenWithKvLens) {
  const AttentionKeyCase cases[] = {
      {{{"varlen", "yes"}}, "entries[2].key.op.varlen: expected true or false, got \"yes\""},
      {{{"varlen", true}, {"kv_lens", true}},
       "entries[2].key.op.kv_lens: expected false with varlen (cu_seqlens "
       "gives each sequence its lengths)"},
      // Over a paged cache too; and the paging rules still hold.
      {{{"varlen", true}, {"paged", true}, {"page_size", 16}, {"num_pages", 64},
        {"kv_lens", true}},
       "entries[2].key.op.kv_lens: expected false with varlen"},
      {{{"varlen", true}, {"paged", true}, {"page_size", 16}},
       "entries[2].key.op.num_pages: a paged signature needs it"},
      {{{"varlen", true}, {"paged", true}, {"page_size", 48}, {"num_pages", 64}},
       "entries[2].key.op.seq_kv: expected a multiple of page_size (48)"},
  };
  for (const AttentionKeyCase &c : cases)
    expectAttentionKeyRefused(c);
}

namespace {

/// attentionOp at batch 4 with the fields the dialect writes for packed
/// sequences (varlen), a paged cache of pages of 16 keys (paged: seq_kv is
/// each sequence's M * P keys) and NHD pages (nhd: pages_nhd), each absent
/// when not asked for.
json batchOp(bool varlen, bool paged, bool nhd = false) {
  json op = attentionOp();
  op["batch"] = 4;
  if (varlen)
    op["varlen"] = true;
  if (paged) {
    op["paged"] = true;
    op["page_size"] = 16;
    op["num_pages"] = 4 * 4096 / 16;
  }
  if (nhd)
    op["pages_nhd"] = true;
  return op;
}

/// A database of the four ops keyOp(a, b), (a, b) = (false, false),
/// (false, true), (true, false), (true, true), measured at 1, 2, 3 and 4
/// ms: each key valid, the database written and read back (`back`) the
/// same, four entries.
void readBackFourOps(const std::function<json(bool, bool)> &keyOp,
                     TuningDb &back) {
  TuningDb db;
  double medianMs = 1;
  for (bool a : {false, true})
    for (bool b : {false, true})
      db.add(h200Key(keyOp(a, b)), measured(attentionConfig(64), medianMs++));
  std::string err;
  for (const TuningEntry &e : db.entries)
    ASSERT_TRUE(checkKey(e.key, err)) << err << " " << e.key.op.dump();
  ASSERT_TRUE(fromJson(json::parse(toJson(db).dump()), back, err)) << err;
  expectSameDb(db, back);
  ASSERT_EQ(back.entries.size(), 4u);
}

} // namespace

TEST(TuningDbJsonTest, VarlenPagedAttentionKeysLoadAsTheirOwnOp) {
  // FlashAttention's varlen API over a block table (vLLM's chunked
  // prefill): varlen and paged together, seq_kv each sequence's M * P keys.
  const auto keyOp = [](bool varlen, bool paged) {
    return batchOp(varlen, paged);
  };
  TuningDb back;
  ASSERT_NO_FATAL_FAILURE(readBackFourOps(keyOp, back));
  // Four ops, four keys: each finds its own measurement.
  const TuningEntry *both = back.find(h200Key(keyOp(true, true)));
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->key.op["varlen"], true);
  EXPECT_EQ(both->key.op["paged"], true);
  EXPECT_EQ(both->candidates[0].time->medianMs, 4.0);
  for (bool varlen : {false, true})
    for (bool paged : {false, true})
      if (!(varlen && paged)) {
        EXPECT_NE(back.find(h200Key(keyOp(varlen, paged))), both);
      }
  EXPECT_NE(h200Key(keyOp(true, true)).canonical(),
            h200Key(keyOp(true, false)).canonical());
  EXPECT_NE(h200Key(keyOp(true, true)).canonical(),
            h200Key(keyOp(false, true)).canonical());
}

TEST(TuningDbJsonTest, NhdPagedAttentionKeysLoadAsTheirOwnOp) {
  // NHD pages ([N, P, Hkv, D]: FlashInfer's default, vLLM's cache), as the
  // dialect writes them (pages_nhd true; absent for HND pages), over a
  // padded or a varlen batch: each its own key beside the HND one.
  const auto keyOp = [](bool varlen, bool nhd) {
    return batchOp(varlen, true, nhd);
  };
  TuningDb back;
  ASSERT_NO_FATAL_FAILURE(readBackFourOps(keyOp, back));
  double want = 1; // HND, NHD, varlen HND, varlen NHD
  for (bool varlen : {false, true})
    for (bool nhd : {false, true}) {
      const TuningEntry *e = back.find(h200Key(keyOp(varlen, nhd)));
      ASSERT_NE(e, nullptr) << varlen << nhd;
      EXPECT_EQ(e->candidates[0].time->medianMs, want++) << varlen << nhd;
      EXPECT_EQ(e->key.op.contains("pages_nhd"), nhd);
    }
  for (bool varlen : {false, true})
    EXPECT_NE(h200Key(keyOp(varlen, true)).canonical(),
              h200Key(keyOp(varlen, false)).canonical());
  // The runtime's own writing of an NHD op is a valid key.
  AttentionSpec spec;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(keyOp(true, true), spec, err)) << err;
  ASSERT_TRUE(spec.pagesNhd);
  EXPECT_TRUE(checkKey(h200Key(attentionOpJson(spec)), err)) << err;
}

TEST(TuningDbJsonTest, RefusesNhdPagesWithoutAPagedCache) {
  const AttentionKeyCase cases[] = {
      {{{"pages_nhd", true}},
       "entries[2].key.op.pages_nhd: expected false or absent without paged "
       "(it orders the pages of a paged cache)"},
      {{{"pages_nhd", true}, {"varlen", true}},
       "entries[2].key.op.pages_nhd: expected false or absent without paged"},
      {{{"pages_nhd", true}, {"paged", false}},
       "entries[2].key.op.pages_nhd: expected false or absent without paged"},
      {{{"pages_nhd", "yes"}, {"paged", true}, {"page_size", 16}, {"num_pages", 64}},
       "entries[2].key.op.pages_nhd: expected true or false, got \"yes\""},
      // The paging rules still hold with NHD pages.
      {{{"pages_nhd", true}, {"paged", true}, {"page_size", 16}},
       "entries[2].key.op.num_pages: a paged signature needs it"},
  };
  for (const AttentionKeyCase &c : cases)
    expectAttentionKeyRefused(c);
  // false is HND pages, as parseAttentionOp reads it.
  json j = toJson(mixedDb());
  j["entries"][2]["key"]["op"]["pages_nhd"] = false;
  TuningDb out;
  std::string err;
  EXPECT_TRUE(fromJson(j, out, err)) << err;
}

TEST(TuningDbJsonTest, RefusesFp8AttentionFieldsThatDoNotFit) {
  const AttentionKeyCase cases[] = {
      {{{"dtype_kv", "f64"}},
       "entries[2].key.op.dtype_kv: unknown value \"f64\" (expected f32 f16 bf16 f8E4M3FN)"},
      {{{"dtype_kv", nullptr}}, "entries[2].key.op.dtype_kv: expected a string, got null"},
      {{{"dtype_out", "f8E4M3FN"}},
       "entries[2].key.op.dtype_out: unknown value \"f8E4M3FN\" (expected f32 f16 bf16)"},
      {{{"dtype_kv", "f16"}},
       "entries[2].key.op.dtype_kv: expected dtype (bf16) or f8E4M3FN, got \"f16\""},
      {{{"dtype", "f32"}, {"dtype_kv", "f8E4M3FN"}},
       "entries[2].key.op.dtype_kv: expected dtype (f32), got \"f8E4M3FN\""},
      {{{"q_descale", "yes"}}, "entries[2].key.op.q_descale: expected true or false, got \"yes\""},
      {{{"q_descale", true}, {"dtype_kv", "f8E4M3FN"}},
       "entries[2].key.op.q_descale: expected false or absent: its operand is bf16, a descale needs f8E4M3FN"},
      {{{"k_descale", true}},
       "entries[2].key.op.k_descale: expected false or absent: its operand is bf16"},
      {{{"dtype", "f16"}, {"v_descale", true}},
       "entries[2].key.op.v_descale: expected false or absent: its operand is f16"},
  };
  for (const AttentionKeyCase &c : cases)
    expectAttentionKeyRefused(c);
}

TEST(TuningDbJsonTest, AttentionEntriesRoundTripBesideGemmOnes) {
  const TuningDb original = mixedDb();
  TuningDb back;
  std::string err;
  ASSERT_TRUE(fromJson(json::parse(toJson(original).dump(2)), back, err))
      << err;
  expectSameDb(original, back);
  ASSERT_EQ(back.entries.size(), 3u);
  const TuningEntry &attention = back.entries[2];
  EXPECT_EQ(attention.key.op, attentionOp());
  ASSERT_NE(attention.best(), nullptr);
  EXPECT_EQ(attention.best()->config["predicted_ms"], 1.25);
  EXPECT_EQ(attention.ranked().size(), 1u); // compile_failed never ranks
  // Keys of one kind never match the other's; sizes and windows tell
  // attentions apart.
  EXPECT_NE(back.find(h200Key(attentionOp())), nullptr);
  EXPECT_EQ(back.find(h200Key(attentionOp(8192))), nullptr);
  EXPECT_FALSE(h200Key(attentionOp()).sameOpAndTarget(h200Key()));
  json windowed = attentionOp();
  windowed["sliding_window"] = 4096;
  std::string why;
  EXPECT_TRUE(checkKey(h200Key(windowed), why)) << why;
  EXPECT_FALSE(h200Key(windowed).sameOpAndTarget(h200Key(attentionOp())));
  // 1 and 1.0 are one scale, as gemm's alpha.
  json one = attentionOp(), oneFloat = attentionOp();
  one["scale"] = 1;
  oneFloat["scale"] = 1.0;
  EXPECT_EQ(h200Key(one).canonical(), h200Key(oneFloat).canonical());
  // Softcap and window as the dialect writes them: numbers.
  json capped = attentionOp();
  capped["softcap"] = 50.0;
  EXPECT_TRUE(checkKey(h200Key(capped), why)) << why;
}

TEST(TuningDbJsonTest, VersionOneFilesWrittenBeforeAttentionStillLoad) {
  // A file as the version-1 writer wrote it before keys could hold an
  // attention (docs/tuning-db.md's example): the format is unchanged for
  // gemm entries, so it reads as it did.
  const char *text = R"({
  "schema": "kgen.tuning-db", "version": 1,
  "entries": [{
    "key": {
      "op": {"kind": "gemm", "batch": 1, "m": 4096, "n": 4096, "k": 4096,
             "transpose_a": false, "transpose_b": true, "batched_b": false,
             "dtype_a": "bf16", "dtype_b": "bf16", "dtype_d": "bf16",
             "dtype_bias": null, "dtype_c": null, "alpha": 1.0, "beta": 0.0,
             "activation": "none"},
      "target": {"arch": "sm_90a", "sm_count": 132, "device": "NVIDIA H200"},
      "toolchain": {"cuda": "13.0", "emitter": 1}},
    "candidates": [
      {"config": {"source": "tuned", "block_m": 128, "block_n": 256, "block_k": 64},
       "status": "ok", "correct": true,
       "time": {"median_ms": 0.225, "q1_ms": 0.2225, "q3_ms": 0.2275,
                "min_ms": 0.22, "max_ms": 0.25, "samples": 20},
       "measured_at": "2026-11-29T15:41:56Z", "host": "gpu-node-7"},
      {"config": {"source": "tuned", "block_m": 256, "block_n": 256, "block_k": 64},
       "status": "faulted", "correct": false, "time": null,
       "measured_at": "2026-11-29T15:42:10Z", "host": "gpu-node-7"}]}]
})";
  TuningDb db;
  std::string err;
  ASSERT_TRUE(fromJson(json::parse(text), db, err)) << err;
  ASSERT_EQ(db.entries.size(), 1u);
  EXPECT_EQ(db.entries[0].key.canonical(), h200Key().canonical());
  ASSERT_NE(db.entries[0].best(), nullptr);
  EXPECT_EQ(db.entries[0].best()->config["block_m"], 128);
  // And what this writer writes of it is version 1 still.
  EXPECT_EQ(toJson(db)["version"], 1);
}

DeviceInfo h200Device() {
  DeviceInfo device;
  device.name = "NVIDIA H200";
  device.smCount = 132;
  device.runtimeVersion = "13.0";
  return device;
}

/// kgen-bench tune's path into the database (Search.h: searchCandidates,
/// then addToDb) for `results` as one batch measured on `device`.
TuningDb recordedBySearch(const std::vector<KernelResult> &results,
                          const DeviceInfo &device) {
  SearchOutcome outcome;
  std::string err;
  MeasureFn measure = [&](const std::vector<size_t> &indices,
                          std::vector<CandidateRun> &runs, std::string &) {
    for (size_t k = 0; k < indices.size(); ++k)
      runs[k].result = results[indices[k]];
    return SearchStatus::Ok;
  };
  EXPECT_EQ(searchCandidates(results.size(), SearchOptions(), measure, nullptr,
                             outcome, err),
            SearchStatus::Ok)
      << err;
  TuningDb db;
  addToDb(outcome, device, "2026-12-01T00:00:00Z", "gpu-node-7", db);
  return db;
}

TEST(TuningDbJsonTest, KgenBenchTuneRecordsAttentionCandidates) {
  // kgen-bench tune's path into the database (Search.h's addToDb, op-
  // agnostic): attention results have no cuBLASLt baseline, so their times
  // are kept as measured; the key is the package's op, the config's target
  // and emitter version.
  std::vector<KernelResult> results(2);
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].implementation = "kgen";
    results[i].op = attentionOp();
    results[i].config = attentionConfig(i == 0 ? 64 : 128);
    results[i].status = RunStatus::Ok;
    results[i].relError = 1e-3;
    results[i].time = stats(i == 0 ? 2.0 : 1.5);
  }
  std::string err;
  DeviceInfo device = h200Device();
  TuningDb db = recordedBySearch(results, device);
  TuningDb back;
  ASSERT_TRUE(fromJson(toJson(db), back, err)) << err;
  ASSERT_EQ(back.entries.size(), 1u);
  EXPECT_EQ(back.entries[0].key.canonical(),
            h200Key(attentionOp()).canonical());
  ASSERT_NE(back.entries[0].best(), nullptr);
  EXPECT_EQ(back.entries[0].best()->config["block_m"], 128);
  EXPECT_EQ(back.entries[0].best()->config["predicted_ms"], 1.25);
}

/// A moe layer's signature, as dialect/MoeJson.cpp's moeSignature writes
/// it: Mixtral-8x7B's experts at `tokens` tokens.
json moeOp(int64_t tokens) {
  return {{"kind", "moe"},          {"tokens", tokens},
          {"hidden", 4096},         {"inter", 14336},
          {"experts", 8},           {"top_k", 2},
          {"renormalize", true},    {"activation", "silu"},
          {"dtype", "bf16"},        {"logits_dtype", "f32"},
          {"dtype_out", "bf16"}};
}

/// A grouped_gemm_config as MoeJson.cpp's toJson writes it, with
/// kgen-tune's prediction.
json groupedConfig(int blockM, double predicted) {
  return {{"target", "sm_90a"},  {"instruction", "mma_sync"},
          {"block_m", blockM},   {"block_n", 128},
          {"block_k", 32},       {"warps_m", 1},
          {"warps_n", 4},        {"stages", 4},
          {"source", "model"},   {"entry", ""},
          {"attribute", "#kgen.grouped_gemm_config<block_m = " +
                            std::to_string(blockM) + ">"},
          {"emitter_version", 1}, {"predicted_ms", predicted}};
}

TEST(TuningDbGroupedGemmTest, TokensBucketIsTheNextPowerOfTwo) {
  EXPECT_EQ(tokensBucket(1), 1);
  EXPECT_EQ(tokensBucket(2), 2);
  EXPECT_EQ(tokensBucket(3), 4);
  EXPECT_EQ(tokensBucket(50), 64);
  EXPECT_EQ(tokensBucket(64), 64);
  EXPECT_EQ(tokensBucket(65), 128);
  EXPECT_EQ(tokensBucket(int64_t{1} << 31), int64_t{1} << 31);
}

TEST(TuningDbGroupedGemmTest, MoeRolesKeyTheirOwnGemmAndShareABucket) {
  json gateUp, down, gateUp50, err2;
  std::string err;
  ASSERT_TRUE(groupedGemmKeyOp(moeOp(64), "gate_up", gateUp, err)) << err;
  ASSERT_TRUE(groupedGemmKeyOp(moeOp(64), "down", down, err)) << err;
  EXPECT_EQ(gateUp, json({{"kind", "grouped_gemm"}, {"role", "gate_up"},
                          {"experts", 8}, {"top_k", 2}, {"k", 4096},
                          {"n", 14336}, {"gated", true},
                          {"activation", "silu"}, {"dtype", "bf16"},
                          {"dtype_out", "bf16"}, {"tokens_bucket", 64}}));
  EXPECT_EQ(down["k"], 14336);
  EXPECT_EQ(down["n"], 4096);
  EXPECT_EQ(down["gated"], false);
  // 50 tokens are in 64's bucket: the same key, exactly.
  ASSERT_TRUE(groupedGemmKeyOp(moeOp(50), "gate_up", gateUp50, err)) << err;
  EXPECT_EQ(h200Key(gateUp50).canonical(), h200Key(gateUp).canonical());
  EXPECT_TRUE(checkKey(h200Key(gateUp), err)) << err;
  EXPECT_TRUE(checkKey(h200Key(down), err)) << err;
  // A kgen.grouped_gemm of its own: role "grouped", its rows as tokens.
  json grouped;
  ASSERT_TRUE(groupedGemmKeyOp(
      {{"kind", "grouped_gemm"}, {"rows", 100}, {"k", 256}, {"n", 512},
       {"experts", 8}, {"gated", false}, {"activation", "none"},
       {"dtype", "bf16"}, {"dtype_out", "bf16"}},
      "grouped", grouped, err))
      << err;
  EXPECT_EQ(grouped["tokens_bucket"], 128);
  EXPECT_EQ(grouped["top_k"], 1);
  EXPECT_TRUE(checkKey(h200Key(grouped), err)) << err;
  // Roles that do not fit the op's kind.
  EXPECT_FALSE(groupedGemmKeyOp(moeOp(64), "grouped", grouped, err));
  EXPECT_EQ(err, "role: expected gate_up or down for a moe, got \"grouped\"");
  EXPECT_FALSE(groupedGemmKeyOp(gemmOp(), "down", grouped, err));
  EXPECT_EQ(err.rfind("op.kind: expected \"moe\" or \"grouped_gemm\"", 0), 0u)
      << err;
}

TEST(TuningDbGroupedGemmTest, CheckKeyRefusesInconsistentGroupedKeys) {
  json op;
  std::string err;
  ASSERT_TRUE(groupedGemmKeyOp(moeOp(64), "gate_up", op, err)) << err;
  TuningKey key = h200Key(op);
  key.op["tokens_bucket"] = 48;
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err, "op.tokens_bucket: expected a power of two (a tokens "
                 "bucket), got 48");
  key = h200Key(op);
  key.op["gated"] = false;
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err, "op.gated: expected true for role \"gate_up\"");
  key = h200Key(op);
  key.op["top_k"] = 9;
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err, "op.top_k: expected at most experts (8), got 9");
  key = h200Key(op);
  key.op["role"] = "up";
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err, "op.role: unknown value \"up\" (expected gate_up down "
                 "grouped)");
  key = h200Key(op);
  key.op["tokens"] = 64; // a layer's field is no key's
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err.rfind("op: unknown field \"tokens\" (a grouped_gemm "
                      "signature has exactly: kind role experts",
                      0),
            0u)
      << err;
}

TEST(TuningDbGroupedGemmTest, KgenBenchTuneRecordsMoeCandidatesUnderTheRole) {
  // A moe package kgen-tune wrote: the whole layer, the tuned role's config
  // a candidate, the other at its heuristic choice. Its result is recorded
  // under the tuned role's grouped GEMM key, that role's config with the
  // other's as paired_with; the time is the layer's.
  std::vector<KernelResult> results(2);
  for (size_t i = 0; i < results.size(); ++i) {
    results[i].implementation = "kgen";
    results[i].op = moeOp(50);
    results[i].config = {{"gate_up", groupedConfig(i == 0 ? 16 : 32, 0.5)},
                         {"down", groupedConfig(16, 0.25)},
                         {"tuned_role", "gate_up"}};
    results[i].status = RunStatus::Ok;
    results[i].relError = 1e-3;
    results[i].time = stats(i == 0 ? 2.0 : 1.5);
  }
  std::string err;
  DeviceInfo device = h200Device();
  TuningDb db = recordedBySearch(results, device);
  TuningDb back;
  ASSERT_TRUE(fromJson(toJson(db), back, err)) << err;
  ASSERT_EQ(back.entries.size(), 1u);
  json keyOp;
  ASSERT_TRUE(groupedGemmKeyOp(moeOp(64), "gate_up", keyOp, err)) << err;
  EXPECT_EQ(back.entries[0].key.canonical(), h200Key(keyOp).canonical());
  const TuningCandidate *best = back.entries[0].best();
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->config["block_m"], 32);
  EXPECT_EQ(best->config["predicted_ms"], 0.5);
  EXPECT_EQ(best->config["paired_with"],
            "#kgen.grouped_gemm_config<block_m = 16>");
  EXPECT_EQ(best->config["paired_predicted_ms"], 0.25);
  // A moe config that names no tuned role cannot be recorded: its key
  // stays the layer's, which checkKey refuses.
  KernelResult untuned = results[0];
  untuned.config.erase("tuned_role");
  json keyConfig;
  EXPECT_FALSE(tuningRecordOf(untuned.op, untuned.config, keyOp, keyConfig,
                              err));
  EXPECT_EQ(err, "config.tuned_role: missing");
  EXPECT_FALSE(checkKey(tuningKeyFor(untuned, device), err));
  EXPECT_EQ(err.rfind("op.kind: expected one of gemm attention grouped_gemm",
                      0),
            0u)
      << err;
}

TEST(TuningDbGroupedGemmTest, VersionOneFilesOfGemmsAndAttentionStillLoad) {
  // Grouped GEMM keys are one more kind: the files before them read as
  // they did (mixedDb: gemm and attention entries), and a file mixing all
  // three kinds is still version 1.
  TuningDb db = mixedDb();
  json op;
  std::string err;
  ASSERT_TRUE(groupedGemmKeyOp(moeOp(64), "down", op, err)) << err;
  db.add(h200Key(op), measured(groupedConfig(16, 0.3), 0.4));
  TuningDb back;
  ASSERT_TRUE(fromJson(toJson(db), back, err)) << err;
  EXPECT_EQ(toJson(back)["version"], 1);
  EXPECT_EQ(back.entries.size(), db.entries.size());
  EXPECT_EQ(toJson(back), toJson(db));
}

TEST(TuningDbValuesTest, CheckKeyCandidateAndTimeNameTheField) {
  std::string err;
  EXPECT_TRUE(checkKey(h200Key(), err)) << err;
  EXPECT_TRUE(checkCandidate(measured(config(128), 0.2), err)) << err;
  EXPECT_TRUE(checkCandidate(failed(json(), RunStatus::Faulted), err)) << err;

  EXPECT_FALSE(checkKey(h200Key({{"kind", "gemm"}}), err));
  EXPECT_EQ(err, "op.batch: missing");
  TuningKey key = h200Key();
  key.op["m"] = -4096;
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err, "op.m: expected an integer in [1, 2147483648], got -4096");
  key = h200Key();
  key.op["beta"] = std::nan("");
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err.rfind("op.beta: expected a finite number", 0), 0u) << err;
  key = h200Key();
  key.arch = "";
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err.rfind("target.arch: expected an arch like", 0), 0u) << err;
  key = h200Key();
  key.smCount = kMaxSmCount + 1;
  EXPECT_FALSE(checkKey(key, err));
  EXPECT_EQ(err, "target.sm_count: expected an integer in [0, 4096], got 4097");

  EXPECT_FALSE(checkCandidate(measured(config(128), -1), err));
  EXPECT_EQ(err, "time.min_ms: expected a finite time >= 0 in ms, got -0.98");
  EXPECT_FALSE(checkCandidate(measured(json::array(), 1), err));
  EXPECT_EQ(err, "config: expected an object or null, got an array");
  TuningCandidate none = measured(config(128), 0.2);
  none.time->samples = 0;
  EXPECT_FALSE(checkTime(*none.time, err));
  EXPECT_EQ(err, "time.samples: expected at least one sample, got 0");
  SampleStats zero = stats(0.2);
  zero.minMs = zero.q1Ms = 0; // below the timer's resolution: still a time
  EXPECT_TRUE(checkTime(zero, err)) << err;
  zero.medianMs = 0;
  EXPECT_FALSE(checkTime(zero, err));
  EXPECT_EQ(err, "time.median_ms: expected a positive, finite time in ms, got 0.0");
  SampleStats infinite = stats(0.2);
  infinite.maxMs = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(checkTime(infinite, err));
  EXPECT_EQ(err, "time.max_ms: expected a positive, finite time in ms, got inf");
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

class TuningDbFileTest : public kgen::rt::test::TempDirTest {
protected:
  /// readTuningDb on a file expected to be refused: false, the database
  /// untouched, and a one-line message starting with the path.
  std::string expectUnreadable(const std::string &path) {
    TuningDb out;
    out.add(h200Key(), measured(config(1), 1));
    const std::string before = toJson(out).dump();
    std::string err;
    EXPECT_FALSE(readTuningDb(path, out, err)) << path;
    EXPECT_EQ(err.rfind(path + ": ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(toJson(out).dump(), before) << path;
    return err;
  }

};

TEST_F(TuningDbFileTest, WritesAndReadsBack) {
  const std::string path = pathOf("tuning.json");
  std::string err;
  ASSERT_TRUE(writeTuningDb(path, fullDb(), err)) << err;
  TuningDb back;
  ASSERT_TRUE(readTuningDb(path, back, err)) << err;
  expectSameDb(fullDb(), back);
  EXPECT_EQ(readRaw(path).back(), '\n');

  // Read, add, write again: the file is replaced, nothing else left behind.
  back.add(h200Key(), measured(config(64), 0.4, "2026-12-01T00:00:00Z"));
  ASSERT_TRUE(writeTuningDb(path, back, err)) << err;
  TuningDb again;
  ASSERT_TRUE(readTuningDb(path, again, err)) << err;
  expectSameDb(back, again);
  EXPECT_EQ(again.entries[0].candidates.size(), 4u);
  EXPECT_EQ(listDir(), std::vector<std::string>{"tuning.json"});

  // An empty database is a valid file too.
  ASSERT_TRUE(writeTuningDb(pathOf("empty-db.json"), TuningDb(), err)) << err;
  ASSERT_TRUE(readTuningDb(pathOf("empty-db.json"), again, err)) << err;
  EXPECT_TRUE(again.entries.empty());
}

TEST_F(TuningDbFileTest, RefusesToWriteWhatItCouldNotRead) {
  const std::string path = pathOf("tuning.json");
  std::string err;
  ASSERT_TRUE(writeTuningDb(path, fullDb(), err)) << err;
  const std::string before = readRaw(path);
  TuningDb bad = fullDb();
  bad.add(h200Key(json()), measured(config(1), 1)); // op null
  EXPECT_FALSE(writeTuningDb(path, bad, err));
  EXPECT_EQ(err, path + ": not written, the database is invalid: "
                        "entries[2].key.op: expected an object, got null");
  EXPECT_EQ(readRaw(path), before);
  EXPECT_EQ(listDir(), std::vector<std::string>{"tuning.json"});

  // Nor a time no measurement gives, or an incomplete op.
  bad = fullDb();
  bad.add(h200Key(), measured(config(64), -1));
  EXPECT_FALSE(writeTuningDb(path, bad, err));
  EXPECT_EQ(err.rfind(path + ": not written, the database is invalid: "
                             "entries[0].candidates[3].time.",
                      0),
            0u)
      << err;
  bad = fullDb();
  bad.add(h200Key({{"kind", "gemm"}}), measured(config(64), 1));
  EXPECT_FALSE(writeTuningDb(path, bad, err));
  EXPECT_EQ(err, path + ": not written, the database is invalid: "
                        "entries[2].key.op.batch: missing");
  EXPECT_EQ(readRaw(path), before);
  EXPECT_EQ(listDir(), std::vector<std::string>{"tuning.json"});

  const std::string missing = pathOf("no-such-dir/tuning.json");
  EXPECT_FALSE(writeTuningDb(missing, fullDb(), err));
  EXPECT_EQ(err.rfind(missing + ": ", 0), 0u) << err;
}

TEST_F(TuningDbFileTest, RefusesUnreadableFilesNamingThem) {
  EXPECT_NE(expectUnreadable(pathOf("absent.json")).find("No such file"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(dir).find("directory"), std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("empty.json", "")).find("empty"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("blank.json", " \n")).find("empty"),
            std::string::npos);
  const std::string full = toJson(fullDb()).dump(2);
  EXPECT_NE(expectUnreadable(writeRaw("truncated.json",
                                      full.substr(0, full.size() / 2)))
                .find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("text.json", "schema: kgen.tuning-db"))
                .find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("binary.json", std::string("\0\x93", 2)))
                .find("not valid JSON"),
            std::string::npos);

  // Valid JSON, refused by the schema: each message names the file, then
  // the field.
  EXPECT_EQ(expectUnreadable(writeRaw("list.json", "[]")),
            pathOf("list.json") + ": (top level): expected an object, got an array");
  for (size_t i = 0; i < std::size(kMutations); ++i) {
    const std::string path =
        writeRaw("mutation" + std::to_string(i) + ".json",
                 mutated(kMutations[i]).dump(2));
    EXPECT_EQ(expectUnreadable(path).rfind(path + ": " + kMutations[i].expected,
                                           0),
              0u)
        << kMutations[i].pointer;
  }
  json future = toJson(fullDb());
  future["version"] = 2;
  EXPECT_EQ(expectUnreadable(writeRaw("v2.json", future.dump())),
            pathOf("v2.json") +
                ": version: the database has version 2, this reader "
                "understands only version 1: skipped");
}

TEST_F(TuningDbFileTest, RefusesDeepNestingInOneLine) {
  // 200k levels of nesting where the reader copies values (the op, a
  // config): refused with one line, not a stack overflow.
  const std::string deep =
      std::string(200000, '[') + std::string(200000, ']');
  const std::string text = toJson(fullDb()).dump();
  for (const char *anchor : {"\"kind\":\"gemm\"", "\"block_m\":128"}) {
    std::string nested = text;
    const size_t at = nested.find(anchor);
    ASSERT_NE(at, std::string::npos) << anchor;
    nested.insert(at, "\"x\":" + deep + ",");
    const std::string err =
        expectUnreadable(writeRaw("deep.json", nested));
    EXPECT_LT(err.size(), 300u) << err;
  }
}

} // namespace
