//===- StructuralHash.cpp - Attribute and type identity across files ------===//

#include "bytecode/StructuralHash.h"
#include "bytecode/BytecodeStream.h"

#include "llvm/Support/xxhash.h"

using namespace aimodel::bytecode;

namespace {

/// Domain tags: attributes, types, textual and private entries never mix.
enum Tag : uint64_t {
  kAttrTag = 0x4174747200000000, // "Attr" + kind
  kTypeTag = 0x5479706500000000, // "Type" + code
  kAsmAttrTag = 0x41736d4174747200,
  kAsmTypeTag = 0x41736d5479706500,
  kOpaqueAttrTag = 0x4f70714174747200,
  kOpaqueTypeTag = 0x4f70715479706500,
};

/// A little-endian serialisation, hashed once complete.
class Builder {
public:
  Builder &u64(uint64_t value) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(uint8_t(value >> (8 * i)));
    return *this;
  }
  Builder &text(llvm::StringRef str) {
    u64(str.size());
    bytes.append(str.bytes_begin(), str.bytes_end());
    return *this;
  }
  /// Large byte ranges (dense payloads) go in as their own hash.
  Builder &blob(llvm::StringRef data) {
    u64(data.size());
    return u64(llvm::xxh3_64bits(data));
  }
  uint64_t finish() const { return llvm::xxh3_64bits(bytes); }

private:
  llvm::SmallVector<uint8_t, 128> bytes;
};

} // namespace

StructuralHasher::StructuralHasher(const BytecodeFile &file)
    : file(file), attrHashes(file.attributes().size()),
      typeHashes(file.types().size()), attrDone(file.attributes().size()),
      typeDone(file.types().size()) {}

uint64_t StructuralHasher::attribute(uint64_t index) {
  if (index >= attrHashes.size())
    return 0;
  if (attrDone[index])
    return attrHashes[index];
  // open() bounds reference chains; stay bounded for any input regardless.
  if (depth > kMaxEntryDepth)
    return file.attrContentHash(index);
  ++depth;
  uint64_t hash = computeAttribute(index);
  --depth;
  attrDone.set(index);
  return attrHashes[index] = hash;
}

uint64_t StructuralHasher::type(uint64_t index) {
  if (index >= typeHashes.size())
    return 0;
  if (typeDone[index])
    return typeHashes[index];
  if (depth > kMaxEntryDepth)
    return file.typeContentHash(index);
  ++depth;
  uint64_t hash = computeType(index);
  --depth;
  typeDone.set(index);
  return typeHashes[index] = hash;
}

/// The bytes of an entry after its code and `skipVarInts` more varints.
static llvm::StringRef bytesAfter(const BytecodeFile &file, Span encoding,
                                  unsigned skipVarInts) {
  ByteCursor cur(file, encoding);
  for (unsigned i = 0; i <= skipVarInts; ++i) {
    uint64_t ignored;
    if (auto err = cur.readVarInt(ignored)) {
      llvm::consumeError(std::move(err));
      return {};
    }
  }
  return file.bytesOf(Span{cur.offset(), cur.remaining()});
}

uint64_t StructuralHasher::computeAttribute(uint64_t index) {
  const AttrTypeEntry &entry = file.attributes()[index];
  AttrKind kind = file.attrKind(index);
  Builder out;
  if (kind == AttrKind::Asm)
    return out.u64(kAsmAttrTag)
        .text(file.attrDialectName(index))
        .text(file.attrAsmText(index))
        .finish();
  if (kind == AttrKind::DialectOpaque || kind == AttrKind::OtherBuiltin)
    return out.u64(kOpaqueAttrTag)
        .text(file.attrDialectName(index))
        .blob(file.bytesOf(entry.encoding))
        .finish();

  DecodedAttr attr = file.decodedAttr(index);
  // Normalise the two encodings MLIR has for one attribute.
  if (kind == AttrKind::SymbolRef && attr.elements.empty())
    kind = AttrKind::FlatSymbolRef;
  if (kind == AttrKind::FileLineColRange && attr.elements.size() == 2) {
    kind = AttrKind::FileLineColLoc;
    attr.line = attr.elements[0];
    attr.column = attr.elements[1];
  }
  out.u64(kAttrTag | uint64_t(kind));
  auto attrs = [&](llvm::ArrayRef<uint64_t> list) {
    out.u64(list.size());
    for (uint64_t element : list)
      out.u64(attribute(element));
  };
  switch (kind) {
  case AttrKind::Array:
  case AttrKind::FusedLoc:
    attrs(attr.elements);
    break;
  case AttrKind::FusedLocWithMetadata:
    attrs(attr.elements);
    out.u64(attribute(attr.metadata));
    break;
  case AttrKind::Dictionary:
    out.u64(attr.namedAttrs.size());
    for (const NamedAttrRef &named : attr.namedAttrs)
      out.u64(attribute(named.name)).u64(attribute(named.value));
    break;
  case AttrKind::String:
    out.text(attr.str);
    break;
  case AttrKind::StringWithType:
    out.text(attr.str).u64(type(attr.typeIndex));
    break;
  case AttrKind::FlatSymbolRef:
    out.u64(attribute(attr.nameAttr));
    break;
  case AttrKind::SymbolRef:
    out.u64(attribute(attr.nameAttr));
    attrs(attr.elements);
    break;
  case AttrKind::Type:
    out.u64(type(attr.typeIndex));
    break;
  case AttrKind::Integer:
  case AttrKind::Float:
    out.u64(type(attr.typeIndex));
    // Values wider than 64 bits are not kept decoded: their words as
    // written (MLIR writes only the active words, so one spelling).
    if (attr.bits)
      out.u64(*attr.bits);
    else
      out.blob(bytesAfter(file, entry.encoding, 1));
    break;
  case AttrKind::CallSiteLoc:
    out.u64(attribute(attr.childLoc)).u64(attribute(attr.callerLoc));
    break;
  case AttrKind::FileLineColLoc:
    out.u64(attribute(attr.nameAttr)).u64(attr.line).u64(attr.column);
    break;
  case AttrKind::FileLineColRange:
    out.u64(attribute(attr.nameAttr)).u64(attr.elements.size());
    for (uint64_t value : attr.elements)
      out.u64(value);
    break;
  case AttrKind::NameLoc:
    out.u64(attribute(attr.nameAttr)).u64(attribute(attr.childLoc));
    break;
  case AttrKind::DenseResourceElements: {
    out.u64(type(attr.typeIndex));
    auto [group, resource] = file.dialectResourceHandles()[attr.resourceHandle];
    const ResourceGroup &owner = file.resourceGroups()[group];
    out.text(owner.name).text(owner.entries[resource].key);
    break;
  }
  case AttrKind::DenseArray:
    out.u64(type(attr.typeIndex)).u64(attr.denseArraySize);
    out.blob(file.bytesOf(attr.payload));
    break;
  case AttrKind::DenseIntOrFPElements:
    out.u64(type(attr.typeIndex)).blob(file.bytesOf(attr.payload));
    break;
  case AttrKind::DenseStringElements: {
    out.u64(type(attr.typeIndex));
    // After the code and type: the splat flag, then string indices.
    ByteCursor cur(file, entry.encoding);
    uint64_t value = 0;
    for (int i = 0; i < 3 && !cur.empty(); ++i)
      llvm::consumeError(cur.readVarInt(value));
    out.u64(value);
    while (!cur.empty()) {
      if (auto err = cur.readIndex(value, file.strings().size(), "string")) {
        llvm::consumeError(std::move(err));
        break;
      }
      out.text(file.strings()[value]);
    }
    break;
  }
  case AttrKind::SparseElements:
    out.u64(type(attr.typeIndex));
    attrs(attr.elements);
    break;
  case AttrKind::Distinct:
    out.u64(attribute(attr.metadata));
    break;
  default: // Unit, UnknownLoc
    break;
  }
  return out.finish();
}

uint64_t StructuralHasher::computeType(uint64_t index) {
  const AttrTypeEntry &entry = file.types()[index];
  llvm::StringRef dialect = file.dialects()[entry.dialect].name;
  Builder out;
  if (!entry.hasCustomEncoding)
    return out.u64(kAsmTypeTag)
        .text(dialect)
        .text(file.typeAsmText(index))
        .finish();
  TypeCode code = file.typeCode(index);
  if (code == TypeCode::NotBuiltin || code == TypeCode::OtherBuiltin)
    return out.u64(kOpaqueTypeTag)
        .text(dialect)
        .blob(file.bytesOf(entry.encoding))
        .finish();

  // Builtin: the fields in the entry's order, references by their hash.
  // Validated at open, so reads cannot fail; on a failure the hash is of
  // what was read, still deterministic.
  ByteCursor cur(file, entry.encoding);
  uint64_t numAttrs = file.attributes().size(), numTypes = file.types().size();
  bool ok = true;
  auto varint = [&]() {
    uint64_t value = 0;
    if (auto err = cur.readVarInt(value)) {
      llvm::consumeError(std::move(err));
      ok = false;
    }
    return value;
  };
  auto typeRef = [&]() {
    uint64_t value = varint();
    out.u64(ok && value < numTypes ? type(value) : 0);
  };
  auto attrRef = [&]() {
    uint64_t value = varint();
    out.u64(ok && value < numAttrs ? attribute(value) : 0);
  };
  auto typeList = [&]() {
    uint64_t count = varint();
    out.u64(count);
    for (uint64_t i = 0; ok && i < count; ++i)
      typeRef();
  };
  auto shape = [&]() { // zigzag dims: equal values, equal varints
    uint64_t rank = varint();
    out.u64(rank);
    for (uint64_t i = 0; ok && i < rank; ++i)
      out.u64(varint());
  };
  out.u64(kTypeTag | varint());
  switch (code) {
  case TypeCode::Integer:
    out.u64(varint()); // width << 2 | signedness
    break;
  case TypeCode::Function:
    typeList();
    typeList();
    break;
  case TypeCode::Tuple:
    typeList();
    break;
  case TypeCode::Complex:
  case TypeCode::UnrankedMemRef:
  case TypeCode::UnrankedTensor:
    typeRef();
    break;
  case TypeCode::UnrankedMemRefWithMemSpace:
    attrRef();
    typeRef();
    break;
  case TypeCode::MemRefWithMemSpace:
    attrRef();
    [[fallthrough]];
  case TypeCode::MemRef:
    shape();
    typeRef();
    attrRef(); // layout
    break;
  case TypeCode::RankedTensorWithEncoding:
    attrRef();
    [[fallthrough]];
  case TypeCode::RankedTensor:
    shape();
    typeRef();
    break;
  case TypeCode::VectorWithScalableDims: {
    uint64_t flags = varint();
    out.u64(flags);
    for (uint64_t i = 0; ok && i < flags; ++i) {
      uint8_t flag = 0;
      if (auto err = cur.readByte(flag)) {
        llvm::consumeError(std::move(err));
        ok = false;
      }
      out.u64(flag != 0);
    }
    shape();
    typeRef();
    break;
  }
  case TypeCode::Vector:
    shape();
    typeRef();
    break;
  default: // Index, None, the float types: the code says it all.
    break;
  }
  return out.finish();
}
