//===- ReportTest.cpp - reports of runs, and series analysis --------------===//

#include "kgen/runtime/Report.h"
#include "kgen/runtime/Series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace kgen::rt;

namespace {

KernelResult timed(const std::string &name, const std::string &impl, double tflops,
                   double gbps) {
  KernelResult r;
  r.name = name;
  r.implementation = impl;
  r.op = {{"kind", "gemm"}};
  r.status = RunStatus::Ok;
  SampleStats t;
  t.medianMs = t.q1Ms = t.q3Ms = t.minMs = t.maxMs = 0.5;
  t.samples = 10;
  r.time = t;
  r.tflops = tflops;
  r.gbps = gbps;
  return r;
}

ReportInput oneRun(std::vector<KernelResult> results) {
  ReportInput in;
  ReportRun run;
  run.label = "night.json";
  run.file.device.name = "NVIDIA H200";
  run.file.ceilings = Ceilings{4000, 800, "bf16 cuBLASLt"};
  run.file.results = std::move(results);
  in.runs.push_back(std::move(run));
  return in;
}

/// The CSV's field `column` of row `row` (1: the first result), for rows
/// without quoted commas.
std::string csvCell(const std::string &csv, size_t row, const std::string &column) {
  std::istringstream lines(csv);
  std::string header, line;
  std::getline(lines, header);
  for (size_t i = 0; i < row; ++i)
    std::getline(lines, line);
  auto split = [](const std::string &text) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream s(text);
    while (std::getline(s, cell, ','))
      cells.push_back(cell);
    if (!text.empty() && text.back() == ',')
      cells.push_back("");
    return cells;
  };
  const std::vector<std::string> names = split(header), cells = split(line);
  for (size_t i = 0; i < names.size() && i < cells.size(); ++i)
    if (names[i] == column)
      return cells[i];
  return "(missing)";
}

} // namespace

TEST(Report, EscapeHtmlLeavesNoMarkup) {
  EXPECT_EQ(escapeHtml("<a href=\"x\" title='y'>&amp;</a>"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
  EXPECT_EQ(escapeHtml("a\x1b[31mb\tc\nd"), "a\\x1b[31mb\tc\nd");
  EXPECT_EQ(escapeHtml("H200 \xc2\xb5s"), "H200 \xc2\xb5s"); // UTF-8 kept
}

TEST(Report, CsvFieldQuotesAndDisarmsFormulas) {
  EXPECT_EQ(csvField("gemm_a"), "gemm_a");
  EXPECT_EQ(csvField("a,b"), "\"a,b\"");
  EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csvField("x,\"y\""), "\"x,\"\"y\"\"\"");
  EXPECT_EQ(csvField("=1+2"), "'=1+2");
  EXPECT_EQ(csvField("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csvField("-2"), "'-2");
  EXPECT_EQ(csvField("two\nlines\r"), "two\\x0alines\\x0d");
}

TEST(Report, ShareOfTheRoofUnderBothCeilings) {
  // Ridge at 800 TFLOP/s / 4000 GB/s = 200 FLOP/byte.
  const ReportInput in = oneRun({timed("compute_bound", "kgen", 400, 1000),   // 400 FLOP/B
                                 timed("memory_bound", "kgen", 100, 2000),    // 50 FLOP/B
                                 timed("at_ridge", "cublaslt", 600, 3000)});  // 200 FLOP/B
  const std::string csv = formatReportCsv(in);
  EXPECT_EQ(csvCell(csv, 1, "flop_per_byte"), "400.000");
  EXPECT_EQ(csvCell(csv, 1, "fraction_of_roof"), "0.5000");  // of 800
  EXPECT_EQ(csvCell(csv, 2, "flop_per_byte"), "50.000");
  EXPECT_EQ(csvCell(csv, 2, "fraction_of_roof"), "0.5000");  // of 4000 * 50 / 1000
  EXPECT_EQ(csvCell(csv, 3, "fraction_of_roof"), "0.7500");  // of 800
  const std::string html = formatReportHtml(in);
  EXPECT_NE(html.find("data-points=\"3\""), std::string::npos);
  EXPECT_NE(html.find("data-copy-gbps=\"4000\" data-matmul-tflops=\"800\""),
            std::string::npos);
}

TEST(Report, NoCeilingsNoRoofline) {
  ReportInput in = oneRun({timed("g", "kgen", 400, 1000)});
  in.runs[0].file.ceilings.reset();
  const std::string html = formatReportHtml(in);
  EXPECT_EQ(html.find("class=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("no ceilings in this run"), std::string::npos);
  EXPECT_EQ(csvCell(formatReportCsv(in), 1, "fraction_of_roof"), "");
}

TEST(Report, PredictionColumnOnlyWhenRecorded) {
  ReportInput in = oneRun({timed("g", "kgen", 400, 1000)});
  std::string html = formatReportHtml(in);
  EXPECT_EQ(html.find("<th>model ms</th>"), std::string::npos);
  EXPECT_NE(html.find("no cost-model prediction is recorded"), std::string::npos);
  in.runs[0].file.results[0].config = {{"source", "model"}, {"predicted_ms", 0.25}};
  html = formatReportHtml(in);
  EXPECT_NE(html.find("<th>model ms</th>"), std::string::npos);
  EXPECT_NE(html.find(">0.2500<"), std::string::npos); // predicted
  EXPECT_NE(html.find(">2.00<"), std::string::npos);   // measured 0.5 / model 0.25
  EXPECT_EQ(csvCell(formatReportCsv(in), 1, "predicted_ms"), "0.250000");
  in.runs[0].file.results[0].config["predicted_ms"] = "fast"; // not a number: none
  EXPECT_EQ(formatReportHtml(in).find("<th>model ms</th>"), std::string::npos);
}

TEST(Report, WrongResultsShowNoRates) {
  KernelResult wrong = timed("g", "kgen", 400, 1000);
  wrong.status = RunStatus::Wrong;
  wrong.speedupOverBaseline = 2;
  const ReportInput in = oneRun({wrong});
  const std::string csv = formatReportCsv(in);
  EXPECT_EQ(csvCell(csv, 1, "tflops"), "");
  EXPECT_EQ(csvCell(csv, 1, "speedup_over_baseline"), "");
  EXPECT_EQ(formatReportHtml(in).find("class=\"roofline\""), std::string::npos);
}

TEST(Report, PageLoadsNothingAndEscapesNames) {
  const ReportInput in =
      oneRun({timed("<script>alert(1)</script>", "kgen\"><img src=x>", 400, 1000)});
  const std::string html = formatReportHtml(in);
  EXPECT_NE(html.find("content=\"default-src 'none'; style-src 'unsafe-inline'; "
                      "script-src 'sha256-"),
            std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // One script element: the page's own.
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 1u);
  const std::string md = formatReportMarkdown(in);
  EXPECT_NE(md.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(md.find("kgen\"&gt;&lt;img src=x&gt;"), std::string::npos);
}

TEST(Report, SpeedupGeometricMean) {
  KernelResult a = timed("a", "kgen", 1, 1), b = timed("b", "kgen", 1, 1);
  a.speedupOverBaseline = 2;
  b.speedupOverBaseline = 0.5;
  KernelResult base = timed("c", "cublaslt", 1, 1);
  base.speedupOverBaseline = 8; // a baseline's is not kgen's
  const std::string html = formatReportHtml(oneRun({a, b, base}));
  EXPECT_NE(html.find("class=\"geomean\">1.000x</b> over 2 kernels (1 faster"),
            std::string::npos);
}

TEST(Series, StepFoundAndAcknowledgedAtANeighbour) {
  std::vector<SeriesPoint> points;
  for (int i = 0; i < 20; ++i) {
    SeriesPoint p;
    p.runId = 100 + i;
    p.medianMs = (i >= 12 ? 1.10 : 1.0) * (1 + 0.002 * ((i * 7) % 5 - 2));
    p.baselineMedianMs = 1.0;
    points.push_back(p);
  }
  SeriesAnalysis a = analyzeSeries(points, {});
  ASSERT_EQ(a.changes.size(), 1u);
  EXPECT_EQ(a.changes[0].point, 12u);
  EXPECT_NEAR(a.changes[0].ratio, 1.10, 0.01);
  EXPECT_TRUE(a.normalized);
  EXPECT_EQ(a.openSlowdowns(), 1u);
  Ack ack;
  ack.runId = 113; // one run after the change: still covers it
  ack.note = "new strategy";
  a = analyzeSeries(points, {ack});
  ASSERT_EQ(a.changes.size(), 1u);
  ASSERT_TRUE(a.changes[0].ack.has_value());
  EXPECT_EQ(a.acks[*a.changes[0].ack].note, "new strategy");
  EXPECT_EQ(a.openSlowdowns(), 0u);
  ack.runId = 115; // too far
  EXPECT_EQ(analyzeSeries(points, {ack}).openSlowdowns(), 1u);
}

TEST(Series, UntimedPointsAreSkippedAndWithoutBaselinesRawTimes) {
  std::vector<SeriesPoint> points(8);
  for (size_t i = 0; i < points.size(); ++i) {
    points[i].runId = static_cast<int64_t>(i + 1);
    if (i != 3)
      points[i].medianMs = 1.0;
  }
  points[5].baselineMedianMs = 2.0; // not every run has one
  const SeriesAnalysis a = analyzeSeries(points, {});
  EXPECT_EQ(a.timed.size(), 7u);
  EXPECT_FALSE(a.normalized);
  EXPECT_TRUE(a.changes.empty());
}

TEST(Report, ExtremeValuesKeepTheChartBounded) {
  // What a results file may hold (finite, >= 0) but no GPU measures: the
  // chart's decades stay within 1e-12..1e12, points at the border.
  ReportInput in = oneRun({timed("tiny", "kgen", 5e-324, 1e308),
                           timed("huge", "kgen", 1e308, 5e-324),
                           timed("fine", "kgen", 400, 1000)});
  in.runs[0].file.ceilings = Ceilings{1e308, 5e-324, "extreme"};
  const std::string html = formatReportHtml(in);
  size_t grid = 0;
  for (size_t at = html.find("class=\"grid\""); at != std::string::npos;
       at = html.find("class=\"grid\"", at + 1))
    ++grid;
  EXPECT_GT(grid, 0u);
  EXPECT_LE(grid, 50u);
  EXPECT_EQ(html.find("nan"), std::string::npos);
  EXPECT_EQ(html.find("inf\""), std::string::npos);
}

TEST(Report, HistoryChartMarksChangesAndUntimedRuns) {
  ReportInput in = oneRun({timed("g", "kgen", 400, 1000)});
  std::vector<SeriesPoint> points;
  for (int i = 0; i < 16; ++i) {
    SeriesPoint p;
    p.runId = i + 1;
    p.status = "ok";
    if (i == 4)
      p.status = "faulted<b>"; // no time, and a status from the file
    else
      p.medianMs = (i >= 9 ? 1.2 : 1.0) * (1 + 0.001 * (i % 3));
    points.push_back(p);
  }
  ReportSeries s;
  s.implementation = "kgen";
  s.name = "g";
  s.analysis = analyzeSeries(points, {});
  in.series.push_back(s);
  const std::string html = formatReportHtml(in);
  EXPECT_NE(html.find("data-runs=\"16\" data-changes=\"1\""), std::string::npos);
  EXPECT_NE(html.find("class=\"change\" data-run=\"10\""), std::string::npos);
  EXPECT_NE(html.find("run 5: faulted&lt;b&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("change at run 10: +20.0%, not acknowledged"), std::string::npos);
  EXPECT_NE(formatReportMarkdown(in).find("- kgen g: run 10 +20.0% **not acknowledged**"),
            std::string::npos);
}
