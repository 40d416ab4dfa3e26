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

void aimodel::bytecode::forEachPossibleIndex(
    llvm::StringRef bytes, llvm::function_ref<void(uint64_t)> fn) {
  const auto *data = reinterpret_cast<const uint8_t *>(bytes.data());
  size_t size = bytes.size();
  for (size_t at = 0; at < size; ++at) {
    // MLIR's prefix varint: trailing zero bits of the first byte = extra
    // bytes; a zero first byte is followed by eight bytes of value.
    uint8_t first = data[at];
    unsigned extra = first ? unsigned(__builtin_ctz(first)) : 8;
    if (at + extra >= size)
      continue;
    uint64_t value;
    if (extra == 8) {
      value = 0;
      for (unsigned i = 0; i < 8; ++i)
        value |= uint64_t(data[at + 1 + i]) << (8 * i);
    } else {
      value = 0;
      for (unsigned i = 0; i <= extra; ++i)
        value |= uint64_t(data[at + i]) << (8 * i);
      value >>= extra + 1;
    }
    fn(value);
    if (value & 1) // an optional attribute: index * 2 + 1
      fn(value >> 1);
  }
}

void ReferenceFinder::addPossible(llvm::StringRef bytes,
                                  EntryReferences &out) const {
  uint64_t numAttrs = file.attributes().size(), numTypes = file.types().size(),
           numStrings = file.strings().size();
  out.possible = true;
  forEachPossibleIndex(bytes, [&](uint64_t index) {
    if (index < numAttrs)
      out.attributes.push_back(index);
    if (index < numTypes)
      out.types.push_back(index);
    if (index < numStrings)
      out.strings.push_back(index);
  });
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
    addPossible(file.bytesOf(file.attributes()[index].encoding), out);
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
    addPossible(file.bytesOf(entry.encoding), out);
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
    // Not builtin.module's: its dialect's own encoding.
    llvm::consumeError(std::move(err));
    addPossible(file.bytesOf(op.propertiesBlob), out);
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

EntryReferences ReferenceFinder::ofDialectVersion(uint64_t index) const {
  EntryReferences out;
  const Dialect &dialect = file.dialects()[index];
  if (dialect.versionBlob)
    addPossible(file.bytesOf(*dialect.versionBlob), out);
  return out;
}

namespace {
/// What holds the bytes a possible reference was read from.
struct Origin {
  enum Kind : uint8_t { None, OpProperties, Attribute, Type, DialectVersion };
  Kind kind = None;
  uint64_t index = 0;
};

std::string describe(const BytecodeFile &file, Origin origin) {
  switch (origin.kind) {
  case Origin::OpProperties:
    return "the properties of " +
           file.fullOpName(file.operations()[origin.index].name) + " (op " +
           std::to_string(origin.index) + ")";
  case Origin::Attribute:
    return "private '" + file.attrDialectName(origin.index).str() +
           "' attribute " + std::to_string(origin.index);
  case Origin::Type:
    return "private '" +
           file.dialects()[file.types()[origin.index].dialect].name.str() +
           "' type " + std::to_string(origin.index);
  case Origin::DialectVersion:
    return "the '" + file.dialects()[origin.index].name.str() +
           "' dialect's version";
  case Origin::None:
    break;
  }
  return "";
}
} // namespace

Reachability
aimodel::bytecode::findReachable(const BytecodeFile &file,
                                 const LocationOverrides &overrides) {
  Reachability out;
  out.attributes.assign(file.attributes().size(), 0);
  out.types.assign(file.types().size(), 0);
  out.strings.assign(file.strings().size(), 0);
  ReferenceFinder finder(file);
  // For strings: the last entry whose bytes may refer to them (on the
  // first path found), for reports.
  std::vector<Origin> stringOrigin(out.strings.size());
  // Entries to (re)visit with the bits they gained; an entry is expanded
  // again only when it gains a bit, so each is expanded at most 5 times.
  struct Work {
    bool isType;
    uint64_t index;
    uint8_t bits;
    Origin origin;
  };
  std::vector<Work> work;
  // What `refs` names is reached with `bits`; through bytes the decoder
  // cannot see into (held by `holder`), only possibly.
  auto reach = [&](const EntryReferences &refs, uint8_t bits, Origin origin,
                   Origin holder) {
    out.opaque |= refs.opaque;
    if (refs.possible) {
      bits = kReachedFromPossible;
      origin = holder;
    }
    for (uint64_t a : refs.attributes)
      work.push_back({false, a, bits, origin});
    for (uint64_t t : refs.types)
      work.push_back({true, t, bits, origin});
    for (uint64_t str : refs.strings) {
      if ((bits & kReachedFromPossible) &&
          stringOrigin[str].kind == Origin::None)
        stringOrigin[str] = origin;
      out.strings[str] |= bits;
    }
  };
  auto reachAttr = [&](uint64_t index, uint8_t bits) {
    if (index != kNone)
      work.push_back({false, index, bits, {}});
  };
  for (uint64_t str : finder.containerStrings())
    out.strings[str] |= kReachedFromContainer;
  for (uint64_t d = 0; d < file.dialects().size(); ++d)
    reach(finder.ofDialectVersion(d), kReachedFromContainer, {},
          {Origin::DialectVersion, d});
  const auto &ops = file.operations();
  for (uint32_t i = 0; i < ops.size(); ++i) {
    uint64_t loc = ops[i].location;
    if (overrides.ops) {
      auto edited = overrides.ops->find(i);
      if (edited != overrides.ops->end())
        loc = edited->second;
    }
    reachAttr(loc, kReachedFromLocation);
    // The dictionary and result types are attributes; properties (either
    // form) are properties.
    reachAttr(ops[i].attrDict, kReachedFromAttribute);
    for (uint64_t type : file.resultTypes(ops[i]))
      work.push_back({true, type, kReachedFromAttribute, {}});
    EntryReferences props = finder.ofOp(ops[i]);
    llvm::erase(props.attributes, ops[i].attrDict);
    props.types.clear();
    reach(props, kReachedFromProperty, {}, {Origin::OpProperties, i});
  }
  const auto &blocks = file.blocks();
  for (uint32_t b = 0; b < blocks.size(); ++b)
    for (uint32_t a = 0; a < blocks[b].arguments.size(); ++a) {
      work.push_back(
          {true, blocks[b].arguments[a].type, kReachedFromAttribute, {}});
      uint64_t loc = blocks[b].arguments[a].location;
      if (overrides.arguments) {
        auto edited = overrides.arguments->find({b, a});
        if (edited != overrides.arguments->end())
          loc = edited->second;
      }
      reachAttr(loc, kReachedFromLocation);
    }
  while (!work.empty()) {
    Work item = work.back();
    work.pop_back();
    std::vector<uint8_t> &table = item.isType ? out.types : out.attributes;
    // Appended entries (past the table) refer to nothing.
    if (item.index >= table.size())
      continue;
    uint8_t gained = uint8_t(item.bits & ~table[item.index]);
    if (!gained)
      continue;
    table[item.index] |= gained;
    if (!item.isType && overrides.blanked &&
        item.index < overrides.blanked->size() &&
        (*overrides.blanked)[item.index])
      continue; // loc(unknown) now
    Origin holder{item.isType ? Origin::Type : Origin::Attribute, item.index};
    reach(item.isType ? finder.ofType(item.index)
                      : finder.ofAttribute(item.index),
          gained, item.origin, holder);
  }
  out.possibleOrigin.assign(out.strings.size(), "");
  for (uint64_t i = 0; i < out.strings.size(); ++i)
    if (out.strings[i] == kReachedFromPossible)
      out.possibleOrigin[i] = describe(file, stringOrigin[i]);
  return out;
}
