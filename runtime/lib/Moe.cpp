//===- Moe.cpp - the moe op: signature, inputs, tolerance, host mirror ----===//

#include "kgen/runtime/Moe.h"

#include "OpSignature.h"
#include "kgen/runtime/GroupedGemm.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

namespace kgen::rt {

namespace {

using json = nlohmann::json;
using namespace opsig;

constexpr int64_t kMaxDim = int64_t{1} << 31;
constexpr int64_t kMaxCopies = (int64_t{1} << 31) - 1; // T * k: i32 rows
/// The host reference's budget in multiply-adds (moeCheckedTokens).
constexpr int64_t kReferenceMacs = int64_t{1} << 29;
constexpr int64_t kMinCheckedTokens = 4;
/// Candidates drawn per checked token when looking for unchecked experts.
constexpr int64_t kCandidatesPerToken = 16;
constexpr double kLogitStep = 1.0 / 32;
constexpr uint64_t kTokenSalt = 0x4d4f45; // "MOE"

bool readSizes(const OpReader &r, MoeSpec &spec) {
  if (!r.readInt("tokens", 1, kMaxDim, spec.tokens) ||
      !r.readInt("hidden", 1, kMaxDim, spec.hidden) ||
      !r.readInt("inter", 1, kMaxDim, spec.inter) ||
      !r.readInt("experts", 1, kMoeMaxExperts, spec.experts) ||
      !r.readInt("top_k", 1, spec.experts, spec.topK))
    return false;
  if (spec.tokens > kMaxCopies / spec.topK)
    return r.fail("'tokens' * 'top_k' is " +
                  std::to_string(spec.tokens * spec.topK) +
                  ": the token copies must fit i32 rows (<= " +
                  std::to_string(kMaxCopies) + ")");
  return true;
}

bool readFlags(const OpReader &r, MoeSpec &spec) {
  if (!r.readBool("renormalize", false, spec.renormalize))
    return false;
  spec.act = Activation::Silu;
  if (r.present("activation")) {
    const json &field = r.op["activation"];
    const std::optional<Activation> act =
        field.is_string() ? parseActivation(field.get<std::string>())
                          : std::nullopt;
    if (!act || *act == Activation::None)
      return r.fail("'activation' must be \"silu\", \"gelu\" or \"relu\", "
                    "got " + field.dump());
    spec.act = *act;
  }
  return true;
}

bool readTypes(const OpReader &r, MoeSpec &spec) {
  const std::vector<ElemType> half = {ElemType::BF16, ElemType::F16};
  const std::vector<ElemType> any = {ElemType::BF16, ElemType::F16,
                                     ElemType::F32};
  return r.readType("dtype", half, std::nullopt, spec.dtype) &&
         r.readType("logits_dtype", any, ElemType::F32, spec.logits) &&
         r.readType("dtype_out", any, spec.dtype, spec.out) &&
         readBlockScales(r.op, r.opName, spec.dtype, spec.blockScales, r.err);
}

/// The DeepSeek fields, each optional with the plain layer's default.
bool readDeepSeek(const OpReader &r, MoeSpec &spec) {
  if (r.present("scoring")) {
    const json &field = r.op["scoring"];
    if (field != "softmax" && field != "sigmoid")
      return r.fail("'scoring' must be \"softmax\" or \"sigmoid\", got " +
                    field.dump());
    spec.sigmoid = field == "sigmoid";
  }
  if (!r.readBool("correction_bias", false, spec.correctionBias))
    return false;
  if (r.present("n_group") &&
      !r.readInt("n_group", 1, spec.experts, spec.nGroup))
    return false;
  if (spec.experts % spec.nGroup != 0)
    return r.fail("'n_group' (" + std::to_string(spec.nGroup) +
                  ") must divide 'experts' (" + std::to_string(spec.experts) +
                  ")");
  if (r.present("topk_group") &&
      !r.readInt("topk_group", 1, spec.nGroup, spec.topkGroup))
    return false;
  if (spec.topK > spec.topkGroup * (spec.experts / spec.nGroup))
    return r.fail("'top_k' exceeds the experts of the kept groups");
  if (r.present("routed_scaling_factor")) {
    const json &field = r.op["routed_scaling_factor"];
    if (!field.is_number() || !(field.get<double>() > 0) ||
        !std::isfinite(field.get<double>()))
      return r.fail("'routed_scaling_factor' must be a positive number, got " +
                    field.dump());
    spec.scale = field.get<float>();
  }
  if (r.present("shared_inter") &&
      !r.readInt("shared_inter", 0, kMaxDim, spec.sharedInter))
    return false;
  return true;
}

} // namespace

bool parseMoeOp(const json &op, MoeSpec &spec, std::string &err) {
  if (!op.is_object() || !op.contains("kind") || op["kind"] != "moe") {
    err = "op: not an object of kind \"moe\"";
    return false;
  }
  MoeSpec s;
  const OpReader r{op, "moe", err};
  if (!readSizes(r, s) || !readFlags(r, s) || !readTypes(r, s) ||
      !readDeepSeek(r, s))
    return false;
  spec = s;
  return true;
}

json moeOpJson(const MoeSpec &spec) {
  json op{{"kind", "moe"},
              {"tokens", spec.tokens},
              {"hidden", spec.hidden},
              {"inter", spec.inter},
              {"experts", spec.experts},
              {"top_k", spec.topK},
              {"renormalize", spec.renormalize},
              {"activation", activationName(spec.act)},
              {"dtype", elemTypeName(spec.dtype)},
              {"logits_dtype", elemTypeName(spec.logits)},
              {"dtype_out", elemTypeName(spec.out)}};
  if (spec.sigmoid)
    op["scoring"] = "sigmoid";
  if (spec.correctionBias)
    op["correction_bias"] = true;
  if (spec.nGroup != 1 || spec.topkGroup != 1) {
    op["n_group"] = spec.nGroup;
    op["topk_group"] = spec.topkGroup;
  }
  if (spec.scale != 1.0f)
    op["routed_scaling_factor"] = spec.scale;
  if (spec.sharedInter > 0)
    op["shared_inter"] = spec.sharedInter;
  writeBlockScales(spec.blockScales, op);
  return op;
}

ElemType moeWeightType(const MoeSpec &spec) {
  return spec.blockScales ? ElemType::F8E4M3FN : spec.dtype;
}

MoeExtras
moeExtras(const std::function<const HostTensor *(const char *name)> &input) {
  MoeExtras extras;
  extras.bias = input("correction_bias");
  extras.sharedGate = input("shared_gate");
  extras.sharedUp = input("shared_up");
  extras.sharedDown = input("shared_down");
  extras.scales = {input("w_gate_scale"), input("w_up_scale"),
                   input("w_down_scale")};
  extras.sharedScales = {input("shared_gate_scale"), input("shared_up_scale"),
                         input("shared_down_scale")};
  return extras;
}

std::vector<int64_t> moeShapeX(const MoeSpec &spec) {
  return {spec.tokens, spec.hidden};
}
std::vector<int64_t> moeShapeLogits(const MoeSpec &spec) {
  return {spec.tokens, spec.experts};
}
std::vector<int64_t> moeShapeGateUp(const MoeSpec &spec) {
  return {spec.experts, spec.hidden, spec.inter};
}
std::vector<int64_t> moeShapeDown(const MoeSpec &spec) {
  return {spec.experts, spec.inter, spec.hidden};
}
std::vector<int64_t> moeShapeRoute(const MoeSpec &spec) {
  return {spec.tokens, spec.topK};
}
std::vector<int64_t> moeShapeGateUpScale(const MoeSpec &spec) {
  return blockScaleShape(spec.experts, spec.hidden, spec.inter);
}
std::vector<int64_t> moeShapeDownScale(const MoeSpec &spec) {
  return blockScaleShape(spec.experts, spec.inter, spec.hidden);
}

double moeFlops(const MoeSpec &spec) {
  return 2.0 * static_cast<double>(spec.tokens) * 3.0 *
         static_cast<double>(spec.hidden) *
         (static_cast<double>(spec.topK) * static_cast<double>(spec.inter) +
          static_cast<double>(spec.sharedInter));
}

double moeBytes(const MoeSpec &spec) {
  const double elem = static_cast<double>(elemTypeBytes(spec.dtype));
  const double weight = static_cast<double>(elemTypeBytes(moeWeightType(spec)));
  const double hit = static_cast<double>(
      std::min(spec.experts, spec.tokens * spec.topK));
  // One FFN's three weight tensors of inner size `inter`, with their f32
  // block scales when block-scaled.
  auto ffn = [&](int64_t inter) {
    const double scales =
        spec.blockScales ? 3.0 * 4.0 *
                               static_cast<double>(scaleBlocks(spec.hidden)) *
                               static_cast<double>(scaleBlocks(inter))
                         : 0.0;
    return 3.0 * static_cast<double>(spec.hidden) *
               static_cast<double>(inter) * weight +
           scales;
  };
  return count(moeShapeX(spec)) * elem +
         count(moeShapeLogits(spec)) *
             static_cast<double>(elemTypeBytes(spec.logits)) +
         count(moeShapeX(spec)) * static_cast<double>(elemTypeBytes(spec.out)) +
         hit * ffn(spec.inter) +
         (spec.sharedInter > 0 ? ffn(spec.sharedInter) : 0.0) +
         (spec.correctionBias ? 4.0 * static_cast<double>(spec.experts) : 0.0);
}

// Why u(dtype) + u(dtype) + u(dtype_out) + 1e-4. The op rounds at three
// points: a to dtype, y_e to dtype, y to dtype_out; the reference rounds at
// the same points from double sums, a kernel from f32 sums in another order
// (tiles, split-K). The f32 sums differ from the double ones by about
// sqrt(K) 2^-24 relative (K = H or I, up to ~64k: ~1e-5; 1e-4 covers
// adversarial orders), so a rounding comes out one step apart only for the
// rare elements that close to a rounding boundary, and each such step is
// at most 2u of that element. A kernel whose every intermediate is within
// u of the reference's (the same roundings, or none: keeping a or y_e in
// f32 is more accurate than the op and differs from it by at most u per
// rounding point) therefore passes, with the Frobenius norm averaging the
// rare one-step flips far below the bound; a wrong expert, weight,
// activation or a missing renormalisation is off by O(1). bf16 throughout:
// 1.18e-2 (gemm and attention use 1e-2 with 16-bit types), f16: 1.57e-3,
// f16 in, f32 out: 1.08e-3.
//
// Why 2 sqrt(u(e4m3) delta) more with block scales, delta = 1e-4 the bound
// above on the relative difference of two f32 orders, u(e4m3) = 2^-4. The
// gate and up products quantise x, an input: a kernel doing it in f32 as
// the op says gets the reference's q and scales bit for bit, and the
// blocks' sums differ by f32 roundings only (GroupedGemm.cpp). The down
// product quantises a, which a kernel may round one dtype step away from
// the reference (the rare flips above); e4m3's steps are 2u(e4m3) wide,
// 2^-3 relative, so a value moved by delta relative crosses an e4m3
// rounding boundary with probability delta / (2u(e4m3)) and then q moves
// one step, 2u(e4m3) of it: a root-mean-square error of sqrt(2 u(e4m3)
// delta) relative over a's elements, whatever dtype (the dtype rounding
// first turns delta into rarer, larger moves of the same mean square).
// When the element that moves is its block's amax, the block's scale moves
// with it and each q of the block crosses with the same probability: as
// many blocks' worth as elements, the same mean square again. The two
// together, sqrt(4 u(e4m3) delta) = 5e-3, pass through the down product
// (random weights keep the relative norm) into y_e and y. bf16 throughout:
// 1.68e-2; f16: 6.6e-3. A kernel reading another block's weight or
// activation scale, dropping the per-block promotion (one scale for all of
// K) or not quantising is off by O(1) or by e4m3's own quantisation error
// (about 4% relative), still several times the bound (GroupedGemmTest
// models such kernels: a correct f32 one is within 2e-6, one whose a moves
// by 1e-4 before its rounding within 1.7e-3). A kernel quantising a before
// rounding it to dtype, which the op does not, moves every element by up
// to u(dtype) instead of a rare few: 1.0e-2 in bf16 and 3.6e-3 in f16 on
// that test's layer, inside the bound by less than a factor of two; round
// a first.
double moeTolerance(const MoeSpec &spec) {
  const double blockScaled =
      spec.blockScales ? 2 * std::sqrt(std::ldexp(1.0, -4) * 1e-4) : 0.0;
  return 2 * unitRoundoff(spec.dtype) + unitRoundoff(spec.out) + 1e-4 +
         blockScaled;
}

double moeWeightScale(int64_t k) {
  const double ideal = 3.0 / std::sqrt(static_cast<double>(std::max<int64_t>(k, 1)));
  return std::ldexp(1.0, static_cast<int>(std::lround(std::log2(ideal))));
}

std::vector<double> moeLogitLevels(int64_t experts, ElemType type) {
  const int64_t below = experts / 2, above = experts - below; // 0 is above
  std::vector<double> up = {0.0};
  while (static_cast<int64_t>(up.size()) < std::max(above, below + 1)) {
    const double want = up.back() + kLogitStep;
    double v = roundTo(type, want);
    if (v < want && type == ElemType::BF16) // the next bf16 value up
      v = bf16ToF32(static_cast<uint16_t>(f64ToBf16(want) + 1));
    else if (v < want && type == ElemType::F16)
      v = f16ToF32(static_cast<uint16_t>(f64ToF16(want) + 1));
    up.push_back(v);
  }
  std::vector<double> levels;
  for (int64_t n = below; n >= 1; --n)
    levels.push_back(-up[static_cast<size_t>(n)]);
  for (int64_t n = 0; n < above; ++n)
    levels.push_back(up[static_cast<size_t>(n)]);
  return levels;
}

HostTensor moeRouterLogits(const MoeSpec &spec, uint64_t seed) {
  const std::vector<double> levels = moeLogitLevels(spec.experts, spec.logits);
  HostTensor logits = makeZeros(spec.logits, moeShapeLogits(spec));
  std::vector<size_t> order(levels.size());
  uint64_t draws = 0;
  for (int64_t t = 0; t < spec.tokens; ++t) {
    for (size_t e = 0; e < order.size(); ++e)
      order[e] = e;
    for (size_t e = order.size(); e > 1; --e) // Fisher-Yates
      std::swap(order[e - 1], order[mixSeed(seed, draws++) % e]);
    for (int64_t e = 0; e < spec.experts; ++e)
      logits.setFromDouble(t * spec.experts + e,
                           levels[order[static_cast<size_t>(e)]]);
  }
  return logits;
}

namespace {

/// The K of the product a block-scaled input `name` takes part in (H for
/// x and the gate and up weights, I or Is for the down ones), or 0 for a
/// name that is no such input of `spec`.
int64_t blockScaledK(const MoeSpec &spec, const std::string &name) {
  const bool shared = spec.sharedInter > 0;
  for (const char *n : {"x", "w_gate", "w_up", "w_gate_scale", "w_up_scale"})
    if (name == n)
      return spec.hidden;
  if (name == "w_down" || name == "w_down_scale")
    return spec.inter;
  for (const char *n : {"shared_gate", "shared_up", "shared_gate_scale",
                        "shared_up_scale"})
    if (shared && name == n)
      return spec.hidden;
  if (shared && (name == "shared_down" || name == "shared_down_scale"))
    return spec.sharedInter;
  return 0;
}

} // namespace

std::optional<HostTensor> moeInput(const MoeSpec &spec,
                                   const KernelParam &param, uint64_t seed) {
  if (param.name == "router_logits")
    return moeRouterLogits(spec, seed);
  if (const int64_t k = spec.blockScales ? blockScaledK(spec, param.name) : 0) {
    const std::string &n = param.name;
    if (n == "x")
      return blockVaryingActivations(param.dtype, param.shape, seed);
    if (n.size() > 6 && n.compare(n.size() - 6, 6, "_scale") == 0)
      return blockScales(param.dtype, param.shape, k, seed);
    return blockScaledWeights(param.dtype, param.shape, seed);
  }
  double scale = 0;
  if (param.name == "x")
    scale = 1;
  else if (param.name == "w_gate" || param.name == "w_up")
    scale = moeWeightScale(spec.hidden);
  else if (param.name == "w_down")
    scale = moeWeightScale(spec.inter);
  else if (param.name == "correction_bias" && spec.correctionBias)
    scale = 1.0 / 8;
  else if ((param.name == "shared_gate" || param.name == "shared_up") &&
           spec.sharedInter > 0)
    scale = moeWeightScale(spec.hidden);
  else if (param.name == "shared_down" && spec.sharedInter > 0)
    scale = moeWeightScale(spec.sharedInter);
  else
    return std::nullopt;
  HostTensor t = makeRandom(param.dtype, param.shape, seed);
  if (scale != 1)
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromDouble(i, t.getAsDouble(i) * scale);
  return t;
}

MoeRoute moeRoute(const MoeSpec &spec, const HostTensor &logits, int64_t t,
                  const MoeExtras &extras) {
  const int64_t E = spec.experts;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  // Scores p (the weights' source) and choice scores c (p + bias).
  std::vector<float> p(static_cast<size_t>(E));
  for (int64_t e = 0; e < E; ++e)
    p[e] = static_cast<float>(logits.getAsDouble(t * E + e));
  if (spec.sigmoid) {
    for (float &v : p)
      v = 1.0f / (1.0f + std::exp(-v));
  } else {
    float mx = kNegInf;
    for (float l : p)
      mx = std::max(mx, l);
    float sum = 0;
    for (float &v : p) {
      v = std::exp(v - mx);
      sum += v;
    }
    for (float &v : p)
      v /= sum;
  }
  std::vector<float> c = p;
  if (spec.correctionBias && extras.bias)
    for (int64_t e = 0; e < E; ++e)
      c[e] = p[e] + static_cast<float>(extras.bias->getAsDouble(e));
  // Group-limited: the topk_group groups of best score (their two best
  // choice scores summed with a bias, their best without) stay eligible.
  const int64_t groupSize = E / spec.nGroup;
  std::vector<bool> kept(static_cast<size_t>(spec.nGroup), true);
  if (spec.nGroup > 1) {
    std::vector<float> score(static_cast<size_t>(spec.nGroup));
    for (int64_t g = 0; g < spec.nGroup; ++g) {
      float m0 = kNegInf, m1 = kNegInf;
      for (int64_t e = g * groupSize; e < (g + 1) * groupSize; ++e) {
        const bool above0 = c[e] > m0, above1 = c[e] > m1;
        m1 = above0 ? m0 : (above1 ? c[e] : m1);
        m0 = above0 ? c[e] : m0;
      }
      score[g] = spec.correctionBias ? m0 + m1 : m0;
    }
    std::fill(kept.begin(), kept.end(), false);
    for (int64_t round = 0; round < spec.topkGroup; ++round) {
      int64_t best = -1;
      for (int64_t g = 0; g < spec.nGroup; ++g)
        if (!kept[g] && (best < 0 || score[g] > score[best]))
          best = g;
      kept[best] = true;
    }
  }
  MoeRoute route;
  float total = 0;
  for (int64_t s = 0; s < spec.topK; ++s) {
    int32_t best = -1;
    float bestC = kNegInf;
    for (int64_t e = 0; e < E; ++e) {
      const bool taken = std::find(route.ids.begin(), route.ids.end(),
                                   static_cast<int32_t>(e)) != route.ids.end();
      if (!taken && kept[e / groupSize] && (c[e] > bestC || best < 0)) {
        best = static_cast<int32_t>(e);
        bestC = c[e];
      }
    }
    const float w = best >= 0 ? p[best] : kNegInf;
    route.ids.push_back(best);
    route.weights.push_back(w);
    total += w;
  }
  for (float &w : route.weights) {
    if (spec.renormalize)
      w /= total;
    if (spec.scale != 1.0f)
      w *= spec.scale;
  }
  return route;
}

std::vector<double> moeExpertRow(const MoeSpec &spec, const HostTensor &x,
                                 const HostTensor &wGate,
                                 const HostTensor &wUp,
                                 const HostTensor &wDown, int64_t t,
                                 int64_t e, const MoeScales &scales) {
  // Two rows of grouped GEMMs (kgen-decompose-moe's form of the layer): the
  // gated one into a, the plain one into y_e, each rounded to dtype; with
  // block scales each quantises its input row (a after its rounding).
  const int64_t H = spec.hidden, I = spec.inter;
  assert(!spec.blockScales || (scales.gate && scales.up && scales.down));
  const WeightScales gateUp =
      spec.blockScales ? WeightScales{scales.gate, scales.up} : WeightScales{};
  const WeightScales down =
      spec.blockScales ? WeightScales{scales.down, nullptr} : WeightScales{};
  std::vector<double> xRow(static_cast<size_t>(H));
  readRow(x, t * H, H, xRow.data());
  std::vector<double> a =
      expertRowProduct(xRow.data(), H, I, wGate, &wUp, e, spec.act, gateUp);
  for (double &v : a)
    v = roundTo(spec.dtype, v);
  std::vector<double> y = expertRowProduct(a.data(), I, H, wDown, nullptr, e,
                                           Activation::None, down);
  for (double &v : y)
    v = roundTo(spec.dtype, v);
  return y;
}

MoeRow moeRow(const MoeSpec &spec, const HostTensor &x,
              const HostTensor &logits, const HostTensor &wGate,
              const HostTensor &wUp, const HostTensor &wDown, int64_t t,
              const MoeExtras &extras) {
  MoeRow row;
  row.route = moeRoute(spec, logits, t, extras);
  std::vector<float> acc(static_cast<size_t>(spec.hidden), 0.0f);
  for (int64_t s = 0; s < spec.topK; ++s) {
    const std::vector<double> ye = moeExpertRow(
        spec, x, wGate, wUp, wDown, t, row.route.ids[s], extras.scales);
    const float w = row.route.weights[s];
    for (int64_t h = 0; h < spec.hidden; ++h) {
      const float term = w * static_cast<float>(ye[h]); // ye is dtype-exact
      acc[h] = acc[h] + term;
    }
  }
  if (spec.sharedInter > 0 && extras.sharedGate && extras.sharedUp &&
      extras.sharedDown) {
    // The shared expert (weights as one expert), after the routed slots.
    MoeSpec shared = spec;
    shared.inter = spec.sharedInter;
    const std::vector<double> z =
        moeExpertRow(shared, x, *extras.sharedGate, *extras.sharedUp,
                     *extras.sharedDown, t, 0, extras.sharedScales);
    for (int64_t h = 0; h < spec.hidden; ++h)
      acc[h] = acc[h] + static_cast<float>(z[h]);
  }
  row.y.resize(acc.size());
  for (size_t h = 0; h < acc.size(); ++h)
    row.y[h] = roundTo(spec.out, acc[h]);
  return row;
}

std::vector<int64_t> moeCheckedTokens(const MoeSpec &spec,
                                      const HostTensor &logits, uint64_t seed,
                                      const MoeExtras &extras) {
  const double perToken = static_cast<double>(spec.topK) * 3.0 *
                          static_cast<double>(spec.hidden) *
                          static_cast<double>(spec.inter);
  const int64_t budget = std::max<int64_t>(
      kMinCheckedTokens,
      static_cast<int64_t>(static_cast<double>(kReferenceMacs) / perToken));
  std::vector<int64_t> tokens;
  if (budget >= spec.tokens) {
    for (int64_t t = 0; t < spec.tokens; ++t)
      tokens.push_back(t);
    return tokens;
  }
  const uint64_t tokenSeed = mixSeed(seed, kTokenSalt);
  std::vector<int64_t> candidates = sampleIndices(
      spec.tokens, std::min(spec.tokens, budget * kCandidatesPerToken),
      tokenSeed);
  // The first and the last token always; the rest in a seeded order.
  tokens = {candidates.front(), candidates.back()};
  candidates = std::vector<int64_t>(candidates.begin() + 1, candidates.end() - 1);
  uint64_t draws = 1;
  for (size_t i = candidates.size(); i > 1; --i)
    std::swap(candidates[i - 1], candidates[mixSeed(tokenSeed, draws++) % i]);
  std::set<int32_t> reached;
  for (int64_t t : tokens)
    for (int32_t e : moeRoute(spec, logits, t, extras).ids)
      reached.insert(e);
  std::vector<int64_t> rest;
  for (int64_t t : candidates) {
    if (static_cast<int64_t>(tokens.size()) >= budget) {
      rest.push_back(t);
      continue;
    }
    const std::vector<int32_t> ids = moeRoute(spec, logits, t, extras).ids;
    if (std::all_of(ids.begin(), ids.end(),
                    [&](int32_t e) { return reached.count(e) > 0; })) {
      rest.push_back(t);
      continue;
    }
    tokens.push_back(t);
    reached.insert(ids.begin(), ids.end());
  }
  for (size_t i = 0;
       i < rest.size() && static_cast<int64_t>(tokens.size()) < budget; ++i)
    tokens.push_back(rest[i]);
  std::sort(tokens.begin(), tokens.end());
  return tokens;
}

MoeExpected moeExpected(const MoeSpec &spec, const HostTensor &x,
                        const HostTensor &logits, const HostTensor &wGate,
                        const HostTensor &wUp, const HostTensor &wDown,
                        const std::vector<int64_t> &tokens,
                        const MoeExtras &extras) {
  const auto n = static_cast<int64_t>(tokens.size());
  MoeExpected e{makeZeros(spec.out, {n, spec.hidden}),
                makeZeros(ElemType::I32, {n, spec.topK})};
  for (int64_t r = 0; r < n; ++r) {
    const MoeRow row = moeRow(spec, x, logits, wGate, wUp, wDown,
                              tokens[static_cast<size_t>(r)], extras);
    for (int64_t h = 0; h < spec.hidden; ++h)
      e.y.setFromDouble(r * spec.hidden + h, row.y[h]);
    for (int64_t s = 0; s < spec.topK; ++s)
      e.ids.setFromDouble(r * spec.topK + s, row.route.ids[s]);
  }
  return e;
}

bool checkMoeRouting(const MoeSpec &spec, const HostTensor &logits,
                     const HostTensor &ids, std::string &why,
                     const MoeExtras &extras) {
  const int64_t k = spec.topK;
  int64_t wrong = 0;
  std::string first;
  auto list = [](const std::vector<double> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(static_cast<long long>(v[i]));
    return s + "]";
  };
  for (int64_t t = 0; t < spec.tokens; ++t) {
    const MoeRoute route = moeRoute(spec, logits, t, extras);
    std::vector<double> got(static_cast<size_t>(k)), want(got);
    bool same = true;
    for (int64_t s = 0; s < k; ++s) {
      got[s] = ids.getAsDouble(t * k + s);
      want[s] = route.ids[s];
      same = same && got[s] == want[s];
    }
    if (same)
      continue;
    if (wrong++ == 0)
      first = "token " + std::to_string(t) + ": " + list(got) + ", expected " +
              list(want);
  }
  if (wrong == 0)
    return true;
  why = "expert_ids: " + std::to_string(wrong) + " of " +
        std::to_string(spec.tokens) + " tokens routed differently; " + first;
  return false;
}

namespace {

/// The inputs of one FFN's weights, [1 or E, H, inter] and [1 or E, inter,
/// H] of moeWeightType, then with block scales their f32 scales; their
/// names appended to `operands`.
bool checkFfnWeights(const KernelPackage &pkg, const MoeSpec &spec,
                     const char *const names[6], int64_t experts,
                     int64_t inter, std::vector<const char *> &operands,
                     std::string &err) {
  const ElemType w = moeWeightType(spec);
  const std::vector<int64_t> gateUp = {experts, spec.hidden, inter},
                             down = {experts, inter, spec.hidden};
  if (!checkTensor(pkg, "moe", names[0], w, ParamRole::Input, gateUp, err) ||
      !checkTensor(pkg, "moe", names[1], w, ParamRole::Input, gateUp, err) ||
      !checkTensor(pkg, "moe", names[2], w, ParamRole::Input, down, err))
    return false;
  operands.insert(operands.end(), names, names + 3);
  if (!spec.blockScales)
    return true;
  const std::vector<int64_t> gateUpScale =
                                 blockScaleShape(experts, spec.hidden, inter),
                             downScale =
                                 blockScaleShape(experts, inter, spec.hidden);
  if (!checkTensor(pkg, "moe", names[3], ElemType::F32, ParamRole::Input,
                   gateUpScale, err) ||
      !checkTensor(pkg, "moe", names[4], ElemType::F32, ParamRole::Input,
                   gateUpScale, err) ||
      !checkTensor(pkg, "moe", names[5], ElemType::F32, ParamRole::Input,
                   downScale, err))
    return false;
  operands.insert(operands.end(), names + 3, names + 6);
  return true;
}

} // namespace

bool checkMoeParams(const KernelPackage &pkg, const MoeSpec &spec,
                    std::string &err) {
  const int64_t copies = spec.tokens * spec.topK;
  std::vector<const char *> operands = {"x", "router_logits"};
  const char *const routed[6] = {"w_gate",       "w_up",       "w_down",
                                 "w_gate_scale", "w_up_scale", "w_down_scale"};
  if (!checkTensor(pkg, "moe", "x", spec.dtype, ParamRole::Input, moeShapeX(spec),
                   err) ||
      !checkTensor(pkg, "moe", "router_logits", spec.logits, ParamRole::Input,
                   moeShapeLogits(spec), err) ||
      !checkFfnWeights(pkg, spec, routed, spec.experts, spec.inter, operands,
                       err) ||
      !checkTensor(pkg, "moe", "y", spec.out, ParamRole::Output, moeShapeX(spec), err))
    return false;
  operands.push_back("y");
  struct Workspace {
    const char *name;
    ElemType type;
    std::vector<int64_t> shape;
  };
  const Workspace workspaces[] = {
      {"expert_ids", ElemType::I32, moeShapeRoute(spec)},
      {"weights", ElemType::F32, moeShapeRoute(spec)},
      {"positions", ElemType::I32, moeShapeRoute(spec)},
      {"expert_offsets", ElemType::I32, {spec.experts + 1}},
      {"permuted", spec.dtype, {copies, spec.hidden}},
      {"h", spec.dtype, {copies, spec.inter}},
      {"expert_out", spec.dtype, {copies, spec.hidden}}};
  for (const Workspace &w : workspaces) {
    const std::optional<size_t> i = pkg.findParam(w.name);
    if (i && !checkTensor(pkg, "moe", w.name, w.type, ParamRole::Workspace, w.shape,
                          err))
      return false;
  }
  if (spec.correctionBias) {
    if (!checkTensor(pkg, "moe", "correction_bias", ElemType::F32,
                     ParamRole::Input, {spec.experts}, err))
      return false;
    operands.push_back("correction_bias");
  }
  const char *const shared[6] = {"shared_gate",       "shared_up",
                                 "shared_down",       "shared_gate_scale",
                                 "shared_up_scale",   "shared_down_scale"};
  if (spec.sharedInter > 0 &&
      !checkFfnWeights(pkg, spec, shared, 1, spec.sharedInter, operands, err))
    return false;
  return onlyOperands(pkg, "moe", operands, err);
}

} // namespace kgen::rt
