//===- aimodel.cpp - The aimodel command-line tool ------------------------===//
//
// A thin driver: parse the command line, hand over to one subcommand. All
// logic lives in the libraries.
//
//===----------------------------------------------------------------------===//

#include "tools/aimodel/Commands.h"
#include "tools/aimodel/MLIRCommands.h"
#include "tools/aimodel/OutputStatus.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <map>

using namespace aimodel::cli;

/// For a parse that failed: the option among those the command line could
/// mean nearest to a misspelt one (`--versoin` -> `--version`), as a
/// sentence; empty when no argument looks like a typo.
static std::string didYouMean(CLI::App &app, int argc, char **argv) {
  CLI::App *command = &app;
  for (int i = 1; i < argc && command == &app; ++i)
    for (CLI::App *sub : app.get_subcommands({}))
      if (sub->get_name() == argv[i])
        command = sub;
  std::vector<std::string> known;
  for (CLI::App *owner : {&app, command})
    for (const CLI::Option *option : owner->get_options())
      for (const std::string &name : option->get_lnames())
        known.push_back("--" + name);
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = llvm::StringRef(argv[i]).split('=').first;
    if (!arg.starts_with("--") || llvm::is_contained(known, arg))
      continue;
    std::string best;
    unsigned bestDistance = 4; // more is not a typo
    for (const std::string &name : known) {
      unsigned distance = arg.edit_distance(name, true, bestDistance);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = name;
      }
    }
    if (!best.empty())
      return "unknown option '" + arg.str() + "': did you mean '" + best + "'?";
  }
  return "";
}

int main(int argc, char **argv) {
  // A reader that went away (`| head`) makes writes fail with EPIPE, which
  // finishOutput turns into exit 2 with one line (diff: its verdict),
  // rather than a signal.
  std::signal(SIGPIPE, SIG_IGN);
  setProgramName(argc > 0 ? argv[0] : nullptr);
  CLI::App app("aimodel: audit, inspect and compare Apple Core AI model "
               "assets.\nExit codes: 0 clean, 1 findings, 2 usage or input "
               "error.",
               "aimodel");
  app.set_version_flag("--version", "aimodel " AIMODEL_VERSION);
  app.require_subcommand(1);

  std::map<std::string, CommandRunner> runners;
  runners["audit"] = addAuditCommand(app);
  runners["diff"] = addDiffCommand(app);
  runners["show"] = addShowCommand(app);
  runners["stats"] = addStatsCommand(app);
  runners["strip"] = addStripCommand(app);
  // After the commands: CLI11 gives a new subcommand its parent's footer.
  app.footer("Reference: README.md and docs/ (docs/rules.md: every rule); "
             "installed in /usr/share/doc/aimodel/ (.deb) or "
             "PREFIX/share/doc/aimodel/");

  // CLI11 would call a misspelt command "an unexpected argument" after
  // saying a subcommand is required; name the mistake instead.
  if (argc > 1 && argv[1][0] != '-' && !runners.count(argv[1])) {
    std::string known, nearest;
    unsigned nearestDistance = 3; // more is not a typo
    for (const auto &entry : runners) {
      known += (known.empty() ? "" : ", ") + entry.first;
      unsigned distance = llvm::StringRef(argv[1]).edit_distance(
          entry.first, true, nearestDistance);
      if (distance < nearestDistance) {
        nearestDistance = distance;
        nearest = entry.first;
      }
    }
    llvm::errs() << "aimodel: error: unknown command '" << argv[1] << "' ("
                 << (nearest.empty() ? "" : "did you mean '" + nearest + "'? ")
                 << "commands: " << known << ")\n";
    return ExitInputError;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version are "errors" to CLI11 that exit 0; every real
    // parse error is a usage error: exit 2, whatever CLI11's own code is.
    int code = app.exit(e);
    if (code != 0)
      if (std::string hint = didYouMean(app, argc, argv); !hint.empty())
        llvm::errs() << "aimodel: " << hint << "\n";
    // A missing operand (`aimodel diff a`): the command's usage line says
    // what it takes.
    if (code != 0 && (dynamic_cast<const CLI::RequiredError *>(&e) ||
                      dynamic_cast<const CLI::ArgumentMismatch *>(&e)))
      for (int i = 1; i < argc; ++i)
        if (CLI::App *sub = runners.count(argv[i]) ? app.get_subcommand(argv[i])
                                                   : nullptr) {
          llvm::errs() << usageLine(*sub) << "\n";
          break;
        }
    return code == 0 ? ExitClean : ExitInputError;
  }
  int code = ExitInputError;
  bool verdict = false;
  for (CLI::App *sub : app.get_subcommands()) {
    code = runners.at(sub->get_name())();
    // diff's exit code is the gate's verdict, whoever stops reading.
    verdict = sub->get_name() == "diff";
  }
  return finishOutput(code, llvm::outs(), "aimodel", "standard output",
                      verdict ? ClosedPipe::Verdict : ClosedPipe::Error);
}
