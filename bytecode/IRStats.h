//===- IRStats.h - Facts about one bytecode file ----------------*- C++ -*-===//
//
// What `aimodel stats` reports, computed from the decoded container alone:
// no MLIR context, no weights touched.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BYTECODE_IRSTATS_H
#define AIMODEL_BYTECODE_IRSTATS_H

#include "bytecode/BytecodeReader.h"

#include <map>
#include <string>
#include <vector>

namespace aimodel::bytecode {

struct IRStats {
  uint64_t bytecodeVersion = 0;
  std::string producer;
  std::vector<std::string> dialects;   ///< sorted
  std::map<std::string, uint64_t> ops; ///< every op, the top-level op too
  uint64_t totalOps = 0;
  /// Distinct location attributes by kind: "call_site", "file_line_col",
  /// "fused", "fused_with_metadata", "name", "unknown", and "opaque" for
  /// private-dialect attributes used as op or block-argument locations.
  std::map<std::string, uint64_t> locations;
};

IRStats computeStats(const bytecode::BytecodeFile &file);

/// The location kinds reported, in a fixed order.
const std::vector<std::string> &locationKinds();

} // namespace aimodel::bytecode

#endif // AIMODEL_BYTECODE_IRSTATS_H
