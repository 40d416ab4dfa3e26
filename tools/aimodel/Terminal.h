//===- Terminal.h - What the output streams are -----------------*- C++ -*-===//
#ifndef AIMODEL_TOOLS_AIMODEL_TERMINAL_H
#define AIMODEL_TOOLS_AIMODEL_TERMINAL_H

namespace aimodel::cli {

/// Colour on `fd` only for a terminal, and never under NO_COLOR (any value)
/// or PRE_COMMIT (hooks run under a pseudo-terminal but show output later).
bool wantColour(int fd);

} // namespace aimodel::cli

#endif // AIMODEL_TOOLS_AIMODEL_TERMINAL_H
