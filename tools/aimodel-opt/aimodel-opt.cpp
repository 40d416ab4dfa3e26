//===- aimodel-opt.cpp - Run aimodel's IR passes on any Core AI IR --------===//
//
// mlir-opt cannot open Apple's private-dialect bytecode; this driver reads
// through the project's own reader (ir::loadIR: bytecode of any dialect, or
// MLIR text), runs a pass pipeline on the module and prints it. Diagnostics,
// the IR rule passes' findings among them, go to stderr.
//
// Exit codes: 0 done, 1 a pass failed, 2 usage or input error.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImport.h"
#include "mlir-passes/Passes.h"
#include "support/PathText.h"
#include "tools/aimodel/OutputStatus.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <csignal>
#include <vector>

using namespace aimodel;

static llvm::cl::opt<std::string> inputPath(llvm::cl::Positional,
                                            llvm::cl::desc("<input file>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    outputPath("o", llvm::cl::desc("Output file (default: stdout)"),
               llvm::cl::value_desc("file"), llvm::cl::init("-"));

/// "error: message", with the location first when it says where.
static void printDiagnostic(mlir::Diagnostic &diag) {
  llvm::raw_ostream &os = llvm::errs();
  if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
    os << diag.getLocation() << ": ";
  switch (diag.getSeverity()) {
  case mlir::DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case mlir::DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case mlir::DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  case mlir::DiagnosticSeverity::Note:
    os << "note: ";
    break;
  }
  os << diag << "\n";
}

int main(int argc, char **argv) {
  // A reader that went away (`| head`) is a write error, exit 2 with one
  // line, never death by SIGPIPE nor LLVM's own pipe exit.
  llvm::InitLLVM init(argc, argv, /*InstallPipeSignalExitHandler=*/false);
  std::signal(SIGPIPE, SIG_IGN);
  // What libLLVM registers as it loads (code generation, every target,
  // Polly) has nothing to do with these passes: hidden from --help (shown
  // by --help-hidden), which keeps aimodel's passes and MLIR's options.
  std::vector<llvm::cl::Option *> llvmOwn;
  for (auto &entry : llvm::cl::getRegisteredOptions())
    llvmOwn.push_back(entry.second);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  passes::registerPasses();
  mlir::PassPipelineCLParser pipeline("", "Passes to run");
  for (llvm::cl::Option *option : llvmOwn)
    if (option != &outputPath &&
        !llvm::is_contained({"help", "help-list", "version"}, option->ArgStr))
      option->setHiddenFlag(llvm::cl::Hidden);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "aimodel-opt: run aimodel's IR passes on Core AI bytecode (any "
      "dialect) or MLIR text\n");

  auto context = ir::makeImportContext();
  // What the audit passes report is a diagnostic emitted while they run: a
  // finding, so the run exits 1 (as `aimodel audit` does).
  std::atomic<bool> passesRunning{false};
  std::atomic<unsigned> findings{0};
  mlir::ScopedDiagnosticHandler handler(
      context.get(), [&](mlir::Diagnostic &diag) {
        if (passesRunning &&
            diag.getSeverity() != mlir::DiagnosticSeverity::Note)
          ++findings;
        printDiagnostic(diag);
        return mlir::success();
      });
  // A file that changed while it was read explains any error it caused,
  // and any result it gave.
  auto inputError = [&](llvm::Error error) {
    return cli::inputError("aimodel-opt", std::move(error),
                           llvm::StringRef(inputPath));
  };

  std::unique_ptr<bytecode::BytecodeFile> file;
  llvm::Expected<ir::ImportedModule> imported = ir::loadIR(
      inputPath, *context, file, ir::ImportOptions{/*withResourceData=*/false});
  if (!imported)
    return inputError(imported.takeError());

  mlir::PassManager pm(context.get());
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
    return 2;
  auto pipelineError = [](const llvm::Twine &message) {
    llvm::errs() << "aimodel-opt: error: " << message << "\n";
    return mlir::failure();
  };
  if (mlir::failed(pipeline.addToPipeline(pm, pipelineError)))
    return 2;
  passesRunning = true;
  mlir::LogicalResult ran = pm.run(*imported->module);
  passesRunning = false;
  if (mlir::failed(ran))
    return cli::inputsChanged("aimodel-opt") ? 2 : 1;

  std::string error;
  auto output = mlir::openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "aimodel-opt: error: " << error << "\n";
    return 2;
  }
  // Printed as the file holds it, without the module added for passes.
  mlir::OwningOpRef<mlir::Operation *> root = imported->takeRoot();
  if (llvm::Error printError = ir::checkPrintable(
          root.get(), /*withLocations=*/true,
          ir::printBudgetFor(file ? file->bytes().size() : ir::kMaxTextBytes)))
    return inputError(std::move(printError));
  ir::privateLocationsToNameLocs(root.get());
  root->print(output->os(), mlir::OpPrintingFlags().printGenericOpForm());
  output->os() << "\n";
  int code =
      cli::finishOutput(0, output->os(), "aimodel-opt",
                        outputPath == "-" ? std::string("standard output")
                                          : support::printablePath(outputPath));
  if (code == 0)
    output->keep();
  return code == 0 && findings ? 1 : code;
}
