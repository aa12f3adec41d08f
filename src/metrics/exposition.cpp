#include "metrics/exposition.h"

#include <cmath>
#include <cstdio>

namespace sluice::metrics {

Format NegotiateFormat(std::string_view accept) {
  return accept.find("application/openmetrics-text") != std::string_view::npos ? Format::kOpenMetrics
                                                                               : Format::kPrometheusText;
}

const char* ContentType(Format format) {
  return format == Format::kOpenMetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                        : "text/plain; version=0.0.4; charset=utf-8";
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[32];
  if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", value);
  }
  return buf;
}

namespace {

// HELP text escapes backslash and newline; label values also the double quote (both formats).
void AppendEscaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && quote) out += "\\\"";
    else out += c;
  }
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

}  // namespace

void Exposition::Family(std::string_view name, MetricType type, std::string_view help) {
  name_ = std::string(name);
  // OpenMetrics names a counter's family without the _total its samples carry.
  std::string_view family = name;
  if (format_ == Format::kOpenMetrics && type == MetricType::kCounter && family.ends_with("_total"))
    family.remove_suffix(6);
  out_ += "# HELP ";
  out_ += family;
  out_ += ' ';
  AppendEscaped(out_, help, false);
  out_ += "\n# TYPE ";
  out_ += family;
  out_ += ' ';
  out_ += TypeName(type);
  out_ += '\n';
}

void Exposition::WriteLabels(const Labels& labels, std::string_view extra_name, std::string_view extra_value) {
  if (labels.empty() && extra_name.empty()) return;
  out_ += '{';
  bool first = true;
  auto one = [&](std::string_view k, std::string_view v) {
    if (!first) out_ += ',';
    first = false;
    out_ += k;
    out_ += "=\"";
    AppendEscaped(out_, v, true);
    out_ += '"';
  };
  for (const auto& [k, v] : labels) one(k, v);
  if (!extra_name.empty()) one(extra_name, extra_value);
  out_ += '}';
}

void Exposition::WriteValue(double value) {
  out_ += ' ';
  out_ += FormatNumber(value);
  out_ += '\n';
}

void Exposition::Sample(const Labels& labels, double value) {
  out_ += name_;
  WriteLabels(labels);
  WriteValue(value);
}

void Exposition::HistogramSample(const Labels& labels, const Histogram& h) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= h.bounds.size(); ++i) {
    cumulative += i < h.counts.size() ? h.counts[i] : 0;
    out_ += name_;
    out_ += "_bucket";
    WriteLabels(labels, "le", i < h.bounds.size() ? FormatNumber(h.bounds[i]) : "+Inf");
    WriteValue(static_cast<double>(cumulative));
  }
  out_ += name_;
  out_ += "_sum";
  WriteLabels(labels);
  WriteValue(h.sum);
  out_ += name_;
  out_ += "_count";
  WriteLabels(labels);
  WriteValue(static_cast<double>(h.count));
}

std::string Exposition::Finish() {
  if (format_ == Format::kOpenMetrics) out_ += "# EOF\n";
  return std::move(out_);
}

}  // namespace sluice::metrics
