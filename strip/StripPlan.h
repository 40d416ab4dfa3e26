//===- StripPlan.h - Which locations, entries and strings go ----*- C++ -*-===//
//
// Decided over the decoder's tables alone. Locations: every op and block
// argument location that is a builtin location other than loc(unknown)
// carries debug payload (file names, call stacks, FX names, fused forms) and
// is replaced. The choice uses the audit's own location predicates, so strip
// and the rules agree on what a bare op id and a legacy call stack are.
//
// Blanking: after the rewrite, a builtin attribute entry or a string nothing
// reachable refers to is emptied in place. Only when every reachable entry
// is one the decoder can see into: a private-dialect entry, natively encoded
// properties or a dialect version blob may refer to anything by index, and
// then nothing is blanked (the report says which payload strings stayed).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPPLAN_H
#define AIMODEL_STRIP_STRIPPLAN_H

#include "bytecode/BytecodeWriter.h"
#include "strip/StripFile.h"

#include <optional>
#include <string>
#include <vector>

namespace aimodel::strip {

struct StripPlan {
  /// Set when the file cannot be stripped (nothing is written).
  std::optional<std::string> refused;
  bytecode::BytecodeEdits edits;
  /// Attribute index of loc(unknown) in the written file, if any op needs it.
  uint64_t unknownLocation = bytecode::kNone;
  uint64_t opLocations = 0, blockArgumentLocations = 0, opIdLocations = 0;
  uint64_t entriesRemoved = 0, stringsRemoved = 0;
  uint64_t stringsKept = 0;
  std::string keptReason;
  std::vector<std::string> keptExamples;
};

StripPlan planStrip(const bytecode::BytecodeFile &file,
                    const StripOptions &options);

/// Checks the written file against the input and the plan: the same
/// container, ops, blocks, entries (blanked ones excepted) and properties;
/// resources at the same sizes and alignment; every location the plan's,
/// and none carrying debug payload. Errors say what differs.
llvm::Error verifyStripped(const bytecode::BytecodeFile &input,
                           const bytecode::BytecodeFile &output,
                           const StripPlan &plan, const StripOptions &options);

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPPLAN_H
