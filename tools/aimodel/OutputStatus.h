//===- OutputStatus.h - Turning write failures into exit 2 ------*- C++ -*-===//
//
// A full disk or a closed stdout must not look like "findings": LLVM reports
// a failed stream with a fatal "IO failure" at exit (exit 1). Both the
// executable and the aimodel-mlir module (which has its own copy of LLVM's
// Support library, so its own llvm::outs()) finish through this.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TOOLS_AIMODEL_OUTPUTSTATUS_H
#define AIMODEL_TOOLS_AIMODEL_OUTPUTSTATUS_H

#include "support/PathText.h"
#include "support/ReadGuard.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace aimodel::cli {

/// True, with one line per file on stderr, when a file changed while it was
/// read (support/ReadGuard.h): the caller exits 2, whatever it concluded.
/// Each file is said once, however often this is asked.
inline std::set<std::string> &changedInputsSaid() {
  static std::set<std::string> said;
  return said;
}
inline bool inputsChanged(llvm::StringRef command) {
  std::vector<std::string> changed = support::filesChangedWhileRead();
  for (const std::string &file : changed)
    if (changedInputsSaid().insert(file).second)
      llvm::errs() << command
                   << ": error: " << support::changedWhileReadMessage(file)
                   << "\n";
  return !changed.empty();
}

/// For a caller that said it in its own words: the files changed so far
/// are not said again.
inline void changedInputsAlreadySaid() {
  for (const std::string &file : support::filesChangedWhileRead())
    changedInputsSaid().insert(file);
}

/// Exit 2 for an input that could not be used: one line, "COMMAND: error:
/// [PATH: ]MESSAGE"; or, when a file changed while it was read, that
/// instead (it explains whatever its bytes made fail).
inline int inputError(llvm::StringRef command, llvm::Error error,
                      std::optional<llvm::StringRef> path = std::nullopt) {
  if (inputsChanged(command)) {
    llvm::consumeError(std::move(error));
    return 2;
  }
  llvm::errs() << command << ": error: ";
  if (path)
    llvm::errs() << support::printablePath(*path) << ": ";
  llvm::errs() << llvm::toString(std::move(error)) << "\n";
  return 2;
}

/// What a closed pipe on the output means.
enum class ClosedPipe {
  Error,   ///< output was lost: exit 2
  Verdict, ///< the reader stopped reading (`diff a b | head`); the exit
           ///< code is a verdict already reached: kept
};

/// Flushes `out` (stdout by default); returns `code`, or 2 with one line on
/// stderr when anything written to it was lost or an input changed while
/// it was read.
inline int finishOutput(int code, llvm::raw_fd_ostream &out = llvm::outs(),
                        llvm::StringRef program = "aimodel",
                        llvm::StringRef outputName = "standard output",
                        ClosedPipe closedPipe = ClosedPipe::Error) {
  out.flush();
  if (inputsChanged(program))
    code = 2;
  if (!out.has_error())
    return code;
  std::error_code error = out.error();
  // Cleared, or the stream reports the same failure fatally at exit.
  out.clear_error();
  if (closedPipe == ClosedPipe::Verdict && code != 2 &&
      error == std::errc::broken_pipe)
    return code;
  llvm::errs() << program << ": error: cannot write to " << outputName << ": "
               << error.message() << "\n";
  return 2;
}

} // namespace aimodel::cli

#endif // AIMODEL_TOOLS_AIMODEL_OUTPUTSTATUS_H
