//===- AuditCommand.cpp - `aimodel audit` ---------------------------------===//

#include "tools/aimodel/Commands.h"
#include "tools/aimodel/MLIRAudit.h"
#include "tools/aimodel/MLIRCommands.h"
#include "tools/aimodel/OutputStatus.h"
#include "tools/aimodel/Terminal.h"

#include "audit/Audit.h"
#include "audit/Baseline.h"
#include "audit/Config.h"
#include "audit/Provenance.h"
#include "audit/ReportFormats.h"
#include "audit/Shard.h"
#include "bundle/PreCommit.h"
#include "bundle/TreeWalk.h"
#include "support/PathText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::cli;

namespace {
struct AuditCommandOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string failOn = "error";
  bool listRules = false;
  unsigned jobs = 0;
  bool metadataOnly = false;
  bool quiet = false;
  bool preCommit = false;
  bool forceIRImport = false;
  bool noConfig = false;
  bool verbose = false;
  bool allowEmpty = false;
  bool mergeReports = false; ///< --merge: the paths are shard reports
  std::string shard, config, baseline, runId, sarifRoot = ".";
  std::vector<std::string> merge, severity;
  std::string usage; ///< the command's usage line, for a missing operand
};

void listRules(llvm::raw_ostream &os) {
  for (const audit::Rule *rule : audit::allRules())
    os << rule->id << "  " << rule->name << "  ("
       << audit::severityName(rule->severity) << ")  " << rule->summary
       << "\n        " << audit::evidenceName(rule->evidence) << ": "
       << rule->source << "\n";
}

/// The files the index deletes (`git diff --cached --diff-filter=D`),
/// relative to the working directory; none outside a git repository or
/// without git.
std::vector<std::string> stagedDeletions() {
  llvm::ErrorOr<std::string> git = llvm::sys::findProgramByName("git");
  if (!git)
    return {};
  llvm::SmallString<128> listing;
  if (llvm::sys::fs::createTemporaryFile("aimodel-deleted", "txt", listing))
    return {};
  llvm::FileRemover remove(listing);
  llvm::StringRef args[] = {
      *git,         "diff", "--cached", "--name-only", "--diff-filter=D",
      "--relative", "-z"};
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(listing), llvm::StringRef("")};
  if (llvm::sys::ExecuteAndWait(*git, args, std::nullopt, redirects) != 0)
    return {};
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(listing);
  if (!text)
    return {};
  llvm::SmallVector<llvm::StringRef, 8> names;
  (*text)->getBuffer().split(names, '\0', -1, /*KeepEmpty=*/false);
  return std::vector<std::string>(names.begin(), names.end());
}

int auditError(const llvm::Twine &message) {
  llvm::errs() << "aimodel audit: error: " << message << "\n";
  return ExitInputError;
}

/// A request without its operands: the error, then the usage line.
int missingOperand(const AuditCommandOptions &options,
                   const llvm::Twine &message) {
  auditError(message);
  if (!options.usage.empty())
    llvm::errs() << options.usage << "\n";
  return ExitInputError;
}

/// The IR rule passes, in the aimodel-mlir module: loaded the first time a
/// file shows evidence for an IR rule, so a tree without any never pays for
/// MLIR.
audit::IRRuleRunner irRuleRunner() {
  struct Module {
    std::once_flag loaded;
    AIModelRunIRRulesFn run = nullptr;
  };
  auto module = std::make_shared<Module>();
  return [module](
             int fd, llvm::StringRef name,
             unsigned rules) -> llvm::Expected<std::vector<passes::IRFinding>> {
    std::call_once(module->loaded, [&] {
      module->run = reinterpret_cast<AIModelRunIRRulesFn>(
          findMLIRCommand(AIMODEL_RUN_IR_RULES_SYMBOL));
    });
    if (!module->run)
      return llvm::createStringError("the IR rules cannot run: the "
                                     "aimodel-mlir module did not load");
    std::string nameText = name.str();
    AIModelIRRulesRequest request{fd, nameText.c_str(), rules};
    char *result = nullptr;
    // The module keeps its own record of files that changed (its own copy
    // of support/): this side watches the file itself.
    support::ReadWatch watch(fd, name);
    int code = module->run(&request, &result);
    std::string text = result ? result : "";
    std::free(result);
    if (watch.changed())
      return llvm::createStringError("changed while it was read");
    if (code != 0)
      return llvm::createStringError(text);
    std::vector<passes::IRFinding> findings;
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    for (const nlohmann::json &f : parsed) {
      passes::IRFinding finding;
      finding.ruleId = f.value("rule", "");
      finding.message = f.value("message", "");
      finding.ops = f.value("ops", uint64_t(0));
      finding.blockArguments = f.value("block_arguments", uint64_t(0));
      finding.examples = f.value("examples", std::vector<std::string>());
      findings.push_back(std::move(finding));
    }
    return findings;
  };
}

bool progressWanted(bool quiet) {
  return !quiet && ::isatty(STDERR_FILENO) && !std::getenv("PRE_COMMIT");
}

int exitFor(const std::string &failOn, std::optional<audit::Severity> worst) {
  std::optional<audit::Severity> threshold = audit::parseSeverity(failOn);
  return threshold && worst && *worst >= *threshold ? ExitFindings : ExitClean;
}

/// The report in the format asked for, on stdout.
void writeReport(const AuditCommandOptions &options,
                 const audit::AuditReport &report) {
  if (options.format == "json")
    audit::writeJsonReport(
        llvm::outs(), report, AIMODEL_VERSION,
        options.jobs ? options.jobs
                     : std::max(1u, std::thread::hardware_concurrency()));
  else if (options.format == "sarif")
    audit::writeSarifReport(llvm::outs(), report, AIMODEL_VERSION,
                            options.sarifRoot);
  else if (options.format == "junit")
    audit::writeJUnitReport(llvm::outs(), report);
  else if (options.format == "github")
    audit::writeGitHubReport(llvm::outs(), report);
  else if (options.format == "markdown" || options.format == "html") {
    audit::PeopleReportOptions people;
    people.failOn = audit::parseSeverity(options.failOn); // "never": none
    if (options.format == "markdown")
      audit::writeMarkdownReport(llvm::outs(), report, people);
    else
      audit::writeHtmlReport(llvm::outs(), report, people);
  } else if (options.preCommit)
    audit::writePreCommitReport(llvm::outs(), report,
                                wantColour(STDOUT_FILENO));
  else
    audit::writeTextReport(llvm::outs(), report, wantColour(STDOUT_FILENO),
                           options.verbose);
  llvm::outs().flush();
}

int runMerge(const AuditCommandOptions &options) {
  llvm::Expected<audit::AuditReport> merged =
      audit::mergeReports(options.merge, AIMODEL_VERSION);
  if (!merged)
    return auditError(llvm::toString(merged.takeError()));
  writeReport(options, *merged);
  return exitFor(options.failOn, merged->worst());
}

/// --severity RULE=LEVEL, each checked against the catalogue.
llvm::Expected<std::map<std::string, audit::Severity>>
parseSeverityOverrides(const std::vector<std::string> &given) {
  std::map<std::string, audit::Severity> out;
  for (const std::string &item : given) {
    auto [id, level] = llvm::StringRef(item).split('=');
    const audit::Rule *rule = audit::findRule(id);
    std::optional<audit::Severity> severity = audit::parseSeverity(level);
    if (!rule || !severity) // no '=': the level is ""
      return llvm::createStringError(
          "--severity " + nlohmann::json(item).dump() +
          ": expected RULE=LEVEL, a rule ID (aimodel audit --list-rules) and "
          "error, warning or info");
    out[rule->id.str()] = *severity;
  }
  return out;
}

int runAudit(AuditCommandOptions options) {
  if (options.mergeReports) {
    options.merge = std::move(options.paths);
    options.paths.clear();
    if (options.merge.empty())
      return missingOperand(options, "--merge needs the shards' JSON reports");
    // The shards decided these; given again they would be ignored.
    if (!options.shard.empty() || options.metadataOnly ||
        !options.baseline.empty() || !options.severity.empty() ||
        !options.config.empty() || options.preCommit || options.forceIRImport)
      return auditError("--merge takes only shard reports, --format, "
                        "--fail-on and --sarif-root: what was audited, and "
                        "how, is in the shards' run records");
    return runMerge(options);
  }
  // The hook runs on every commit (always_run), with no file when none
  // of a bundle is staged: only its staged deletions then.
  if (options.paths.empty() && !options.preCommit)
    return missingOperand(options, "no PATH given");

  // Everything that can be wrong with the request is refused before a
  // bundle is read.
  std::optional<audit::ShardSpec> shard;
  if (!options.shard.empty()) {
    llvm::Expected<audit::ShardSpec> parsed = audit::parseShard(options.shard);
    if (!parsed)
      return auditError(llvm::toString(parsed.takeError()));
    shard = *parsed;
  }
  llvm::SmallString<256> cwd;
  if (std::error_code ec = llvm::sys::fs::current_path(cwd))
    return auditError("cannot read the working directory: " + ec.message());
  std::optional<audit::Config> config;
  if (!options.config.empty()) {
    llvm::Expected<audit::Config> loaded = audit::loadConfig(options.config);
    if (!loaded)
      return auditError(llvm::toString(loaded.takeError()));
    config = std::move(*loaded);
  } else if (!options.noConfig) {
    const char *home = std::getenv("HOME");
    llvm::Expected<std::optional<audit::Config>> found =
        audit::findConfig(cwd, home ? home : "");
    if (!found)
      return auditError(llvm::toString(found.takeError()));
    config = std::move(*found);
  }
  if (config)
    for (const std::string &warning : audit::configWarnings(*config))
      llvm::errs() << "aimodel audit: warning: " << warning << "\n";
  llvm::Expected<std::map<std::string, audit::Severity>> overrides =
      parseSeverityOverrides(options.severity);
  if (!overrides)
    return auditError(llvm::toString(overrides.takeError()));
  std::optional<audit::Baseline> baseline;
  if (!options.baseline.empty()) {
    llvm::Expected<audit::Baseline> loaded =
        audit::loadBaseline(options.baseline);
    if (!loaded)
      return auditError(llvm::toString(loaded.takeError()));
    baseline = std::move(*loaded);
  }

  std::vector<std::string> roots = options.paths;
  if (options.preCommit) {
    // pre-commit never passes a deleted file: a commit deleting a member
    // would pass unseen. The staged deletions come from git itself.
    std::vector<std::string> files = options.paths;
    for (std::string &deleted : stagedDeletions())
      files.push_back(std::move(deleted));
    std::vector<std::string> ignored;
    roots = bundle::bundlesForFiles(files, ignored);
    if (roots.empty())
      return ExitClean; // no staged file belongs to a bundle
  }
  llvm::Expected<bundle::WalkResult> walked = bundle::findBundles(roots);
  if (!walked)
    return auditError(llvm::toString(walked.takeError()));
  // A gate over a mistyped or moved folder would pass forever.
  if (walked->bundles.empty() && walked->errors.empty() && !options.preCommit &&
      !options.allowEmpty) {
    std::string paths;
    for (const std::string &path : options.paths)
      paths += (paths.empty() ? "" : ", ") + support::printablePath(path);
    return auditError("no bundles under " + paths +
                      " (a mistyped or moved folder? --allow-empty audits a "
                      "tree that holds none)");
  }
  // Provenance links compiled bundles to sources anywhere in the run,
  // whichever shard audits them.
  std::vector<bundle::FoundBundle> everyBundle;
  if (shard) {
    everyBundle = walked->bundles;
    llvm::erase_if(walked->bundles, [&](const bundle::FoundBundle &b) {
      return !audit::inShard(*shard, b.path);
    });
  }

  audit::AuditOptions auditOptions;
  auditOptions.metadataOnly = options.metadataOnly;
  auditOptions.forceImport = options.forceIRImport;
  auditOptions.runIRRules = irRuleRunner();
  auditOptions.jobs = options.jobs
                          ? options.jobs
                          : std::max(1u, std::thread::hardware_concurrency());
  ProgressLine progress(progressWanted(options.quiet), "audited", "bundles");
  auditOptions.progress = [&](size_t done, size_t total) {
    progress.update(done, total);
  };
  if (config && config->compilerFloor)
    auditOptions.compilerFloor = *config->compilerFloor;
  audit::AuditReport report =
      audit::auditBundles(walked->bundles, auditOptions);
  audit::linkSources(report, shard ? everyBundle : walked->bundles,
                     auditOptions);
  progress.finish();
  if (inputsChanged("aimodel audit"))
    return ExitInputError;
  report.run.inputs = options.paths;
  report.run.preCommit = options.preCommit;
  if (shard) {
    report.run.shardIndex = shard->index;
    report.run.shardCount = shard->count;
  }
  report.run.severityOverrides = options.severity;
  report.run.metadataOnly = options.metadataOnly;
  if (!options.baseline.empty())
    report.run.baselineFile = options.baseline;
  report.run.tree = audit::treeDigest(shard ? everyBundle : walked->bundles,
                                      &report, auditOptions.jobs);
  report.run.runId = options.runId;
  if (config) {
    audit::ConfigEffect effect = audit::applyConfig(*config, report, cwd);
    report.run.configFile = config->file;
    report.run.configDigest = config->digest;
    report.run.configFloor = config->compilerFloor;
    for (const audit::IgnoreEntry &entry : config->ignore) {
      std::string rules;
      for (const audit::Rule *rule : entry.rules)
        rules += (rules.empty() ? "" : ",") + rule->id.str();
      report.run.configIgnore.push_back(entry.path + ": " +
                                        (rules.empty() ? "every rule" : rules));
    }
    report.run.suppressedByConfig = effect.suppressedByConfig;
    std::string severities;
    for (const auto &[id, severity] : config->severity) {
      report.run.configSeverity.push_back(id + "=" +
                                          audit::severityName(severity).str());
      severities += (severities.empty() ? "" : ", ") + id + " reported as " +
                    audit::severityName(severity).str();
    }
    // Never silent: which file decided, and what it changed.
    llvm::errs() << "aimodel audit: note: config "
                 << support::printablePath(config->file) << ": "
                 << effect.suppressedByConfig
                 << (effect.suppressedByConfig == 1 ? " finding" : " findings")
                 << " suppressed by its ignore list"
                 << (severities.empty() ? "" : "; " + severities)
                 << (config->compilerFloor
                         ? "; AIM013's floor moved to " +
                               support::printableText(*config->compilerFloor) +
                               " (default " +
                               audit::kDefaultCompilerFloor.str() + ")"
                         : std::string())
                 << "\n";
    // An ignore that hides nothing is stale or mistyped; only a whole run
    // can tell (a shard or a commit sees part of the tree).
    if (!shard && !options.preCommit)
      for (size_t i = 0; i < config->ignore.size(); ++i)
        if (!effect.suppressedByEntry[i])
          llvm::errs() << "aimodel audit: warning: config "
                       << support::printablePath(config->file) << ": ignore["
                       << i << "] ("
                       << nlohmann::json(
                              support::printablePath(config->ignore[i].path))
                              .dump()
                       << ") matched no finding of this run\n";
  }
  if (!overrides->empty())
    audit::applySeverities(*overrides, report);
  if (baseline)
    report.run.suppressedByBaseline = audit::applyBaseline(*baseline, report);

  writeReport(options, report);

  std::vector<std::string> irFiles;
  for (const audit::BundleReport &bundle : report.bundles)
    if (bundle.kind == bundle::BundleKind::IRFile)
      irFiles.push_back(bundle.path);
  if (!irFiles.empty())
    llvm::errs() << "aimodel audit: note: " << audit::irFileRulesNote(irFiles)
                 << "\n";

  for (const std::string &error : walked->errors)
    llvm::errs() << "aimodel audit: error: " << error << "\n";
  if (walked->bundles.empty() && walked->errors.empty() && !options.preCommit)
    llvm::errs() << "aimodel audit: no bundles found\n";
  if (!walked->errors.empty())
    return ExitInputError;
  return exitFor(options.failOn, report.worst());
}
} // namespace

CommandRunner aimodel::cli::addAuditCommand(CLI::App &app) {
  auto options = std::make_shared<AuditCommandOptions>();
  CLI::App *cmd = app.add_subcommand(
      "audit", "Check Core AI bundles (.aimodel, .aimodelc, bundle folders) "
               "found under each PATH; reads, never writes.");
  cmd->add_option("paths", options->paths,
                  "Bundles, folders to search recursively, or MLIR bytecode "
                  "files, audited alone (with --pre-commit: files, each "
                  "standing for its bundle)")
      ->check(NonEmpty);
  cmd->footer(
      "Examples:\n"
      "  aimodel audit models                         # every bundle below "
      "models/\n"
      "  aimodel audit old/main.mlirb                 # one IR file\n"
      "  aimodel audit --format sarif models > audit.sarif\n"
      "  aimodel audit --severity AIM012=error --fail-on warning models\n"
      "  aimodel audit --shard 2/4 --format json models > shard-2.json\n"
      "  aimodel audit --merge shard-*.json          # the whole run's "
      "report\n\n"
      "Exit codes: 0 no finding at or above --fail-on (default error); 1 "
      "such a finding; 2 usage or input error (a PATH or folder that "
      "cannot be read, a bad config, baseline or shard report).\n\n" +
      referenceLine("audit"));
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember(
          {"text", "json", "sarif", "junit", "github", "markdown", "html"}))
      ->capture_default_str();
  cmd->add_option("--fail-on", options->failOn,
                  "Exit 1 when a finding at or above this severity exists")
      ->check(CLI::IsMember({"error", "warning", "info", "never"}))
      ->capture_default_str();
  cmd->add_option("-j,--jobs", options->jobs,
                  "Bundles audited at once (default: the number of cores); "
                  "the output is the same for any value")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--metadata-only", options->metadataOnly,
                "Metadata and layout rules only: no hash, no IR");
  cmd->add_option("--shard", options->shard,
                  "K/N: audit only the K-th of N deterministic slices of the "
                  "bundles found (join the JSON reports with --merge)")
      ->check(NonEmpty);
  // A flag, its reports the operands: an option after it (`--merge
  // --format sarif a.json b.json`) is never taken for a report.
  cmd->add_flag("--merge", options->mergeReports,
                "The operands are the JSON reports of shards: join them into "
                "the whole run's report, instead of auditing");
  CLI::Option *configOption =
      cmd->add_option("--config", options->config,
                      "Config file (default: the nearest .aimodel.json from "
                      "the working directory up to the repository root; "
                      "outside a repository, the working directory's own)")
          ->check(NonEmpty);
  cmd->add_flag("--no-config", options->noConfig,
                "Audit without any config file")
      ->excludes(configOption);
  cmd->add_option("--severity", options->severity,
                  "RULE=LEVEL: report RULE at LEVEL (error, warning, info); "
                  "repeatable, applied after the config's")
      ->take_all()
      ->allow_extra_args(false)
      ->expected(1);
  cmd->add_option("--baseline", options->baseline,
                  "An earlier JSON report: its findings are not reported again")
      ->check(NonEmpty);
  cmd->add_option("--run-id", options->runId,
                  "Recorded in the report (e.g. the CI run's id); shards of "
                  "different runs do not merge")
      ->check(NonEmpty);
  cmd->add_option("--sarif-root", options->sarifRoot,
                  "SARIF URIs are relative to this folder (must exist)")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  cmd->add_flag("--pre-commit", options->preCommit,
                "PATHs are files (as pre-commit passes them): audit each "
                "enclosing bundle whole; every warning and error, each fix "
                "once");
  cmd->add_flag("--allow-empty", options->allowEmpty,
                "PATHs holding no bundle at all are a clean audit, not an "
                "error (exit 2 without it)");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress line");
  cmd->add_flag("-v,--verbose", options->verbose,
                "Text: one line per compiled bundle linked to its source");
  cmd->add_flag("--list-rules", options->listRules,
                "Print the rule table and exit");
  // For tests: import every IR file, even where the decoded tables prove no
  // IR rule can fire (the proof's soundness check).
  cmd->add_flag("--force-ir-import", options->forceIRImport)->group("");

  return [options, cmd]() -> int {
    options->usage = usageLine(*cmd);
    if (options->listRules) {
      if (!options->paths.empty() || options->mergeReports)
        return auditError("--list-rules takes no PATH and no other work");
      listRules(llvm::outs());
      return ExitClean;
    }
    return runAudit(*options);
  };
}
