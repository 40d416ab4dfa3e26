//===- DebugPayloadPass.cpp - AIM007: what a shipping asset leaks ---------===//
//
// Debug locations carry the converting machine's absolute paths (and so its
// user's name) and, in the newer form, SHA-256 hashes of the source files.
// Every string MLIR sees is judged once: in locations, attributes and
// properties, however often it is referred to.
//
//===----------------------------------------------------------------------===//

#include "mlir-passes/DebugPayload.h"
#include "mlir-passes/PassSupport.h"
#include "mlir-passes/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/SetVector.h"

#include <array>

namespace aimodel::passes {
#define GEN_PASS_DEF_DEBUGPAYLOAD
#include "mlir-passes/Passes.h.inc"
} // namespace aimodel::passes

using namespace aimodel;
using namespace aimodel::passes;

namespace {

constexpr size_t kExamples = 3;

struct DebugPayloadPass : impl::DebugPayloadBase<DebugPayloadPass> {
  explicit DebugPayloadPass(FindingSink sink) : sink(std::move(sink)) {}

  void runOnOperation() override {
    // Distinct pieces of each kind, in the order first met.
    std::array<llvm::SetVector<llvm::StringRef>, kNumPayloadKinds> found;
    mlir::AttrTypeWalker walker;
    walker.addWalk([&](mlir::StringAttr str) {
      classifyPayload(str.getValue(),
                      [&](PayloadKind kind, llvm::StringRef piece) {
                        found[unsigned(kind)].insert(piece);
                      });
    });
    // A location is judged once, however many ops share it. MLIR's
    // attribute walk does not enter file names, so they are judged here.
    llvm::DenseMap<mlir::Location, bool> locationCarries;
    auto carries = [&](mlir::Location loc) {
      auto [it, fresh] = locationCarries.try_emplace(loc, false);
      if (!fresh)
        return it->second;
      walker.walk(mlir::Attribute(mlir::LocationAttr(loc)));
      loc->walk([&](mlir::Location inner) {
        if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(inner))
          classifyPayload(file.getFilename().getValue(),
                          [&](PayloadKind kind, llvm::StringRef piece) {
                            found[unsigned(kind)].insert(piece);
                            it->second = true;
                          });
        return mlir::WalkResult::advance();
      });
      return it->second;
    };
    IRFinding finding;
    finding.ruleId = "AIM007";
    forEachLocatedSite(getOperation(), [&](const LocatedSite &site) {
      if (carries(site.loc))
        ++(site.isBlockArgument ? finding.blockArguments : finding.ops);
      if (site.isBlockArgument)
        return;
      walker.walk(site.op->getRawDictionaryAttrs());
      if (mlir::Attribute props = site.op->getPropertiesAsAttribute())
        walker.walk(props);
    });
    std::string what;
    for (unsigned kind = 0; kind < kNumPayloadKinds; ++kind) {
      const auto &pieces = found[kind];
      if (pieces.empty())
        continue;
      std::string name = payloadKindName(PayloadKind(kind)).str();
      std::string part = std::to_string(pieces.size()) + " " + name +
                         (pieces.size() == 1 ? "" : "s") + " (";
      for (size_t i = 0; i < pieces.size() && i < kExamples; ++i) {
        part += (i ? ", " : "") + pieces[i].str();
        finding.examples.push_back(pieces[i].str());
      }
      part += pieces.size() > kExamples ? ", ...)" : ")";
      what += (what.empty() ? "" : "; ") + part;
    }
    if (what.empty())
      return;
    finding.message = "debug payload: " + what;
    if (finding.ops || finding.blockArguments)
      finding.message += "; in the locations of " +
                         countPhrase(finding.ops, finding.blockArguments);
    report(getOperation(), sink, std::move(finding));
  }

  FindingSink sink;
};

} // namespace

std::unique_ptr<mlir::Pass>
aimodel::passes::createDebugPayloadPass(FindingSink sink) {
  return std::make_unique<DebugPayloadPass>(std::move(sink));
}
