//===- StatsCommand.cpp - `aimodel stats` ---------------------------------===//

#include "bundle/Bundle.h"
#include "bundle/IRFiles.h"
#include "bundle/TreeWalk.h"
#include "tools/aimodel/Commands.h"
#include "tools/aimodel/OutputStatus.h"

#include "bytecode/IRStats.h"
#include "support/PathText.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

using namespace aimodel;
using namespace aimodel::cli;

namespace {
struct StatsOptions {
  std::vector<std::string> paths;
  std::string format = "text";
};

nlohmann::ordered_json toJson(const std::string &path,
                              const bytecode::IRStats &s) {
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto &[name, count] : s.ops)
    ops[support::printablePath(name)] = count;
  nlohmann::ordered_json locations = nlohmann::ordered_json::object();
  for (const std::string &kind : bytecode::locationKinds())
    locations[kind] = s.locations.at(kind);
  nlohmann::ordered_json dialects = nlohmann::ordered_json::array();
  for (const std::string &d : s.dialects)
    dialects.push_back(support::printablePath(d));
  // A path valid as UTF-8 is written exactly, so a program can open it;
  // otherwise escaped, with the exact bytes beside it in hex.
  support::JsonPath jsonPath = support::jsonPath(path);
  nlohmann::ordered_json file = {{"path", jsonPath.text}};
  if (jsonPath.bytesHex)
    file["path_bytes"] = *jsonPath.bytesHex;
  file["bytecode_version"] = s.bytecodeVersion;
  file["producer"] = support::printablePath(s.producer);
  file["dialects"] = std::move(dialects);
  file["ops"] = std::move(ops);
  file["total_ops"] = s.totalOps;
  file["locations"] = std::move(locations);
  return file;
}

/// The PATHs to read: a folder that is not an asset stands for every asset
/// below it, found as `audit` finds them (sorted, symlinks not followed).
llvm::Expected<std::vector<std::string>>
expandFolders(const std::vector<std::string> &paths) {
  std::vector<std::string> out;
  for (const std::string &path : paths) {
    if (!llvm::sys::fs::is_directory(path) ||
        bundle::assetKindFromName(bundle::namedPathKindName(path))) {
      out.push_back(path);
      continue;
    }
    llvm::Expected<bundle::WalkResult> walked = bundle::findBundles({path});
    if (!walked)
      return walked.takeError();
    if (!walked->errors.empty())
      return llvm::createStringError(walked->errors.front());
    for (const bundle::FoundBundle &found : walked->bundles) {
      if (found.kind == bundle::BundleKind::BundleDir)
        continue; // its assets are found on their own
      if (found.kind == bundle::BundleKind::IRFile) {
        out.push_back(found.path); // IR outside any asset, read as a file
        continue;
      }
      if (found.entryType != bundle::DirEntry::Type::Directory) {
        llvm::errs() << "aimodel stats: note: "
                     << support::printablePath(found.path)
                     << ": not a folder (a symlink is not followed); "
                        "skipped\n";
        continue;
      }
      out.push_back(found.path);
    }
  }
  return out;
}

void writeText(llvm::raw_ostream &os, const std::string &path,
               const bytecode::IRStats &s) {
  os << support::printablePath(path) << ": bytecode v" << s.bytecodeVersion
     << ", producer " << support::printablePath(s.producer) << ", "
     << s.totalOps << " ops\n  dialects:";
  for (const std::string &d : s.dialects)
    os << " " << support::printablePath(d);
  os << "\n";
  std::vector<std::pair<std::string, uint64_t>> byCount(s.ops.begin(),
                                                        s.ops.end());
  std::stable_sort(byCount.begin(), byCount.end(),
                   [](auto &a, auto &b) { return a.second > b.second; });
  for (const auto &[name, count] : byCount)
    os << llvm::formatv("  {0,8}  {1}\n", count, support::printablePath(name));
  os << "  locations:";
  for (const std::string &kind : bytecode::locationKinds())
    if (s.locations.at(kind))
      os << " " << kind << "=" << s.locations.at(kind);
  os << "\n";
}
} // namespace

CommandRunner aimodel::cli::addStatsCommand(CLI::App &app) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App *cmd = app.add_subcommand(
      "stats", "Per-file facts about IR: bytecode version, producer, dialects, "
               "op histogram, location kinds. A bundle stands for its mlirb "
               "and every .mpsgraph inside it. Never loads weights.");
  cmd->add_option("paths", options->paths,
                  "Bundles, bytecode files, or folders (every asset found "
                  "below, as audit finds them)")
      ->required()
      ->check(NonEmpty);
  cmd->footer("Examples:\n"
              "  aimodel stats model.aimodel\n"
              "  aimodel stats --format json models > stats.json   # every "
              "asset below models/\n\n"
              "Exit codes: 0 every file read, 2 usage or input error (a file "
              "that cannot be read or decoded).\n\n" +
              referenceLine("stats"));
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();

  return [options]() -> int {
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    std::string text;
    llvm::raw_string_ostream textOs(text);
    llvm::Expected<std::vector<std::string>> paths =
        expandFolders(options->paths);
    if (!paths) {
      llvm::errs() << "aimodel stats: error: "
                   << llvm::toString(paths.takeError()) << "\n";
      return ExitInputError;
    }
    for (const std::string &path : *paths) {
      // Opened once, below the bundle's descriptor, never following a
      // symlink inside it: what was checked is what is decoded.
      llvm::Expected<bundle::IRFiles> inputs =
          bundle::IRFiles::open(path, /*withDelegates=*/true);
      if (!inputs) {
        llvm::errs() << "aimodel stats: error: "
                     << llvm::toString(inputs.takeError()) << "\n";
        return ExitInputError;
      }
      for (size_t i = 0; i < inputs->paths().size(); ++i) {
        const std::string &file = inputs->paths()[i];
        llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
            inputs->map(i);
        llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>> decoded =
            buffer ? bytecode::BytecodeFile::fromBuffer(std::move(*buffer))
                   : llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>>(
                         buffer.takeError());
        if (!decoded)
          return inputError("aimodel stats", decoded.takeError(), file);
        bytecode::IRStats stats = bytecode::computeStats(**decoded);
        files.push_back(toJson(file, stats));
        writeText(textOs, file, stats);
      }
    }
    if (inputsChanged("aimodel stats"))
      return ExitInputError;
    if (options->format == "json")
      llvm::outs() << nlohmann::ordered_json{{"schema", "aimodel-stats/1"},
                                             {"files", std::move(files)}}
                          .dump(2)
                   << "\n";
    else
      llvm::outs() << text;
    return ExitClean;
  };
}
