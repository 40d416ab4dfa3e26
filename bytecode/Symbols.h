//===- Symbols.h - Ops' symbol names in the decoded tables ------*- C++ -*-===//
#ifndef AIMODEL_BYTECODE_SYMBOLS_H
#define AIMODEL_BYTECODE_SYMBOLS_H

#include "bytecode/BytecodeReader.h"

#include <optional>

namespace aimodel::bytecode {

/// The `sym_name` of `op` when readable: a string member of its attribute
/// dictionary, of its properties dictionary (an unregistered op's), or of
/// natively encoded properties whose schema is known (NativeProperties.h).
/// Other natively encoded properties cannot be read: nullopt.
/// `fromNativeProperties` false: only what an MLIR import of the file shows
/// (natively encoded properties become opaque there), for rules whose two
/// views must agree.
std::optional<llvm::StringRef> symbolName(const BytecodeFile &file,
                                          const Operation &op,
                                          bool fromNativeProperties = true);

/// Member `key` of `op`'s attribute dictionary, else of its properties:
/// a dictionary's (an unregistered op's) or natively encoded ones whose
/// schema is known (unless `fromNativeProperties` is false).
std::optional<uint64_t> opMember(const BytecodeFile &file, const Operation &op,
                                 llvm::StringRef key,
                                 bool fromNativeProperties = true);

/// The parent op of `op` (kNoIndex at top level).
uint32_t parentOp(const BytecodeFile &file, const Operation &op);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_SYMBOLS_H
