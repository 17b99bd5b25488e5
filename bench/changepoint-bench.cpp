//===- changepoint-bench.cpp - the change-point detector on synthetic series ===//
//
// Prints, for the detector `kgen-bench history series` uses (ChangePoint.h,
// with its defaults: points clipped to 3 sigma around a running median of
// 5, penalty 3 log(n), segments of >= 3 points, changes under 2% dropped):
// - the false-alarm rate: the fraction of noise-only series in which it
//   finds any change, for Gaussian noise of 0.5% and 1% on log time, and
//   for 1% noise with 3% of points outliers (+5..20%, a throttled run);
// - the detection delay: a step of +3%, +5% or +10% enters a series after
//   40 points; the detector runs after each new point (as a nightly job
//   would) and the delay is the number of points after the step until it
//   reports a change within 1 point of the true one (at most 20 points
//   are waited for: rate = the fraction detected by then).
// Usage: kgen-changepoint-bench [--series N] [--seed S] (default 1000, 1).
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/ChangePoint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kgen::rt;

namespace {

struct Noise {
  const char *name;
  double sigma;        // of log time
  double outlierRate;  // fraction of points hit by an outlier
};

constexpr size_t kLength = 60;   // noise-only series
constexpr size_t kStepAt = 40;   // first point after the step
constexpr size_t kMaxWait = 20;  // points after the step waited for

std::vector<double> noiseSeries(std::mt19937_64 &rng, const Noise &noise,
                                size_t n) {
  std::normal_distribution<double> gauss(0, noise.sigma);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> y(n);
  for (double &v : y) {
    v = gauss(rng);
    if (unit(rng) < noise.outlierRate)
      v += std::log1p(0.05 + 0.15 * unit(rng));
  }
  return y;
}

/// kgen-bench history series's detector: the defaults.
ChangePointOptions detectorOptions() { return ChangePointOptions{}; }

double falseAlarmRate(std::mt19937_64 &rng, const Noise &noise, size_t n,
                      int series) {
  int alarms = 0;
  for (int s = 0; s < series; ++s)
    alarms += !detectChangePoints(noiseSeries(rng, noise, n), detectorOptions()).empty();
  return static_cast<double>(alarms) / series;
}

struct Delay {
  double rate = 0;      // detected within kMaxWait points
  double median = 0;    // of the detected ones
  double p90 = 0;
  double early = 0;     // fraction with a false alarm before the step
};

Delay detectionDelay(std::mt19937_64 &rng, const Noise &noise, double step,
                     int series) {
  std::vector<double> delays;
  int early = 0;
  for (int s = 0; s < series; ++s) {
    std::vector<double> y = noiseSeries(rng, noise, kStepAt + kMaxWait);
    for (size_t i = kStepAt; i < y.size(); ++i)
      y[i] += std::log1p(step);
    const std::vector<double> before(y.begin(), y.begin() + kStepAt);
    early += !detectChangePoints(before, detectorOptions()).empty();
    for (size_t seen = 1; seen <= kMaxWait; ++seen) {
      const std::vector<double> prefix(y.begin(), y.begin() + kStepAt + seen);
      const std::vector<size_t> found = detectChangePoints(prefix, detectorOptions());
      if (std::any_of(found.begin(), found.end(), [](size_t c) {
            return c + 1 >= kStepAt && c <= kStepAt + 1;
          })) {
        delays.push_back(static_cast<double>(seen));
        break;
      }
    }
  }
  Delay d;
  d.rate = static_cast<double>(delays.size()) / series;
  d.early = static_cast<double>(early) / series;
  if (!delays.empty()) {
    std::sort(delays.begin(), delays.end());
    d.median = delays[delays.size() / 2];
    d.p90 = delays[std::min(delays.size() - 1, delays.size() * 9 / 10)];
  }
  return d;
}

} // namespace

int main(int argc, char **argv) {
  int series = 1000;
  unsigned long long seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--series" || a == "--seed") && i + 1 < argc) {
      char *end = nullptr;
      const unsigned long long v = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || (a == "--series" && (v < 1 || v > 1000000))) {
        std::fprintf(stderr, "kgen-changepoint-bench: bad value for %s\n", a.c_str());
        return 2;
      }
      (a == "--series" ? series = static_cast<int>(v) : (seed = v, 0));
    } else {
      std::fprintf(stderr, "usage: kgen-changepoint-bench [--series N] [--seed S]\n");
      return 2;
    }
  }
  std::mt19937_64 rng(seed);
  const Noise noises[] = {{"gaussian 0.5%", 0.005, 0},
                          {"gaussian 1%", 0.01, 0},
                          {"1% + 3% outliers", 0.01, 0.03}};
  std::printf("PELT, normal mean-shift cost, 3-sigma clipping, penalty 3 log(n), "
              "min segment 3, min shift 2%%; %d series per row, seed %llu\n\n", series, seed);
  std::printf("false alarms (noise only: any change found)\n");
  std::printf("%-18s %8s %8s %8s\n", "noise", "n=30", "n=60", "n=120");
  for (const Noise &noise : noises) {
    std::printf("%-18s", noise.name);
    for (size_t n : {size_t{30}, kLength, size_t{120}})
      std::printf(" %7.1f%%", 100 * falseAlarmRate(rng, noise, n, series));
    std::printf("\n");
  }
  std::printf("\ndetection of a step after %zu points (delay in points after "
              "the step, waiting at most %zu)\n", kStepAt, kMaxWait);
  std::printf("%-18s %6s %9s %8s %8s %12s\n", "noise", "step", "detected",
              "median", "p90", "alarm before");
  for (const Noise &noise : noises)
    for (double step : {0.03, 0.05, 0.10}) {
      const Delay d = detectionDelay(rng, noise, step, series);
      std::printf("%-18s %5.0f%% %8.1f%% %8.0f %8.0f %11.1f%%\n", noise.name,
                  100 * step, 100 * d.rate, d.median, d.p90, 100 * d.early);
    }
  return 0;
}
