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

#include "llvm/Support/raw_ostream.h"

#include <system_error>

namespace aimodel::cli {

/// Flushes stdout; returns `code`, or 2 with one line on stderr when
/// anything written to stdout was lost.
inline int finishOutput(int code) {
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
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
