//===- SuiteTest.cpp - suites, and bench/suites/gemm.json, attention.json -===//

#include "kgen/runtime/Results.h"
#include "kgen/runtime/Suite.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

using namespace kgen::rt;
using json = nlohmann::json;

namespace {

const std::string kSuite =
    std::string(KGEN_RUNTIME_TEST_DATA) + "/../../../bench/suites/gemm.json";

using Shape = std::tuple<int64_t, int64_t, int64_t>; // M, N, K

std::set<Shape> shapesOf(const std::vector<SuiteShape> &shapes,
                         const std::string &group) {
  std::set<Shape> out;
  for (const SuiteShape &s : shapes)
    if (s.group == group)
      out.insert({s.spec.m, s.spec.n, s.spec.k});
  return out;
}

/// Every (n, k) at every M of the suite.
std::set<Shape> expand(const std::vector<std::pair<int64_t, int64_t>> &nk) {
  std::set<Shape> out;
  for (int64_t m : {4096, 1, 8, 16, 64})
    for (const auto &[n, k] : nk)
      out.insert({m, n, k});
  return out;
}

TEST(GemmSuiteFile, HasTheModelShapes) {
  GemmSuite suite;
  std::string err;
  ASSERT_TRUE(loadGemmSuite(kSuite, suite, err)) << err;
  for (const SuiteShape &s : suite.shapes) {
    EXPECT_EQ(s.spec.a, ElemType::BF16) << s.name;
    EXPECT_EQ(s.spec.d, ElemType::BF16) << s.name;
    EXPECT_TRUE(s.spec.transposeB) << s.name; // nn.Linear weights
    EXPECT_EQ(s.spec.batch, 1);
  }
  EXPECT_EQ(shapesOf(suite.shapes, "llama3-8b"),
            expand({{6144, 4096}, {4096, 4096}, {14336, 4096}, {4096, 14336}}));
  EXPECT_EQ(shapesOf(suite.shapes, "llama3-70b"),
            expand({{10240, 8192}, {8192, 8192}, {28672, 8192}, {8192, 28672}}));
  EXPECT_EQ(shapesOf(suite.shapes, "qwen2.5-72b"),
            expand({{10240, 8192}, {8192, 8192}, {29568, 8192}, {8192, 29568}}));
  EXPECT_EQ(shapesOf(suite.shapes, "mixtral-8x7b"),
            expand({{6144, 4096}, {4096, 4096}, {14336, 4096}, {4096, 14336}}));
  EXPECT_EQ(shapesOf(suite.shapes, "deepseek-v3"),
            expand({{1536, 7168}, {24576, 1536}, {576, 7168}, {7168, 16384},
                    {18432, 7168}, {7168, 18432}, {2048, 7168}, {7168, 2048}}));
  EXPECT_EQ(shapesOf(suite.shapes, "anchor"), (std::set<Shape>{{8192, 8192, 8192}}));
}

TEST(GemmSuiteFile, EveryModelSaysWhereItsDimsComeFrom) {
  json j;
  std::string err;
  ASSERT_TRUE(readJson(kSuite, j, err)) << err;
  for (const json &model : j["models"]) {
    ASSERT_TRUE(model.contains("comment")) << model["name"];
    EXPECT_GT(model["comment"].get<std::string>().size(), 40u) << model["name"];
  }
}

TEST(GemmSuiteFile, DuplicatesAreTimedOnce) {
  GemmSuite suite;
  std::string err;
  ASSERT_TRUE(loadGemmSuite(kSuite, suite, err)) << err;
  EXPECT_EQ(suite.shapes.size(), 24u * 5 + 1);
  const std::vector<SuiteShape> distinct = distinctShapes(suite.shapes);
  // Mixtral's 4 shapes equal Llama-3-8B's; Qwen's qkv and o equal 70B's.
  EXPECT_EQ(distinct.size(), (24u - 4 - 2) * 5 + 1);
  bool found = false;
  for (const SuiteShape &s : distinct)
    if (s.name == "llama3-8b/gate_up m=4096 = mixtral-8x7b/expert_w1_w3 m=4096")
      found = true;
  EXPECT_TRUE(found);
  const std::vector<std::vector<SuiteShape>> groups = groupShapes(distinct);
  ASSERT_EQ(groups.size(), 5u); // mixtral's shapes all went to llama3-8b
  EXPECT_EQ(groups.front().front().group, "llama3-8b");
  EXPECT_EQ(groups.back().front().group, "anchor");
}

json minimalSuite() {
  return json::parse(R"({"schema": "kgen.gemm-suite", "version": 1,
    "dtype": "bf16", "transpose_b": false, "m": [2, 1],
    "models": [{"name": "toy", "m": [3],
                "gemms": [{"name": "up", "n": 8, "k": 4}]}],
    "anchors": [{"name": "sq", "m": 5, "n": 6, "k": 7}]})");
}

TEST(GemmSuite, ParsesAndExpands) {
  GemmSuite suite;
  std::string err;
  ASSERT_TRUE(parseGemmSuite(minimalSuite(), suite, err)) << err;
  ASSERT_EQ(suite.shapes.size(), 2u);
  EXPECT_EQ(suite.shapes[0].name, "toy/up m=3"); // the model's own m
  EXPECT_EQ(suite.shapes[0].spec.n, 8);
  EXPECT_FALSE(suite.shapes[0].spec.transposeB);
  EXPECT_EQ(suite.shapes[1].name, "anchor/sq");
  EXPECT_EQ(suite.shapes[1].spec.k, 7);
}

TEST(GemmSuite, Rejects) {
  const std::vector<std::pair<std::string, json>> edits = {
      {"schema", "kgen.suite"}, {"version", 2},   {"dtype", "f8E4M3FN"},
      {"transpose_b", "yes"},   {"m", json::array()}, {"m", {0}},
      {"models", json::object()}};
  for (const auto &[key, value] : edits) {
    json j = minimalSuite();
    j[key] = value;
    GemmSuite suite;
    std::string err;
    EXPECT_FALSE(parseGemmSuite(j, suite, err)) << key;
    EXPECT_FALSE(err.empty());
  }
  json badGemm = minimalSuite();
  badGemm["models"][0]["gemms"][0]["k"] = -4;
  GemmSuite suite;
  std::string err;
  EXPECT_FALSE(parseGemmSuite(badGemm, suite, err));
  EXPECT_NE(err.find("'k'"), std::string::npos) << err;
  EXPECT_FALSE(loadGemmSuite("/no/such/suite.json", suite, err));
  EXPECT_NE(err.find("/no/such/suite.json"), std::string::npos) << err;
}

TEST(GemmSuite, RejectsSizesNoGemmHas) {
  // Issue 16: sizes in range, as a gemm package's op takes them, and a
  // bounded number of shapes.
  const std::pair<const char *, json> edits[] = {
      {"/anchors/0/m", int64_t{1} << 40},
      {"/anchors/0/n", uint64_t{1} << 63},
      {"/anchors/0/k", 2.5},
      {"/models/0/gemms/0/n", (int64_t{1} << 31) + 1},
      {"/models/0/m/0", int64_t{1} << 50},
      {"/m/1", -1},
  };
  for (const auto &[pointer, value] : edits) {
    json j = minimalSuite();
    j[json::json_pointer(pointer)] = value;
    GemmSuite suite;
    std::string err;
    EXPECT_FALSE(parseGemmSuite(j, suite, err)) << pointer;
    EXPECT_NE(err.find("in [1, 2147483648]"), std::string::npos)
        << pointer << " -> " << err;
  }
  json many = minimalSuite();
  many["models"][0]["m"] = json::array();
  for (int m = 1; m <= 1000; ++m)
    many["models"][0]["m"].push_back(m);
  for (int g = 0; g < 101; ++g)
    many["models"][0]["gemms"].push_back({{"name", "g" + std::to_string(g)},
                                          {"n", 8}, {"k", 8}});
  GemmSuite suite;
  std::string err;
  EXPECT_FALSE(parseGemmSuite(many, suite, err));
  EXPECT_EQ(err, "suite: expands to more than 100000 shapes");
}

} // namespace

//===----------------------------------------------------------------------===//
// Attention suites, and bench/suites/attention.json
//===----------------------------------------------------------------------===//

namespace {

const std::string kAttentionSuite =
    std::string(KGEN_RUNTIME_TEST_DATA) + "/../../../bench/suites/attention.json";

const AttentionSuiteEntry *entryNamed(const AttentionSuite &suite,
                                      const std::string &name) {
  for (const AttentionSuiteEntry &e : suite.entries)
    if (e.name == name)
      return &e;
  return nullptr;
}

} // namespace

TEST(AttentionSuiteFile, HasPrefillAndDecodeOfBothModels) {
  AttentionSuite suite;
  std::string err;
  ASSERT_TRUE(loadAttentionSuite(kAttentionSuite, suite, err)) << err;
  EXPECT_EQ(suite.name, "llm-attention-bf16");
  for (const AttentionSuiteEntry &e : suite.entries) {
    // bf16 queries and output but in the fp8 prefills: Q, K and V e4m3,
    // each with its descale, out bf16.
    const bool fp8 = e.name.find("/prefill fp8 ") != std::string::npos;
    EXPECT_EQ(e.spec.dtype, fp8 ? ElemType::F8E4M3FN : ElemType::BF16)
        << e.name;
    EXPECT_EQ(e.spec.out, ElemType::BF16) << e.name;
    EXPECT_EQ(e.spec.qDescale, fp8) << e.name;
    EXPECT_EQ(e.spec.scale, double(1.0f / std::sqrt(float(e.spec.headDim)))) << e.name;
    if (e.spec.seqQ > 1) // prefill: about 16k tokens
      EXPECT_EQ(e.spec.batch * e.spec.seqQ, 16384) << e.name;
    else
      EXPECT_TRUE(e.spec.kvLens) << e.name;
  }
  const AttentionSuiteEntry *e = entryNamed(suite, "llama3-70b/prefill 16k causal");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->group, "llama3-70b");
  EXPECT_EQ(e->spec.qHeads, 64);
  EXPECT_EQ(e->spec.kvHeads, 8);
  EXPECT_EQ(e->spec.seqKv, 16384);
  EXPECT_EQ(e->spec.batch, 1);
  EXPECT_TRUE(e->spec.causal);
  e = entryNamed(suite, "llama3-8b/prefill 1k");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->spec.batch, 16);
  EXPECT_FALSE(e->spec.causal);
  for (const char *name : {"hdim64/prefill 4k", "hdim256/prefill 4k causal"})
    EXPECT_NE(entryNamed(suite, name), nullptr) << name;
  e = entryNamed(suite, "llama3-8b/decode b=128 kv=32k");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->spec.seqQ, 1);
  EXPECT_EQ(e->spec.seqKv, 32768);
  EXPECT_NE(entryNamed(suite, "llama3-70b/decode b=1 kv=128k"), nullptr);
  EXPECT_EQ(entryNamed(suite, "llama3-8b/decode b=128 kv=128k"), nullptr);
  // A paged decode: every sequence its own pages of 16 keys.
  e = entryNamed(suite, "llama3-8b/paged decode b=16 kv=8k page=16");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->spec.paged);
  EXPECT_EQ(e->spec.pageSize, 16);
  EXPECT_EQ(e->spec.numPages, 16 * 8192 / 16);
  // An fp8 prefill: the shape of the bf16 entry of its name, all e4m3.
  e = entryNamed(suite, "llama3-8b/prefill fp8 16k causal");
  const AttentionSuiteEntry *bf16 =
      entryNamed(suite, "llama3-8b/prefill 16k causal");
  ASSERT_NE(e, nullptr);
  ASSERT_NE(bf16, nullptr);
  const AttentionSpec &f = e->spec, &b = bf16->spec;
  EXPECT_EQ(std::tie(f.batch, f.qHeads, f.kvHeads, f.seqQ, f.seqKv, f.headDim,
                     f.causal),
            std::tie(b.batch, b.qHeads, b.kvHeads, b.seqQ, b.seqKv, b.headDim,
                     b.causal));
  EXPECT_EQ(attentionKvType(e->spec), ElemType::F8E4M3FN);
  EXPECT_TRUE(e->spec.kDescale && e->spec.vDescale);
  EXPECT_EQ(suite.entries.size(), 50u);
}

TEST(AttentionSuite, ParsesEntriesAndRefusesBadOnes) {
  const json good = json::parse(R"({"schema": "kgen.attention-suite", "version": 1,
    "entries": [{"name": "m/a", "op": {"kind": "attention", "batch": 1,
      "q_heads": 4, "kv_heads": 2, "seq_q": 1, "seq_kv": 64, "head_dim": 64,
      "dtype": "f16", "kv_lens": true}},
      {"name": "solo", "op": {"kind": "attention", "batch": 2, "q_heads": 4,
      "kv_heads": 4, "seq_q": 8, "seq_kv": 8, "head_dim": 32, "dtype": "f32"}}]})");
  AttentionSuite suite;
  std::string err;
  ASSERT_TRUE(parseAttentionSuite(good, suite, err)) << err;
  ASSERT_EQ(suite.entries.size(), 2u);
  EXPECT_EQ(suite.entries[0].group, "m");
  EXPECT_EQ(suite.entries[1].group, "solo");
  EXPECT_TRUE(suite.entries[0].spec.kvLens);

  const std::pair<std::string, std::string> cases[] = {
      {"/schema", "expected schema \"kgen.attention-suite\" version 1"},
      {"/entries", "'entries' must be a non-empty array"},
      {"/entries/0/name", "suite: entries[0]: needs a non-empty string 'name'"},
      {"/entries/1/name", "suite: entry m/a: the name is used twice"},
      {"/entries/0/op", "suite: entry m/a: needs an 'op'"},
      {"/entries/0/op/head_dim", "suite: entry m/a: attention op: 'head_dim' is 100"},
  };
  for (const auto &[pointer, message] : cases) {
    json j = good;
    const json::json_pointer ptr(pointer);
    if (pointer == "/schema")
      j[ptr] = "kgen.gemm-suite";
    else if (pointer == "/entries")
      j[ptr] = json::array();
    else if (pointer == "/entries/0/name")
      j[ptr] = "";
    else if (pointer == "/entries/1/name")
      j[ptr] = "m/a";
    else if (pointer == "/entries/0/op")
      j["entries"][0].erase("op");
    else
      j[ptr] = 100;
    EXPECT_FALSE(parseAttentionSuite(j, suite, err)) << pointer;
    EXPECT_NE(err.find(message), std::string::npos) << pointer << ": " << err;
  }
  // A gemm suite is not an attention suite, nor the reverse.
  GemmSuite gemm;
  EXPECT_FALSE(parseGemmSuite(good, gemm, err));
}

TEST(AttentionSuite, EntriesMayReadAnE4m3KvCache) {
  // An entry's op is the op object: dtype_kv and the descales as a
  // package's (parseAttentionOp's rules).
  json j = json::parse(R"({"schema": "kgen.attention-suite", "version": 1,
    "entries": [{"name": "m/fp8 kv", "op": {"kind": "attention", "batch": 1,
      "q_heads": 4, "kv_heads": 2, "seq_q": 1, "seq_kv": 64, "head_dim": 64,
      "dtype": "bf16", "dtype_kv": "f8E4M3FN", "k_descale": true,
      "v_descale": true}}]})");
  AttentionSuite suite;
  std::string err;
  ASSERT_TRUE(parseAttentionSuite(j, suite, err)) << err;
  EXPECT_EQ(attentionKvType(suite.entries[0].spec), ElemType::F8E4M3FN);
  EXPECT_TRUE(suite.entries[0].spec.kDescale && suite.entries[0].spec.vDescale);
  j["entries"][0]["op"]["dtype"] = "f32";
  EXPECT_FALSE(parseAttentionSuite(j, suite, err));
  EXPECT_NE(err.find("suite: entry m/fp8 kv: attention op: 'dtype_kv' is "
                     "f8E4M3FN; expected 'dtype' (f32)"),
            std::string::npos)
      << err;
}
