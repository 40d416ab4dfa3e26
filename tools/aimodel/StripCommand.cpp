//===- StripCommand.cpp - `aimodel strip` ---------------------------------===//

#include "tools/aimodel/Commands.h"
#include "tools/aimodel/OutputStatus.h"
#include "tools/aimodel/Terminal.h"

#include "strip/StripReport.h"
#include "strip/StripTree.h"

#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::cli;

namespace {
struct StripCommandOptions {
  std::string file, output, backup;
  /// SRC, or with --in-place every PATH.
  std::vector<std::string> sources;
  bool inPlace = false;
  std::string usage; ///< the usage line, for a missing operand
  std::string format = "text";
  std::string locations = "unknown";
  unsigned jobs = 0;
  bool dryRun = false, force = false, quiet = false;
  bool rehash = false, allowKept = false, noRecord = false;
};

int usageError(const llvm::Twine &message) {
  llvm::errs() << "aimodel strip: error: " << message << "\n";
  return ExitInputError;
}

/// Only on a terminal; never under NO_COLOR, PRE_COMMIT or -q.
bool progressWanted(bool quiet) {
  return !quiet && ::isatty(STDERR_FILENO) && !std::getenv("NO_COLOR") &&
         !std::getenv("PRE_COMMIT");
}

int stripError(llvm::Error error) {
  std::string message;
  bool changed = false;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    changed |=
        e.convertToErrorCode() == std::errc::resource_unavailable_try_again;
    message += (message.empty() ? "" : "; ") + e.message();
  });
  // A file that changed is said once, in strip's words; any other error
  // leaves the files that changed to be said after it.
  if (changed)
    changedInputsAlreadySaid();
  return usageError(message);
}

/// Every PATH in turn; the exit code is the worst of them. JSON is one
/// report per PATH, in an array.
int runInPlace(const StripCommandOptions &options,
               const strip::TreeOptions &tree, ProgressLine &progress) {
  bool findings = false;
  nlohmann::ordered_json reports = nlohmann::ordered_json::array();
  for (const std::string &path : options.sources) {
    llvm::Expected<strip::StripReport> report = strip::stripInPlace(path, tree);
    progress.finish();
    if (!report)
      return stripError(report.takeError());
    if (options.format == "json")
      reports.push_back(strip::toJson(*report, AIMODEL_VERSION));
    else
      strip::writeStripText(llvm::outs(), *report);
    llvm::outs().flush();
    for (const std::string &note : report->notes)
      llvm::errs() << "aimodel strip: note: " << note << "\n";
    findings |=
        report->anySkipped() || (report->anyKept() && !options.allowKept);
  }
  if (options.format == "json")
    llvm::outs() << reports.dump(2) << "\n";
  return findings ? ExitFindings : ExitClean;
}

int runStrip(const StripCommandOptions &options) {
  if (options.inPlace &&
      (!options.file.empty() || !options.output.empty() || options.force))
    return usageError("--in-place PATH... takes no --file, -o or --force");
  if (options.inPlace && options.sources.empty())
    return usageError("no PATH given to repair in place (an .aimodel or a "
                      "folder)\n" +
                      options.usage);
  if (!options.inPlace && !options.backup.empty())
    return usageError("--backup DIR goes with --in-place");
  if (!options.inPlace && options.output.empty())
    return usageError("--output is required (-o DST; or --in-place "
                      "PATH...)\n" +
                      options.usage);
  if (!options.inPlace && options.sources.size() > 1)
    return usageError("one SRC with -o (several PATHs go with --in-place)\n" +
                      options.usage);
  if (!options.inPlace && options.sources.empty() == options.file.empty())
    return usageError(
        (options.file.empty()
             ? "no SRC given (a .aimodel, a folder, or --file IN)\n"
             : "give SRC or --file IN, not both\n") +
        options.usage);
  strip::TreeOptions tree;
  tree.file.locations = options.locations == "op-id"
                            ? strip::LocationMode::OpId
                            : strip::LocationMode::Unknown;
  // Assets always hash their mlirb (main.hash is checked); a lone file
  // only for the JSON report, the one place that shows it.
  tree.file.hashInput = options.format == "json";
  tree.rehash = options.rehash;
  tree.record = !options.noRecord;
  tree.toolVersion = AIMODEL_VERSION;
  tree.jobs = options.jobs ? options.jobs
                           : std::max(1u, std::thread::hardware_concurrency());
  tree.dryRun = options.dryRun;
  tree.force = options.force;
  ProgressLine progress(progressWanted(options.quiet), "stripped", "assets");
  tree.progress = [&](size_t done, size_t total) {
    progress.update(done, total);
  };
  tree.backup = options.backup;
  if (options.inPlace)
    return runInPlace(options, tree, progress);
  llvm::Expected<strip::StripReport> report =
      options.file.empty()
          ? strip::stripPath(options.sources.front(), options.output, tree)
          : strip::stripSingleFile(options.file, options.output, tree);
  progress.finish();
  if (!report)
    return stripError(report.takeError());

  if (options.format == "json")
    llvm::outs() << strip::toJson(*report, AIMODEL_VERSION).dump(2) << "\n";
  else
    strip::writeStripText(llvm::outs(), *report);
  llvm::outs().flush();
  for (const std::string &note : report->notes)
    llvm::errs() << "aimodel strip: note: " << note << "\n";
  if (tree.file.locations == strip::LocationMode::OpId)
    llvm::errs() << "aimodel strip: note: --locations op-id writes "
                    "\"coreai\"(\"op_id\":N:0) locations, which current "
                    "compilers are not known to accept (AIM012); the "
                    "default, --locations unknown, writes loc(unknown)\n";
  if (report->assets.empty() && report->mode == strip::StripReport::Mode::Tree)
    llvm::errs() << "aimodel strip: no .aimodel found\n";
  if (report->anyKept() && !options.allowKept)
    llvm::errs() << "aimodel strip: debug payload stays in the output (listed "
                    "above); exit 1 (--allow-kept accepts it)\n";
  return report->anySkipped() || (report->anyKept() && !options.allowKept)
             ? ExitFindings
             : ExitClean;
}
} // namespace

CommandRunner aimodel::cli::addStripCommand(CLI::App &app) {
  auto options = std::make_shared<StripCommandOptions>();
  CLI::App *cmd = app.add_subcommand(
      "strip",
      "Write a shipping copy without debug payload: SRC an .aimodel (DST "
      "becomes its stripped copy) or a folder (DST mirrors it, every .aimodel "
      "stripped, every other file copied; .aimodelc and symlinks skipped). "
      "Inputs are never modified; DST appears only once complete and "
      "verified. --in-place PATH... repairs assets where they are "
      "instead.\n\nExamples:\n"
      "  aimodel strip legacy/model.aimodel -o dist/model.aimodel\n"
      "  aimodel strip models -o models-stripped -j 8\n"
      "  aimodel strip --in-place models --backup ../models-originals\n"
      "  aimodel strip --file main.mlirb -o main.stripped.mlirb\n"
      "  aimodel strip --dry-run --format json models -o out\n\n"
      "Exit codes: 0 all stripped, verified and clean; 1 something skipped "
      "(listed with the reason; the rest was written) or debug payload "
      "kept (unless --allow-kept); 2 usage, input, write or verification "
      "error, or a single asset or --file that cannot be stripped (nothing "
      "written).");
  cmd->footer(referenceLine("strip"));
  cmd->add_option("source", options->sources,
                  "SRC: an .aimodel, or a folder (a coreai-models bundle "
                  "folder or any tree); with --in-place, every PATH to repair")
      ->check(NonEmpty);
  cmd->add_option("--file", options->file,
                  "Strip one bytecode file (.mlirb, .mpsgraph, ...) instead")
      ->check(NonEmpty);
  cmd->add_option("-o,--output", options->output,
                  "DST: must not exist (unless --force), nor lie inside SRC")
      ->check(NonEmpty);
  cmd->add_flag("--in-place", options->inPlace,
                "Repair each PATH (an .aimodel or a folder) in place: every "
                "asset with debug payload is replaced by its verified "
                "stripped copy, built beside it and swapped in atomically "
                "(a kill leaves it old or new, never half; run again to "
                "finish); never crosses a mount or follows a symlink");
  cmd->add_option("--backup", options->backup,
                  "With --in-place: keep each original at DIR/<its path "
                  "below PATH> (hard links: DIR on PATH's file system, "
                  "outside it); without it the original is removed once the "
                  "new one is in place")
      ->check(NonEmpty);
  cmd->add_flag("--dry-run", options->dryRun,
                "Print what would be stripped, copied and skipped, and why; "
                "write nothing");
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--locations", options->locations,
                  "What a location with debug payload becomes: unknown "
                  "(loc(unknown)), or op-id (the op's \"coreai\" op-id "
                  "NameLoc; unverified)")
      ->check(CLI::IsMember({"unknown", "op-id"}))
      ->capture_default_str();
  cmd->add_option("-j,--jobs", options->jobs,
                  "Assets stripped at once (default: the number of cores); "
                  "the output is the same for any value")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--force", options->force,
                "Replace an existing DST (atomically, once the new one is "
                "complete)");
  cmd->add_flag("--rehash", options->rehash,
                "Strip an asset whose main.hash does not verify too, writing "
                "a new hash (the report says the old one was wrong); "
                "without it such an asset is not stripped");
  cmd->add_flag("--no-record", options->noRecord,
                "Leave each copy's metadata.json byte for byte as it was "
                "(by default a \"strip\" record says what was removed, "
                "from which main.hash, by which version)");
  cmd->add_flag("--allow-kept", options->allowKept,
                "Exit 0 even when debug payload must stay in a stripped "
                "file (it is still listed)");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress line");
  return [options, cmd]() -> int {
    options->usage = usageLine(*cmd);
    return runStrip(*options);
  };
}
