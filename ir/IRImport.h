//===- IRImport.h - Decoded bytecode as an MLIR module ----------*- C++ -*-===//
//
// Turns what BytecodeReader decoded into a real MLIR operation tree, so MLIR
// passes and MLIR's printer work on files stock MLIR cannot read. Nothing
// but the builtin dialect is registered:
//  - builtin attributes and types are decoded by MLIR's own builtin bytecode
//    code, fed from the mapped file (exact, and zero-copy for resources);
//  - attributes and types that a private dialect custom-encoded become
//    opaque ones (#dialect<"..."> / !dialect<"...">) naming the entry's size
//    and content hash; as op locations they become NameLocs holding that text;
//  - ops are unregistered; natively encoded properties become an opaque
//    properties attribute the same way.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_IR_IRIMPORT_H
#define AIMODEL_IR_IRIMPORT_H

#include "bytecode/BytecodeReader.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/raw_ostream.h"

namespace aimodel::ir {

/// A context able to hold any imported file: builtin loaded, every other
/// dialect unregistered.
std::unique_ptr<mlir::MLIRContext> makeImportContext();

struct ImportOptions {
  /// Attach resource blobs (weights) to their dense_resource handles, as
  /// zero-copy views of the mapping. Without them handles are declared but
  /// empty: enough to print or compare structure, and no weight page is read.
  bool withResourceData = true;
};

/// Builds the operation tree of `file` in `context`. The file must outlive
/// the result (resource blobs point into its mapping).
llvm::Expected<mlir::OwningOpRef<mlir::Operation *>>
importBytecode(const bytecode::BytecodeFile &file, mlir::MLIRContext &context,
               const ImportOptions &options = {});

/// Reads `path`: MLIR bytecode through importBytecode, anything else as MLIR
/// text through MLIR's own parser. `file` keeps the mapping alive.
llvm::Expected<mlir::OwningOpRef<mlir::Operation *>>
loadIR(llvm::StringRef path, mlir::MLIRContext &context,
       std::unique_ptr<bytecode::BytecodeFile> &file,
       const ImportOptions &options = {});

/// A dialect-neutral dump of structure: op names, value wiring, successors,
/// regions, block arguments, builtin types and locations. Private dialect
/// data and properties print as placeholders, so a file read with and
/// without its dialect registered dumps the same.
void printStructure(mlir::Operation *root, llvm::raw_ostream &os);

} // namespace aimodel::ir

#endif // AIMODEL_IR_IRIMPORT_H
