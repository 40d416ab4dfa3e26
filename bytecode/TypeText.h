//===- TypeText.h - Types in words, from the decoder's tables ---*- C++ -*-===//
//
// "tensor<1x512x32000xf16>": builtin types printed as MLIR prints them,
// from the decoder's tables alone (no MLIR). Enough for a reader to see
// what a type is or what changed; encodings and layouts are left out.
// Textual (asm) entries as written; private custom-encoded ones as
// `!dialect<...>`.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BYTECODE_TYPETEXT_H
#define AIMODEL_BYTECODE_TYPETEXT_H

#include "bytecode/BytecodeReader.h"

#include <string>

namespace aimodel::bytecode {

std::string typeText(const BytecodeFile &file, uint64_t type,
                     unsigned depth = 0);

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_TYPETEXT_H
