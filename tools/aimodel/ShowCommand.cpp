//===- ShowCommand.cpp - `aimodel show` -----------------------------------===//

#include "bundle/IRFiles.h"
#include "tools/aimodel/Commands.h"
#include "tools/aimodel/MLIRCommands.h"

#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

using namespace aimodel;
using namespace aimodel::cli;

namespace {
struct ShowOptions {
  std::string path;
  bool debugInfo = false;
  bool structure = false;
};
} // namespace

CommandRunner aimodel::cli::addShowCommand(CLI::App &app) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App *cmd = app.add_subcommand(
      "show", "Print the IR of a bundle (its main mlirb) or of a bytecode or "
              ".mlir file as MLIR generic text; private-dialect data prints "
              "as opaque attributes.");
  cmd->add_option("path", options->path, "Bundle, bytecode or .mlir file")
      ->required()
      ->check(NonEmpty);
  cmd->footer("Examples:\n"
              "  aimodel show model.aimodel | less\n"
              "  aimodel show --debuginfo model.aimodel/main.mlirb\n"
              "  aimodel show --structure delegate.mpsgraph\n\n"
              "Exit codes: 0 printed, 2 usage or input error (a file that "
              "cannot be read or decoded).\n\n" +
              referenceLine("show"));
  cmd->add_flag("--debuginfo", options->debugInfo, "Print locations");
  cmd->add_flag("--structure", options->structure,
                "Print the dialect-neutral structure dump instead");

  return [options]() -> int {
    llvm::Expected<std::vector<std::string>> files =
        bundle::irFilesOf(options->path, /*withDelegates=*/false);
    if (!files) {
      llvm::errs() << "aimodel show: error: "
                   << llvm::toString(files.takeError()) << "\n";
      return ExitInputError;
    }
    auto show =
        reinterpret_cast<AIModelShowFn>(findMLIRCommand(AIMODEL_SHOW_SYMBOL));
    if (!show)
      return ExitInputError;
    // A bundle's mlirb was judged by a no-follow open; the module's own
    // open must not follow a symlink swapped in since.
    AIModelShowOptions request{files->front().c_str(), options->debugInfo,
                               options->structure,
                               files->front() != options->path};
    llvm::outs().flush();
    return show(&request);
  };
}
