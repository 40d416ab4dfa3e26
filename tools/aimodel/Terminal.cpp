//===- Terminal.cpp - What the output streams are -------------------------===//

#include "tools/aimodel/Terminal.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

bool aimodel::cli::wantColour(int fd) {
  if (std::getenv("NO_COLOR") || std::getenv("PRE_COMMIT"))
    return false;
  const char *term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0)
    return false;
  return ::isatty(fd) == 1;
}

void aimodel::cli::ProgressLine::update(size_t done, size_t total) {
  if (!enabled)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  auto now = std::chrono::steady_clock::now();
  if (now - start < std::chrono::seconds(1) ||
      now - last < std::chrono::milliseconds(100))
    return;
  last = now;
  llvm::errs() << "\r" << verb << " " << done << "/" << total << " " << noun;
  llvm::errs().flush();
  shown = true;
}

void aimodel::cli::ProgressLine::finish() {
  std::lock_guard<std::mutex> lock(mutex);
  if (shown)
    llvm::errs() << "\r\033[K";
  shown = false;
}
