#include "metrics/exposition.h"

#include <charconv>
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

namespace {

// Shortest text that reads back as the same double (std::to_chars); integers without a fraction.
size_t WriteNumber(char* buf, size_t size, double value) {
  if (std::isnan(value)) return std::snprintf(buf, size, "NaN");
  if (std::isinf(value)) return std::snprintf(buf, size, value > 0 ? "+Inf" : "-Inf");
  std::to_chars_result r;
  if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15)
    r = std::to_chars(buf, buf + size, static_cast<long long>(value));
  else
    r = std::to_chars(buf, buf + size, value);
  return static_cast<size_t>(r.ptr - buf);
}

}  // namespace

std::string FormatNumber(double value) {
  char buf[40];
  return std::string(buf, WriteNumber(buf, sizeof buf, value));
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

std::string Exposition::RenderLabels(const Labels& labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (!out.empty()) out += ',';
    out += k;
    out += "=\"";
    AppendEscaped(out, v, true);
    out += '"';
  }
  return out;
}

std::string Exposition::RenderExtraLabel(std::string_view name, std::string_view value) {
  std::string out = ",";
  out += name;
  out += "=\"";
  AppendEscaped(out, value, true);
  out += '"';
  return out;
}

void Exposition::WriteRendered(std::string_view rendered, std::string_view extra) {
  if (rendered.empty() && extra.empty()) return;
  out_ += '{';
  out_ += rendered;
  out_ += rendered.empty() && !extra.empty() ? extra.substr(1) : extra;
  out_ += '}';
}

void Exposition::SampleRendered(std::string_view rendered_labels, double value, std::string_view extra) {
  out_ += name_;
  WriteRendered(rendered_labels, extra);
  WriteValue(value);
}

void Exposition::HistogramRendered(std::string_view rendered, const Histogram& h) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= h.bounds.size(); ++i) {
    cumulative += i < h.counts.size() ? h.counts[i] : 0;
    out_ += name_;
    out_ += "_bucket{";
    out_ += rendered;
    out_ += rendered.empty() ? "le=\"" : ",le=\"";
    out_ += i < h.bounds.size() ? FormatNumber(h.bounds[i]) : "+Inf";
    out_ += "\"}";
    WriteValue(static_cast<double>(cumulative));
  }
  out_ += name_;
  out_ += "_sum";
  WriteRendered(rendered);
  WriteValue(h.sum);
  out_ += name_;
  out_ += "_count";
  WriteRendered(rendered);
  WriteValue(static_cast<double>(h.count));
}

void Exposition::WriteValue(double value) {
  char buf[48];
  buf[0] = ' ';
  size_t n = 1 + WriteNumber(buf + 1, sizeof buf - 2, value);
  buf[n++] = '\n';
  out_.append(buf, n);
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
