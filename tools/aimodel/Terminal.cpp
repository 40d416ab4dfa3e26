//===- Terminal.cpp - What the output streams are -------------------------===//

#include "tools/aimodel/Terminal.h"

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
