#include "metrics/exposition.h"

#include <gtest/gtest.h>

#include "metrics/process_stats.h"
#include "metrics/render.h"

namespace sluice::metrics {
namespace {

TEST(Exposition, NegotiatesOpenMetricsOnlyWhenAsked) {
  EXPECT_EQ(NegotiateFormat(""), Format::kPrometheusText);
  EXPECT_EQ(NegotiateFormat("text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), Format::kPrometheusText);
  EXPECT_EQ(NegotiateFormat("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"),
            Format::kOpenMetrics);
}

TEST(Exposition, EscapesLabelValuesAndHelp) {
  Exposition out(Format::kPrometheusText);
  out.Family("x_total", MetricType::kCounter, "a \\ help\nline");
  out.Sample({{"job_name", "a\"b\\c\nd"}}, 3);
  EXPECT_EQ(out.Finish(),
            "# HELP x_total a \\\\ help\\nline\n# TYPE x_total counter\nx_total{job_name=\"a\\\"b\\\\c\\nd\"} 3\n");
}

TEST(Exposition, OpenMetricsNamesCounterFamiliesWithoutTotalAndEnds) {
  Exposition out(Format::kOpenMetrics);
  out.Family("rows_total", MetricType::kCounter, "rows");
  out.Sample({}, 1.5);
  EXPECT_EQ(out.Finish(), "# HELP rows rows\n# TYPE rows counter\nrows_total 1.5\n# EOF\n");
}

TEST(Exposition, HistogramBucketsAreCumulative) {
  Histogram h({1, 10});
  h.Observe(0.5);
  h.Observe(5);
  h.Observe(50);
  Exposition out(Format::kPrometheusText);
  out.Family("d_seconds", MetricType::kHistogram, "d");
  out.HistogramSample({{"k", "v"}}, h);
  std::string text = out.Finish();
  EXPECT_NE(text.find("d_seconds_bucket{k=\"v\",le=\"1\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("d_seconds_bucket{k=\"v\",le=\"10\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("d_seconds_bucket{k=\"v\",le=\"+Inf\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("d_seconds_sum{k=\"v\"} 55.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("d_seconds_count{k=\"v\"} 3\n"), std::string::npos) << text;
}

TEST(Render, OneGaugePerStateWithOnlyTheCurrentAtOne) {
  JobSample j;
  j.kind = "pipe";
  j.db = "d";
  j.name = "p";
  j.table = "t";
  j.state = "SUSPENDED";
  j.possible_states = {"RUNNING", "SUSPENDED", "FAILED"};
  j.partitions = {{0, 5}, {1, -1}};
  std::string text = RenderMetrics(ServerSample{}, {j}, Format::kPrometheusText);
  EXPECT_NE(text.find("sluice_job_state{kind=\"pipe\",db=\"d\",job_name=\"p\",table=\"t\",state=\"SUSPENDED\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("sluice_job_state{kind=\"pipe\",db=\"d\",job_name=\"p\",table=\"t\",state=\"RUNNING\"} 0\n"),
            std::string::npos);
  // An unknown lag has no sample; the known one does.
  EXPECT_NE(text.find("partition=\"0\"} 5\n"), std::string::npos);
  EXPECT_EQ(text.find("partition=\"1\""), std::string::npos);
}

TEST(ProcessStats, ReadsThisProcess) {
  ProcessSample p = ReadProcessSample();
  EXPECT_GT(p.resident_bytes, 1 << 20);
  EXPECT_GE(p.threads, 1);
  EXPECT_GT(p.open_fds, 2);
  EXPECT_GT(p.start_time, 1.6e9);
}

}  // namespace
}  // namespace sluice::metrics
