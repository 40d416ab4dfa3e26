//===- BytecodeLocationView.h - Location predicates over tables -*- C++ -*-===//
//
// The same location predicates the passes use, over the decoder's attribute
// table (nodes are attribute indices): what lets the audit prove that no IR
// rule can fire without importing a file into MLIR, and what strip uses to
// choose the locations it rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_BYTECODELOCATIONVIEW_H
#define AIMODEL_MLIR_PASSES_BYTECODELOCATIONVIEW_H

#include "bytecode/BytecodeReader.h"
#include "mlir-passes/LocationPredicates.h"

#include <array>

namespace aimodel::passes {

struct BytecodeLocationView {
  using Node = uint64_t; ///< attribute index

  explicit BytecodeLocationView(const bytecode::BytecodeFile &file)
      : file(file) {}

  LocKind kind(uint64_t index) const {
    using bytecode::AttrKind;
    switch (file.attrKind(index)) {
    case AttrKind::UnknownLoc:
      return LocKind::Unknown;
    case AttrKind::FileLineColLoc:
      return LocKind::FileLineCol;
    case AttrKind::NameLoc:
      return LocKind::Name;
    case AttrKind::CallSiteLoc:
      return LocKind::CallSite;
    case AttrKind::FusedLoc:
      return LocKind::Fused;
    case AttrKind::FusedLocWithMetadata:
      return LocKind::FusedWithMetadata;
    case AttrKind::DialectOpaque:
      return LocKind::Private;
    default:
      return LocKind::Other;
    }
  }
  void children(uint64_t index, llvm::SmallVectorImpl<uint64_t> &out) const {
    const bytecode::DecodedAttr &attr = decoded(index);
    switch (attr.kind) {
    case bytecode::AttrKind::CallSiteLoc:
      out.push_back(attr.childLoc);
      out.push_back(attr.callerLoc);
      break;
    case bytecode::AttrKind::NameLoc:
      out.push_back(attr.childLoc);
      break;
    case bytecode::AttrKind::FusedLoc:
    case bytecode::AttrKind::FusedLocWithMetadata:
      out.append(attr.elements.begin(), attr.elements.end());
      break;
    default:
      break;
    }
  }
  bool metadataHasKey(uint64_t index, llvm::StringRef key) const {
    bytecode::DecodedAttr attr = file.decodedAttr(index);
    if (attr.kind != bytecode::AttrKind::FusedLocWithMetadata ||
        attr.metadata == bytecode::kNone ||
        file.attrKind(attr.metadata) != bytecode::AttrKind::Dictionary)
      return false;
    for (const bytecode::NamedAttrRef &member :
         file.decodedAttr(attr.metadata).namedAttrs)
      if (file.decodedAttr(member.name).str == key)
        return true;
    return false;
  }
  llvm::StringRef nameOf(uint64_t index) const {
    const bytecode::DecodedAttr &attr = decoded(index);
    return attr.kind == bytecode::AttrKind::NameLoc ? attr.str : "";
  }
  llvm::StringRef fileOf(uint64_t index) const {
    const bytecode::DecodedAttr &attr = decoded(index);
    return attr.kind == bytecode::AttrKind::FileLineColLoc ? attr.str : "";
  }
  unsigned columnOf(uint64_t index) const {
    const bytecode::DecodedAttr &attr = decoded(index);
    return attr.kind == bytecode::AttrKind::FileLineColLoc
               ? unsigned(attr.column)
               : 0;
  }
  unsigned lineOf(uint64_t index) const {
    const bytecode::DecodedAttr &attr = decoded(index);
    return attr.kind == bytecode::AttrKind::FileLineColLoc ? unsigned(attr.line)
                                                           : 0;
  }
  /// The strings of array member `key` of a FusedLoc's metadata.
  void metadataStrings(uint64_t index, llvm::StringRef key,
                       llvm::SmallVectorImpl<std::string> &out) const {
    bytecode::DecodedAttr attr = file.decodedAttr(index);
    if (attr.kind != bytecode::AttrKind::FusedLocWithMetadata ||
        attr.metadata == bytecode::kNone ||
        file.attrKind(attr.metadata) != bytecode::AttrKind::Dictionary)
      return;
    for (const bytecode::NamedAttrRef &member :
         file.decodedAttr(attr.metadata).namedAttrs) {
      if (file.decodedAttr(member.name).str != key ||
          file.attrKind(member.value) != bytecode::AttrKind::Array)
        continue;
      for (uint64_t element : file.decodedAttr(member.value).elements)
        if (file.attrKind(element) == bytecode::AttrKind::String)
          out.push_back(file.decodedAttr(element).str.str());
      return;
    }
  }

  const bytecode::BytecodeFile &file;

private:
  /// Attribute `index` decoded, kept while the next few are asked for: a
  /// predicate asks several questions of one node in a row (isBareOpId:
  /// name, children, then file and column of the child), and each would
  /// decode it again. Valid until the next call.
  const bytecode::DecodedAttr &decoded(uint64_t index) const {
    for (const Recent &recent : recent_)
      if (recent.index == index)
        return recent.attr;
    Recent &slot = recent_[next_++ % recent_.size()];
    slot.index = index;
    slot.attr = file.decodedAttr(index);
    return slot.attr;
  }
  struct Recent {
    uint64_t index = bytecode::kNone;
    bytecode::DecodedAttr attr;
  };
  mutable std::array<Recent, 4> recent_;
  mutable unsigned next_ = 0;
};

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_BYTECODELOCATIONVIEW_H
