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

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace aimodel;

/// What a linear print budget is measured against: the IR's bytes, not the
/// weights (which print elided).
static uint64_t irBytes(llvm::StringRef path,
                        const bytecode::BytecodeFile *file) {
  if (!file) {
    uint64_t size = 0;
    return llvm::sys::fs::file_size(path, size) ? 0 : size;
  }
  uint64_t size = file->bytes().size();
  if (const bytecode::SectionInfo *resources =
          file->section(bytecode::kResourceSection))
    size -= std::min(size, resources->data.size);
  return size;
}

extern "C" __attribute__((visibility("default"))) int
aimodelShow(const AIModelShowOptions *options) {
  auto context = ir::makeImportContext();
  std::unique_ptr<bytecode::BytecodeFile> bytes;
  auto fail = [&](llvm::Error error) {
    return cli::inputError("aimodel show", std::move(error),
                           llvm::StringRef(options->path));
  };
  llvm::Expected<ir::ImportedModule> imported = ir::loadIR(
      options->path, *context, bytes,
      ir::ImportOptions{/*withResourceData=*/false,
                        /*refuseSymlink=*/options->insideBundle != 0});
  if (!imported)
    return fail(imported.takeError());
  if (cli::inputsChanged("aimodel show"))
    return 2;
  // The module the import adds for passes is not part of the file.
  mlir::OwningOpRef<mlir::Operation *> root = imported->takeRoot();
  if (llvm::Error error = ir::checkPrintable(
          root.get(), options->debugInfo || options->structure,
          ir::printBudgetFor(irBytes(options->path, bytes.get()))))
    return fail(std::move(error));
  ir::privateLocationsToNameLocs(root.get());
  if (options->structure) {
    ir::printStructure(root.get(), llvm::outs());
  } else {
    mlir::OpPrintingFlags flags;
    flags.printGenericOpForm()
        .enableDebugInfo(options->debugInfo != 0, /*prettyForm=*/false)
        .elideLargeElementsAttrs(16);
    root->print(llvm::outs(), flags);
    llvm::outs() << "\n";
  }
  return cli::finishOutput(0);
}
