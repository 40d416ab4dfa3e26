//===- Findings.h - What an IR rule pass reports ----------------*- C++ -*-===//
//
// A pass reports to a sink when a caller (the audit) wants structured
// findings, and as MLIR diagnostics otherwise (aimodel-opt), with the same
// words either way.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_FINDINGS_H
#define AIMODEL_MLIR_PASSES_FINDINGS_H

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace aimodel::passes {

struct IRFinding {
  std::string ruleId; ///< "AIM002"
  std::string message;
  uint64_t ops = 0;            ///< ops concerned
  uint64_t blockArguments = 0; ///< block arguments concerned
  std::vector<std::string> examples;
};

using FindingSink = std::function<void(IRFinding)>;

/// Counts per function, in the order functions are first met.
using FunctionCounts =
    llvm::MapVector<std::string, uint64_t, std::map<std::string, unsigned>>;

/// "@main 3, @rms_norm 2" for the first `limit` functions, "+K more" after.
inline std::string perFunctionPhrase(const FunctionCounts &perFunction,
                                     size_t limit = 8) {
  std::string text;
  size_t shown = 0;
  for (const auto &[function, count] : perFunction) {
    if (shown == limit) {
      text += ", +" + std::to_string(perFunction.size() - limit) + " more";
      break;
    }
    text += (shown++ ? ", " : "") + function + " " + std::to_string(count);
  }
  return text;
}

/// "N op(s)" / "N block argument(s)" / both, joined with " and ".
inline std::string countPhrase(uint64_t ops, uint64_t blockArguments) {
  auto plural = [](uint64_t n, const char *what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::string text;
  if (ops)
    text = plural(ops, "op");
  if (blockArguments)
    text += (text.empty() ? "" : " and ") +
            plural(blockArguments, "block argument");
  return text;
}

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_FINDINGS_H
