//===- AuditCommand.cpp - `aimodel audit` ---------------------------------===//

#include "tools/aimodel/Commands.h"
#include "tools/aimodel/Terminal.h"

#include "audit/Audit.h"
#include "bundle/TreeWalk.h"

#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::cli;

namespace {
struct AuditOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string failOn = "error";
  bool listRules = false;
};

void listRules(llvm::raw_ostream &os) {
  for (const audit::Rule *rule : audit::allRules())
    os << rule->id << "  " << rule->name << "  ("
       << audit::severityName(rule->severity) << ")  " << rule->summary << "\n";
}
} // namespace

CommandRunner aimodel::cli::addAuditCommand(CLI::App &app) {
  auto options = std::make_shared<AuditOptions>();
  CLI::App *cmd = app.add_subcommand(
      "audit", "Check Core AI bundles (.aimodel, .aimodelc, bundle folders) "
               "found under each PATH; reads, never writes.");
  cmd->add_option("paths", options->paths,
                  "Bundles, or folders to search recursively");
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--fail-on", options->failOn,
                  "Exit 1 when a finding at or above this severity exists")
      ->check(CLI::IsMember({"error", "warning", "info", "never"}))
      ->capture_default_str();
  cmd->add_flag("--list-rules", options->listRules,
                "Print the rule table and exit");

  return [options]() -> int {
    if (options->listRules) {
      listRules(llvm::outs());
      return ExitClean;
    }
    if (options->paths.empty()) {
      llvm::errs() << "aimodel audit: error: no PATH given\n";
      return ExitInputError;
    }
    llvm::Expected<bundle::WalkResult> walked =
        bundle::findBundles(options->paths);
    if (!walked) {
      llvm::errs() << "aimodel audit: error: "
                   << llvm::toString(walked.takeError()) << "\n";
      return ExitInputError;
    }
    audit::AuditReport report = audit::auditBundles(walked->bundles);
    if (options->format == "json")
      llvm::outs() << toJson(report, AIMODEL_VERSION).dump(2) << "\n";
    else
      audit::writeTextReport(llvm::outs(), report, wantColour(STDOUT_FILENO));
    llvm::outs().flush();

    for (const std::string &error : walked->errors)
      llvm::errs() << "aimodel audit: error: " << error << "\n";
    if (walked->bundles.empty() && walked->errors.empty())
      llvm::errs() << "aimodel audit: no bundles found\n";
    if (!walked->errors.empty())
      return ExitInputError;
    std::optional<audit::Severity> threshold =
        audit::parseSeverity(options->failOn);
    std::optional<audit::Severity> worst = report.worst();
    return threshold && worst && *worst >= *threshold ? ExitFindings
                                                      : ExitClean;
  };
}
