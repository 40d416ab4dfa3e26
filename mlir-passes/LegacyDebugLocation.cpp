//===- LegacyDebugLocation.cpp - AIM002: 0.4.0 call-stack locations -------===//
//
// coreai-torch 0.4.0 located every lowered op by a builtin FusedLoc whose
// metadata names the PyTorch call stack; current Core AI compilers abort on
// it ("expected AICode versioned location, got: loc(fused<...>)"). A
// reviewer needs to know how much is affected and where in the model.
//
//===----------------------------------------------------------------------===//

#include "mlir-passes/MLIRLocationView.h"
#include "mlir-passes/PassSupport.h"
#include "mlir-passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Path.h"

namespace aimodel::passes {
#define GEN_PASS_DEF_LEGACYDEBUGLOCATION
#include "mlir-passes/Passes.h.inc"
} // namespace aimodel::passes

using namespace aimodel;
using namespace aimodel::passes;

namespace {

constexpr size_t kExamples = 3;

/// The strings of an array attribute member of `dict`, joined.
std::string joinedStrings(mlir::DictionaryAttr dict, llvm::StringRef key,
                          llvm::StringRef separator) {
  std::string text;
  auto array = dict ? dict.getAs<mlir::ArrayAttr>(key) : mlir::ArrayAttr();
  if (!array)
    return text;
  for (mlir::Attribute element : array)
    if (auto str = llvm::dyn_cast<mlir::StringAttr>(element))
      text += (text.empty() ? "" : separator.str()) + str.getValue().str();
  return text;
}

/// "coreai.relu in ReLU$1/TinyModel$1 (FX relu) at functional.py:1500".
std::string describe(mlir::Operation *op, mlir::FusedLoc fused) {
  auto metadata = llvm::dyn_cast<mlir::DictionaryAttr>(fused.getMetadata());
  std::string text = op->getName().getStringRef().str();
  std::string module = joinedStrings(metadata, "call_stack", "/");
  if (!module.empty())
    text += " in " + module;
  std::string fx = joinedStrings(metadata, "identifiers", ",");
  if (!fx.empty())
    text += " (FX " + fx + ")";
  // The innermost frame comes first (coreai-format.md §4.1).
  for (mlir::Location frame : fused.getLocations())
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(frame)) {
      llvm::StringRef name = file.getFilename().getValue();
      if (name == "op_id")
        continue;
      text += " at " + llvm::sys::path::filename(name).str() + ":" +
              std::to_string(file.getLine());
      break;
    }
  return text;
}

struct LegacyDebugLocationPass
    : impl::LegacyDebugLocationBase<LegacyDebugLocationPass> {
  explicit LegacyDebugLocationPass(FindingSink sink) : sink(std::move(sink)) {}

  void runOnOperation() override {
    MLIRLocationView view;
    LocationPredicates<MLIRLocationView> predicates(view);
    // Ops of one graph often share a location: judge each once.
    llvm::DenseMap<mlir::Location, std::optional<mlir::Location>> verdicts;
    IRFinding finding;
    finding.ruleId = "AIM002";
    FunctionCounts perFunction;
    forEachLocatedSite(getOperation(), [&](const LocatedSite &site) {
      auto [it, fresh] = verdicts.try_emplace(site.loc);
      if (fresh)
        it->second = predicates.findLegacyCallStack(site.loc);
      if (!it->second)
        return;
      ++(site.isBlockArgument ? finding.blockArguments : finding.ops);
      std::string function = enclosingFunction(site.op);
      if (!function.empty())
        ++perFunction[function];
      if (!site.isBlockArgument && finding.examples.size() < kExamples)
        finding.examples.push_back(
            describe(site.op, llvm::cast<mlir::FusedLoc>(*it->second)));
    });
    if (!finding.ops && !finding.blockArguments)
      return;
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
    report(getOperation(), sink, std::move(finding));
  }

  FindingSink sink;
};

} // namespace

std::unique_ptr<mlir::Pass>
aimodel::passes::createLegacyDebugLocationPass(FindingSink sink) {
  return std::make_unique<LegacyDebugLocationPass>(std::move(sink));
}
