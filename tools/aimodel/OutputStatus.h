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

#include "support/ReadGuard.h"

#include "llvm/Support/raw_ostream.h"

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

/// Flushes stdout; returns `code`, or 2 with one line on stderr when
/// anything written to stdout was lost or an input changed while it was
/// read.
inline int finishOutput(int code) {
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
  if (inputsChanged("aimodel"))
    code = 2;
  if (!out.has_error())
    return code;
  std::error_code error = out.error();
  // Cleared, or the stream reports the same failure fatally at exit.
  out.clear_error();
  llvm::errs() << "aimodel: error: cannot write to standard output: "
               << error.message() << "\n";
  return 2;
}

} // namespace aimodel::cli

#endif // AIMODEL_TOOLS_AIMODEL_OUTPUTSTATUS_H
