#pragma once
// One readable line per event on stderr: `2026-11-30 03:25:00.123 INFO  [server] listening on 127.0.0.1:9030`.
// Never pass secrets to the logger: there is no masking at this level.
#include <fmt/format.h>

#include <string_view>

namespace sluice::log {

enum class Level { kDebug, kInfo, kWarn, kError };

void SetLevel(Level level);
bool Enabled(Level level);
void Write(Level level, std::string_view component, std::string_view message);

template <typename... Args>
void Debug(std::string_view component, fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kDebug)) Write(Level::kDebug, component, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Info(std::string_view component, fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kInfo)) Write(Level::kInfo, component, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Warn(std::string_view component, fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kWarn)) Write(Level::kWarn, component, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Error(std::string_view component, fmt::format_string<Args...> f, Args&&... args) {
  if (Enabled(Level::kError)) Write(Level::kError, component, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace sluice::log
