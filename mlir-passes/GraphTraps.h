//===- GraphTraps.h - AIM015: op kinds reported to misbehave ----*- C++ -*-===//
//
// Op kinds that public reports say compute wrongly, or cannot run, on some
// compute units: the table (each entry with where it was reported) and the
// rule that counts them in a graph. One rule, fed by every view of a graph:
// the decoded tables (the audit), MLIR (the pass aimodel-opt runs), and a
// compiled bundle's stats.json (its source's op distribution, by name). An
// op kind is the last '.'-separated part of an op's name ("mps.floor",
// "coreai.round"; stats.json lists bare "floor"), so the GPU delegate's
// graphs and the portable IR are judged alike.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_GRAPHTRAPS_H
#define AIMODEL_MLIR_PASSES_GRAPHTRAPS_H

#include "mlir-passes/Findings.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace aimodel::passes {

struct GraphTrapEntry {
  llvm::ArrayRef<llvm::StringLiteral> kinds; ///< op kinds ("floor")
  llvm::StringLiteral what;                  ///< what is reported to happen
  llvm::StringLiteral source;                ///< where it was reported
};

/// The trap op `opName` is, if any; `kind` gets its op kind.
const GraphTrapEntry *graphTrapOf(llvm::StringRef opName,
                                  llvm::StringRef &kind);

/// Counts trap ops and says which: one finding per graph file (or
/// stats.json), none without a trap op.
class GraphTrapRule {
public:
  /// `count` ops named `opName` in `function` ("@main"; "" when not known,
  /// as in stats.json).
  void visit(llvm::StringRef opName, llvm::StringRef function,
             uint64_t count = 1);
  std::optional<IRFinding> finish() const;

private:
  std::map<std::string, uint64_t> byKind;
  std::set<const GraphTrapEntry *> present;
  FunctionCounts perFunction;
  uint64_t ops = 0;
};

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_GRAPHTRAPS_H
