//===- IRChecks.cpp - The IR rules for one bundle -------------------------===//
//
// The IR is the authority on the legacy-location incident (producer stamps
// lie, coreai-format.md §2.1). Each IR file is decoded by the one decoder
// and the rules run over its tables (mlir-passes/TableRules.h), at the
// speed of reading; --force-ir-import runs the passes over an import
// instead, the other view of the same rules.
//
//===----------------------------------------------------------------------===//

#include "audit/IRChecks.h"

#include "bytecode/BytecodeReader.h"
#include "mlir-passes/RuleRunner.h"
#include "mlir-passes/TableRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <fcntl.h>

using namespace aimodel;
using namespace aimodel::audit;
using namespace aimodel::audit::detail;

IRFileVerdict
aimodel::audit::detail::checkIRBytes(std::unique_ptr<llvm::MemoryBuffer> bytes,
                                     const std::string &name, unsigned rules,
                                     bool withGraphs) {
  IRFileVerdict verdict;
  verdict.name = name;
  llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>> decoded =
      bytecode::BytecodeFile::fromBuffer(std::move(bytes));
  if (!decoded) {
    verdict.unreadable = llvm::toString(decoded.takeError());
    return verdict;
  }
  if (withGraphs)
    verdict.graphs = bytecode::entryGraphFacts(**decoded);
  verdict.findings = passes::runTableRules(**decoded, rules);
  return verdict;
}

IRFileVerdict aimodel::audit::detail::checkIRFile(support::RegularFile file,
                                                  const std::string &name,
                                                  unsigned rules,
                                                  const AuditOptions &options,
                                                  bool withGraphs) {
  IRFileVerdict verdict;
  verdict.name = name;
  // The runner (an import, the passes) maps the very file decoded here,
  // through its own descriptor.
  support::UniqueFd forRunner;
  if (options.forceImport && options.runIRRules)
    forRunner.reset(::fcntl(file.fd.get(), F_DUPFD_CLOEXEC, 0));
  auto buffer = support::mapRegularFile(std::move(file), name);
  llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>> decoded =
      buffer ? bytecode::BytecodeFile::fromBuffer(std::move(*buffer))
             : llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>>(
                   buffer.takeError());
  if (!decoded) {
    verdict.unreadable = llvm::toString(decoded.takeError());
    return verdict;
  }
  // The interfaces come from the decoded tables whichever view runs the
  // rules (an import shows the same ports).
  if (withGraphs)
    verdict.graphs = bytecode::entryGraphFacts(**decoded);
  if (!options.forceImport || !options.runIRRules) {
    // The rules over the decoded tables: no import.
    verdict.findings = passes::runTableRules(**decoded, rules);
    return verdict;
  }
  // --force-ir-import: the passes over an import (the other view of the
  // same rules; a test checks both agree).
  decoded->reset();
  if (!forRunner) {
    verdict.unreadable = "cannot duplicate its descriptor";
    return verdict;
  }
  llvm::Expected<std::vector<passes::IRFinding>> findings =
      options.runIRRules(forRunner.get(), name, rules);
  if (!findings)
    verdict.unreadable = llvm::toString(findings.takeError());
  else
    verdict.findings = std::move(*findings);
  return verdict;
}

static Finding make(const Rule &rule, std::string message, std::string file,
                    const passes::IRFinding *from = nullptr) {
  Finding finding{&rule, rule.severity, std::move(message), std::move(file)};
  if (from) {
    finding.ops = from->ops;
    finding.blockArguments = from->blockArguments;
    finding.examples = from->examples;
  }
  return finding;
}

std::vector<Finding>
aimodel::audit::detail::irFindings(bundle::BundleKind kind,
                                   const std::vector<IRFileVerdict> &verdicts,
                                   const std::string &compiledSummary) {
  std::vector<Finding> out;
  bool legacy = false;
  std::string compiledLegacy;
  uint64_t compiledOps = 0, compiledBlockArguments = 0;
  for (const IRFileVerdict &verdict : verdicts) {
    if (verdict.unreadable)
      out.push_back(
          make(rules::UnreadableIR,
               verdict.name + " cannot be decoded: " + *verdict.unreadable,
               verdict.name));
    for (const passes::IRFinding &f : verdict.findings) {
      if (f.ruleId == rules::LegacyDebugLocation.id) {
        legacy = true;
        if (kind == bundle::BundleKind::Asset)
          out.push_back(
              make(rules::LegacyDebugLocation, f.message, verdict.name, &f));
        else {
          compiledOps += f.ops;
          compiledBlockArguments += f.blockArguments;
          compiledLegacy +=
              llvm::formatv("{0}{1} ({2})", compiledLegacy.empty() ? "" : ", ",
                            verdict.name, f.ops + f.blockArguments);
        }
      } else if (f.ruleId == rules::DebugPayload.id) {
        out.push_back(make(rules::DebugPayload, f.message, verdict.name, &f));
      } else if (f.ruleId == rules::GraphTrap.id) {
        out.push_back(make(rules::GraphTrap, f.message, verdict.name, &f));
      }
    }
  }
  // AIM012 speaks of forms whose fate is unknown: moot when AIM002 fires.
  if (kind == bundle::BundleKind::Asset && !legacy)
    for (const IRFileVerdict &verdict : verdicts)
      for (const passes::IRFinding &f : verdict.findings)
        if (f.ruleId == rules::UnverifiedLocation.id)
          out.push_back(
              make(rules::UnverifiedLocation, f.message, verdict.name, &f));
  if (kind == bundle::BundleKind::CompiledAsset) {
    std::string text = compiledSummary;
    if (!compiledLegacy.empty())
      text += "; its IR still carries coreai-torch 0.4.0 call-stack "
              "locations (locations per file: " +
              compiledLegacy +
              "); whether compiled bundles load with them is not known";
    // The counts say the call stacks are there, for what reads the report
    // (RepairPlan.h) and not the text.
    Finding note = make(rules::CompiledBundle, text, "");
    note.ops = compiledOps;
    note.blockArguments = compiledBlockArguments;
    out.push_back(std::move(note));
  }
  return out;
}
