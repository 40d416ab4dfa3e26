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
  llvm::StringLiteral help; ///< what to do about it
};

namespace rules {
extern const Rule MissingProducer;
extern const Rule LegacyDebugLocation;
extern const Rule HashMismatch;
extern const Rule MissingFile;
extern const Rule UnreadableMetadata;
extern const Rule UnreadableIR;
extern const Rule DebugPayload;
extern const Rule CompiledBundle;
extern const Rule UnexpectedFile;
extern const Rule Symlink;
extern const Rule UnknownAssetVersion;
extern const Rule UnverifiedLocation;
} // namespace rules

/// Every rule, ordered by ID.
llvm::ArrayRef<const Rule *> allRules();

/// The rule with ID `id` ("AIM002"), or null.
const Rule *findRule(llvm::StringRef id);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_RULES_H
