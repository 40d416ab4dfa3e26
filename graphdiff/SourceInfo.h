//===- SourceInfo.h - Where in the model an op came from --------*- C++ -*-===//
//
// From an op's debug location: the PyTorch module path of a builtin FusedLoc
// whose metadata has `call_stack` (innermost module first, joined with
// "/": "Linear$1/Block$3/Model$1"), the FX node its `identifiers` name, and
// its first file frame as "file.py:LINE" (basename). Without a call stack,
// the first file location found (not an "op_id" marker) gives the line
// alone. The op id is that of the first `"coreai"("op_id":N:0)` inside.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_SOURCEINFO_H
#define AIMODEL_GRAPHDIFF_SOURCEINFO_H

#include "bytecode/BytecodeReader.h"

#include <optional>
#include <string>

namespace aimodel::graphdiff {

struct SourceInfo {
  std::string module, sourceLine, fxNode;
  std::optional<uint64_t> opId;
};

/// Source info of location attribute `location` (kNone: nothing).
SourceInfo sourceInfo(const bytecode::BytecodeFile &file, uint64_t location);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_SOURCEINFO_H
