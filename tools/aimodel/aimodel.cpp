//===- aimodel.cpp - The aimodel command-line tool ------------------------===//
//
// A thin driver: parse the command line, hand over to one subcommand. All
// logic lives in the libraries.
//
//===----------------------------------------------------------------------===//

#include "tools/aimodel/Commands.h"
#include "tools/aimodel/MLIRCommands.h"
#include "tools/aimodel/OutputStatus.h"

#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <map>

using namespace aimodel::cli;

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

  // CLI11 would call a misspelt command "an unexpected argument" after
  // saying a subcommand is required; name the mistake instead.
  if (argc > 1 && argv[1][0] != '-' && !runners.count(argv[1])) {
    std::string known;
    for (const auto &entry : runners)
      known += (known.empty() ? "" : ", ") + entry.first;
    llvm::errs() << "aimodel: error: unknown command '" << argv[1]
                 << "' (commands: " << known << ")\n";
    return ExitInputError;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version are "errors" to CLI11 that exit 0; every real
    // parse error is a usage error: exit 2, whatever CLI11's own code is.
    int code = app.exit(e);
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
