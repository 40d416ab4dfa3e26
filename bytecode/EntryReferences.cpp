//===- EntryReferences.cpp - What refers to what in a bytecode file -------===//

#include "bytecode/EntryReferences.h"

#include "bytecode/BytecodeDecoder.h"
#include "bytecode/BytecodeStream.h"

using namespace aimodel::bytecode;

ReferenceFinder::ReferenceFinder(const BytecodeFile &file) : file(file) {
  // Every string occupies at least its NUL, so start addresses identify them.
  for (uint64_t i = 0; i < file.strings().size(); ++i)
    stringIndices[file.strings()[i].data()] = i;
}

uint64_t ReferenceFinder::stringIndex(llvm::StringRef str) const {
  auto it = stringIndices.find(str.data());
  return it == stringIndices.end() ? kNone : it->second;
}

/// Splits decoder reference numbers (attribute i as i, type j as
/// numAttributes + j) into the two lists.
static void splitRefs(const BytecodeFile &file,
                      const std::vector<uint64_t> &refs, EntryReferences &out) {
  uint64_t numAttrs = file.attributes().size();
  for (uint64_t ref : refs) {
    if (ref < numAttrs)
      out.attributes.push_back(ref);
    else
      out.types.push_back(ref - numAttrs);
  }
}

EntryReferences ReferenceFinder::ofAttribute(uint64_t index) const {
  EntryReferences out;
  switch (file.attrKind(index)) {
  case AttrKind::Asm:
    // Text refers to nothing by index; a private dialect's text is still
    // self-contained.
    return out;
  case AttrKind::DialectOpaque:
  case AttrKind::OtherBuiltin:
  case AttrKind::DenseStringElements: // its strings are not decoded
    out.opaque = true;
    return out;
  default:
    break;
  }
  DecodedAttr attr;
  if (auto err = decodeBuiltinAttrEntry(file, index, attr)) {
    llvm::consumeError(std::move(err));
    out.opaque = true;
    return out;
  }
  std::vector<uint64_t> refs;
  appendAttrReferences(file, attr, refs);
  splitRefs(file, refs, out);
  if (attr.kind == AttrKind::String || attr.kind == AttrKind::StringWithType) {
    uint64_t str = stringIndex(attr.str);
    if (str == kNone)
      out.opaque = true;
    else
      out.strings.push_back(str);
  }
  return out;
}

EntryReferences ReferenceFinder::ofType(uint64_t index) const {
  EntryReferences out;
  const AttrTypeEntry &entry = file.types()[index];
  if (!entry.hasCustomEncoding)
    return out; // text
  if (file.typeCode(index) == TypeCode::NotBuiltin ||
      file.typeCode(index) == TypeCode::OtherBuiltin) {
    out.opaque = true;
    return out;
  }
  BuiltinTypeInfo info;
  std::vector<uint64_t> refs;
  if (auto err = decodeBuiltinTypeEntry(file, index, info, &refs)) {
    llvm::consumeError(std::move(err));
    out.opaque = true;
    return out;
  }
  splitRefs(file, refs, out);
  return out;
}

EntryReferences ReferenceFinder::ofOp(const Operation &op) const {
  EntryReferences out;
  if (op.attrDict != kNone)
    out.attributes.push_back(op.attrDict);
  if (op.propertiesAttr != kNone)
    out.attributes.push_back(op.propertiesAttr);
  llvm::ArrayRef<uint64_t> results = file.resultTypes(op);
  out.types.assign(results.begin(), results.end());
  if (op.propertiesForm != PropertiesForm::Native)
    return out;
  std::vector<uint64_t> moduleRefs;
  if (auto err = readModuleProperties(file, op, &moduleRefs)) {
    llvm::consumeError(std::move(err));
    out.opaque = true;
    return out;
  }
  out.attributes.insert(out.attributes.end(), moduleRefs.begin(),
                        moduleRefs.end());
  return out;
}

std::vector<uint64_t> ReferenceFinder::containerStrings() const {
  std::vector<uint64_t> out;
  auto add = [&](llvm::StringRef str) {
    uint64_t index = stringIndex(str);
    if (index != kNone)
      out.push_back(index);
  };
  for (const Dialect &dialect : file.dialects())
    add(dialect.name);
  for (const OpName &name : file.opNames())
    add(name.name);
  for (const ResourceGroup &group : file.resourceGroups()) {
    if (group.isExternal)
      add(group.name);
    for (const ResourceEntry &entry : group.entries) {
      add(entry.key);
      if (entry.kind == ResourceKind::String)
        add(entry.stringValue);
    }
  }
  return out;
}
