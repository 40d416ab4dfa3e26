//===- Commands.h - The aimodel subcommands ---------------------*- C++ -*-===//
//
// Each subcommand registers its options on the CLI11 app and returns the
// function that runs it. Exit codes are shared by every subcommand.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TOOLS_AIMODEL_COMMANDS_H
#define AIMODEL_TOOLS_AIMODEL_COMMANDS_H

#include <CLI/CLI.hpp>

#include <functional>

namespace aimodel::cli {

enum ExitCode : int {
  ExitClean = 0,      ///< nothing at or above the failure threshold
  ExitFindings = 1,   ///< findings at or above it (or: inputs differ)
  ExitInputError = 2, ///< usage error or unusable input
};

using CommandRunner = std::function<int()>;

/// For options naming a file or folder: "" is a mistake (an unset shell
/// variable), never "the default".
inline const CLI::Validator NonEmpty(
    [](std::string &value) {
      return value.empty() ? std::string("must not be empty") : std::string();
    },
    "NONEMPTY", "NonEmpty");

/// `command`'s usage line as its --help prints it ("Usage: aimodel diff
/// [OPTIONS] golden new"), said with an error for a missing operand.
inline std::string usageLine(const CLI::App &command) {
  std::string prefix;
  for (const CLI::App *parent = command.get_parent(); parent;
       parent = parent->get_parent())
    prefix = parent->get_name() + (prefix.empty() ? "" : " ") + prefix;
  std::string help = command.help(prefix);
  size_t at = help.find("Usage:");
  if (at == std::string::npos)
    return "";
  return help.substr(at, help.find('\n', at) - at);
}

/// The last line of a command's --help: where its reference page is, in
/// the source tree and where CMakeLists.txt installs docs/ (the .deb's
/// prefix is /usr). `page` is "audit" for docs/audit.md.
inline std::string referenceLine(const std::string &page) {
  return "Reference: docs/" + page +
         ".md; installed as /usr/share/doc/aimodel/docs/" + page +
         ".md (.deb) or PREFIX/share/doc/aimodel/docs/" + page + ".md";
}

CommandRunner addAuditCommand(CLI::App &app);
CommandRunner addDiffCommand(CLI::App &app);
CommandRunner addShowCommand(CLI::App &app);
CommandRunner addStatsCommand(CLI::App &app);
CommandRunner addStripCommand(CLI::App &app);

} // namespace aimodel::cli

#endif // AIMODEL_TOOLS_AIMODEL_COMMANDS_H
