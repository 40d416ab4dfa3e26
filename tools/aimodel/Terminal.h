//===- Terminal.h - What the output streams are -----------------*- C++ -*-===//
#ifndef AIMODEL_TOOLS_AIMODEL_TERMINAL_H
#define AIMODEL_TOOLS_AIMODEL_TERMINAL_H

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace aimodel::cli {

/// Colour on `fd` only for a terminal, and never under NO_COLOR (any value)
/// or PRE_COMMIT (hooks run under a pseudo-terminal but show output later).
bool wantColour(int fd);

/// "<verb> 1234/10000 <noun>" on stderr ("audited 3/9 bundles"), rewritten
/// in place, once a run has taken a second; at most ten times a second.
/// Safe to update from several threads.
class ProgressLine {
public:
  ProgressLine(bool enabled, std::string verb, std::string noun)
      : enabled(enabled), verb(std::move(verb)), noun(std::move(noun)) {}
  ~ProgressLine() { finish(); }

  void update(size_t done, size_t total);
  /// Clears the line, if one was shown.
  void finish();

private:
  bool enabled;
  std::string verb, noun;
  bool shown = false;
  std::mutex mutex;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last{};
};

} // namespace aimodel::cli

#endif // AIMODEL_TOOLS_AIMODEL_TERMINAL_H
