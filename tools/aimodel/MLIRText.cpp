//===- MLIRText.cpp - MLIR text to bytecode in the aimodel-mlir module ----===//

#include "tools/aimodel/MLIRText.h"

#include "ir/IRImport.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace aimodel;

static int copyOut(int code, const std::string &bytes, char **data,
                   size_t *size) {
  *data = static_cast<char *>(std::malloc(bytes.size() + 1));
  if (!*data) {
    *size = 0;
    return 2;
  }
  std::memcpy(*data, bytes.data(), bytes.size());
  (*data)[bytes.size()] = '\0';
  *size = bytes.size();
  return code;
}

extern "C" __attribute__((visibility("default"))) int
aimodelTextToBytecode(const char *path, char **data, size_t *size) {
  auto context = ir::makeImportContext();
  std::unique_ptr<bytecode::BytecodeFile> bytes;
  // No weights are needed to re-encode text (it holds its data inline).
  llvm::Expected<ir::ImportedModule> imported =
      ir::loadIR(path, *context, bytes,
                 ir::ImportOptions{/*withResourceData=*/true,
                                   /*refuseSymlink=*/false});
  if (!imported)
    return copyOut(2, llvm::toString(imported.takeError()), data, size);
  if (bytes)
    return copyOut(2, "is MLIR bytecode, not text", data, size);
  std::string out;
  llvm::raw_string_ostream os(out);
  // What `mlir-opt --emit-bytecode` writes for the same text: the module
  // MLIR's parser built (an implicit one around other top-level ops).
  mlir::BytecodeWriterConfig config("aimodel");
  if (mlir::failed(mlir::writeBytecodeToFile(imported->module->getOperation(),
                                             os, config)))
    return copyOut(2, "cannot be written as MLIR bytecode", data, size);
  os.flush();
  return copyOut(0, out, data, size);
}
