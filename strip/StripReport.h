//===- StripReport.h - Text and JSON renderings of a strip ------*- C++ -*-===//
//
// Machine output on stdout only: `--format json` is one document, schema
// "aimodel-strip/1"; text is one line per asset, skip (and, in a dry run,
// copy), then a summary. Paths are written as the audit writes them
// (support/PathText.h): exact when valid UTF-8, else escaped with their
// bytes in hex beside them.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPREPORT_H
#define AIMODEL_STRIP_STRIPREPORT_H

#include "strip/StripTree.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

namespace aimodel::strip {

/// "unknown" or "op-id".
llvm::StringRef locationModeName(LocationMode mode);

void writeStripText(llvm::raw_ostream &os, const StripReport &report);

nlohmann::ordered_json toJson(const StripReport &report,
                              llvm::StringRef toolVersion);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPREPORT_H
