//===- PassSupport.h - What the IR rule passes share ------------*- C++ -*-===//
#ifndef AIMODEL_MLIR_PASSES_PASSSUPPORT_H
#define AIMODEL_MLIR_PASSES_PASSSUPPORT_H

#include "mlir-passes/Findings.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <string>

namespace aimodel::passes {

/// Where a location sits: an op's own, or the argument of a block.
struct LocatedSite {
  mlir::Operation *op; ///< the op, or the op owning the block
  mlir::Location loc;
  bool isBlockArgument;
};

/// Calls `visit` for every op location and block-argument location below
/// `module` (the module's own included), in IR order.
void forEachLocatedSite(mlir::ModuleOp module,
                        llvm::function_ref<void(const LocatedSite &)> visit);

/// "@name" of the nearest function-like op enclosing `op` (itself included):
/// one with a `sym_name` string, in its attributes or its properties. Empty
/// when there is none.
std::string enclosingFunction(mlir::Operation *op);

/// Hands `finding` to `sink`, or, without one, reports it as a diagnostic on
/// `module` with the rule catalogue's severity.
void report(mlir::ModuleOp module, const FindingSink &sink, IRFinding finding);

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_PASSSUPPORT_H
