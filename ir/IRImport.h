//===- IRImport.h - Decoded bytecode as an MLIR module ----------*- C++ -*-===//
//
// Turns what BytecodeReader decoded into a real MLIR operation tree, so MLIR
// passes and MLIR's printer work on files stock MLIR cannot read. Nothing
// but the builtin dialect is registered:
//  - builtin attributes and types are decoded by MLIR's own builtin bytecode
//    code, fed from the mapped file (exact, and zero-copy for resources);
//  - attributes and types that a private dialect custom-encoded become
//    opaque ones (#dialect<"..."> / !dialect<"...">) naming the entry's size
//    and content hash; as op locations they become OpaqueLocs (see
//    makePrivateLocation) that print as NameLocs holding that text;
//  - ops are unregistered; natively encoded properties become an opaque
//    properties attribute the same way.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_IR_IRIMPORT_H
#define AIMODEL_IR_IRIMPORT_H

#include "bytecode/BytecodeReader.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace aimodel::ir {

/// A context able to hold any imported file: builtin loaded, every other
/// dialect unregistered.
std::unique_ptr<mlir::MLIRContext> makeImportContext();

struct ImportOptions {
  /// Attach resource blobs (weights) to their dense_resource handles, as
  /// zero-copy views of the mapping. Without them handles are declared but
  /// empty: enough to print or compare structure, and no weight page is read.
  bool withResourceData = true;
  /// loadIR: the file is a bundle member, so its last component must not be
  /// a symlink (checked by the open itself, so no check can race it); a
  /// path the user named may be one.
  bool refuseSymlink = false;
};

/// An imported file: always a builtin.module, so an mlir::PassManager runs on
/// any file, and the MLIR object behind each decoded entry, so passes, strip
/// and diff can go back to the bytes.
struct ImportedModule {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The file's single top-level op was not a builtin.module and was put in
  /// `module` here; the file itself holds `root()`.
  bool addedModule = false;
  /// By op index (pre-order, BytecodeFile::operations()). Not updated when
  /// passes erase or replace ops.
  std::vector<mlir::Operation *> ops;
  /// By attribute / type index; null where the file's IR never used the
  /// entry (entries are materialised on demand).
  std::vector<mlir::Attribute> attributes;
  std::vector<mlir::Type> types;
  /// By block index. Block 0, the file's top-level block, is `module`'s body
  /// when the module was made here (a wrapper, or several top-level ops), and
  /// null when the file's own top-level builtin.module is `module`.
  std::vector<mlir::Block *> blocks;

  /// The top-level op as the file holds it (what `show` prints).
  mlir::Operation *root() {
    return addedModule ? &module->getBody()->front() : module->getOperation();
  }
  /// root(), detached from any added module (MLIR prints aliases only for
  /// an op without a parent); `module` is gone after.
  mlir::OwningOpRef<mlir::Operation *> takeRoot() {
    mlir::Operation *op = root();
    if (addedModule) {
      op->remove();
      module = {};
      if (!blocks.empty())
        blocks[0] = nullptr;
    } else {
      module.release();
    }
    addedModule = false;
    return op;
  }
};

/// Builds the operation tree of `file` in `context`. The file must outlive
/// the result (resource blobs point into its mapping).
llvm::Expected<ImportedModule>
importBytecode(const bytecode::BytecodeFile &file, mlir::MLIRContext &context,
               const ImportOptions &options = {});

/// MLIR text larger than this is refused before it is read: MLIR's parser
/// holds a copy of the text and much more per byte.
inline constexpr uint64_t kMaxTextBytes = uint64_t(64) << 20;

/// Reads `path`: a file named `*.mlir` that is not bytecode is MLIR text
/// (up to kMaxTextBytes) read by MLIR's own parser; everything else must be
/// MLIR bytecode, read through importBytecode. `file` keeps the mapping
/// alive. Text gives a module as MLIR's tools read it and no entry maps.
llvm::Expected<ImportedModule>
loadIR(llvm::StringRef path, mlir::MLIRContext &context,
       std::unique_ptr<bytecode::BytecodeFile> &file,
       const ImportOptions &options = {});

/// An attribute that is not a location used as one (in real files a private
/// dialect's, an mlir::OpaqueAttr): an mlir::OpaqueLoc holding the attribute,
/// whose fallback location (what MLIR prints and writes) is a NameLoc of the
/// attribute's text, e.g. loc("#aicode<custom:5:0x...>"). The text of a
/// builtin attribute too large to print names its kind instead.
mlir::Location makePrivateLocation(mlir::Attribute attr);
/// The attribute behind a location made by makePrivateLocation, or null for
/// any other location.
mlir::Attribute privateLocationAttr(mlir::Location loc);
inline bool isPrivateLocation(mlir::Location loc) {
  return bool(privateLocationAttr(loc));
}
/// Replaces every private location under `root` (ops and block arguments)
/// by its fallback NameLoc, as MLIR's writer does. For printing: MLIR's
/// printer gives an OpaqueLoc and its fallback separate aliases.
void privateLocationsToNameLocs(mlir::Operation *root);

/// Printing a DAG of shared attributes, types or locations writes each
/// shared part once per use, and MLIR's printer recurses once per nesting
/// level: a few hundred bytes can print exabytes or overflow the stack.
/// Fails with a one-line message when printing `root` (locations included
/// when `withLocations`) would nest deeper than kMaxPrintDepth or write more
/// than `maxBytes`, estimated in time linear in the distinct objects.
inline constexpr unsigned kMaxPrintDepth = 1500;
llvm::Error checkPrintable(mlir::Operation *root, bool withLocations,
                           uint64_t maxBytes);
/// A print budget linear in the input: `bytes` of IR (weights excluded).
inline uint64_t printBudgetFor(uint64_t bytes) {
  return (uint64_t(64) << 20) + 64 * bytes;
}

/// A dialect-neutral dump of structure: op names, value wiring, successors,
/// regions, block arguments, builtin types and locations. Private dialect
/// data and properties print as placeholders, so a file read with and
/// without its dialect registered dumps the same.
void printStructure(mlir::Operation *root, llvm::raw_ostream &os);

} // namespace aimodel::ir

#endif // AIMODEL_IR_IRIMPORT_H
