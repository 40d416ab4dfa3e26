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
#include "bundle/BundleFolder.h"
#include "bundle/StripRecord.h"
#include "bundle/TreeWalk.h"
#include "mlir-passes/Findings.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::audit {

struct Finding {
  const Rule *rule;
  Severity severity;
  std::string message;
  std::string file; ///< member path relative to the bundle; empty = the bundle
  /// IR rules: how many ops and block arguments are concerned, and a few
  /// examples (paths, user names, ops with their source).
  uint64_t ops = 0;
  uint64_t blockArguments = 0;
  std::vector<std::string> examples;
};

/// How a compiled bundle is linked to its source (Provenance.h).
struct SourceLink {
  std::string path; ///< the source .aimodel, as reported
  /// Which identity matched: "main.hash" (as stored), or "main.mlirb" (the
  /// SHA-256 of its IR, when its stored main.hash is wrong).
  std::string matchedBy;
};

struct BundleReport {
  std::string path; ///< raw bytes, as found
  bundle::BundleKind kind;
  std::optional<std::string> producer;
  std::vector<Finding> findings; ///< ordered by rule ID, then file, then text
  /// Identities for provenance: a portable asset's main.hash in lower-case
  /// hex (when it holds 32 bytes); a compiled bundle's sourceHash, as
  /// written.
  std::optional<std::string> mainHash, sourceHash;
  /// A portable asset's main.mlirb SHA-256, lower-case hex, when the audit
  /// computed it.
  std::optional<std::string> computedHash;
  /// A portable asset's strip record (bundle/StripRecord.h), when its
  /// metadata.json carries a well-formed one.
  std::optional<bundle::StripRecord> stripRecord;
  /// A compiled bundle's source, when the audited paths hold it.
  std::optional<SourceLink> source;
  /// A portable asset's compiled bundles in the audited paths, by path.
  std::vector<std::string> compiled;
  /// The runtime-contract rules (audit/RuntimeContract.h) whose inputs the
  /// bundle had, so they ran: by ID. One whose input it lacks (no bundle
  /// folder, no tokenizer, an interface the IR does not show) is not here.
  std::vector<const Rule *> rulesRun;
  /// Not reported: this bundle's part of RunRecord::tree (treeRecord() in
  /// Shard.h), from the listing its audit read, when the audit listed it.
  std::optional<std::string> treeRecord;

  /// "path/file" of a finding, or the bundle path for one about the bundle.
  std::string pathOf(const Finding &finding) const {
    return finding.file.empty() ? path : path + "/" + finding.file;
  }
};

/// What a run was asked and what changed its findings: recorded in the
/// JSON and SARIF reports, so a report says what it is a report of and
/// --merge can check its shards belong together.
struct RunRecord {
  std::vector<std::string> inputs;         ///< the PATHs, as given
  unsigned shardIndex = 0, shardCount = 0; ///< --shard K/N; 0: unsharded
  /// What the run walked: treeDigest() of every bundle under its inputs
  /// (a shard's whole tree, not only its slice). Empty: not recorded.
  std::string tree;
  std::string runId; ///< --run-id, if given
  bool preCommit = false;
  std::optional<std::string> configFile; ///< the config applied, if any
  std::string configDigest;              ///< its bytes' SHA-256, hex
  /// Its ignore entries, "GLOB: RULE,RULE" ("GLOB: every rule").
  std::vector<std::string> configIgnore;
  /// AIM013's floor, when the config moved it.
  std::optional<std::string> configFloor;
  /// The config's severity overrides, "RULE=LEVEL", by rule ID.
  std::vector<std::string> configSeverity;
  unsigned suppressedByConfig = 0;
  std::optional<std::string> baselineFile; ///< --baseline, if given
  unsigned suppressedByBaseline = 0;
  bool metadataOnly = false;
  /// --severity RULE=LEVEL, as given, in order.
  std::vector<std::string> severityOverrides;
};

struct AuditReport {
  std::vector<BundleReport> bundles;
  std::array<unsigned, 3> countBySeverity{}; ///< indexed by Severity
  RunRecord run;

  /// Highest severity found, if any finding at all.
  std::optional<Severity> worst() const;
};

/// Runs the IR rules (passes::IRRule bits) as MLIR passes over an import of
/// the bytecode file open as `fd` (`name` is for messages): the other view
/// of the rules the audit runs over the decoded tables, for
/// --force-ir-import. MLIR comes from the caller (the executable loads it
/// on demand).
using IRRuleRunner =
    std::function<llvm::Expected<std::vector<passes::IRFinding>>(
        int fd, llvm::StringRef name, unsigned rules)>;

/// AIM013's default floor, the one place it is written: Xcode 27 beta 3's
/// coreai-build. Bundles compiled by an older one are reported to fail to
/// specialize on beta 3 and later (radar 181264112, community-reported).
inline constexpr llvm::StringLiteral kDefaultCompilerFloor =
    "coreai-build-3600.75.3";

struct AuditOptions {
  /// Metadata and layout rules only: no hash, no IR.
  bool metadataOnly = false;
  /// AIM013: compiled bundles made by an older coreai-build are reported.
  std::string compilerFloor = kDefaultCompilerFloor.str();
  /// What --force-ir-import runs.
  IRRuleRunner runIRRules;
  /// Run the IR rules as passes over an MLIR import of every IR file, not
  /// over its decoded tables (the test that both views agree).
  bool forceImport = false;
  /// Bundles audited at once; the report is the same for any value.
  unsigned jobs = 1;
  /// Called after each bundle with (done, total), from any thread.
  std::function<void(size_t, size_t)> progress;
  /// Where bundles' folders are opened from; auditBundles makes one per
  /// run when none is given.
  std::shared_ptr<bundle::FolderCache> folders;
};

/// Audits one bundle found by the tree walk.
BundleReport auditBundle(const bundle::FoundBundle &bundle,
                         const AuditOptions &options = {});

/// For stderr: which rules ran on the IR files `paths` (at least one),
/// audited alone, and which did not apply.
std::string irFileRulesNote(const std::vector<std::string> &paths);

/// Audits every bundle in `found`; the report keeps their order.
AuditReport auditBundles(const std::vector<bundle::FoundBundle> &found,
                         const AuditOptions &options = {});

/// Human-readable report; `colour` adds ANSI colour to severities;
/// `verbose` adds a line per provenance link.
void writeTextReport(llvm::raw_ostream &os, const AuditReport &report,
                     bool colour, bool verbose = false);

/// For pre-commit: every warning and error of each bundle, worst first, as
/// the text report writes them, each distinct fix once ("PATH: fix ID:
/// ..."), and a summary line with the command (the bundles' paths
/// shell-quoted) that gives their full report.
void writePreCommitReport(llvm::raw_ostream &os, const AuditReport &report,
                          bool colour);

/// The "run" object of the JSON report (and of SARIF's run properties).
nlohmann::ordered_json runJson(const RunRecord &run);

/// The severity `rule` is reported at in a run: its default, then the
/// config's severity, then --severity, the last of each winning.
Severity severityInRun(const Rule &rule, const RunRecord &run);

/// The "aimodel-audit/1" JSON document.
nlohmann::ordered_json toJson(const AuditReport &report,
                              llvm::StringRef toolVersion);

/// toJson(report, toolVersion).dump(2) and a newline, written to `os`: the
/// same bytes, with the bundles' entries made and written out `jobs` at a
/// time.
void writeJsonReport(llvm::raw_ostream &os, const AuditReport &report,
                     llvm::StringRef toolVersion, unsigned jobs);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_AUDIT_H
