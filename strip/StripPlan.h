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

/// What the written file must hold, recorded from the input and the plan
/// as hashes, so the input's tables can be released before the output is
/// read back (StripVerify.cpp).
class StripExpectation {
public:
  static StripExpectation record(const bytecode::BytecodeFile &input,
                                 const StripPlan &plan);
  /// The same container, ops, blocks, entries (blanked ones excepted) and
  /// properties; resources at the same sizes and alignment; every location
  /// the plan's, and none carrying debug payload. Errors say what differs.
  llvm::Error check(const bytecode::BytecodeFile &output,
                    const StripOptions &options) const;

private:
  static constexpr uint64_t kBlanked = 0;
  struct OpRecord {
    uint64_t hash, location;
  };
  uint64_t container = 0, types = 0, strings = 0, resources = 0, regions = 0;
  std::vector<uint64_t> attributes; ///< per entry; kBlanked when blanked
  uint64_t appendedAttributes = 0;
  std::vector<OpRecord> ops;
  std::vector<uint64_t> blocks;
  std::vector<uint64_t> argumentLocations; ///< all blocks' arguments, in order
};

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPPLAN_H
