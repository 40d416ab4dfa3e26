//===- MLIRCommands.cpp - The aimodel-mlir module -------------------------===//
//
// Built as aimodel-mlir.so; linked against the shared MLIR and LLVM.
//
//===----------------------------------------------------------------------===//

#include "tools/aimodel/MLIRCommands.h"
#include "tools/aimodel/OutputStatus.h"

#include "ir/IRImport.h"
#include "support/PathText.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/Support/raw_ostream.h"

using namespace aimodel;

extern "C" __attribute__((visibility("default"))) int
aimodelShow(const AIModelShowOptions *options) {
  auto context = ir::makeImportContext();
  std::unique_ptr<bytecode::BytecodeFile> bytes;
  llvm::Expected<mlir::OwningOpRef<mlir::Operation *>> op =
      ir::loadIR(options->path, *context, bytes,
                 ir::ImportOptions{/*withResourceData=*/false});
  if (!op) {
    llvm::errs() << "aimodel show: error: "
                 << support::printablePath(options->path) << ": "
                 << llvm::toString(op.takeError()) << "\n";
    return 2;
  }
  if (options->structure) {
    ir::printStructure(op->get(), llvm::outs());
  } else {
    mlir::OpPrintingFlags flags;
    flags.printGenericOpForm()
        .enableDebugInfo(options->debugInfo != 0, /*prettyForm=*/false)
        .elideLargeElementsAttrs(16);
    op->get()->print(llvm::outs(), flags);
    llvm::outs() << "\n";
  }
  return cli::finishOutput(0);
}
