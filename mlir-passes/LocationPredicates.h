//===- LocationPredicates.h - What a location rule looks for ----*- C++ -*-===//
//
// The location rules' definitions, written once over any view of a location
// tree: MLIR locations (the passes in this folder) and the decoder's tables
// (the audit's cheap pre-check and strip's choice of what to rewrite). A view
// provides, for its node handle `Node`:
//
//   LocKind kind(Node);
//   void children(Node, SmallVectorImpl<Node> &);  // CallSite callee+caller,
//                                                  // Name child, Fused list
//   bool metadataHasKey(Node, StringRef);          // FusedWithMetadata only
//   StringRef nameOf(Node);                        // NameLoc name
//   StringRef fileOf(Node);                        // FileLineCol file name
//   unsigned columnOf(Node);                       // FileLineCol column
//
// Facts behind the rules: ../shared/docs/coreai-format.md §4 (coreai-torch
// 0.4.0 wrote a builtin FusedLoc whose metadata has call_stack / identifiers
// / output_maps; current compilers abort on it; real files nest it inside
// plain fused locations).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_LOCATIONPREDICATES_H
#define AIMODEL_MLIR_PASSES_LOCATIONPREDICATES_H

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace aimodel::passes {

enum class LocKind {
  Unknown,
  FileLineCol,
  Name,
  CallSite,
  Fused,             ///< plain FusedLoc (no metadata)
  FusedWithMetadata, ///< FusedLoc with a metadata attribute
  Private,           ///< a private-dialect attribute used as a location
  Other,
};

/// The metadata keys coreai-torch 0.4.0 put on its call-stack locations.
inline bool isLegacyMetadataKey(llvm::StringRef key) {
  return key == "call_stack" || key == "identifiers" || key == "output_maps";
}

template <typename View> class LocationPredicates {
public:
  using Node = typename View::Node;
  explicit LocationPredicates(const View &view) : view(view) {}

  /// A builtin FusedLoc whose metadata dictionary has call_stack,
  /// identifiers or output_maps: what current compilers abort on.
  bool isLegacyCallStack(Node node) const {
    return view.kind(node) == LocKind::FusedWithMetadata &&
           (view.metadataHasKey(node, "call_stack") ||
            view.metadataHasKey(node, "identifiers") ||
            view.metadataHasKey(node, "output_maps"));
  }

  /// The first legacy call-stack location `root` is, or contains through
  /// CallSiteLoc / NameLoc / plain FusedLoc wrappers (depth first, in
  /// order). Each node is visited once, so a shared sub-location costs
  /// nothing twice however often it is referred to.
  std::optional<Node> findLegacyCallStack(Node root) const {
    llvm::SmallVector<Node, 8> stack{root};
    llvm::DenseSet<Node> seen;
    llvm::SmallVector<Node, 4> kids;
    while (!stack.empty()) {
      Node node = stack.pop_back_val();
      if (!seen.insert(node).second)
        continue;
      if (isLegacyCallStack(node))
        return node;
      LocKind kind = view.kind(node);
      if (kind != LocKind::CallSite && kind != LocKind::Name &&
          kind != LocKind::Fused)
        continue;
      kids.clear();
      view.children(node, kids);
      stack.append(kids.rbegin(), kids.rend());
    }
    return std::nullopt;
  }

  /// `NameLoc("coreai" | "torch", "op_id":N:0)`: the id-only form 0.4.0
  /// wrote for ops without a PyTorch source.
  bool isBareOpId(Node node) const {
    if (view.kind(node) != LocKind::Name)
      return false;
    llvm::StringRef name = view.nameOf(node);
    if (name != "coreai" && name != "torch")
      return false;
    llvm::SmallVector<Node, 1> kids;
    view.children(node, kids);
    return kids.size() == 1 && view.kind(kids[0]) == LocKind::FileLineCol &&
           view.fileOf(kids[0]) == "op_id" && view.columnOf(kids[0]) == 0;
  }

  /// A builtin form whose acceptance by current compilers is unknown: a
  /// bare op-id NameLoc or a plain FusedLoc.
  bool isUnverified(Node node) const {
    return isBareOpId(node) || view.kind(node) == LocKind::Fused;
  }

private:
  const View &view;
};

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_LOCATIONPREDICATES_H
