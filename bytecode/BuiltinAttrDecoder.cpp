//===- BuiltinAttrDecoder.cpp - Decode builtin attribute entries ----------===//
//
// Decodes custom-encoded entries of the `builtin` dialect following the
// MLIR 22 codes (mlir/IR/BuiltinDialectBytecode.td). Entries refer to other
// entries only by index, so each entry is decoded on its own from its bytes:
// no recursion. Entries of other dialects and textual entries are
// classified but left undecoded. What an entry's referents must be is
// checked in BuiltinAttrChecks.cpp, cycles and depth in EntryGraph.cpp.
//
// Every builtin entry is decoded (validated) at open, but only its kind is
// kept; BytecodeFile::decodedAttr decodes it again on demand, which keeps the
// reader's memory at one byte per attribute instead of a DecodedAttr.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeDecoder.h"

#include "llvm/ADT/DenseSet.h"

using namespace aimodel::bytecode;
using llvm::Error;

namespace {

/// Reads entry references, checking them against the table they point into.
struct EntryReader {
  ByteCursor cur;
  uint64_t numAttrs, numTypes;

  Error string(llvm::StringRef &str, llvm::ArrayRef<llvm::StringRef> strings) {
    uint64_t index;
    if (auto err = cur.readIndex(index, strings.size(), "string"))
      return err;
    str = strings[index];
    return Error::success();
  }
  Error attr(uint64_t &index) {
    return cur.readIndex(index, numAttrs, "attribute");
  }
  Error type(uint64_t &index) { return cur.readIndex(index, numTypes, "type"); }
  Error attrList(std::vector<uint64_t> &out) {
    uint64_t count;
    if (auto err = cur.readCount(count, "attribute list"))
      return err;
    out.resize(count);
    for (uint64_t &index : out)
      if (auto err = attr(index))
        return err;
    return Error::success();
  }
  Error blob(Span &span) {
    uint64_t blobSize;
    if (auto err = cur.readVarInt(blobSize))
      return err;
    return cur.readSpan(blobSize, span);
  }
};

} // namespace

/// Bit width of the APInt/APFloat value of an Integer or Float attribute of
/// type `typeIndex`, or an error for a type the import cannot use
/// (IntegerAttr needs a builtin integer or index type, FloatAttr a float).
static Error valueWidthOf(const BytecodeFile &file, uint64_t typeIndex,
                          bool isFloat, uint64_t typeOffset, uint64_t &width) {
  TypeCode code = file.typeCode(typeIndex);
  if (!isFloat) {
    if (code == TypeCode::Index)
      width = 64; // IndexType's internal storage width.
    else if (code == TypeCode::Integer)
      width = file.builtinType(typeIndex)->width;
    else
      return errorAt(typeOffset, "type of an Integer attribute is not a "
                                 "builtin integer or index type");
    return Error::success();
  }
  // Integer types have a width too, but are not float types.
  std::optional<uint64_t> known = code == TypeCode::Integer
                                      ? std::nullopt
                                      : file.intOrFloatBitWidth(typeIndex);
  if (!known)
    return errorAt(typeOffset, "type of a Float attribute is not a float type");
  width = *known;
  return Error::success();
}

/// Reads an APInt of a known width: one byte up to 8 bits, a signed varint up
/// to 64 bits, else a count of 64-bit words and the words as signed varints
/// (validated, not kept: `bits` stays empty). The value must fit its width,
/// as the importer demands before APInt sees it; up to 64 bits either
/// spelling fits (MLIR writes the zero-extended bits, others sign-extend).
static Error readKnownWidthInt(ByteCursor &cur, uint64_t width,
                               std::optional<uint64_t> &bits) {
  uint64_t valueOffset = cur.offset();
  auto tooWide = [&](const llvm::Twine &value) {
    return errorAt(valueOffset, "value " + value + " does not fit its " +
                                    llvm::Twine(width) + "-bit type");
  };
  if (width == 0)
    return errorAt(valueOffset, "value of a 0-bit type");
  if (width <= 8) {
    uint8_t byte;
    if (auto err = cur.readByte(byte))
      return err;
    if (!llvm::isUIntN(unsigned(width), byte))
      return tooWide(llvm::Twine(unsigned(byte)));
    bits = byte;
    return Error::success();
  }
  if (width <= 64) {
    int64_t value;
    if (auto err = cur.readSignedVarInt(value))
      return err;
    if (!llvm::isIntN(unsigned(width), value) &&
        !llvm::isUIntN(unsigned(width), uint64_t(value)))
      return tooWide(llvm::Twine(value));
    bits = uint64_t(value);
    return Error::success();
  }
  uint64_t numWords;
  if (auto err = cur.readCount(numWords, "APInt word"))
    return err;
  if (numWords == 0 || numWords > llvm::divideCeil(width, 64))
    return errorAt(valueOffset, llvm::Twine(numWords) +
                                    " APInt words for a value of " +
                                    llvm::Twine(width) + " bits");
  for (uint64_t i = 0; i < numWords; ++i) {
    int64_t ignored;
    if (auto err = cur.readSignedVarInt(ignored))
      return err;
  }
  return Error::success();
}

/// DenseStringElements: a splat flag then one string per element (or one).
/// MLIR sizes its string list from the type, and the importer refuses a
/// type with more elements than the entry has bytes, splat or not.
static Error readDenseStrings(const BytecodeFile &file, ByteCursor &cur,
                              uint64_t index, uint64_t typeIndex,
                              uint64_t typeOffset) {
  std::optional<BuiltinTypeInfo> type = file.builtinType(typeIndex);
  if (!type || !type->boundedCount)
    return errorAt(typeOffset, "type of a DenseStringElements attribute is not "
                               "a static shaped type");
  uint64_t entrySize = file.attributes()[index].encoding.size;
  if (*type->numElements > entrySize)
    return errorAt(typeOffset, "DenseStringElements type has " +
                                   llvm::Twine(*type->numElements) +
                                   " elements, more than the entry's " +
                                   llvm::Twine(entrySize) + " bytes");
  uint64_t isSplat;
  if (auto err = cur.readVarInt(isSplat))
    return err;
  uint64_t count = isSplat ? 1 : *type->numElements;
  if (count > cur.remaining())
    return cur.error("DenseStringElements needs " + llvm::Twine(count) +
                     " strings but only " + llvm::Twine(cur.remaining()) +
                     " bytes remain");
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t ignored;
    if (auto err = cur.readIndex(ignored, file.strings().size(), "string"))
      return err;
  }
  return Error::success();
}

namespace aimodel::bytecode {

Error decodeBuiltinAttrEntry(const BytecodeFile &file, uint64_t index,
                             DecodedAttr &out) {
  const AttrTypeEntry &entry = file.attributes()[index];
  EntryReader in{ByteCursor(file, entry.encoding), file.attributes().size(),
                 file.types().size()};
  ByteCursor &cur = in.cur;
  uint64_t code;
  if (auto err = cur.readVarInt(code))
    return err;
  if (code > uint64_t(AttrKind::FileLineColRange)) {
    out.kind = AttrKind::OtherBuiltin; // Refused by classifyAttributes().
    return Error::success();
  }
  out.kind = AttrKind(code);
  switch (out.kind) {
  case AttrKind::Array:
    if (auto err = in.attrList(out.elements))
      return err;
    break;
  case AttrKind::Dictionary: {
    uint64_t count;
    if (auto err = cur.readCount(count, "dictionary entry", 2))
      return err;
    out.namedAttrs.resize(count);
    for (NamedAttrRef &named : out.namedAttrs) {
      if (auto err = in.attr(named.name))
        return err;
      if (auto err = in.attr(named.value))
        return err;
    }
    break;
  }
  case AttrKind::String:
  case AttrKind::StringWithType:
    if (auto err = in.string(out.str, file.strings()))
      return err;
    if (out.kind == AttrKind::StringWithType)
      if (auto err = in.type(out.typeIndex))
        return err;
    break;
  case AttrKind::FlatSymbolRef:
    if (auto err = in.attr(out.nameAttr))
      return err;
    break;
  case AttrKind::SymbolRef:
    if (auto err = in.attr(out.nameAttr))
      return err;
    if (auto err = in.attrList(out.elements))
      return err;
    break;
  case AttrKind::Type:
    if (auto err = in.type(out.typeIndex))
      return err;
    break;
  case AttrKind::Unit:
  case AttrKind::UnknownLoc:
    break;
  case AttrKind::Integer:
  case AttrKind::Float: {
    uint64_t typeOffset = cur.offset(), width;
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = valueWidthOf(file, out.typeIndex,
                                out.kind == AttrKind::Float, typeOffset, width))
      return err;
    if (auto err = readKnownWidthInt(cur, width, out.bits))
      return err;
    // One value, one spelling: floats keep the bits of their width,
    // integers wider than a byte are sign-extended from theirs.
    if (out.bits && width < 64) {
      if (out.kind == AttrKind::Float)
        *out.bits &= (uint64_t(1) << width) - 1;
      else if (width > 8)
        *out.bits = uint64_t(llvm::SignExtend64(*out.bits, unsigned(width)));
    }
    break;
  }
  case AttrKind::CallSiteLoc:
    if (auto err = in.attr(out.childLoc))
      return err;
    if (auto err = in.attr(out.callerLoc))
      return err;
    break;
  case AttrKind::FileLineColLoc:
    if (auto err = in.attr(out.nameAttr))
      return err;
    if (auto err = cur.readVarInt(out.line))
      return err;
    if (auto err = cur.readVarInt(out.column))
      return err;
    break;
  case AttrKind::FileLineColRange: {
    if (auto err = in.attr(out.nameAttr))
      return err;
    uint64_t countOffset = cur.offset(), count;
    if (auto err = cur.readCount(count, "line/column"))
      return err;
    // MLIR builds no range from more than 4 values.
    if (count > 4)
      return errorAt(countOffset, llvm::Twine(count) +
                                      " line/column values in a "
                                      "FileLineColRange (at most 4)");
    out.elements.resize(count);
    for (uint64_t &value : out.elements)
      if (auto err = cur.readVarInt(value))
        return err;
    break;
  }
  case AttrKind::FusedLoc:
  case AttrKind::FusedLocWithMetadata:
    if (auto err = in.attrList(out.elements))
      return err;
    if (out.kind == AttrKind::FusedLocWithMetadata)
      if (auto err = in.attr(out.metadata))
        return err;
    break;
  case AttrKind::NameLoc:
    if (auto err = in.attr(out.nameAttr))
      return err;
    if (auto err = in.attr(out.childLoc))
      return err;
    break;
  case AttrKind::DenseResourceElements:
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = cur.readIndex(out.resourceHandle,
                                 file.dialectResourceHandles().size(),
                                 "dialect resource handle"))
      return err;
    break;
  case AttrKind::DenseArray:
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = cur.readVarInt(out.denseArraySize))
      return err;
    if (auto err = in.blob(out.payload))
      return err;
    break;
  case AttrKind::DenseIntOrFPElements:
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = in.blob(out.payload))
      return err;
    break;
  case AttrKind::DenseStringElements: {
    uint64_t typeOffset = cur.offset();
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err =
            readDenseStrings(file, cur, index, out.typeIndex, typeOffset))
      return err;
    break;
  }
  case AttrKind::SparseElements:
    out.elements.resize(2);
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = in.attr(out.elements[0]))
      return err;
    if (auto err = in.attr(out.elements[1]))
      return err;
    break;
  case AttrKind::Distinct:
    if (auto err = in.attr(out.metadata))
      return err;
    break;
  default:
    break;
  }
  if (!cur.empty())
    return cur.error("unexpected trailing bytes in builtin " +
                     attrKindName(out.kind) + " attribute entry " +
                     llvm::Twine(index));
  return Error::success();
}

void appendAttrReferences(const BytecodeFile &file, const DecodedAttr &attr,
                          std::vector<uint64_t> &refs) {
  if (attr.kind != AttrKind::FileLineColRange) // raw numbers there
    refs.insert(refs.end(), attr.elements.begin(), attr.elements.end());
  for (const NamedAttrRef &named : attr.namedAttrs) {
    refs.push_back(named.name);
    refs.push_back(named.value);
  }
  for (uint64_t ref :
       {attr.nameAttr, attr.childLoc, attr.callerLoc, attr.metadata})
    if (ref != kNone)
      refs.push_back(ref);
  if (attr.typeIndex != kNone)
    refs.push_back(file.attributes().size() + attr.typeIndex);
}

} // namespace aimodel::bytecode

/// Kinds first: checking an entry's references needs the kinds of entries
/// that come after it in the table.
Error Decoder::classifyAttributes() {
  file.attrKinds_.resize(file.attributes_.size());
  for (uint64_t i = 0; i < file.attributes_.size(); ++i) {
    const AttrTypeEntry &entry = file.attributes_[i];
    AttrKind &kind = file.attrKinds_[i];
    if (!entry.hasCustomEncoding) {
      kind = AttrKind::Asm;
      continue;
    }
    if (entry.dialect != builtinDialect) {
      kind = AttrKind::DialectOpaque;
      continue;
    }
    ByteCursor cur = cursor(entry.encoding);
    uint64_t code;
    if (auto err = cur.readVarInt(code))
      return err;
    // MLIR 22's builtin reader has no decoding for other codes.
    if (code > uint64_t(AttrKind::FileLineColRange))
      return errorAt(entry.encoding.offset,
                     "unknown builtin attribute code " + llvm::Twine(code) +
                         " in attribute entry " + llvm::Twine(i));
    kind = AttrKind(code);
  }
  return Error::success();
}

Error Decoder::decodeBuiltinAttributes() {
  // One scratch entry whose vectors keep their capacity across entries.
  DecodedAttr scratch;
  attrRefs.clear();
  attrRefsBegin.assign(file.attributes_.size() + 1, 0);
  for (uint64_t i = 0; i < file.attributes_.size(); ++i) {
    attrRefsBegin[i] = attrRefs.size();
    const AttrTypeEntry &entry = file.attributes_[i];
    if (!entry.hasCustomEncoding || entry.dialect != builtinDialect)
      continue;
    std::vector<uint64_t> elements = std::move(scratch.elements);
    std::vector<NamedAttrRef> namedAttrs = std::move(scratch.namedAttrs);
    elements.clear();
    namedAttrs.clear();
    scratch = DecodedAttr();
    scratch.elements = std::move(elements);
    scratch.namedAttrs = std::move(namedAttrs);
    if (auto err = decodeBuiltinAttrEntry(file, i, scratch))
      return err;
    if (auto err = checkBuiltinAttribute(file, i, scratch))
      return err;
    appendAttrReferences(file, scratch, attrRefs);
  }
  attrRefsBegin.back() = attrRefs.size();
  return Error::success();
}

DecodedAttr BytecodeFile::decodedAttr(uint64_t index) const {
  DecodedAttr attr;
  attr.kind = attrKind(index);
  switch (attr.kind) {
  case AttrKind::Asm:
  case AttrKind::DialectOpaque:
  case AttrKind::OtherBuiltin:
    return attr;
  default:
    break;
  }
  // Validated at open, so this cannot fail; stay safe regardless.
  if (auto err = decodeBuiltinAttrEntry(*this, index, attr)) {
    llvm::consumeError(std::move(err));
    DecodedAttr kindOnly;
    kindOnly.kind = attr.kind;
    return kindOnly;
  }
  if (attr.nameAttr != kNone) {
    AttrKind nameKind = attrKind(attr.nameAttr);
    // One level only: a String entry has no nameAttr.
    if (nameKind == AttrKind::String || nameKind == AttrKind::StringWithType)
      attr.str = decodedAttr(attr.nameAttr).str;
  }
  return attr;
}

bool BytecodeFile::isLocation(uint64_t index) const {
  switch (attrKind(index)) {
  case AttrKind::CallSiteLoc:
  case AttrKind::FileLineColLoc:
  case AttrKind::FileLineColRange:
  case AttrKind::FusedLoc:
  case AttrKind::FusedLocWithMetadata:
  case AttrKind::NameLoc:
  case AttrKind::UnknownLoc:
    return true;
  default:
    return false;
  }
}

void BytecodeFile::forEachNestedLocation(
    uint64_t root, const std::function<void(uint64_t)> &fn) const {
  if (root >= attrKinds_.size())
    return;
  // Explicit worklist + visited set: bounded even on adversarial tables.
  llvm::DenseSet<uint64_t> visited;
  std::vector<uint64_t> worklist{root};
  while (!worklist.empty()) {
    uint64_t index = worklist.back();
    worklist.pop_back();
    if (!visited.insert(index).second)
      continue;
    fn(index);
    switch (attrKind(index)) {
    case AttrKind::CallSiteLoc:
    case AttrKind::NameLoc:
    case AttrKind::FusedLoc:
    case AttrKind::FusedLocWithMetadata:
      break;
    default:
      continue; // A leaf: nothing to decode.
    }
    DecodedAttr attr = decodedAttr(index);
    switch (attr.kind) {
    case AttrKind::CallSiteLoc:
      worklist.push_back(attr.callerLoc);
      worklist.push_back(attr.childLoc);
      break;
    case AttrKind::NameLoc:
      worklist.push_back(attr.childLoc);
      break;
    case AttrKind::FusedLoc:
    case AttrKind::FusedLocWithMetadata:
      // Reverse so that children are visited in order.
      worklist.insert(worklist.end(), attr.elements.rbegin(),
                      attr.elements.rend());
      break;
    default:
      break;
    }
  }
}
