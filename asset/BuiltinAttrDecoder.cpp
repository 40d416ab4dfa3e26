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

#include "asset/BytecodeDecoder.h"

#include "llvm/ADT/DenseSet.h"

using namespace aimodel::bytecode;
using llvm::Error;

namespace {

/// Builtin type codes this file needs (BuiltinDialectTypes in the .td).
enum BuiltinTypeCode : uint64_t {
  kIntegerType = 0,
  kIndexType = 1,
  kBFloat16Type = 3,
  kFloat16Type = 4,
  kFloat32Type = 5,
  kFloat64Type = 6,
};

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
  Error attr(uint64_t &index) { return cur.readIndex(index, numAttrs, "attribute"); }
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

/// For lookups whose failure just means "unknown": drops the error.
static bool failedQuietly(Error err) {
  if (!err)
    return false;
  llvm::consumeError(std::move(err));
  return true;
}

/// Bit width of an integer-like or float type for the APInt/APFloat value
/// encodings, when the type is a builtin type this decoder understands.
static std::optional<unsigned> valueWidthOf(const BytecodeFile &file,
                                            uint64_t typeIndex, bool isFloat) {
  std::optional<uint64_t> code = file.builtinTypeCode(typeIndex);
  if (!code)
    return std::nullopt;
  if (!isFloat) {
    if (*code == kIndexType)
      return 64; // IndexType's internal storage width.
    if (*code != kIntegerType)
      return std::nullopt;
    const AttrTypeEntry &entry = file.types()[typeIndex];
    ByteCursor cur(reinterpret_cast<const uint8_t *>(file.bytes().data()),
                   entry.encoding);
    uint64_t ignoredCode, widthAndSignedness;
    if (failedQuietly(cur.readVarInt(ignoredCode)) ||
        failedQuietly(cur.readVarInt(widthAndSignedness)))
      return std::nullopt;
    return unsigned(std::min<uint64_t>(widthAndSignedness >> 2, 1u << 24));
  }
  switch (*code) {
  case kBFloat16Type:
  case kFloat16Type:
    return 16;
  case kFloat32Type:
    return 32;
  case kFloat64Type:
    return 64;
  default:
    return std::nullopt;
  }
}

std::optional<uint64_t> BytecodeFile::builtinTypeCode(uint64_t typeIndex) const {
  if (typeIndex >= types_.size())
    return std::nullopt;
  const AttrTypeEntry &entry = types_[typeIndex];
  if (!entry.hasCustomEncoding || dialects_[entry.dialect].name != "builtin")
    return std::nullopt;
  ByteCursor cur(reinterpret_cast<const uint8_t *>(bytes().data()),
                 entry.encoding);
  uint64_t code;
  if (failedQuietly(cur.readVarInt(code)))
    return std::nullopt;
  return code;
}

/// Reads an APInt of a known width: one byte up to 8 bits, a signed varint up
/// to 64 bits. Wider values are left undecoded (`bits` stays empty).
static Error readKnownWidthInt(ByteCursor &cur, unsigned width,
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
  return Error::success();
}

/// Decodes builtin custom-encoded entry `index` into `out` (whose vectors
/// must be empty and scalars default), or fails with "byte N: ...". `str`
/// of entries that name a StringAttr is resolved by the caller.
static Error decodeBuiltinEntry(const BytecodeFile &file, uint64_t index,
                                DecodedAttr &out) {
  const AttrTypeEntry &entry = file.attributes()[index];
  EntryReader in{
      ByteCursor(reinterpret_cast<const uint8_t *>(file.bytes().data()),
                 entry.encoding),
      file.attributes().size(), file.types().size()};
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
    if (auto err = in.type(out.typeIndex))
      return err;
    std::optional<unsigned> width =
        valueWidthOf(file, out.typeIndex, out.kind == AttrKind::Float);
    if (!width || *width > 64) {
      partial = true;
      break;
    }
    if (auto err = readKnownWidthInt(cur, *width, out.bits))
      return err;
    if (out.kind == AttrKind::Float && *width < 64)
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
  case AttrKind::DenseStringElements:
    if (auto err = in.type(out.typeIndex))
      return err;
    partial = true;
    break;
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
