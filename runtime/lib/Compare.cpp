//===- Compare.cpp - two benchmark runs compared, with causes -------------===//
//
// Decision rule (docs/performance-history.md), with r the ratio NEW/BASE
// of the medians, [lo, hi] its confidence interval (the hull of the
// Hodges-Lehmann interval on log times and the two medians' order-statistic
// intervals added in quadrature) and t the practical minimum:
//   regressed  lo > 1 and r >= 1 + t
//   improved   hi < 1 and r <= 1 / (1 + t)
//   same       1 / (1 + t) <= lo and hi <= 1 + t (any change is too small)
//   unknown    otherwise (the interval is too wide to say)
// With a baseline in both runs, r, lo and hi are those of the kernel
// divided by the baseline's; the two intervals' half-widths (in log time)
// add in quadrature, the runs being independent.
// In cycles: with the SM clock c read around each timed loop (the mean of
// the reads before and after), the interval is multiplied by c(NEW)/c(BASE)
// (divided by the baseline's own clock ratio when normalized) and judged by
// the same rules. The verdict stays the time's; cycles name the clock as
// the cause of a change they do not show, and confirm one they do.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Compare.h"

#include "kgen/runtime/Names.h"
#include "kgen/runtime/Search.h"
#include "kgen/runtime/Stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

namespace kgen::rt {
namespace {

using json = nlohmann::json;

/// Relative change of the SM clock that is worth naming as a cause.
constexpr double kClockChange = 0.02;

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * (ratio - 1));
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string shortHash(const std::string &hash) {
  return hash.empty() ? "" : hash.substr(0, 12);
}

std::string kindOf(const KernelResult &r) {
  if (r.op.is_object()) {
    auto it = r.op.find("kind");
    if (it != r.op.end() && it->is_string())
      return it->get<std::string>();
  }
  return "";
}

using Key = std::pair<std::string, std::string>; // implementation, name

/// The entry that counts for each key: the last correct, timed one, else
/// the last one.
std::map<Key, const KernelResult *> index(const ResultsFile &file,
                                          std::vector<Key> &order) {
  std::map<Key, const KernelResult *> out;
  for (const KernelResult &r : file.results) {
    const Key key{r.implementation, r.name};
    auto [it, inserted] = out.emplace(key, &r);
    if (inserted) {
      order.push_back(key);
      continue;
    }
    const bool timed = r.status == RunStatus::Ok && r.time;
    const bool wasTimed = it->second->status == RunStatus::Ok && it->second->time;
    if (timed || !wasTimed)
      it->second = &r;
  }
  return out;
}

/// The differences of the two runs that concern every kernel, in the
/// order of attribution: kgen commit, toolchain, driver, cuBLASLt, clocks,
/// machine.
std::vector<Cause> runDifferences(const ResultsFile &b, const ResultsFile &n) {
  std::vector<Cause> causes;
  // A value one run did not record (a version 1 file) is no difference.
  auto differ = [&](const char *what, const std::string &x, const std::string &y) {
    if (x != y && !x.empty() && !y.empty())
      causes.push_back({what, x, y});
  };
  differ("kgen commit", b.commit, n.commit);
  differ("NVRTC", b.nvrtcVersion, n.nvrtcVersion);
  differ("CUDA runtime", b.device.runtimeVersion, n.device.runtimeVersion);
  differ("driver", b.device.driverVersion, n.device.driverVersion);
  differ("cuBLASLt", b.cublasLtVersion, n.cublasLtVersion);
  const double bc = b.device.smClockKHz, nc = n.device.smClockKHz;
  if (bc > 0 && nc > 0 && std::fabs(nc / bc - 1) >= kClockChange)
    causes.push_back({"SM clock (MHz)", fixed(bc / 1000, 0), fixed(nc / 1000, 0)});
  const double bm = b.device.memClockKHz, nm = n.device.memClockKHz;
  if (bm > 0 && nm > 0 && std::fabs(nm / bm - 1) >= kClockChange)
    causes.push_back({"memory clock (MHz)", fixed(bm / 1000, 0), fixed(nm / 1000, 0)});
  differ("machine", b.machineId, n.machineId);
  differ("host", b.host, n.host);
  return causes;
}

/// The SM clock (MHz) over a result's timed loop: the mean of the reads
/// before and after it; 0 when either was not read.
double loopClock(const KernelResult &r) {
  if (r.smClockMHzBefore <= 0 || r.smClockMHzAfter <= 0)
    return 0;
  return (r.smClockMHzBefore + r.smClockMHzAfter) / 2.0;
}

/// NEW's loop clock over BASE's; nullopt when a run did not read it.
std::optional<double> clockRatio(const KernelResult &b, const KernelResult &n) {
  const double cb = loopClock(b), cn = loopClock(n);
  if (cb <= 0 || cn <= 0)
    return std::nullopt;
  return cn / cb;
}

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &name : names)
    out += (out.empty() ? "" : ", ") + name;
  return out;
}

/// The throttle reasons around NEW's timed loop that BASE's did not have,
/// as a cause (before: BASE's reasons); gpu_idle is no slowdown of a
/// running kernel and is left out. Nullopt when none or not read in both.
std::optional<Cause> throttlingCause(const KernelResult &b, const KernelResult &n) {
  if (!b.throttleReasons || !n.throttleReasons)
    return std::nullopt;
  std::vector<std::string> before, added;
  for (const std::string &name : *b.throttleReasons)
    if (name != "gpu_idle")
      before.push_back(name);
  for (const std::string &name : *n.throttleReasons)
    if (name != "gpu_idle" &&
        std::find(before.begin(), before.end(), name) == before.end())
      added.push_back(name);
  if (added.empty())
    return std::nullopt;
  return Cause{"throttling", joined(before), joined(added)};
}

/// The strategy's source ("measured", "model", "default", ...) if it says.
std::string strategySource(const json &config) {
  if (config.is_object()) {
    auto it = config.find("source");
    if (it != config.end() && it->is_string())
      return it->get<std::string>();
  }
  return "";
}

/// A kernel's own differences, most specific first: strategy, generated
/// source, ptxas's report.
std::vector<Cause> kernelDifferences(const KernelResult &b, const KernelResult &n) {
  std::vector<Cause> causes;
  if (b.config != n.config) {
    json before = b.config, after = n.config;
    const std::string sb = strategySource(before), sn = strategySource(after);
    causes.push_back({"strategy", before.dump(), after.dump()});
    if (sb != sn)
      causes.push_back({"strategy source", sb, sn});
  }
  if (b.sourceSha256 != n.sourceSha256 && !b.sourceSha256.empty() &&
      !n.sourceSha256.empty())
    causes.push_back({"generated source (sha256)", shortHash(b.sourceSha256),
                      shortHash(n.sourceSha256)});
  if (b.resources && n.resources) {
    const ResourceUsage &x = *b.resources, &y = *n.resources;
    auto num = [&](const char *what, int64_t p, int64_t q) {
      if (p != q)
        causes.push_back({what, std::to_string(p), std::to_string(q)});
    };
    num("registers", x.registers, y.registers);
    num("spill stores (bytes)", x.spillStoreBytes, y.spillStoreBytes);
    num("spill loads (bytes)", x.spillLoadBytes, y.spillLoadBytes);
    num("static shared memory (bytes)", x.sharedBytes, y.sharedBytes);
    num("stack (bytes)", x.stackBytes, y.stackBytes);
  }
  return causes;
}

/// The ratio NEW/BASE of one result's medians and its interval; nullopt
/// (with `why`) when the samples cannot give one.
std::optional<Interval> ratioOf(const KernelResult &b, const KernelResult &n,
                                const CompareOptions &options, std::string &why,
                                std::optional<double> *pValue = nullptr) {
  if (b.samplesMs.size() < options.minSamples ||
      n.samplesMs.size() < options.minSamples) {
    why = "too few timing samples (" + std::to_string(b.samplesMs.size()) +
          " and " + std::to_string(n.samplesMs.size()) + ", at least " +
          std::to_string(options.minSamples) + " a side" +
          (b.samplesMs.empty() || n.samplesMs.empty()
               ? std::string("; version 1 results keep none")
               : std::string()) +
          ")";
    // The summaries still say which way the medians went, without an
    // interval to judge it by.
    if (b.time && n.time && b.time->medianMs > 0)
      why += "; the medians alone: " + percent(n.time->medianMs / b.time->medianMs);
    return std::nullopt;
  }
  const auto lb = logOf(b.samplesMs), ln = logOf(n.samplesMs);
  if (!lb || !ln) {
    why = "a timing sample is 0 ms";
    return std::nullopt;
  }
  const std::optional<ShiftEstimate> hl = hodgesLehmann(*lb, *ln, options.level);
  const auto ib = medianInterval(*lb, options.level),
             in = medianInterval(*ln, options.level);
  if (!hl || !ib || !in) {
    why = "too few samples for an interval at this level";
    return std::nullopt;
  }
  if (pValue)
    if (const auto mw = mannWhitney(*lb, *ln))
      *pValue = mw->pValue;
  Interval r;
  const double mb = median(*lb), mn = median(*ln);
  r.ratio = std::exp(mn - mb); // the medians' ratio (log is monotone)
  // The Hodges-Lehmann interval assumes both runs spread alike; the two
  // medians' own intervals, added in quadrature, do not. The verdict's
  // interval holds both (and the ratio itself).
  const double down = std::hypot(mn - in->first, ib->second - mb);
  const double up = std::hypot(in->second - mn, mb - ib->first);
  r.lower = std::min({std::exp(hl->lower), std::exp(mn - mb - down), r.ratio});
  r.upper = std::max({std::exp(hl->upper), std::exp(mn - mb + up), r.ratio});
  return r;
}

/// The kernel's interval divided by its baseline's.
Interval normalize(const Interval &k, const Interval &b) {
  const double lk = std::log(k.ratio), lb = std::log(b.ratio);
  const double down = std::hypot(lk - std::log(k.lower), std::log(b.upper) - lb);
  const double up = std::hypot(std::log(k.upper) - lk, lb - std::log(b.lower));
  Interval r;
  r.ratio = k.ratio / b.ratio;
  r.lower = std::exp(lk - lb - down);
  r.upper = std::exp(lk - lb + up);
  return r;
}

CompareVerdict decide(const Interval &i, double t) {
  if (i.lower > 1 && i.ratio >= 1 + t)
    return CompareVerdict::Regressed;
  if (i.upper < 1 && i.ratio <= 1 / (1 + t))
    return CompareVerdict::Improved;
  if (i.lower >= 1 / (1 + t) && i.upper <= 1 + t)
    return CompareVerdict::Same;
  return CompareVerdict::Unknown;
}

bool timed(const KernelResult &r) { return r.status == RunStatus::Ok; }

/// Sets c.cycles and c.cyclesVerdict from the loop clocks of the kernel
/// (and of its baseline bb, nb in BASE and NEW when c is normalized).
void judgeInCycles(const KernelResult &b, const KernelResult &n,
                   const KernelResult *bb, const KernelResult *nb,
                   KernelComparison &c) {
  std::optional<double> factor = clockRatio(b, n);
  if (factor && c.normalized) {
    const std::optional<double> baseline =
        bb && nb ? clockRatio(*bb, *nb) : std::nullopt;
    factor = baseline ? std::optional<double>(*factor / *baseline) : std::nullopt;
  }
  if (!factor)
    return;
  const Interval &time = *c.decisive();
  c.cycles = Interval{time.ratio * *factor, time.lower * *factor,
                      time.upper * *factor};
  c.cyclesVerdict = decide(*c.cycles, c.threshold);
}

/// For a regression or improvement: the SM clock around the kernel's timed
/// loop (in place of the clock read at the probe) and new throttle reasons
/// among the causes, where the clocks sit in the order; both first, with a
/// note, when the change disappears in cycles; a note when cycles confirm it.
void attributeToClocks(const KernelResult &b, const KernelResult &n,
                       KernelComparison &c) {
  std::vector<Cause> clockCauses;
  if (const std::optional<double> ratio = clockRatio(b, n)) {
    c.causes.erase(std::remove_if(c.causes.begin(), c.causes.end(),
                                  [](const Cause &cause) {
                                    return cause.what == "SM clock (MHz)";
                                  }),
                   c.causes.end());
    if (std::fabs(*ratio - 1) >= kClockChange)
      clockCauses.push_back(
          {"SM clock (MHz)", fixed(loopClock(b), 0), fixed(loopClock(n), 0)});
  }
  if (const std::optional<Cause> throttling = throttlingCause(b, n))
    clockCauses.push_back(*throttling);
  const bool explained = c.cycles && *c.cyclesVerdict != c.verdict &&
                         *c.cyclesVerdict != CompareVerdict::Unknown;
  auto at = c.causes.begin();
  if (!explained) // where the clocks come among the run's differences
    at = std::find_if(c.causes.begin(), c.causes.end(), [](const Cause &cause) {
      return cause.what == "SM clock (MHz)" || cause.what == "memory clock (MHz)" ||
             cause.what == "machine" || cause.what == "host";
    });
  c.causes.insert(at, clockCauses.begin(), clockCauses.end());
  if (!c.cycles)
    return;
  const std::string inCycles = percent(c.cycles->ratio) + " [" +
                               percent(c.cycles->lower) + ", " +
                               percent(c.cycles->upper) + "]";
  std::string note;
  if (*c.cyclesVerdict == c.verdict)
    note = "confirmed in cycles (time x SM clock): " + inCycles;
  else if (explained)
    note = std::string(compareVerdictName(*c.cyclesVerdict)) +
           " in cycles (time x SM clock): " + inCycles +
           ": the SM clock explains it";
  else
    note = "in cycles (time x SM clock): " + inCycles + ", " +
           compareVerdictName(*c.cyclesVerdict);
  c.why += (c.why.empty() ? "" : "; ") + note;
}

void compareOne(const std::map<Key, const KernelResult *> &baseIndex,
                const std::map<Key, const KernelResult *> &newIndex,
                const KernelResult &b, const KernelResult &n,
                const CompareOptions &options,
                const std::vector<Cause> &runCauses, KernelComparison &c) {
  c.baseSamples = b.samplesMs.size();
  c.newSamples = n.samplesMs.size();
  if (b.op != n.op) {
    c.verdict = CompareVerdict::NotComparable;
    c.why = "another op in NEW";
    return;
  }
  auto withCauses = [&] {
    c.causes = kernelDifferences(b, n);
    c.causes.insert(c.causes.end(), runCauses.begin(), runCauses.end());
  };
  if (!timed(b) || !timed(n)) {
    if (timed(b)) { // it was measured and now fails
      c.verdict = CompareVerdict::Regressed;
      c.why = std::string("status ok in BASE, ") + runStatusName(n.status) +
              " in NEW";
      withCauses();
      c.causes.insert(c.causes.begin(), {"status", "ok", runStatusName(n.status)});
    } else {
      c.verdict = CompareVerdict::Unknown;
      c.why = std::string("not measured: ") + runStatusName(b.status) +
              " in BASE, " + runStatusName(n.status) + " in NEW";
    }
    return;
  }
  std::string why;
  c.raw = ratioOf(b, n, options, why, &c.pValue);
  if (!c.raw) {
    c.verdict = CompareVerdict::Unknown;
    c.why = why;
    return;
  }
  // The baseline measured beside the kernel in both runs.
  bool baselineMoved = false; // beyond the practical minimum, clearly
  const KernelResult *bb = nullptr, *nb = nullptr;
  if (!n.baseline.empty() && n.baseline == b.baseline) {
    for (const auto &[key, r] : baseIndex)
      if (key.second == b.baseline && key.first != b.implementation)
        bb = r;
    for (const auto &[key, r] : newIndex)
      if (key.second == n.baseline && key.first != n.implementation)
        nb = r;
    if (bb && nb && timed(*bb) && timed(*nb)) {
      std::string baselineWhy;
      if (const std::optional<Interval> bi = ratioOf(*bb, *nb, options, baselineWhy)) {
        c.baselineRatio = bi->ratio;
        c.normalized = normalize(*c.raw, *bi);
        baselineMoved = decide(*bi, c.threshold) == CompareVerdict::Regressed ||
                        decide(*bi, c.threshold) == CompareVerdict::Improved;
      }
    }
  }
  c.verdict = decide(*c.decisive(), c.threshold);
  if (c.verdict == CompareVerdict::Unknown)
    c.why = "too noisy: the interval " + percent(c.decisive()->lower) + ".." +
            percent(c.decisive()->upper) + " is wider than the practical "
            "minimum of " + fixed(100 * c.threshold, 1) + "% allows";
  if (baselineMoved)
    c.why += std::string(c.why.empty() ? "" : "; ") + "the baseline moved too (" +
             percent(*c.baselineRatio) + "): the machine changed, not only "
             "the kernel";
  judgeInCycles(b, n, c.normalized ? bb : nullptr, c.normalized ? nb : nullptr, c);
  if (c.verdict == CompareVerdict::Regressed ||
      c.verdict == CompareVerdict::Improved) {
    withCauses();
    attributeToClocks(b, n, c);
  }
}

std::string describeRun(const std::string &label, const std::string &createdAt) {
  return escapeForTerminal(label) +
         (createdAt.empty() ? "" : " (" + escapeForTerminal(createdAt) + ")");
}

std::string causeText(const Cause &cause) {
  const std::string before = cause.before.empty() ? "(none)" : cause.before;
  const std::string after = cause.after.empty() ? "(none)" : cause.after;
  return escapeForTerminal(cause.what + ": " + before + " -> " + after);
}

std::string intervalText(const KernelComparison &c) {
  const Interval *i = c.decisive();
  if (!i)
    return "";
  std::string text = percent(i->ratio) + " [" + percent(i->lower) + ", " +
                     percent(i->upper) + "]";
  if (c.normalized)
    text += " vs baseline (raw " + percent(c.raw->ratio) + ")";
  return text;
}

std::string markdownCell(const std::string &text) {
  std::string out;
  for (char ch : escapeForTerminal(text))
    out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

constexpr CompareVerdict kVerdicts[] = {
    CompareVerdict::Regressed, CompareVerdict::Improved, CompareVerdict::Same,
    CompareVerdict::Unknown, CompareVerdict::NotComparable};

/// "1 regressed, 0 improved, ..." over the kernels (not the baselines),
/// the regressions' count between `mark`s.
std::string summaryCounts(const Comparison &c, const std::string &mark) {
  std::string out;
  for (CompareVerdict v : kVerdicts) {
    const std::string item = std::to_string(c.count(v)) + " " + compareVerdictName(v);
    out += (out.empty() ? "" : ", ") +
           (v == CompareVerdict::Regressed ? mark + item + mark : item);
  }
  return out;
}

json intervalJson(const std::optional<Interval> &i) {
  if (!i)
    return json();
  return {{"ratio", i->ratio}, {"lower", i->lower}, {"upper", i->upper}};
}

json causesJson(const std::vector<Cause> &causes) {
  json out = json::array();
  for (const Cause &c : causes)
    out.push_back({{"what", c.what}, {"before", c.before}, {"after", c.after}});
  return out;
}

} // namespace

const char *compareVerdictName(CompareVerdict verdict) {
  switch (verdict) {
  case CompareVerdict::Regressed:
    return "regressed";
  case CompareVerdict::Improved:
    return "improved";
  case CompareVerdict::Same:
    return "same";
  case CompareVerdict::Unknown:
    return "unknown";
  case CompareVerdict::NotComparable:
    return "not comparable";
  }
  return "unknown";
}

double practicalMinimum(const std::string &kind) {
  if (kind == "gemm" || kind == "attention")
    return 0.03;
  return 0.05;
}

std::vector<const KernelResult *> countedResults(const ResultsFile &file) {
  std::vector<Key> order;
  const auto counted = index(file, order);
  std::vector<const KernelResult *> out;
  for (const Key &key : order)
    out.push_back(counted.at(key));
  return out;
}

size_t Comparison::count(CompareVerdict verdict, bool baselines) const {
  return static_cast<size_t>(std::count_if(
      kernels.begin(), kernels.end(), [&](const KernelComparison &k) {
        return k.verdict == verdict && k.isBaseline == baselines;
      }));
}

Comparison compareRuns(const ResultsFile &base, const ResultsFile &now,
                       const CompareOptions &options) {
  Comparison out;
  out.baseCreatedAt = base.createdAt;
  out.newCreatedAt = now.createdAt;
  const DeviceInfo &bd = base.device, &nd = now.device;
  if (bd.name != nd.name || bd.ccMajor != nd.ccMajor ||
      bd.ccMinor != nd.ccMinor || bd.smCount != nd.smCount) {
    out.comparable = false;
    out.whyNotComparable = "another device: " +
                           (bd.name.empty() ? "(none)" : bd.name) + " (" +
                           std::to_string(bd.smCount) + " SMs) in BASE, " +
                           (nd.name.empty() ? "(none)" : nd.name) + " (" +
                           std::to_string(nd.smCount) + " SMs) in NEW";
  }
  out.runDifferences = runDifferences(base, now);
  std::vector<Key> baseOrder, newOrder;
  const auto baseIndex = index(base, baseOrder);
  const auto newIndex = index(now, newOrder);
  std::set<std::string> baselineNames; // results named as another's baseline
  for (const KernelResult &r : now.results)
    if (!r.baseline.empty())
      baselineNames.insert(r.baseline);
  for (const KernelResult &r : base.results)
    if (!r.baseline.empty())
      baselineNames.insert(r.baseline);
  auto row = [&](const Key &key) {
    KernelComparison c;
    c.implementation = key.first;
    c.name = key.second;
    const auto b = baseIndex.find(key), n = newIndex.find(key);
    const KernelResult &any = n != newIndex.end() ? *n->second : *b->second;
    c.kind = kindOf(any);
    c.isBaseline = baselineNames.count(key.second) && any.implementation != "kgen";
    c.threshold = options.threshold ? *options.threshold : practicalMinimum(c.kind);
    if (!out.comparable) {
      c.verdict = CompareVerdict::NotComparable;
      c.why = out.whyNotComparable;
    } else if (b == baseIndex.end() || n == newIndex.end()) {
      c.verdict = CompareVerdict::NotComparable;
      c.why = b == baseIndex.end() ? "only in NEW" : "only in BASE";
    } else {
      compareOne(baseIndex, newIndex, *b->second, *n->second,
                 options, out.runDifferences, c);
    }
    out.kernels.push_back(std::move(c));
  };
  for (const Key &key : newOrder)
    row(key);
  for (const Key &key : baseOrder)
    if (!newIndex.count(key))
      row(key);
  return out;
}

std::vector<ConfirmItem> confirmPlan(const Comparison &comparison) {
  std::vector<ConfirmItem> plan;
  for (const KernelComparison &k : comparison.kernels) {
    if (k.isBaseline || (k.verdict != CompareVerdict::Regressed &&
                         k.verdict != CompareVerdict::Unknown))
      continue;
    const unsigned rounds = k.verdict == CompareVerdict::Regressed
                                ? kConfirmRounds
                                : 2 * kConfirmRounds;
    plan.push_back({k.implementation, k.name, k.verdict, k.threshold, rounds});
  }
  return plan;
}

std::vector<size_t> confirmOrder(size_t round) { return roundOrder(2, round); }

Confirmation decideConfirmation(const std::vector<ConfirmRound> &rounds,
                                double threshold, double level) {
  Confirmation out;
  std::vector<double> logRatios;
  for (const ConfirmRound &r : rounds)
    if (r.baseMs > 0 && r.newMs > 0 && std::isfinite(r.baseMs) &&
        std::isfinite(r.newMs))
      logRatios.push_back(std::log(r.newMs / r.baseMs));
  out.rounds = logRatios.size();
  const auto interval = medianInterval(logRatios, level);
  if (!interval) {
    out.why = "too few paired rounds to say (" + std::to_string(out.rounds) +
              " of " + std::to_string(rounds.size()) + " measured both)";
    return out;
  }
  Interval i;
  i.ratio = std::exp(median(logRatios));
  i.lower = std::exp(interval->first);
  i.upper = std::exp(interval->second);
  out.ratio = i;
  out.verdict = decide(i, threshold);
  out.why = std::string(compareVerdictName(out.verdict)) + " over " +
            std::to_string(out.rounds) + " interleaved rounds: " +
            percent(i.ratio) + " [" + percent(i.lower) + ", " +
            percent(i.upper) + "]";
  return out;
}

void applyConfirmation(KernelComparison &row, const Confirmation &confirmation) {
  const CompareVerdict before = row.verdict;
  if (confirmation.verdict != CompareVerdict::Unknown)
    row.verdict = confirmation.verdict;
  row.why += std::string(row.why.empty() ? "" : "; ") + "--confirm: " +
             confirmation.why +
             (row.verdict == before
                  ? ""
                  : std::string(" (was ") + compareVerdictName(before) + ")");
  if (row.verdict != CompareVerdict::Regressed &&
      row.verdict != CompareVerdict::Improved)
    row.causes.clear();
}

int comparisonExitCode(const Comparison &comparison) {
  return comparison.count(CompareVerdict::Regressed) > 0 ? 1 : 0;
}

std::string formatComparisonText(const Comparison &c) {
  std::string out = "BASE " + describeRun(c.baseLabel, c.baseCreatedAt) +
                    "\nNEW  " + describeRun(c.newLabel, c.newCreatedAt) + "\n";
  if (!c.comparable)
    out += "not comparable: " + escapeForTerminal(c.whyNotComparable) + "\n";
  if (!c.runDifferences.empty()) {
    out += "run differences:";
    for (const Cause &cause : c.runDifferences)
      out += "\n  " + causeText(cause);
    out += "\n";
  }
  // Regressions first, with their causes; then the rest, one line each.
  std::vector<const KernelComparison *> rows;
  for (const KernelComparison &k : c.kernels)
    rows.push_back(&k);
  std::stable_sort(rows.begin(), rows.end(), [](auto *x, auto *y) {
    return static_cast<int>(x->verdict) < static_cast<int>(y->verdict);
  });
  for (const KernelComparison *k : rows) {
    std::string verdict = compareVerdictName(k->verdict);
    std::transform(verdict.begin(), verdict.end(), verdict.begin(), [](char ch) {
      return static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    });
    verdict.resize(std::max<size_t>(verdict.size(), 14), ' ');
    out += verdict + " " + escapeForTerminal(k->implementation) + " " +
           escapeForTerminal(k->name);
    if (k->isBaseline)
      out += " (baseline)";
    const std::string interval = intervalText(*k);
    if (!interval.empty())
      out += "  " + interval;
    out += "\n";
    if (!k->why.empty())
      out += "    " + escapeForTerminal(k->why) + "\n";
    if (!k->isBaseline && (k->verdict == CompareVerdict::Regressed ||
                           k->verdict == CompareVerdict::Improved)) {
      if (k->causes.empty())
        out += "    no recorded difference explains it (noise, or something "
               "not recorded: --confirm on a GPU)\n";
      for (const Cause &cause : k->causes)
        out += "    cause? " + causeText(cause) + "\n";
    }
  }
  out += "summary: " + summaryCounts(c, "");
  size_t baselines = 0;
  for (const KernelComparison &k : c.kernels)
    baselines += k.isBaseline;
  if (baselines)
    out += " (and " + std::to_string(baselines) + " baselines)";
  return out + "\n";
}

std::string formatComparisonMarkdown(const Comparison &c) {
  std::string out = "### kgen-bench compare\n\n";
  out += "BASE `" + markdownCell(c.baseLabel) + "`, NEW `" +
         markdownCell(c.newLabel) + "`\n\n";
  out += summaryCounts(c, "**") + "\n\n";
  if (!c.comparable)
    out += "Not comparable: " + markdownCell(c.whyNotComparable) + "\n\n";
  for (const KernelComparison &k : c.kernels) {
    if (k.verdict != CompareVerdict::Regressed || k.isBaseline)
      continue;
    out += "- **" + markdownCell(k.name) + "** " + markdownCell(intervalText(k)) +
           "\n";
    for (const Cause &cause : k.causes)
      out += "  - " + markdownCell(causeText(cause)) + "\n";
  }
  out += "\n| verdict | implementation | kernel | NEW/BASE | interval | vs baseline | note |\n"
         "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const KernelComparison &k : c.kernels) {
    const Interval *i = k.decisive();
    out += "| " + std::string(compareVerdictName(k.verdict)) + " | " +
           markdownCell(k.implementation) + (k.isBaseline ? " (baseline)" : "") +
           " | " + markdownCell(k.name) + " | " +
           (i ? percent(i->ratio) : "-") + " | " +
           (i ? percent(i->lower) + ".." + percent(i->upper) : "-") + " | " +
           (k.normalized ? "yes" : "no") + " | " + markdownCell(k.why) + " |\n";
  }
  return out;
}

json toJson(const Comparison &c) {
  json kernels = json::array();
  for (const KernelComparison &k : c.kernels)
    kernels.push_back({{"implementation", k.implementation},
                       {"name", k.name},
                       {"kind", k.kind},
                       {"baseline", k.isBaseline},
                       {"verdict", compareVerdictName(k.verdict)},
                       {"why", k.why},
                       {"raw", intervalJson(k.raw)},
                       {"normalized", intervalJson(k.normalized)},
                       {"baseline_ratio", k.baselineRatio ? json(*k.baselineRatio) : json()},
                       {"cycles", intervalJson(k.cycles)},
                       {"cycles_verdict", k.cyclesVerdict
                                              ? json(compareVerdictName(*k.cyclesVerdict))
                                              : json()},
                       {"p_value", k.pValue ? json(*k.pValue) : json()},
                       {"threshold", k.threshold},
                       {"samples", {k.baseSamples, k.newSamples}},
                       {"causes", causesJson(k.causes)}});
  json summary;
  for (CompareVerdict v : kVerdicts)
    summary[compareVerdictName(v)] = c.count(v);
  return {{"schema", "kgen.comparison"},
          {"version", 1},
          {"base", {{"label", c.baseLabel}, {"created_at", c.baseCreatedAt}}},
          {"new", {{"label", c.newLabel}, {"created_at", c.newCreatedAt}}},
          {"comparable", c.comparable},
          {"why_not_comparable", c.whyNotComparable},
          {"run_differences", causesJson(c.runDifferences)},
          {"kernels", std::move(kernels)},
          {"summary", std::move(summary)},
          {"exit_code", comparisonExitCode(c)}};
}

} // namespace kgen::rt
