//===- Report.h - reports of benchmark runs: HTML, Markdown, CSV -*- C++ -*-===//
//
// What `kgen-bench report --html/--markdown/--csv` writes
// (docs/performance-history.md): for the runs given, a summary, the
// comparison with a base run (regressions with the differences that can
// explain them, from Compare.h), each kernel's rate against the run's
// measured ceilings (a roofline: arithmetic intensity against TFLOP/s
// under the copy and matmul ceilings), its speed-up over its baseline, the
// cost model's prediction where a result's config records one
// (`predicted_ms`), and each kernel's history with its change points
// (Series.h). The HTML page is one self-contained file: inline CSS, SVG
// and one script allowed by its hash, a Content-Security-Policy that
// forbids every load, and every string from the files escaped. Host-only.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_REPORT_H
#define KGEN_RUNTIME_REPORT_H

#include "kgen/runtime/Compare.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Series.h"

#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

struct ReportRun {
  std::string label; // the file name or history run it came from
  ResultsFile file;
};

struct ReportSeries {
  std::string implementation, name;
  SeriesAnalysis analysis;
};

struct ReportInput {
  std::string title = "kgen benchmark report";
  /// A banner above everything (e.g. that the results are synthetic).
  std::string banner;
  /// The runs reported; the first is the one compared and charted.
  std::vector<ReportRun> runs;
  std::optional<Comparison> comparison; // base -> runs[0]
  std::vector<ReportSeries> series;     // runs[0]'s kernels in a history
};

/// `text` safe inside HTML text and double-quoted attributes.
std::string escapeHtml(const std::string &text);
/// `text` as one CSV field (RFC 4180 quoting; a text field that a
/// spreadsheet would read as a formula gets a leading quote).
std::string csvField(const std::string &text);

std::string formatReportHtml(const ReportInput &input);
std::string formatReportMarkdown(const ReportInput &input);
/// One row per result of every run (header first).
std::string formatReportCsv(const ReportInput &input);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_REPORT_H
