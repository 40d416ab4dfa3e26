//===- Audit.h - Auditing Core AI bundles -----------------------*- C++ -*-===//
//
// The audit library's public face: audit the bundles found under some paths
// and render the result. Checks are pure functions of the bundle on disk; the
// report is sorted so output is byte-identical across runs.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_AUDIT_H
#define AIMODEL_AUDIT_AUDIT_H

#include "audit/Rules.h"
#include "bundle/TreeWalk.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::audit {

struct Finding {
  const Rule *rule;
  Severity severity;
  std::string message;
  std::string file; ///< member path relative to the bundle; empty = the bundle
};

struct BundleReport {
  std::string path; ///< raw bytes, as found
  bundle::BundleKind kind;
  std::optional<std::string> producer;
  std::vector<Finding> findings; ///< ordered by rule ID, then file, then text
};

struct AuditReport {
  std::vector<BundleReport> bundles;
  std::array<unsigned, 3> countBySeverity{}; ///< indexed by Severity

  /// Highest severity found, if any finding at all.
  std::optional<Severity> worst() const;
};

/// Audits one bundle found by the tree walk.
BundleReport auditBundle(const bundle::FoundBundle &bundle);

/// Audits every bundle in `found`, in order.
AuditReport auditBundles(const std::vector<bundle::FoundBundle> &found);

/// Human-readable report; `colour` adds ANSI colour to severities.
void writeTextReport(llvm::raw_ostream &os, const AuditReport &report,
                     bool colour);

/// The "aimodel-audit/1" JSON document.
nlohmann::ordered_json toJson(const AuditReport &report,
                              llvm::StringRef toolVersion);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_AUDIT_H
