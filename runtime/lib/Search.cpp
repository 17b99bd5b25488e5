//===- Search.cpp - how a tuner spends its measurements -------------------===//

#include "kgen/runtime/Search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace kgen::rt {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool validTime(double t) { return t > 0 && std::isfinite(t); }

/// Round r's median over the finalists measured in it, if at least two.
double roundMedian(const std::vector<std::vector<double>> &times, size_t r) {
  std::vector<double> round;
  for (const std::vector<double> &t : times)
    if (r < t.size() && validTime(t[r]))
      round.push_back(t[r]);
  return round.size() >= 2 ? median(round) : kNaN;
}

size_t roundCount(const std::vector<std::vector<double>> &times) {
  size_t rounds = 0;
  for (const std::vector<double> &t : times)
    rounds = std::max(rounds, t.size());
  return rounds;
}
} // namespace

double median(std::vector<double> values) {
  if (values.empty())
    return kNaN;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

size_t measurementBudget(size_t spaceSize, size_t requested) {
  if (requested > 0)
    return std::min(requested, spaceSize);
  const size_t share = static_cast<size_t>(
      std::floor(kDefaultMeasuredShare * static_cast<double>(spaceSize)));
  return std::min(spaceSize, std::max<size_t>(1, share));
}

std::vector<size_t> pickFinalists(const std::vector<double> &medians,
                                  size_t count, double window) {
  std::vector<size_t> order;
  for (size_t i = 0; i < medians.size(); ++i)
    if (validTime(medians[i]))
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return medians[a] < medians[b]; });
  std::vector<size_t> out;
  for (size_t i : order) {
    if (out.size() == count ||
        medians[i] > std::max(1.0, window) * medians[order.front()])
      break;
    out.push_back(i);
  }
  return out;
}

std::vector<size_t> roundOrder(size_t n, size_t round) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  if (n > 0)
    std::rotate(order.begin(), order.begin() + static_cast<long>(round % n),
                order.end());
  return order;
}

std::vector<double> pairedScores(const std::vector<std::vector<double>> &times) {
  const size_t rounds = roundCount(times);
  std::vector<double> norms(rounds);
  for (size_t r = 0; r < rounds; ++r)
    norms[r] = roundMedian(times, r);
  std::vector<double> scores;
  for (const std::vector<double> &t : times) {
    std::vector<double> normalised;
    for (size_t r = 0; r < t.size(); ++r)
      if (validTime(t[r]) && std::isfinite(norms[r]))
        normalised.push_back(t[r] / norms[r]);
    scores.push_back(median(normalised));
  }
  return scores;
}

bool correctRun(const CandidateRun &run) {
  return run.result && run.result->status == RunStatus::Ok &&
         run.result->relError >= 0 && run.result->time &&
         run.result->time->medianMs > 0;
}

double SearchOutcome::scale() const {
  return usesBaselines ? median(baselineMs) : 1.0;
}

std::optional<size_t> SearchOutcome::best() const {
  std::optional<size_t> best;
  for (size_t i = 0; i < relative.size(); ++i)
    if (validTime(relative[i]) && (!best || relative[i] < relative[*best]))
      best = i;
  return best;
}

namespace {
/// The drift-free value of a run, or NaN; records its baseline.
double runValue(const CandidateRun &run, SearchOutcome &o) {
  if (validTime(run.baselineMs))
    o.baselineMs.push_back(run.baselineMs);
  if (!correctRun(run))
    return kNaN;
  const double ms = run.result->time->medianMs;
  return o.usesBaselines ? ms / run.baselineMs : ms;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

SearchStatus searchCandidates(
    size_t count, const SearchOptions &options, const MeasureFn &measure,
    const std::function<void(const std::vector<size_t> &)> &progress,
    SearchOutcome &o, std::string &err) {
  const auto start = std::chrono::steady_clock::now();
  o = SearchOutcome();
  o.first.assign(count, CandidateRun());
  o.relative.assign(count, kNaN);
  const size_t batch = std::max<size_t>(1, options.batch);
  for (size_t b = 0; b < count; b += batch) {
    if (secondsSince(start) >= options.maxSeconds) {
      o.budgetSpent = true;
      break;
    }
    std::vector<size_t> indices;
    for (size_t i = b; i < std::min(count, b + batch); ++i)
      indices.push_back(i);
    std::vector<CandidateRun> runs(indices.size());
    const SearchStatus status = measure(indices, runs, err);
    if (status != SearchStatus::Ok)
      return status;
    for (size_t k = 0; k < indices.size(); ++k) {
      o.first[indices[k]] = runs[k];
      if (runs[k].result) {
        ++o.measured;
        // Without a baseline beside a correct run, ratios do not compare.
        if (correctRun(runs[k]) && !validTime(runs[k].baselineMs))
          o.usesBaselines = false;
      }
    }
    if (progress)
      progress(indices);
  }
  o.baselineMs.clear();
  for (size_t i = 0; i < count; ++i)
    o.relative[i] = runValue(o.first[i], o);

  o.finalists = pickFinalists(o.relative, options.finalists, options.window);
  if (o.finalists.size() < 2)
    return SearchStatus::Ok;
  o.finalistRuns.assign(o.finalists.size(), {});
  o.laterFailure.assign(count, CandidateRun());
  for (size_t f = 0; f < o.finalists.size(); ++f)
    o.finalistRuns[f].push_back(o.relative[o.finalists[f]]);
  for (unsigned r = 1; r <= options.rounds; ++r) {
    if (secondsSince(start) >= options.maxSeconds) {
      o.budgetSpent = true;
      break;
    }
    std::vector<size_t> order = roundOrder(o.finalists.size(), r), indices;
    for (size_t f : order)
      indices.push_back(o.finalists[f]);
    std::vector<CandidateRun> runs(indices.size());
    const SearchStatus status = measure(indices, runs, err);
    if (status != SearchStatus::Ok)
      return status;
    for (size_t k = 0; k < order.size(); ++k) {
      o.finalistRuns[order[k]].push_back(runValue(runs[k], o));
      // A finalist that fails now (wrong, faulted: a race, a flaky
      // kernel) is out, and recorded with that run.
      if (runs[k].result && !correctRun(runs[k]) &&
          !o.laterFailure[indices[k]].result)
        o.laterFailure[indices[k]] = runs[k];
    }
  }
  // Each run divided by its median over the finalists, the median over
  // runs: the paired score. Put back on the first pass's scale (its median
  // over the finalists), which the other candidates' values are on, so
  // drift in later rounds moves no finalist past a candidate measured once.
  o.scores = pairedScores(o.finalistRuns);
  std::vector<double> firstRun;
  for (const std::vector<double> &runs : o.finalistRuns)
    if (validTime(runs.front()))
      firstRun.push_back(runs.front());
  const double firstScale = median(firstRun);
  for (size_t f = 0; f < o.finalists.size(); ++f) {
    const size_t i = o.finalists[f];
    if (o.laterFailure[i].result)
      o.relative[i] = kNaN;
    else if (std::isfinite(o.scores[f]) && std::isfinite(firstScale))
      o.relative[i] = o.scores[f] * firstScale;
  }
  return SearchStatus::Ok;
}

TuningKey tuningKeyFor(const KernelResult &result, const DeviceInfo &device) {
  TuningKey key;
  // A moe layer's or grouped GEMM's result is recorded under its grouped
  // GEMM key; what cannot be (no tuned role) keeps its op, which checkKey
  // then refuses, naming the field.
  nlohmann::json config;
  std::string err;
  if (!tuningRecordOf(result.op, result.config, key.op, config, err)) {
    key.op = result.op;
    config = result.config;
  }
  auto target = config.is_object() ? config.find("target") : config.end();
  key.arch = target != config.end() && target->is_string()
                 ? target->get<std::string>()
                 : "";
  auto emitter =
      config.is_object() ? config.find("emitter_version") : config.end();
  key.emitterVersion = emitter != config.end() &&
                               emitter->is_number_integer()
                           ? emitter->get<int>()
                           : 0;
  key.smCount = device.smCount;
  key.device = device.name;
  key.cudaVersion = device.runtimeVersion;
  return key;
}

void addToDb(const SearchOutcome &o, const DeviceInfo &device,
             const std::string &measuredAt, const std::string &host,
             TuningDb &db) {
  for (size_t i = 0; i < o.first.size(); ++i) {
    const CandidateRun &run = o.first[i];
    if (!run.result)
      continue;
    TuningCandidate c;
    nlohmann::json keyOp;
    std::string err;
    if (!tuningRecordOf(run.result->op, run.result->config, keyOp, c.config,
                        err))
      c.config = run.result->config;
    c.status = run.result->status;
    c.correct = correctRun(run);
    if (i < o.laterFailure.size() && o.laterFailure[i].result) {
      c.status = o.laterFailure[i].result->status; // failed when re-measured
      c.correct = false;
    }
    c.time = run.result->time;
    const double corrected = o.correctedMs(i);
    if (c.time && c.correct && validTime(corrected)) {
      const double factor = corrected / c.time->medianMs;
      for (double *v : {&c.time->medianMs, &c.time->q1Ms, &c.time->q3Ms,
                        &c.time->minMs, &c.time->maxMs})
        *v *= factor;
    }
    c.measuredAt = measuredAt;
    c.host = host;
    c.provenance = {{"gpu", device.name},
                    {"sm_clock_mhz", device.smClockKHz / 1000},
                    {"mem_clock_mhz", device.memClockKHz / 1000}};
    db.add(tuningKeyFor(*run.result, device), c);
  }
}

} // namespace kgen::rt
