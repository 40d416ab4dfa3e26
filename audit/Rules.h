//===- Rules.h - The audit rule catalogue -----------------------*- C++ -*-===//
//
// Rule IDs and names are a public contract (reports, configs and baselines
// refer to them): never renumber or rename one.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_RULES_H
#define AIMODEL_AUDIT_RULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace aimodel::audit {

enum class Severity { Info = 0, Warning = 1, Error = 2 };

llvm::StringRef severityName(Severity severity);
std::optional<Severity> parseSeverity(llvm::StringRef name);

struct Rule {
  llvm::StringLiteral id;   ///< "AIM003"
  llvm::StringLiteral name; ///< "hash-mismatch"
  Severity severity;        ///< default severity
  llvm::StringLiteral summary;
};

namespace rules {
extern const Rule MissingProducer;
extern const Rule HashMismatch;
extern const Rule MissingFile;
extern const Rule UnreadableMetadata;
extern const Rule UnexpectedFile;
extern const Rule Symlink;
extern const Rule UnknownAssetVersion;
} // namespace rules

/// Every rule, ordered by ID.
llvm::ArrayRef<const Rule *> allRules();

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_RULES_H
