//===- Baseline.h - Accepting the findings of an earlier report -*- C++ -*-===//
//
// `--baseline REPORT.json` lets a project adopt the audit without fixing
// everything first: findings already in an earlier `aimodel audit --format
// json` report are suppressed, new ones still count. A finding is known by
// (bundle path, rule ID, member file), never by its message, so rewording a
// message does not resurface old findings. Paths compare as exact bytes
// ("path_bytes"/"file_bytes" when the report has them), so the baseline must
// come from a run given the same PATH spelling.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_BASELINE_H
#define AIMODEL_AUDIT_BASELINE_H

#include "audit/Audit.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <set>
#include <string>
#include <tuple>

namespace aimodel::audit {

struct Baseline {
  std::string file; ///< the report it was read from
  /// (bundle path bytes, rule ID, member file bytes) of every finding.
  std::set<std::tuple<std::string, std::string, std::string>> findings;
};

/// Reads an "aimodel-audit/1" JSON report. Errors are one line naming the
/// file (not JSON, another schema, a malformed element).
llvm::Expected<Baseline> loadBaseline(llvm::StringRef path);

/// Drops the findings `baseline` knows, recounts the report, and returns
/// how many were dropped.
unsigned applyBaseline(const Baseline &baseline, AuditReport &report);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_BASELINE_H
