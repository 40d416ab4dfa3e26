//===- StripPlan.h - Which locations, entries and strings go ----*- C++ -*-===//
//
// Decided over the decoder's tables alone. Locations: every op and block
// argument location that is a builtin location other than loc(unknown)
// carries debug payload (file names, call stacks, FX names, fused forms) and
// is replaced. The choice uses the audit's own location predicates, so strip
// and the rules agree on what a bare op id and a legacy call stack are.
//
// Blanking: after the rewrite, an attribute entry or a string nothing
// reachable refers to is emptied in place (bytecode/EntryReferences.h:
// decoded entries' references are exact; those of private-dialect entries,
// natively encoded properties and dialect versions are bounded by the
// varint rule). Unreachable private entries are blanked only when they hold
// payload. Only if something reachable cannot be bounded at all is nothing
// blanked. What payload stays is found by the audit's own scan
// (mlir-passes/PayloadScan.h) and reported with why.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_STRIP_STRIPPLAN_H
#define AIMODEL_STRIP_STRIPPLAN_H

#include "bytecode/BytecodeWriter.h"
#include "mlir-passes/PayloadScan.h"
#include "strip/StripFile.h"

#include <optional>
#include <string>
#include <vector>

namespace aimodel::strip {

struct StripPlan {
  /// Set when the file cannot be stripped (nothing is written).
  std::optional<std::string> refused;
  bytecode::BytecodeEdits edits;
  /// Some op loses its location: it needs loc(unknown).
  bool needsUnknown = false;
  /// Attribute index of loc(unknown) in the written file, if any op needs it.
  uint64_t unknownLocation = bytecode::kNone;
  uint64_t opLocations = 0, blockArgumentLocations = 0, opIdLocations = 0;
  uint64_t entriesRemoved = 0, stringsRemoved = 0;
  /// Of the entries removed: locations only private bytes may refer to,
  /// made loc(unknown) at their index.
  uint64_t possiblyUsedLocations = 0;
  /// Debug payload the written file will still hold.
  KeptPayload kept;
};

StripPlan planStrip(const bytecode::BytecodeFile &file,
                    const StripOptions &options);

/// What of `scan` stays, and why, in a report's words. `opaque`: some entry
/// the file keeps could not be bounded (nothing was removed).
KeptPayload keptPayloadOf(const passes::PayloadScan &scan, bool opaque);

/// What the written file must hold, recorded from the input and the plan
/// as hashes, so the input's tables can be released before the output is
/// read back (StripVerify.cpp).
class StripExpectation {
public:
  static StripExpectation record(const bytecode::BytecodeFile &input,
                                 const StripPlan &plan,
                                 const bytecode::WriteResult &written);
  /// The same container, ops, blocks, entries (blanked ones excepted) and
  /// properties; resources the same, blobs with the same data sizes at
  /// their alignment; every location
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
  /// Per resource entry: its blob's data size (kNone: not a blob).
  std::vector<uint64_t> blobDataSizes;
};

} // namespace aimodel::strip

#endif // AIMODEL_STRIP_STRIPPLAN_H
