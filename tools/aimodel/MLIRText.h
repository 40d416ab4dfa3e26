//===- MLIRText.h - MLIR text as bytecode, across the module ---*- C++ -*-===//
//
// The executable decodes only bytecode (one decoder decides what is
// readable). A `.mlir` text file is parsed by MLIR's own parser in the
// aimodel-mlir module (see MLIRCommands.h) and written back as bytecode in
// memory, which the caller then decodes like any file. Only C types cross.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_TOOLS_AIMODEL_MLIRTEXT_H
#define AIMODEL_TOOLS_AIMODEL_MLIRTEXT_H

#include <stddef.h>

extern "C" {

/// Parses the MLIR text file `path` (followed as the user named it; up to
/// ir::kMaxTextBytes, nesting bounded as for `show`) and writes it as MLIR
/// bytecode. Returns 0 with `*data`/`*size` the bytecode, or 2 with `*data`
/// a NUL-terminated one-line error message (without the path) and `*size`
/// its length. `*data` is malloc'd; the caller frees it. Thread-safe.
typedef int (*AIModelTextToBytecodeFn)(const char *path, char **data,
                                       size_t *size);

#define AIMODEL_TEXT_TO_BYTECODE_SYMBOL "aimodelTextToBytecode"
}

#endif // AIMODEL_TOOLS_AIMODEL_MLIRTEXT_H
