#pragma once
// Writes metric families in the Prometheus text exposition format (0.0.4) or in OpenMetrics 1.0, whichever the
// scraper asked for. Knows the formats' rules (escaping, counters' _total, histograms' buckets, # EOF) and nothing
// of what is measured.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/histogram.h"

namespace sluice::metrics {

enum class Format { kPrometheusText, kOpenMetrics };

// OpenMetrics when the Accept header names application/openmetrics-text (as Prometheus sends it when it prefers
// it), the classic text format otherwise.
Format NegotiateFormat(std::string_view accept_header);
// The Content-Type of an answer in `format`.
const char* ContentType(Format format);

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

enum class MetricType { kCounter, kGauge, kHistogram };

class Exposition {
 public:
  explicit Exposition(Format format) : format_(format) {}

  // Starts a family: its HELP and TYPE lines. `name` is the full name (a counter's ends in _total). Every sample
  // of the family must follow before the next family starts.
  void Family(std::string_view name, MetricType type, std::string_view help);
  // One sample of the current counter or gauge family.
  void Sample(const Labels& labels, double value);
  // The same with labels rendered once by RenderLabels (a job's labels recur in every family: escaping them once
  // per scrape instead of once per sample halves the cost of a scrape of many jobs). `extra` is appended as is.
  void SampleRendered(std::string_view rendered_labels, double value, std::string_view extra = {});
  // One labelled histogram of the current histogram family (_bucket per bound and +Inf, _sum, _count).
  void HistogramSample(const Labels& labels, const Histogram& h);
  void HistogramRendered(std::string_view rendered_labels, const Histogram& h);
  // `k1="v1",k2="v2"`, escaped, without braces.
  static std::string RenderLabels(const Labels& labels);
  // `,k="v"`, escaped: one more label after rendered ones.
  static std::string RenderExtraLabel(std::string_view name, std::string_view value);
  // The text, with OpenMetrics' closing "# EOF".
  std::string Finish();

 private:
  void WriteLabels(const Labels& labels, std::string_view extra_name = {}, std::string_view extra_value = {});
  void WriteRendered(std::string_view rendered, std::string_view extra = {});
  void WriteValue(double value);

  Format format_;
  std::string out_;
  std::string name_;  // the current family's sample name
};

// A number as the formats write it: integers without a fraction, NaN and infinities by name.
std::string FormatNumber(double value);

}  // namespace sluice::metrics
