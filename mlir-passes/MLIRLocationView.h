//===- MLIRLocationView.h - Location predicates over MLIR -------*- C++ -*-===//
#ifndef AIMODEL_MLIR_PASSES_MLIRLOCATIONVIEW_H
#define AIMODEL_MLIR_PASSES_MLIRLOCATIONVIEW_H

#include "mlir-passes/LocationPredicates.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

namespace aimodel::passes {

/// The view LocationPredicates needs, over mlir::Location. A private-dialect
/// attribute the import could not decode arrives as an OpaqueLoc.
struct MLIRLocationView {
  using Node = mlir::Location;

  LocKind kind(mlir::Location loc) const {
    if (llvm::isa<mlir::UnknownLoc>(loc))
      return LocKind::Unknown;
    if (llvm::isa<mlir::FileLineColLoc>(loc))
      return LocKind::FileLineCol;
    if (llvm::isa<mlir::NameLoc>(loc))
      return LocKind::Name;
    if (llvm::isa<mlir::CallSiteLoc>(loc))
      return LocKind::CallSite;
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
      return fused.getMetadata() ? LocKind::FusedWithMetadata : LocKind::Fused;
    if (llvm::isa<mlir::OpaqueLoc>(loc))
      return LocKind::Private;
    return LocKind::Other;
  }
  void children(mlir::Location loc,
                llvm::SmallVectorImpl<mlir::Location> &out) const {
    if (auto call = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
      out.push_back(call.getCallee());
      out.push_back(call.getCaller());
    } else if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc)) {
      out.push_back(name.getChildLoc());
    } else if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
      out.append(fused.getLocations().begin(), fused.getLocations().end());
    }
  }
  bool metadataHasKey(mlir::Location loc, llvm::StringRef key) const {
    auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc);
    auto dict =
        fused
            ? llvm::dyn_cast_or_null<mlir::DictionaryAttr>(fused.getMetadata())
            : mlir::DictionaryAttr();
    return dict && dict.contains(key);
  }
  llvm::StringRef nameOf(mlir::Location loc) const {
    auto name = llvm::dyn_cast<mlir::NameLoc>(loc);
    return name ? name.getName().getValue() : "";
  }
  llvm::StringRef fileOf(mlir::Location loc) const {
    auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc);
    return file ? file.getFilename().getValue() : "";
  }
  unsigned columnOf(mlir::Location loc) const {
    auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc);
    return file ? file.getColumn() : 0;
  }
  unsigned lineOf(mlir::Location loc) const {
    auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc);
    return file ? file.getLine() : 0;
  }
  /// The strings of array member `key` of a FusedLoc's metadata.
  void metadataStrings(mlir::Location loc, llvm::StringRef key,
                       llvm::SmallVectorImpl<std::string> &out) const {
    auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc);
    auto dict =
        fused
            ? llvm::dyn_cast_or_null<mlir::DictionaryAttr>(fused.getMetadata())
            : mlir::DictionaryAttr();
    auto array = dict ? dict.getAs<mlir::ArrayAttr>(key) : mlir::ArrayAttr();
    if (!array)
      return;
    for (mlir::Attribute element : array)
      if (auto str = llvm::dyn_cast<mlir::StringAttr>(element))
        out.push_back(str.getValue().str());
  }
};

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_MLIRLOCATIONVIEW_H
