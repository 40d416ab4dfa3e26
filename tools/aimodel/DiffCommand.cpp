//===- DiffCommand.cpp - `aimodel diff` -----------------------------------===//
//
// Reads both inputs with the one decoder (MLIR text is first turned into
// bytecode by the aimodel-mlir module), compares them with graphdiff and
// prints the report. Exit 0 identical, 1 different, 2 any input or usage
// error: an error is never reported as a difference.
//
//===----------------------------------------------------------------------===//

#include "bundle/IRFiles.h"
#include "graphdiff/DiffReport.h"
#include "graphdiff/GraphDiff.h"
#include "tools/aimodel/Commands.h"
#include "tools/aimodel/MLIRCommands.h"
#include "tools/aimodel/MLIRText.h"
#include "tools/aimodel/OutputStatus.h"
#include "tools/aimodel/Terminal.h"

#include "bytecode/BytecodeReader.h"
#include "support/PathText.h"

#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <future>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::cli;

namespace {
struct DiffCommandOptions {
  std::string golden, candidate;
  std::string entryPoint;
  std::string weights = "ignore";
  std::string format = "text";
  std::string output;
  uint64_t maxItems = graphdiff::kDefaultMaxItems;
};

llvm::Error fileError(const std::string &file, llvm::Error error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 support::printablePath(file) + ": " +
                                     llvm::toString(std::move(error)));
}

/// MLIR text, parsed by MLIR in the module and written back as bytecode.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
textAsBytecode(const std::string &file) {
  auto convert = reinterpret_cast<AIModelTextToBytecodeFn>(
      findMLIRCommand(AIMODEL_TEXT_TO_BYTECODE_SYMBOL));
  if (!convert)
    return llvm::createStringError("MLIR text needs the aimodel-mlir module");
  char *data = nullptr;
  size_t size = 0;
  int code = convert(file.c_str(), &data, &size);
  std::string bytes(data ? data : "", data ? size : 0);
  std::free(data);
  if (code != 0)
    return llvm::createStringError(bytes.empty() ? "cannot be read" : bytes);
  return llvm::MemoryBuffer::getMemBufferCopy(bytes, file);
}

/// The IR files PATH stands for, decoded: a bundle's mlirb and every
/// delegate graph in it (bundle/IRFiles.h decides which), or the file
/// itself. Every error names the file.
struct LoadedModel {
  std::vector<std::string> names, paths;
  std::vector<std::unique_ptr<bytecode::BytecodeFile>> files;
};

/// MLIR text with nothing but whitespace and `//` comments.
bool holdsNoIR(llvm::StringRef text) {
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    if (!line.split("//").first.trim().empty())
      return false;
    text = rest;
  }
  return true;
}

llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>>
decodeOne(bundle::IRFiles &inputs, size_t index) {
  const std::string &file = inputs.paths()[index];
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      inputs.map(index);
  if (!buffer)
    return fileError(file, buffer.takeError());
  // As ir::loadIR decides: only a file named as text is text.
  if (llvm::StringRef(file).ends_with(".mlir") &&
      !bytecode::looksLikeBytecode((*buffer)->getBuffer())) {
    // A failed export leaves an empty file (or one with only comments):
    // that is no model, not one without graphs.
    if (holdsNoIR((*buffer)->getBuffer()))
      return fileError(file,
                       llvm::createStringError("is empty: no IR to compare"));
    buffer = textAsBytecode(file);
    if (!buffer)
      return fileError(file, buffer.takeError());
  }
  llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>> decoded =
      bytecode::BytecodeFile::fromBuffer(std::move(*buffer));
  if (!decoded)
    return fileError(file, decoded.takeError());
  return decoded;
}

llvm::Expected<LoadedModel> load(const std::string &path) {
  llvm::Expected<bundle::IRFiles> inputs =
      bundle::IRFiles::open(path, /*withDelegates=*/true);
  if (!inputs)
    return inputs.takeError();
  LoadedModel model;
  model.names = inputs->names();
  model.paths = inputs->paths();
  for (size_t i = 0; i < model.paths.size(); ++i) {
    llvm::Expected<std::unique_ptr<bytecode::BytecodeFile>> file =
        decodeOne(*inputs, i);
    if (!file)
      return file.takeError();
    model.files.push_back(std::move(*file));
  }
  return model;
}

/// The model as graphdiff takes it: the main file named as the user named
/// it when it is a plain file.
graphdiff::ModelFiles modelFiles(const LoadedModel &model) {
  graphdiff::ModelFiles out;
  for (size_t i = 0; i < model.files.size(); ++i) {
    out.names.push_back(i == 0 && model.names[0].empty() ? model.paths[0]
                                                         : model.names[i]);
    out.files.push_back(model.files[i].get());
  }
  return out;
}
} // namespace

CommandRunner aimodel::cli::addDiffCommand(CLI::App &app) {
  auto options = std::make_shared<DiffCommandOptions>();
  CLI::App *cmd = app.add_subcommand(
      "diff",
      "Compare the graphs of two models structurally: ops matched by what "
      "they compute, ignoring debug locations, display names, the order of "
      "independent ops, symbol uniquifiers and (by default) weight values. "
      "Exit 0 identical, 1 different, 2 usage or input error.");
  cmd->add_option("golden", options->golden,
                  "The reference: a bundle, a bytecode file or a .mlir file")
      ->required()
      ->check(NonEmpty);
  cmd->add_option("new", options->candidate,
                  "The model compared with it (same kinds)")
      ->required()
      ->check(NonEmpty);
  cmd->footer(
      "Examples:\n"
      "  aimodel diff golden/model.aimodel build/model.aimodel\n"
      "  aimodel diff a.h18p.aimodelc b.h18p.aimodelc   # stub and every "
      "delegate graph\n"
      "  aimodel diff --format html --output diff.html old.mlirb new.mlirb\n"
      "  aimodel diff --entry-point main --weights digest old.mlir new.mlir\n\n"
      "Exit codes: 0 identical, 1 different, 2 usage or input error (never "
      "1 for an input that cannot be read).\n\n" +
      referenceLine("diff"));
  CLI::Option *entry = cmd->add_option(
      "--entry-point", options->entryPoint,
      "Compare only this graph (symbol name; uniquifiers ignored)");
  cmd->add_option("--weights", options->weights,
                  "ignore: weights count by type and shape only; digest: also "
                  "by a hash of their bytes")
      ->check(CLI::IsMember({"ignore", "digest"}))
      ->capture_default_str();
  cmd->add_option("--max-items", options->maxItems,
                  "Changes listed per graph in text and html (JSON lists all)")
      // CLI11 would wrap "-1" around to 2^64-1.
      ->check(CLI::Validator(
          [](std::string &value) -> std::string {
            if (value.empty() ||
                value.find_first_not_of("0123456789") != std::string::npos)
              return "expected a whole number >= 0, got '" + value + "'";
            return "";
          },
          "N>=0"))
      ->capture_default_str();
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "html", "markdown"}))
      ->capture_default_str();
  cmd->add_option("--output", options->output,
                  "Write the report to FILE (atomically, never through a "
                  "symlink) instead of standard output")
      ->check(NonEmpty);

  return [options, entry]() -> int {
    // Both inputs decode at once (each is a linear pass over its file);
    // errors are reported golden first, so the message never depends on
    // which thread finished first.
    auto candidate = std::async(std::launch::async, load, options->candidate);
    auto golden = load(options->golden);
    auto newer = candidate.get();
    // A file that changed while it was read explains any error it caused.
    auto fail = [](llvm::Error error) {
      return inputError("aimodel diff", std::move(error));
    };
    if (!golden) {
      if (!newer) // both failed: one line, the golden file's
        llvm::consumeError(newer.takeError());
      return fail(golden.takeError());
    }
    if (!newer)
      return fail(newer.takeError());

    graphdiff::DiffOptions diffOptions;
    diffOptions.weights = options->weights == "digest"
                              ? graphdiff::WeightsMode::Digest
                              : graphdiff::WeightsMode::Ignore;
    if (entry->count())
      diffOptions.entryPoint = options->entryPoint;
    llvm::Expected<graphdiff::DiffResult> result = graphdiff::diffModels(
        graphdiff::pairModelFiles(modelFiles(*golden), modelFiles(*newer)),
        diffOptions);
    if (!result)
      return fail(result.takeError());
    if (inputsChanged("aimodel diff"))
      return ExitInputError;
    for (const std::string &note : result->notes)
      llvm::errs() << "aimodel diff: note: " << note << "\n";
    int code = graphdiff::allIdentical(*result) ? ExitClean : ExitFindings;

    graphdiff::ReportOptions reportOptions;
    reportOptions.maxItems = options->maxItems;
    reportOptions.golden = options->golden;
    reportOptions.candidate = options->candidate;
    reportOptions.colour = options->format == "text" &&
                           options->output.empty() && wantColour(STDOUT_FILENO);
    std::string report;
    llvm::raw_string_ostream os(report);
    if (options->format == "json")
      os << graphdiff::jsonReport(*result);
    else if (options->format == "html")
      graphdiff::writeHtmlReport(os, *result, reportOptions);
    else if (options->format == "markdown")
      graphdiff::writeMarkdownReport(os, *result, reportOptions);
    else
      graphdiff::writeTextReport(os, *result, reportOptions);
    os.flush();

    if (options->output.empty()) {
      llvm::outs() << report;
      return code; // a failed write to stdout becomes 2 in main()
    }
    if (llvm::Error error =
            graphdiff::writeFileAtomically(options->output, report))
      return fail(std::move(error));
    return code;
  };
}
