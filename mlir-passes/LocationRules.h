//===- LocationRules.h - AIM002 and AIM012, over any view -------*- C++ -*-===//
//
// The location rules' findings, written once: fed every located site (an
// op's location, or a block argument's) in IR pre-order, each collects
// what its finding says. The passes feed them MLIR locations
// (MLIRLocationView); the audit feeds them the decoder's tables
// (BytecodeLocationView, TableRules.h), so it needs no MLIR import, and a
// test checks both give the same bytes on every fixture and real file.
//
// A view provides, besides what LocationPredicates needs:
//   unsigned lineOf(Node);                          // FileLineCol line
//   void metadataStrings(Node, StringRef key,       // strings of an array
//                        SmallVectorImpl<std::string> &);  // metadata member
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_LOCATIONRULES_H
#define AIMODEL_MLIR_PASSES_LOCATIONRULES_H

#include "mlir-passes/Findings.h"
#include "mlir-passes/LocationPredicates.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <string>

namespace aimodel::passes {

/// AIM002: ops and block arguments located by a 0.4.0 call stack; where
/// (per function), and the first three ops with their module, FX node and
/// innermost source line.
template <typename View> class LegacyLocationRule {
public:
  using Node = typename View::Node;
  explicit LegacyLocationRule(const View &view) : view(view), predicates(view) {
    finding.ruleId = "AIM002";
  }

  void visit(Node loc, llvm::StringRef opName, const std::string &function,
             bool isBlockArgument) {
    // Ops of one graph often share a location: judge each once.
    auto [it, fresh] = verdicts.try_emplace(loc);
    if (fresh)
      it->second = predicates.findLegacyCallStack(loc);
    if (!it->second)
      return;
    ++(isBlockArgument ? finding.blockArguments : finding.ops);
    if (!function.empty())
      ++perFunction[function];
    if (!isBlockArgument && finding.examples.size() < kExamples)
      finding.examples.push_back(describe(opName, *it->second));
  }

  std::optional<IRFinding> finish() {
    if (!finding.ops && !finding.blockArguments)
      return std::nullopt;
    bool one = finding.ops + finding.blockArguments == 1;
    finding.message =
        countPhrase(finding.ops, finding.blockArguments) +
        (one ? " carries a coreai-torch 0.4.0 call-stack location "
             : " carry coreai-torch 0.4.0 call-stack locations ") +
        "(fused<{call_stack, identifiers, ...}>), which current Core AI "
        "compilers reject";
    if (!perFunction.empty())
      finding.message += "; by function: " + perFunctionPhrase(perFunction);
    if (!finding.examples.empty()) {
      finding.message += "; first: ";
      for (size_t i = 0; i < finding.examples.size(); ++i)
        finding.message += (i ? "; " : "") + finding.examples[i];
    }
    return finding;
  }

private:
  static constexpr size_t kExamples = 3;

  /// "coreai.relu in ReLU$1/TinyModel$1 (FX relu) at functional.py:1500".
  std::string describe(llvm::StringRef opName, Node fused) const {
    std::string text = opName.str();
    llvm::SmallVector<std::string, 4> strings;
    view.metadataStrings(fused, "call_stack", strings);
    std::string module = join(strings, "/");
    if (!module.empty())
      text += " in " + module;
    strings.clear();
    view.metadataStrings(fused, "identifiers", strings);
    std::string fx = join(strings, ",");
    if (!fx.empty())
      text += " (FX " + fx + ")";
    // The innermost frame comes first (coreai-format.md §4.1).
    llvm::SmallVector<Node, 8> frames;
    view.children(fused, frames);
    for (Node frame : frames) {
      if (view.kind(frame) != LocKind::FileLineCol)
        continue;
      llvm::StringRef name = view.fileOf(frame);
      if (name == "op_id")
        continue;
      text += " at " + llvm::sys::path::filename(name).str() + ":" +
              std::to_string(view.lineOf(frame));
      break;
    }
    return text;
  }

  static std::string join(llvm::ArrayRef<std::string> parts,
                          llvm::StringRef separator) {
    std::string text;
    for (const std::string &part : parts)
      text += (text.empty() ? "" : separator.str()) + part;
    return text;
  }

  const View &view;
  LocationPredicates<View> predicates;
  llvm::DenseMap<Node, std::optional<Node>> verdicts;
  IRFinding finding;
  FunctionCounts perFunction;
};

/// AIM012: ops and block arguments located by a builtin form current
/// compilers were never shown to accept (a bare op-id NameLoc, a plain
/// FusedLoc); how many of each, per function.
template <typename View> class UnverifiedLocationRule {
public:
  using Node = typename View::Node;
  explicit UnverifiedLocationRule(const View &view) : predicates(view) {
    finding.ruleId = "AIM012";
  }

  void visit(Node loc, llvm::StringRef, const std::string &function,
             bool isBlockArgument) {
    if (!predicates.isUnverified(loc))
      return;
    ++(predicates.isBareOpId(loc) ? bareIds : plainFused);
    ++(isBlockArgument ? finding.blockArguments : finding.ops);
    if (!function.empty())
      ++perFunction[function];
  }

  std::optional<IRFinding> finish() {
    if (!finding.ops && !finding.blockArguments)
      return std::nullopt;
    bool one = finding.ops + finding.blockArguments == 1;
    finding.message = countPhrase(finding.ops, finding.blockArguments) +
                      (one ? " has" : " have") +
                      " a builtin location current compilers were never "
                      "shown to accept (";
    if (bareIds)
      finding.message += std::to_string(bareIds) + " bare op-id NameLoc";
    if (plainFused)
      finding.message += std::string(bareIds ? ", " : "") +
                         std::to_string(plainFused) + " plain FusedLoc";
    finding.message += ")";
    if (!perFunction.empty())
      finding.message += "; by function: " + perFunctionPhrase(perFunction);
    return finding;
  }

private:
  LocationPredicates<View> predicates;
  IRFinding finding;
  uint64_t bareIds = 0, plainFused = 0;
  FunctionCounts perFunction;
};

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_LOCATIONRULES_H
