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

/// How sure the project is of the fact a rule rests on.
enum class Evidence {
  Measured,   ///< checked on real bytes
  Inferred,   ///< deduced from code or documents, not read verbatim
  ThirdParty, ///< "3P": reported by others, not verified here
};

llvm::StringRef evidenceName(Evidence evidence); ///< "MEASURED", ...

struct Rule {
  llvm::StringLiteral id;   ///< "AIM003"
  llvm::StringLiteral name; ///< "hash-mismatch"
  Severity severity;        ///< default severity
  llvm::StringLiteral summary;
  llvm::StringLiteral help; ///< what to do about it
  Evidence evidence;
  llvm::StringLiteral source; ///< where the fact comes from
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
extern const Rule StaleCompiler;
extern const Rule CompiledWithoutSource;
extern const Rule GraphTrap;
extern const Rule StripRecordMismatch;
// The runtime contract: what the engines and loaders that run an asset
// require of it (audit/RuntimeContract.h), after the community's doctor.
extern const Rule StateCount;
extern const Rule SingleTokenGraph;
extern const Rule VocabSizeMismatch;
extern const Rule TokenizerOverflow;
extern const Rule DynamicKVLongContext;
extern const Rule IncompleteLanguageBundle;
extern const Rule ChatTemplateMissing;
extern const Rule ChatTemplateAbsent;
extern const Rule EosNotInTemplate;
extern const Rule TokenizerClassUnregistered;
extern const Rule LargePortableGraph;
extern const Rule MemoryEntitlement;
extern const Rule SymlinkedAssetPath;
extern const Rule CompiledLoadContract;
extern const Rule NoANERegion;
extern const Rule ANERequestedNotCompiled;
} // namespace rules

/// Every rule, ordered by ID.
llvm::ArrayRef<const Rule *> allRules();

/// The rule with ID `id` ("AIM002"), or null.
const Rule *findRule(llvm::StringRef id);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_RULES_H
