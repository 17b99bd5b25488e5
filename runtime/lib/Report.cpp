//===- Report.cpp - reports of benchmark runs: HTML, Markdown, CSV --------===//
//
// Every string that comes from a results file or a history (names,
// reasons, labels, causes, notes) goes through escapeHtml, mdText or
// csvField; numbers are formatted here. The page loads nothing: its
// Content-Security-Policy forbids every source but its inline style and
// the one script whose SHA-256 it names.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Report.h"

#include "kgen/runtime/Names.h"
#include "kgen/runtime/Sha256.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace kgen::rt {

namespace {

std::string num(double v, int precision) {
  if (!std::isfinite(v))
    return "-";
  char buf[64];
  // Fixed point for what a measurement gives; a file's extremes in short.
  if (std::fabs(v) >= 1e15)
    std::snprintf(buf, sizeof buf, "%.6g", v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

/// "+9.7%" for a ratio of 1.097.
std::string change(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1) * 100);
  return buf;
}

/// A number for an attribute or an SVG coordinate (always finite).
std::string attrNum(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", std::isfinite(v) ? v : 0.0);
  return buf;
}

std::string base64(const std::string &bytes) {
  static const char *digits =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 |
                       static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += {digits[v >> 18], digits[v >> 12 & 63], digits[v >> 6 & 63], digits[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += {digits[v >> 18], digits[v >> 12 & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 |
                       static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += {digits[v >> 18], digits[v >> 12 & 63], digits[v >> 6 & 63], '='};
  }
  return out;
}

/// The CSP source of an inline script: 'sha256-<base64 of its digest>'.
std::string scriptHash(const std::string &script) {
  const std::string hex = sha256Hex(script);
  std::string raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return "'sha256-" + base64(raw) + "'";
}

/// Markdown text: characters Markdown or HTML would read escaped, the
/// rest escaped for a terminal (one line, no control characters).
std::string mdText(const std::string &text) {
  std::string out;
  for (char ch : escapeForTerminal(text)) {
    switch (ch) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '|': case '`': case '*': case '_': case '[': case ']': case '\\':
    case '#': case '~':
      out += '\\';
      out += ch;
      break;
    default: out += ch;
    }
  }
  return out;
}

/// The cost model's prediction recorded with a result: its config's
/// `predicted_ms`, when a positive finite number.
std::optional<double> predictedMs(const KernelResult &r) {
  if (!r.config.is_object())
    return std::nullopt;
  const auto it = r.config.find("predicted_ms");
  if (it == r.config.end() || !it->is_number())
    return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
}

std::string kernelKey(const std::string &implementation, const std::string &name) {
  return implementation + '\n' + name;
}

/// Arithmetic intensity (FLOP per byte moved) of a timed result with both
/// rates, else nothing.
std::optional<double> intensity(const KernelResult &r) {
  if (r.status != RunStatus::Ok || !(r.tflops > 0) || !(r.gbps > 0))
    return std::nullopt;
  const double ai = r.tflops * 1000 / r.gbps;
  return std::isfinite(ai) && ai > 0 ? std::optional<double>(ai) : std::nullopt;
}

/// The attainable rate (TFLOP/s) at intensity `ai` under the ceilings.
double roof(const Ceilings &c, double ai) {
  return std::min(c.matmulTflops, c.copyGBps * ai / 1000);
}

bool hasCeilings(const ResultsFile &f) {
  return f.ceilings && f.ceilings->copyGBps > 0 && f.ceilings->matmulTflops > 0;
}

/// What a report says about one result, computed once for every format.
struct Row {
  const ReportRun *run = nullptr;
  const KernelResult *result = nullptr;
  std::optional<double> ai, fractionOfRoof, predicted;
  const KernelComparison *comparison = nullptr;
};

std::vector<Row> rowsOf(const ReportInput &input) {
  std::map<std::string, const KernelComparison *> verdicts;
  if (input.comparison)
    for (const KernelComparison &k : input.comparison->kernels)
      verdicts[kernelKey(k.implementation, k.name)] = &k;
  std::vector<Row> rows;
  for (size_t i = 0; i < input.runs.size(); ++i) {
    const ReportRun &run = input.runs[i];
    for (const KernelResult *r : countedResults(run.file)) {
      Row row;
      row.run = &run;
      row.result = r;
      row.ai = intensity(*r);
      if (row.ai && hasCeilings(run.file))
        row.fractionOfRoof = r->tflops / roof(*run.file.ceilings, *row.ai);
      row.predicted = predictedMs(*r);
      if (i == 0) {
        const auto it = verdicts.find(kernelKey(r->implementation, r->name));
        if (it != verdicts.end())
          row.comparison = it->second;
      }
      rows.push_back(row);
    }
  }
  return rows;
}

std::string opKind(const KernelResult &r) {
  if (r.op.is_object() && r.op.contains("kind") && r.op["kind"].is_string())
    return r.op["kind"].get<std::string>();
  return "";
}

struct SpeedupSummary {
  size_t kernels = 0, faster = 0;
  double geomean = 0, lowest = 0, highest = 0;
};

/// kgen's speed-ups over the baselines measured beside it, in runs[0].
SpeedupSummary speedups(const std::vector<Row> &rows, const ReportRun *first) {
  SpeedupSummary s;
  double logSum = 0;
  for (const Row &row : rows) {
    const KernelResult &r = *row.result;
    if (row.run != first || r.implementation != "kgen" || r.status != RunStatus::Ok ||
        !(r.speedupOverBaseline > 0) || !std::isfinite(r.speedupOverBaseline))
      continue;
    const double v = r.speedupOverBaseline;
    s.lowest = s.kernels ? std::min(s.lowest, v) : v;
    s.highest = s.kernels ? std::max(s.highest, v) : v;
    logSum += std::log(v);
    s.faster += v > 1;
    ++s.kernels;
  }
  if (s.kernels)
    s.geomean = std::exp(logSum / static_cast<double>(s.kernels));
  return s;
}

std::string deviceText(const ResultsFile &f) {
  const DeviceInfo &d = f.device;
  if (d.name.empty())
    return "no device";
  return d.name + " (" + std::to_string(d.smCount) + " SMs, CC " +
         std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) + ", driver " +
         d.driverVersion + ", SM clock " + std::to_string(d.smClockKHz / 1000) + " MHz)";
}

std::string causeLine(const Cause &c) {
  return c.what + ": " + (c.before.empty() ? "(none)" : c.before) + " -> " +
         (c.after.empty() ? "(none)" : c.after);
}

std::string intervalLine(const KernelComparison &k) {
  const Interval *i = k.decisive();
  if (!i)
    return "";
  std::string text = change(i->ratio) + " [" + change(i->lower) + ", " +
                     change(i->upper) + "]";
  if (k.normalized && k.raw)
    text += " vs baseline (raw " + change(k.raw->ratio) + ")";
  return text;
}

size_t resultsNotOk(const ResultsFile &f) {
  size_t n = 0;
  for (const KernelResult *r : countedResults(f))
    n += r->status != RunStatus::Ok && r->status != RunStatus::Skipped;
  return n;
}

// ---------------------------------------------------------------- HTML --

constexpr const char *kStyle = R"(
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1200px}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}
.banner{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em;font-weight:bold}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}
th{background:#f3f3f3;cursor:pointer}td.t{text-align:left}
tr.bad td{background:#fde8e8}.regressed{color:#b00020;font-weight:bold}
.improved{color:#176b2c;font-weight:bold}.muted{color:#777}
.regression{border-left:4px solid #b00020;padding:.2em .8em;margin:.6em 0}
.improvement{border-left:4px solid #176b2c;padding:.2em .8em;margin:.6em 0}
svg{background:#fff;border:1px solid #ddd;margin:.4em 0}
svg text{font-size:11px;fill:#333}.roof{fill:none;stroke:#444;stroke-width:2}
.grid{stroke:#eee}.series{fill:none;stroke:#1f77b4;stroke-width:1.5}
.change{stroke:#b00020;stroke-dasharray:4 3;stroke-width:1.5}
.change.acked{stroke:#999}.segment{stroke:#ff7f0e;stroke-width:2}
.bar{display:inline-block;height:.7em;background:#1f77b4;vertical-align:middle}
.wide{overflow-x:auto}
)";

/// Sorts a table by the column clicked (numbers by their data-v), and says
/// it ran (body data-script="ran") so a headless check can tell.
constexpr const char *kScript =
    "(function(){"
    "function key(c){var v=c.getAttribute('data-v');"
    "return v===null?c.textContent:parseFloat(v);}"
    "var ths=document.querySelectorAll('table.sortable th');"
    "for(var n=0;n<ths.length;n++)(function(th){"
    "th.addEventListener('click',function(){"
    "var i=th.cellIndex,tb=th.closest('table').tBodies[0];"
    "var rows=Array.prototype.slice.call(tb.rows);"
    "var dir=th.getAttribute('data-dir')==='asc'?-1:1;"
    "th.setAttribute('data-dir',dir>0?'asc':'desc');"
    "rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);"
    "return (x<y?-1:x>y?1:0)*dir;});"
    "rows.forEach(function(r){tb.appendChild(r);});});})(ths[n]);"
    "document.body.setAttribute('data-script','ran');"
    "})();";

const char *implementationColor(const std::string &implementation) {
  if (implementation == "kgen")
    return "#1f77b4";
  if (implementation == "cublaslt")
    return "#7f7f7f";
  if (implementation == "torch")
    return "#ff7f0e";
  if (implementation == "triton")
    return "#2ca02c";
  return "#9467bd";
}

std::string td(const std::string &text, bool isText = false) {
  return std::string(isText ? "<td class=\"t\">" : "<td>") + escapeHtml(text) + "</td>";
}

/// A numeric cell: shown with `precision` digits, sorted by its value.
std::string tdNum(std::optional<double> v, int precision, const std::string &suffix = "") {
  if (!v || !std::isfinite(*v))
    return "<td>-</td>";
  return "<td data-v=\"" + attrNum(*v) + "\">" + num(*v, precision) + suffix + "</td>";
}

void htmlSummary(const ReportInput &in, const std::vector<Row> &rows, std::string &out) {
  out += "<section id=\"summary\"><h2>Summary</h2><ul>\n";
  for (const ReportRun &run : in.runs) {
    const size_t n = countedResults(run.file).size();
    out += "<li class=\"run\">run <b>" + escapeHtml(run.label) + "</b>: " +
           escapeHtml(deviceText(run.file)) + ", made " +
           escapeHtml(run.file.createdAt) +
           (run.file.commit.empty() ? "" : ", commit " + escapeHtml(run.file.commit)) +
           "; " + std::to_string(n) + " results, <span class=\"not-ok\">" +
           std::to_string(resultsNotOk(run.file)) + "</span> not ok</li>\n";
  }
  const ReportRun *first = in.runs.empty() ? nullptr : &in.runs.front();
  if (first && hasCeilings(first->file))
    out += "<li id=\"ceilings\">measured ceilings: copy <span class=\"copy-gbps\">" +
           num(first->file.ceilings->copyGBps, 0) +
           "</span> GB/s, matmul <span class=\"matmul-tflops\">" +
           num(first->file.ceilings->matmulTflops, 1) + "</span> TFLOP/s (" +
           escapeHtml(first->file.ceilings->matmulWhat) + ")</li>\n";
  else
    out += "<li id=\"ceilings\">no measured ceilings in this run: no roofline</li>\n";
  if (in.comparison) {
    const Comparison &c = *in.comparison;
    out += "<li id=\"verdicts\">against <b>" + escapeHtml(c.baseLabel) + "</b>: ";
    const CompareVerdict order[] = {CompareVerdict::Regressed, CompareVerdict::Improved,
                                    CompareVerdict::Same, CompareVerdict::Unknown,
                                    CompareVerdict::NotComparable};
    for (size_t i = 0; i < 5; ++i) {
      const std::string name = compareVerdictName(order[i]);
      std::string cls = name;
      std::replace(cls.begin(), cls.end(), ' ', '-');
      out += std::string(i ? ", " : "") + "<span class=\"count-" + cls + "\">" +
             std::to_string(c.count(order[i])) + "</span> " + name;
    }
    out += " (kernels; baselines measure the machine and are not counted)</li>\n";
  }
  const SpeedupSummary s = speedups(rows, first);
  if (s.kernels)
    out += "<li id=\"speedup\">kgen over its baselines: geometric mean <b "
           "class=\"geomean\">" + num(s.geomean, 3) + "x</b> over " +
           std::to_string(s.kernels) + " kernels (" + std::to_string(s.faster) +
           " faster; from " + num(s.lowest, 3) + "x to " + num(s.highest, 3) + "x)</li>\n";
  if (!in.series.empty()) {
    size_t changes = 0, open = 0;
    for (const ReportSeries &s : in.series) {
      changes += s.analysis.changes.size();
      open += s.analysis.openSlowdowns();
    }
    out += "<li id=\"history-summary\">history: " + std::to_string(in.series.size()) +
           " kernels charted, " + std::to_string(changes) +
           " change points, <span class=\"open-slowdowns\">" + std::to_string(open) +
           "</span> slowdowns not acknowledged</li>\n";
  }
  out += "</ul></section>\n";
}

void htmlComparison(const Comparison &c, std::string &out) {
  out += "<section id=\"regressions\"><h2>Regressions and their causes</h2>\n";
  out += "<p>" + escapeHtml(c.baseLabel) + " (" + escapeHtml(c.baseCreatedAt) +
         ") &rarr; " + escapeHtml(c.newLabel) + " (" + escapeHtml(c.newCreatedAt) +
         "): time ratio NEW/BASE of the medians with its 95% interval, over the "
         "baseline's own ratio where both runs timed it.</p>\n";
  if (!c.comparable)
    out += "<p class=\"regressed\">not comparable: " + escapeHtml(c.whyNotComparable) +
           "</p>\n";
  size_t shown = 0;
  for (const KernelComparison &k : c.kernels) {
    const bool regressed = k.verdict == CompareVerdict::Regressed;
    if (k.isBaseline || (!regressed && k.verdict != CompareVerdict::Improved))
      continue;
    ++shown;
    out += std::string("<div class=\"") + (regressed ? "regression" : "improvement") +
           "\" data-kernel=\"" + escapeHtml(k.name) + "\"><span class=\"" +
           (regressed ? "regressed" : "improved") + "\">" +
           compareVerdictName(k.verdict) + "</span> " + escapeHtml(k.implementation) +
           " <b>" + escapeHtml(k.name) + "</b> " + escapeHtml(intervalLine(k));
    if (!k.why.empty())
      out += " <span class=\"muted\">(" + escapeHtml(k.why) + ")</span>";
    out += "\n<ul class=\"causes\">";
    for (const Cause &cause : k.causes)
      out += "<li class=\"cause\" data-what=\"" + escapeHtml(cause.what) + "\">" +
             escapeHtml(causeLine(cause)) + "</li>";
    if (k.causes.empty())
      out += "<li class=\"no-cause\">no recorded difference between the runs: "
             "noise, or a cause not recorded</li>";
    out += "</ul></div>\n";
  }
  if (!shown)
    out += "<p id=\"no-regressions\">no kernel regressed or improved.</p>\n";
  if (!c.runDifferences.empty()) {
    out += "<p>what differs between the runs:</p><ul id=\"run-differences\">";
    for (const Cause &cause : c.runDifferences)
      out += "<li>" + escapeHtml(causeLine(cause)) + "</li>";
    out += "</ul>\n";
  }
  out += "</section>\n";
}

void htmlResults(const ReportInput &in, const std::vector<Row> &rows, std::string &out) {
  const bool anyPrediction = std::any_of(rows.begin(), rows.end(),
                                         [](const Row &r) { return r.predicted.has_value(); });
  out += "<section id=\"results\"><h2>Results</h2>\n";
  if (!anyPrediction)
    out += "<p class=\"muted\" id=\"no-predictions\">no cost-model prediction is "
           "recorded in these results (a config's predicted_ms): no prediction "
           "column.</p>\n";
  for (const ReportRun &run : in.runs) {
    out += "<h3>" + escapeHtml(run.label) + "</h3>\n<div class=\"wide\"><table class=\"sortable results\">"
           "<thead><tr><th>implementation</th><th>kernel</th><th>kind</th>"
           "<th>status</th><th>median ms</th><th>TFLOP/s</th><th>GB/s</th>"
           "<th>FLOP/byte</th><th>% of roof</th><th>% matmul ceiling</th>"
           "<th>% copy ceiling</th><th>baseline</th><th>speed-up</th>";
    if (anyPrediction)
      out += "<th>model ms</th><th>measured / model</th>";
    if (in.comparison && &run == &in.runs.front())
      out += "<th>verdict</th><th>NEW/BASE</th>";
    out += "<th>reason</th></tr></thead><tbody>\n";
    for (const Row &row : rows) {
      if (row.run != &run)
        continue;
      const KernelResult &r = *row.result;
      const bool bad = r.status != RunStatus::Ok && r.status != RunStatus::Skipped;
      const std::optional<double> median =
          r.time ? std::optional<double>(r.time->medianMs) : std::nullopt;
      // Rates of a result that is not right mean nothing.
      const bool ok = r.status == RunStatus::Ok;
      auto positive = [ok](double v) {
        return ok && v > 0 ? std::optional<double>(v) : std::nullopt;
      };
      out += std::string("<tr") + (bad ? " class=\"bad\"" : "") + " data-impl=\"" +
             escapeHtml(r.implementation) + "\" data-name=\"" + escapeHtml(r.name) +
             "\">" + td(r.implementation, true) + td(r.name, true) +
             td(opKind(r), true) + td(runStatusName(r.status), true) +
             tdNum(median, 4) + tdNum(positive(r.tflops), 1) + tdNum(positive(r.gbps), 0) +
             tdNum(row.ai, 1) +
             tdNum(row.fractionOfRoof ? std::optional<double>(*row.fractionOfRoof * 100)
                                      : std::nullopt,
                   0, "%") +
             tdNum(positive(r.fractionOfMatmulCeiling * 100), 0, "%") +
             tdNum(positive(r.fractionOfCopyCeiling * 100), 0, "%") +
             td(r.baseline, true);
      if (ok && r.speedupOverBaseline > 0 && std::isfinite(r.speedupOverBaseline)) {
        const double width = std::min(60.0, r.speedupOverBaseline * 30);
        out += "<td class=\"speedup\" data-v=\"" + attrNum(r.speedupOverBaseline) +
               "\">" + num(r.speedupOverBaseline, 2) + "x <span class=\"bar\" "
               "style=\"width:" + attrNum(width) + "px\"></span></td>";
      } else {
        out += "<td>-</td>";
      }
      if (anyPrediction) {
        out += tdNum(row.predicted, 4);
        out += tdNum(row.predicted && median ? std::optional<double>(*median / *row.predicted)
                                             : std::nullopt,
                     2);
      }
      if (in.comparison && &run == &in.runs.front()) {
        if (row.comparison) {
          const Interval *i = row.comparison->decisive();
          std::string verdict = compareVerdictName(row.comparison->verdict);
          out += "<td class=\"t verdict " +
                 std::string(row.comparison->verdict == CompareVerdict::Regressed
                                 ? "regressed"
                                 : row.comparison->verdict == CompareVerdict::Improved
                                       ? "improved"
                                       : "") +
                 "\">" + verdict + "</td>" +
                 (i ? "<td data-v=\"" + attrNum(i->ratio) + "\">" + change(i->ratio) + "</td>"
                    : std::string("<td>-</td>"));
        } else {
          out += "<td class=\"t\">-</td><td>-</td>";
        }
      }
      out += td(r.reason.substr(0, 300), true) + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  out += "</section>\n";
}

/// The roofline of one run: its timed results at their arithmetic
/// intensity and rate, under min(copy * intensity, matmul).
void htmlRoofline(const ReportRun &run, const std::vector<Row> &rows, std::string &out) {
  const Ceilings &c = *run.file.ceilings;
  std::vector<const Row *> points;
  for (const Row &row : rows)
    if (row.run == &run && row.ai)
      points.push_back(&row);
  const double ridge = c.matmulTflops * 1000 / c.copyGBps;
  double xLo = ridge, xHi = ridge, yLo = c.matmulTflops;
  for (const Row *p : points) {
    xLo = std::min(xLo, *p->ai);
    xHi = std::max(xHi, *p->ai);
    yLo = std::min(yLo, p->result->tflops);
  }
  // Decades around the points and the ridge, at most 12 a side (a file's
  // extreme values are drawn at the border, not followed).
  auto decade = [](double v, bool up) {
    const double e = std::log10(v);
    return std::pow(10, std::clamp(up ? std::ceil(e) : std::floor(e), -12.0, 12.0));
  };
  xLo = decade(xLo / 2, false);
  xHi = std::max(decade(xHi * 2, true), xLo * 10);
  yLo = decade(std::min(yLo, roof(c, xLo)) / 1.5, false);
  const double yHi = std::max(decade(c.matmulTflops * 1.5, true), yLo * 10);
  const double W = 640, H = 400, L = 60, R = 20, T = 20, B = 50;
  auto X = [&](double v) {
    return L + (std::log10(std::clamp(v, xLo, xHi)) - std::log10(xLo)) /
                   (std::log10(xHi) - std::log10(xLo)) * (W - L - R);
  };
  auto Y = [&](double v) {
    return H - B - (std::log10(std::clamp(v, yLo, yHi)) - std::log10(yLo)) /
                       (std::log10(yHi) - std::log10(yLo)) * (H - T - B);
  };
  out += "<svg class=\"roofline\" width=\"640\" height=\"400\" viewBox=\"0 0 640 400\" "
         "role=\"img\" aria-label=\"roofline of " + escapeHtml(run.label) +
         "\" data-points=\"" + std::to_string(points.size()) + "\">\n";
  for (double v = xLo; v <= xHi * 1.001; v *= 10)
    out += "<line class=\"grid\" x1=\"" + attrNum(X(v)) + "\" y1=\"" + attrNum(T) +
           "\" x2=\"" + attrNum(X(v)) + "\" y2=\"" + attrNum(H - B) + "\"/><text x=\"" +
           attrNum(X(v) - 8) + "\" y=\"" + attrNum(H - B + 15) + "\">" + attrNum(v) +
           "</text>\n";
  for (double v = yLo; v <= yHi * 1.001; v *= 10)
    out += "<line class=\"grid\" x1=\"" + attrNum(L) + "\" y1=\"" + attrNum(Y(v)) +
           "\" x2=\"" + attrNum(W - R) + "\" y2=\"" + attrNum(Y(v)) + "\"/><text x=\"4\" y=\"" +
           attrNum(Y(v) + 4) + "\">" + attrNum(v) + "</text>\n";
  out += "<text x=\"" + attrNum(W / 2 - 90) + "\" y=\"" + attrNum(H - 12) +
         "\">arithmetic intensity (FLOP/byte)</text><text x=\"4\" y=\"12\">TFLOP/s</text>\n";
  // The roof: the copy ceiling's slope from where it enters the chart, then flat.
  const double xStart = std::max(xLo, yLo * 1000 / c.copyGBps);
  out += "<polyline class=\"roof\" data-copy-gbps=\"" + attrNum(c.copyGBps) +
         "\" data-matmul-tflops=\"" + attrNum(c.matmulTflops) + "\" points=\"" +
         attrNum(X(xStart)) + "," + attrNum(Y(roof(c, xStart))) + " " + attrNum(X(ridge)) +
         "," + attrNum(Y(c.matmulTflops)) + " " + attrNum(X(xHi)) + "," +
         attrNum(Y(c.matmulTflops)) + "\"/>\n";
  out += "<text x=\"" + attrNum(X(ridge) + 6) + "\" y=\"" + attrNum(Y(c.matmulTflops) - 6) +
         "\">matmul " + num(c.matmulTflops, 1) + " TFLOP/s</text>\n<text x=\"" +
         attrNum(X(xStart) + 12) + "\" y=\"" + attrNum(Y(roof(c, xStart)) + 16) + "\">copy " +
         num(c.copyGBps, 0) + " GB/s</text>\n";
  for (const Row *p : points) {
    const KernelResult &r = *p->result;
    out += "<circle class=\"point\" cx=\"" + attrNum(X(*p->ai)) + "\" cy=\"" +
           attrNum(Y(r.tflops)) + "\" r=\"4\" fill=\"" +
           implementationColor(r.implementation) + "\" data-impl=\"" +
           escapeHtml(r.implementation) + "\" data-name=\"" + escapeHtml(r.name) +
           "\"><title>" + escapeHtml(r.implementation + " " + r.name) + ": " +
           num(r.tflops, 1) + " TFLOP/s at " + num(*p->ai, 1) + " FLOP/byte" +
           (p->fractionOfRoof ? ", " + num(*p->fractionOfRoof * 100, 0) + "% of the roof"
                              : std::string()) +
           "</title></circle>\n";
  }
  const char *legend[] = {"kgen", "cublaslt", "torch", "triton"};
  for (int i = 0; i < 4; ++i)
    out += "<circle cx=\"" + attrNum(W - R - 90) + "\" cy=\"" + attrNum(H - B - 70 + 14 * i) +
           "\" r=\"4\" fill=\"" + implementationColor(legend[i]) + "\"/><text x=\"" +
           attrNum(W - R - 80) + "\" y=\"" + attrNum(H - B - 66 + 14 * i) + "\">" +
           legend[i] + "</text>\n";
  out += "</svg>\n";
}

/// One kernel's history: the median (over its baseline's) run after run,
/// the mean of each segment, and a dashed line at each change point.
void htmlSeries(const ReportSeries &s, std::string &out) {
  const SeriesAnalysis &a = s.analysis;
  const std::string id = escapeHtml(s.implementation + " " + s.name);
  out += "<div class=\"series-chart\" data-kernel=\"" + escapeHtml(s.name) + "\"><h3>" + id +
         "</h3>\n";
  if (a.timed.size() < 2) {
    out += "<p class=\"muted\">fewer than 2 timed runs: no chart</p></div>\n";
    return;
  }
  auto value = [&](size_t i) {
    const SeriesPoint &p = a.points[i];
    return *p.medianMs / (a.normalized ? *p.baselineMedianMs : 1.0);
  };
  double lo = value(a.timed[0]), hi = lo;
  for (size_t i : a.timed) {
    lo = std::min(lo, value(i));
    hi = std::max(hi, value(i));
  }
  const double pad = std::max((hi - lo) * 0.15, hi * 0.01);
  lo -= pad;
  hi += pad;
  const double W = 640, H = 180, L = 60, R = 20, T = 14, B = 30;
  const double n = static_cast<double>(a.points.size());
  auto X = [&](double i) { return L + (n > 1 ? i / (n - 1) : 0.5) * (W - L - R); };
  auto Y = [&](double v) { return H - B - (v - lo) / (hi - lo) * (H - T - B); };
  out += "<svg class=\"history\" width=\"640\" height=\"180\" viewBox=\"0 0 640 180\" "
         "role=\"img\" aria-label=\"history of " + id + "\" data-runs=\"" +
         std::to_string(a.points.size()) + "\" data-changes=\"" +
         std::to_string(a.changes.size()) + "\">\n";
  out += "<text x=\"4\" y=\"" + attrNum(Y(hi - pad) + 4) + "\">" + num(hi - pad, 3) +
         "</text><text x=\"4\" y=\"" + attrNum(Y(lo + pad) + 4) + "\">" + num(lo + pad, 3) +
         "</text><text x=\"4\" y=\"" + attrNum(H - 4) + "\">" +
         (a.normalized ? "median / baseline median" : "median ms") + ", run after run</text>\n";
  // Segment means (geometric: the detector works on log time).
  std::vector<size_t> cuts = {0};
  for (const SeriesChange &c : a.changes)
    cuts.push_back(static_cast<size_t>(
        std::find(a.timed.begin(), a.timed.end(), c.point) - a.timed.begin()));
  cuts.push_back(a.timed.size());
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (cuts[k] >= cuts[k + 1])
      continue;
    double logSum = 0;
    for (size_t j = cuts[k]; j < cuts[k + 1]; ++j)
      logSum += std::log(value(a.timed[j]));
    const double mean = std::exp(logSum / static_cast<double>(cuts[k + 1] - cuts[k]));
    out += "<line class=\"segment\" x1=\"" + attrNum(X(static_cast<double>(a.timed[cuts[k]]))) +
           "\" y1=\"" + attrNum(Y(mean)) + "\" x2=\"" +
           attrNum(X(static_cast<double>(a.timed[cuts[k + 1] - 1]))) + "\" y2=\"" +
           attrNum(Y(mean)) + "\"/>\n";
  }
  std::string line;
  for (size_t i : a.timed)
    line += attrNum(X(static_cast<double>(i))) + "," + attrNum(Y(value(i))) + " ";
  out += "<polyline class=\"series\" points=\"" + line + "\"/>\n";
  for (size_t i : a.timed)
    out += "<circle cx=\"" + attrNum(X(static_cast<double>(i))) + "\" cy=\"" +
           attrNum(Y(value(i))) + "\" r=\"2.5\" fill=\"#1f77b4\"><title>run " +
           std::to_string(a.points[i].runId) + " (" + escapeHtml(a.points[i].createdAt) +
           "): " + num(*a.points[i].medianMs, 4) + " ms</title></circle>\n";
  // Runs without a time (failed, wrong, skipped): a cross on the axis.
  for (size_t i = 0; i < a.points.size(); ++i)
    if (std::find(a.timed.begin(), a.timed.end(), i) == a.timed.end())
      out += "<text class=\"untimed\" x=\"" + attrNum(X(static_cast<double>(i)) - 4) +
             "\" y=\"" + attrNum(H - B - 2) + "\" fill=\"#b00020\">&#215;<title>run " +
             std::to_string(a.points[i].runId) + ": " + escapeHtml(a.points[i].status) +
             "</title></text>\n";
  for (const SeriesChange &c : a.changes) {
    const double x = X(static_cast<double>(c.point) - 0.5);
    out += std::string("<line class=\"change") + (c.ack ? " acked" : "") + "\" data-run=\"" +
           std::to_string(a.points[c.point].runId) + "\" data-ratio=\"" + attrNum(c.ratio) +
           "\" x1=\"" + attrNum(x) + "\" y1=\"" + attrNum(T) + "\" x2=\"" + attrNum(x) +
           "\" y2=\"" + attrNum(H - B) + "\"/><text class=\"change-label\" x=\"" +
           attrNum(x + 3) + "\" y=\"" + attrNum(T + 10) + "\">run " +
           std::to_string(a.points[c.point].runId) + ": " + change(c.ratio) +
           (c.ack ? " (acknowledged)" : "") + "</text>\n";
  }
  out += "<text x=\"" + attrNum(L) + "\" y=\"" + attrNum(H - B + 14) + "\">run " +
         std::to_string(a.points.front().runId) + "</text><text x=\"" + attrNum(W - R - 40) +
         "\" y=\"" + attrNum(H - B + 14) + "\">run " + std::to_string(a.points.back().runId) +
         "</text>\n</svg>\n";
  for (const SeriesChange &c : a.changes)
    out += "<p class=\"change-note\">change at run " + std::to_string(a.points[c.point].runId) +
           ": " + change(c.ratio) +
           (c.ack ? ", acknowledged: " + escapeHtml(a.acks[*c.ack].note.empty()
                                                        ? std::string("(no note)")
                                                        : a.acks[*c.ack].note)
                  : std::string(c.ratio > 1 ? ", not acknowledged" : "")) +
           "</p>\n";
  out += "</div>\n";
}

} // namespace

std::string escapeHtml(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char ch : text) {
    switch (ch) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default:
      // Control characters other than tab and newline are shown, not kept.
      if (ch < 0x20 && ch != '\t' && ch != '\n') {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", ch);
        out += buf;
      } else {
        out += static_cast<char>(ch);
      }
    }
  }
  return out;
}

std::string csvField(const std::string &text) {
  // One row per line, nothing a terminal would act on.
  std::string value;
  for (unsigned char ch : text) {
    if (ch < 0x20 || ch == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      value += buf;
    } else {
      value += static_cast<char>(ch);
    }
  }
  if (!value.empty() && std::string("=+-@\t\r").find(value[0]) != std::string::npos)
    value = "'" + value;
  if (value.find_first_of(",\"\r\n") == std::string::npos)
    return value;
  std::string out = "\"";
  for (char ch : value)
    out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string formatReportHtml(const ReportInput &in) {
  const std::vector<Row> rows = rowsOf(in);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                    "'none'; style-src 'unsafe-inline'; script-src " +
                    scriptHash(kScript) + "\">\n<title>" + escapeHtml(in.title) +
                    "</title>\n<style>" + kStyle + "</style></head>\n<body>\n<h1>" +
                    escapeHtml(in.title) + "</h1>\n";
  if (!in.banner.empty())
    out += "<p class=\"banner\" id=\"banner\">" + escapeHtml(in.banner) + "</p>\n";
  htmlSummary(in, rows, out);
  if (in.comparison)
    htmlComparison(*in.comparison, out);
  htmlResults(in, rows, out);
  out += "<section id=\"roofline\"><h2>Roofline</h2>\n<p>Each timed result at its "
         "arithmetic intensity (FLOP per byte moved) and rate, under the run's "
         "measured copy and matmul ceilings.</p>\n";
  for (const ReportRun &run : in.runs) {
    out += "<h3>" + escapeHtml(run.label) + "</h3>\n";
    const bool anyRates = std::any_of(rows.begin(), rows.end(), [&](const Row &r) {
      return r.run == &run && r.ai.has_value();
    });
    if (!hasCeilings(run.file))
      out += "<p class=\"muted\">no ceilings in this run (kgen-bench ceilings, then "
             "--ceilings): no roofline.</p>\n";
    else if (!anyRates)
      out += "<p class=\"muted\">no timed result with rates: no roofline.</p>\n";
    else
      htmlRoofline(run, rows, out);
  }
  out += "</section>\n";
  if (!in.series.empty()) {
    out += "<section id=\"history\"><h2>History</h2>\n<p>Each kernel's median run after "
           "run (over its baseline's median when every run has one), the mean of each "
           "segment, and the change points PELT finds (dashed).</p>\n";
    for (const ReportSeries &s : in.series)
      htmlSeries(s, out);
    out += "</section>\n";
  }
  out += "<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return out;
}

std::string formatReportMarkdown(const ReportInput &in) {
  const std::vector<Row> rows = rowsOf(in);
  std::string out = "## " + mdText(in.title) + "\n\n";
  if (!in.banner.empty())
    out += "> **" + mdText(in.banner) + "**\n\n";
  for (const ReportRun &run : in.runs)
    out += "- run " + mdText(run.label) + ": " + mdText(deviceText(run.file)) + ", made " +
           mdText(run.file.createdAt) + ", " + std::to_string(resultsNotOk(run.file)) +
           " not ok\n";
  const ReportRun *first = in.runs.empty() ? nullptr : &in.runs.front();
  if (first && hasCeilings(first->file))
    out += "- ceilings: copy " + num(first->file.ceilings->copyGBps, 0) + " GB/s, matmul " +
           num(first->file.ceilings->matmulTflops, 1) + " TFLOP/s\n";
  const SpeedupSummary s = speedups(rows, first);
  if (s.kernels)
    out += "- kgen over its baselines: geometric mean " + num(s.geomean, 3) + "x over " +
           std::to_string(s.kernels) + " kernels\n";
  out += "\n";
  if (in.comparison) {
    const Comparison &c = *in.comparison;
    out += "### Against " + mdText(c.baseLabel) + "\n\n";
    out += std::to_string(c.count(CompareVerdict::Regressed)) + " regressed, " +
           std::to_string(c.count(CompareVerdict::Improved)) + " improved, " +
           std::to_string(c.count(CompareVerdict::Same)) + " same, " +
           std::to_string(c.count(CompareVerdict::Unknown)) + " unknown, " +
           std::to_string(c.count(CompareVerdict::NotComparable)) + " not comparable\n\n";
    if (!c.comparable)
      out += "Not comparable: " + mdText(c.whyNotComparable) + "\n\n";
    for (const KernelComparison &k : c.kernels) {
      if (k.isBaseline || k.verdict != CompareVerdict::Regressed)
        continue;
      out += "- **regressed** " + mdText(k.implementation) + " **" + mdText(k.name) + "** " +
             mdText(intervalLine(k)) + "\n";
      for (const Cause &cause : k.causes)
        out += "  - cause? " + mdText(causeLine(cause)) + "\n";
      if (k.causes.empty())
        out += "  - no recorded difference: noise, or a cause not recorded\n";
    }
    out += "\n";
  }
  const bool anyPrediction = std::any_of(rows.begin(), rows.end(),
                                         [](const Row &r) { return r.predicted.has_value(); });
  // A comment stays short: the table of the run compared; the other runs
  // (the suite's baselines) are in the HTML and CSV reports.
  for (const ReportRun &run : in.runs) {
    if (&run != first) {
      out += "Also reported (HTML, CSV): " + mdText(run.label) + ", " +
             std::to_string(countedResults(run.file).size()) + " results, " +
             std::to_string(resultsNotOk(run.file)) + " not ok\n\n";
      continue;
    }
    out += "### Results of " + mdText(run.label) + "\n\n| implementation | kernel | status | "
           "median ms | TFLOP/s | % of roof | speed-up |" +
           std::string(anyPrediction ? " model ms |" : "") +
           (in.comparison && &run == first ? " verdict |" : "") + "\n|---|---|---|---|---|---|---|" +
           (anyPrediction ? "---|" : "") + (in.comparison && &run == first ? "---|" : "") + "\n";
    for (const Row &row : rows) {
      if (row.run != &run)
        continue;
      const KernelResult &r = *row.result;
      const bool ok = r.status == RunStatus::Ok;
      out += "| " + mdText(r.implementation) + " | " + mdText(r.name) + " | " +
             runStatusName(r.status) + " | " + (r.time ? num(r.time->medianMs, 4) : "-") +
             " | " + (ok && r.tflops > 0 ? num(r.tflops, 1) : "-") + " | " +
             (row.fractionOfRoof ? num(*row.fractionOfRoof * 100, 0) + "%" : "-") + " | " +
             (ok && r.speedupOverBaseline > 0 ? num(r.speedupOverBaseline, 2) + "x" : "-") +
             " |";
      if (anyPrediction)
        out += " " + (row.predicted ? num(*row.predicted, 4) : std::string("-")) + " |";
      if (in.comparison && &run == first)
        out += " " + std::string(row.comparison ? compareVerdictName(row.comparison->verdict)
                                                : "-") +
               (row.comparison && row.comparison->decisive()
                    ? " " + change(row.comparison->decisive()->ratio)
                    : std::string()) +
               " |";
      out += "\n";
    }
    out += "\n";
  }
  bool anyChange = false;
  for (const ReportSeries &s : in.series)
    for (const SeriesChange &c : s.analysis.changes) {
      if (!anyChange)
        out += "### Change points in the history\n\n";
      anyChange = true;
      out += "- " + mdText(s.implementation) + " " + mdText(s.name) + ": run " +
             std::to_string(s.analysis.points[c.point].runId) + " " + change(c.ratio) +
             (c.ack ? " (acknowledged: " + mdText(s.analysis.acks[*c.ack].note) + ")"
                    : std::string(c.ratio > 1 ? " **not acknowledged**" : "")) +
             "\n";
    }
  return out;
}

std::string formatReportCsv(const ReportInput &in) {
  const std::vector<Row> rows = rowsOf(in);
  std::string out =
      "run,created_at,device,implementation,name,kind,status,median_ms,samples,tflops,"
      "gbps,flop_per_byte,fraction_of_roof,fraction_of_matmul_ceiling,"
      "fraction_of_copy_ceiling,baseline,speedup_over_baseline,predicted_ms,verdict,"
      "ratio,lower,upper,causes,reason\n";
  auto opt = [](std::optional<double> v, int precision) {
    return v && std::isfinite(*v) ? num(*v, precision) : std::string();
  };
  for (const Row &row : rows) {
    const KernelResult &r = *row.result;
    const bool ok = r.status == RunStatus::Ok; // rates of a wrong result mean nothing
    const Interval *i = row.comparison ? row.comparison->decisive() : nullptr;
    std::string causes;
    if (row.comparison)
      for (const Cause &c : row.comparison->causes)
        causes += (causes.empty() ? "" : "; ") + causeLine(c);
    out += csvField(row.run->label) + "," + csvField(row.run->file.createdAt) + "," +
           csvField(row.run->file.device.name) + "," + csvField(r.implementation) + "," +
           csvField(r.name) + "," + csvField(opKind(r)) + "," + runStatusName(r.status) + "," +
           (r.time ? num(r.time->medianMs, 6) : "") + "," +
           (r.time ? std::to_string(r.time->samples) : "") + "," +
           (ok && r.tflops > 0 ? num(r.tflops, 3) : "") + "," +
           (ok && r.gbps > 0 ? num(r.gbps, 1) : "") + "," + opt(row.ai, 3) + "," +
           opt(row.fractionOfRoof, 4) + "," +
           (ok && r.fractionOfMatmulCeiling > 0 ? num(r.fractionOfMatmulCeiling, 4) : "") +
           "," +
           (ok && r.fractionOfCopyCeiling > 0 ? num(r.fractionOfCopyCeiling, 4) : "") + "," +
           csvField(r.baseline) + "," +
           (ok && r.speedupOverBaseline > 0 ? num(r.speedupOverBaseline, 4) : "") + "," +
           opt(row.predicted, 6) + "," +
           (row.comparison ? csvField(compareVerdictName(row.comparison->verdict)) : "") + "," +
           (i ? num(i->ratio, 5) : "") + "," + (i ? num(i->lower, 5) : "") + "," +
           (i ? num(i->upper, 5) : "") + "," + csvField(causes) + "," + csvField(r.reason) +
           "\n";
  }
  return out;
}

} // namespace kgen::rt
