//===- BuiltinAttrDecoder.cpp - Decode builtin attribute entries ----------===//
//
// Decodes custom-encoded entries of the `builtin` dialect following the
// MLIR 22 codes (mlir/IR/BuiltinDialectBytecode.td). Entries refer to other
// entries only by index, so each entry is decoded on its own from its bytes:
// no recursion, no cycles to guard against. Entries of other dialects and
// textual entries are classified but left undecoded.
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
/// type `typeIndex`: nullopt when MLIR knows the type but this decoder does
/// not (a textual float type such as f8E4M3FN); an error for a type MLIR's
/// builtin reader cannot use (IntegerAttr's width lookup has no failure path
/// for a type that is not an integer or index).
static Error valueWidthOf(const BytecodeFile &file, uint64_t typeIndex,
                          bool isFloat, uint64_t typeOffset,
                          std::optional<uint64_t> &width) {
  width.reset();
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
  switch (code) {
  case TypeCode::Integer:
  case TypeCode::Index:
  case TypeCode::OtherBuiltin:
    break;
  case TypeCode::NotBuiltin:
    // The float types stored as text are validated too: MLIR's FloatAttr
    // reader ignores a failed value read.
    width = file.intOrFloatBitWidth(typeIndex);
    return Error::success();
  default:
    if ((width = file.intOrFloatBitWidth(typeIndex)))
      return Error::success();
    break;
  }
  if (code == TypeCode::OtherBuiltin)
    return Error::success();
  return errorAt(typeOffset, "type of a Float attribute is not a float type");
}

/// Reads an APInt of a known width: one byte up to 8 bits, a signed varint up
/// to 64 bits, else a count of 64-bit words and the words as signed varints
/// (validated, not kept: `bits` stays empty).
static Error readKnownWidthInt(ByteCursor &cur, uint64_t width,
                               std::optional<uint64_t> &bits) {
  if (width <= 8) {
    uint8_t byte;
    if (auto err = cur.readByte(byte))
      return err;
    bits = byte;
    return Error::success();
  }
  if (width <= 64) {
    int64_t value;
    if (auto err = cur.readSignedVarInt(value))
      return err;
    bits = uint64_t(value);
    return Error::success();
  }
  uint64_t numWords;
  if (auto err = cur.readCount(numWords, "APInt word"))
    return err;
  for (uint64_t i = 0; i < numWords; ++i) {
    int64_t ignored;
    if (auto err = cur.readSignedVarInt(ignored))
      return err;
  }
  return Error::success();
}

/// Checks a DenseIntOrFPElements payload against its type the way
/// DenseElementsAttr::isValidRawBuffer does, when the type is a builtin
/// shaped type whose element storage width is known.
static Error checkDensePayload(const BytecodeFile &file,
                               const DecodedAttr &attr, uint64_t typeOffset) {
  TypeCode code = file.typeCode(attr.typeIndex);
  if (code == TypeCode::NotBuiltin || code == TypeCode::OtherBuiltin)
    return Error::success();
  std::optional<BuiltinTypeInfo> type = file.builtinType(attr.typeIndex);
  if (!type || !type->ranked)
    return errorAt(typeOffset, "type of a DenseIntOrFPElements attribute is "
                               "not a ranked shaped type");
  if (!type->numElements)
    return errorAt(typeOffset, "type of a DenseIntOrFPElements attribute has "
                               "a dynamic shape");
  std::optional<uint64_t> width = file.denseElementBitWidth(type->elementType);
  if (!width)
    return Error::success();
  uint64_t count = *type->numElements, size = attr.payload.size;
  bool valid;
  if (*width == 1) {
    uint8_t first = size == 1 ? uint8_t(file.bytes()[attr.payload.offset]) : 1;
    valid = first == 0 || first == 0xFF || size == llvm::divideCeil(count, 8);
  } else if (*width == 0) {
    valid = size == 0;
  } else {
    // A single element is a splat of any shape.
    uint64_t bits = size * 8;
    valid = bits == *width || (bits % *width == 0 && bits / *width == count);
  }
  if (!valid)
    return errorAt(attr.payload.offset,
                   "dense payload of " + llvm::Twine(size) +
                       " bytes does not match " + llvm::Twine(count) +
                       " elements of " + llvm::Twine(*width) + " bits");
  return Error::success();
}

/// Checks a DenseArray payload: `denseArraySize` elements of a builtin
/// integer or float type (one byte per i1).
static Error checkDenseArray(const BytecodeFile &file, const DecodedAttr &attr,
                             uint64_t typeOffset) {
  TypeCode code = file.typeCode(attr.typeIndex);
  std::optional<uint64_t> bytes = file.denseArrayElementBytes(attr.typeIndex);
  if (!bytes &&
      (code == TypeCode::NotBuiltin || code == TypeCode::OtherBuiltin))
    return Error::success();
  if (!bytes)
    return errorAt(typeOffset, "element type of a DenseArray attribute is not "
                               "an integer or float type");
  uint64_t size = attr.payload.size, count = attr.denseArraySize;
  if (*bytes == 0 ? size != 0 : (size % *bytes || size / *bytes != count))
    return errorAt(attr.payload.offset,
                   "dense array payload of " + llvm::Twine(size) +
                       " bytes does not match " + llvm::Twine(count) +
                       " elements of " + llvm::Twine(*bytes) + " bytes");
  return Error::success();
}

/// DenseStringElements: a splat flag then one string per element (or one).
/// MLIR sizes its string list from the type, so a bogus shape must not get
/// that far.
static Error checkDenseStrings(const BytecodeFile &file, ByteCursor &cur,
                               uint64_t typeIndex, uint64_t typeOffset,
                               bool &partial) {
  std::optional<BuiltinTypeInfo> type = file.builtinType(typeIndex);
  if (!type || type->code == TypeCode::OtherBuiltin) {
    partial = true; // Not a type this decoder knows.
    return Error::success();
  }
  if (!type->numElements)
    return errorAt(typeOffset, "type of a DenseStringElements attribute is not "
                               "a static shaped type");
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

/// Decodes builtin custom-encoded entry `index` into `out` (whose vectors
/// must be empty and scalars default), or fails with "byte N: ...". `str`
/// of entries that name a StringAttr is resolved by the caller.
static Error decodeBuiltinEntry(const BytecodeFile &file, uint64_t index,
                                DecodedAttr &out) {
  const AttrTypeEntry &entry = file.attributes()[index];
  EntryReader in{ByteCursor(file, entry.encoding), file.attributes().size(),
                 file.types().size()};
  ByteCursor &cur = in.cur;
  uint64_t code;
  if (auto err = cur.readVarInt(code))
    return err;
  if (code > uint64_t(AttrKind::FileLineColRange)) {
    out.kind = AttrKind::OtherBuiltin;
    return Error::success();
  }
  out.kind = AttrKind(code);
  // Set when the tail of the entry is deliberately left undecoded.
  bool partial = false;
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
    uint64_t typeOffset = cur.offset();
    if (auto err = in.type(out.typeIndex))
      return err;
    std::optional<uint64_t> width;
    if (auto err = valueWidthOf(file, out.typeIndex,
                                out.kind == AttrKind::Float, typeOffset, width))
      return err;
    if (!width) {
      partial = true;
      break;
    }
    if (auto err = readKnownWidthInt(cur, *width, out.bits))
      return err;
    if (out.bits && out.kind == AttrKind::Float && *width < 64)
      *out.bits &= (uint64_t(1) << *width) - 1;
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
    uint64_t count;
    if (auto err = cur.readCount(count, "line/column"))
      return err;
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
  case AttrKind::DenseArray: {
    uint64_t typeOffset = cur.offset();
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = cur.readVarInt(out.denseArraySize))
      return err;
    if (auto err = in.blob(out.payload))
      return err;
    if (auto err = checkDenseArray(file, out, typeOffset))
      return err;
    break;
  }
  case AttrKind::DenseIntOrFPElements: {
    uint64_t typeOffset = cur.offset();
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err = in.blob(out.payload))
      return err;
    if (auto err = checkDensePayload(file, out, typeOffset))
      return err;
    break;
  }
  case AttrKind::DenseStringElements: {
    uint64_t typeOffset = cur.offset();
    if (auto err = in.type(out.typeIndex))
      return err;
    if (auto err =
            checkDenseStrings(file, cur, out.typeIndex, typeOffset, partial))
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
  if (!partial && !cur.empty())
    return cur.error("unexpected trailing bytes in builtin " +
                     attrKindName(out.kind) + " attribute entry " +
                     llvm::Twine(index));
  return Error::success();
}

Error Decoder::decodeBuiltinAttributes() {
  file.attrKinds_.resize(file.attributes_.size());
  // One scratch entry whose vectors keep their capacity across entries.
  DecodedAttr scratch;
  for (uint64_t i = 0; i < file.attributes_.size(); ++i) {
    const AttrTypeEntry &entry = file.attributes_[i];
    AttrKind &kind = file.attrKinds_[i];
    if (!entry.hasCustomEncoding) {
      kind = AttrKind::Asm;
    } else if (entry.dialect != builtinDialect) {
      kind = AttrKind::DialectOpaque;
    } else {
      std::vector<uint64_t> elements = std::move(scratch.elements);
      std::vector<NamedAttrRef> namedAttrs = std::move(scratch.namedAttrs);
      elements.clear();
      namedAttrs.clear();
      scratch = DecodedAttr();
      scratch.elements = std::move(elements);
      scratch.namedAttrs = std::move(namedAttrs);
      if (auto err = decodeBuiltinEntry(file, i, scratch))
        return err;
      kind = scratch.kind;
    }
  }
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
  if (auto err = decodeBuiltinEntry(*this, index, attr)) {
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
