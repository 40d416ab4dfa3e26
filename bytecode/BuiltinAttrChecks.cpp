//===- BuiltinAttrChecks.cpp - What a builtin entry's referents must be ---===//
//
// An entry can be well formed on its own yet unusable: MLIR's builtin reader
// reads a NameLoc's child as a LocationAttr and a dictionary's names as
// StringAttrs, and the importer refuses payloads and values that do not fit
// their types (MLIR itself would trust them). These checks mirror those
// demands, so open() refuses exactly what the import would. They run once
// per entry at open and look at the kinds and types of the referents, which
// are kept (one byte each) or decoded again from their bytes. The same goes
// for what ops name: locations, and builtin.module's properties.
//
// Errors name the offset of the entry being checked.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeDecoder.h"

#include "llvm/Support/Endian.h"

using namespace aimodel::bytecode;
using llvm::Error;

bool aimodel::bytecode::isStringKind(AttrKind kind) {
  return kind == AttrKind::String || kind == AttrKind::StringWithType;
}

namespace {

/// The entry under check, for uniform error messages.
struct Checked {
  const BytecodeFile &file;
  uint64_t index;
  const DecodedAttr &attr;

  Error error(const llvm::Twine &what) const {
    return errorAt(file.attributes()[index].encoding.offset,
                   attrKindName(attr.kind) + " attribute " +
                       llvm::Twine(index) + ": " + what);
  }
  Error requireString(uint64_t ref, const char *role) const {
    if (isStringKind(file.attrKind(ref)))
      return Error::success();
    return error(llvm::Twine(role) + " (attribute " + llvm::Twine(ref) +
                 ") is not a string attribute");
  }
  Error requireLocation(uint64_t ref, const char *role) const {
    if (file.isLocation(ref))
      return Error::success();
    return error(llvm::Twine(role) + " (attribute " + llvm::Twine(ref) +
                 ") is not a location attribute");
  }
  /// The builtin shaped type of a dense or sparse attribute, static and of
  /// a bounded element count (the importer's staticElementCount).
  Error boundedShape(uint64_t typeIndex, std::optional<BuiltinTypeInfo> &type,
                     const char *what) const {
    type = file.builtinType(typeIndex);
    if (!type || !type->ranked)
      return error(llvm::Twine("type of ") + what +
                   " is not a ranked shaped type");
    if (!type->boundedCount)
      return error(llvm::Twine("type of ") + what +
                   " has a dynamic shape or more than 2^48 elements");
    return Error::success();
  }
};

bool isShapedCode(TypeCode code) {
  switch (code) {
  case TypeCode::MemRef:
  case TypeCode::MemRefWithMemSpace:
  case TypeCode::RankedTensor:
  case TypeCode::RankedTensorWithEncoding:
  case TypeCode::UnrankedMemRef:
  case TypeCode::UnrankedMemRefWithMemSpace:
  case TypeCode::UnrankedTensor:
  case TypeCode::Vector:
  case TypeCode::VectorWithScalableDims:
    return true;
  default:
    return false;
  }
}

/// DenseIntOrFPElements: DenseElementsAttr::isValidRawBuffer over a static
/// shape of integers, index, floats or complex numbers of those.
Error checkDensePayload(const Checked &c) {
  std::optional<BuiltinTypeInfo> type;
  if (auto err = c.boundedShape(c.attr.typeIndex, type, "the elements"))
    return err;
  std::optional<uint64_t> width =
      c.file.denseElementBitWidth(type->elementType);
  if (!width)
    return c.error("element type is not an integer, index, float or complex "
                   "type");
  uint64_t count = *type->numElements, size = c.attr.payload.size;
  bool valid;
  if (*width == 1) {
    uint8_t first =
        size == 1 ? uint8_t(c.file.bytes()[c.attr.payload.offset]) : 1;
    valid = first == 0 || first == 0xFF || size == llvm::divideCeil(count, 8);
  } else if (*width == 0) {
    valid = size == 0;
  } else {
    // A single element is a splat of any shape.
    uint64_t bits = size * 8;
    valid = bits == *width || (bits % *width == 0 && bits / *width == count);
  }
  if (!valid)
    return errorAt(c.attr.payload.offset,
                   "dense payload of " + llvm::Twine(size) +
                       " bytes does not match " + llvm::Twine(count) +
                       " elements of " + llvm::Twine(*width) + " bits");
  return Error::success();
}

/// DenseArray: `denseArraySize` elements of a builtin integer or float type
/// (one byte per i1), as DenseArrayAttr::verify demands.
Error checkDenseArray(const Checked &c) {
  std::optional<uint64_t> bytes =
      c.file.denseArrayElementBytes(c.attr.typeIndex);
  if (!bytes)
    return c.error("element type is not an integer or float type");
  uint64_t size = c.attr.payload.size, count = c.attr.denseArraySize;
  if (count > kMaxElementCount)
    return c.error(llvm::Twine(count) + " elements, more than 2^48");
  if (*bytes == 0 ? size != 0 : (size % *bytes || size / *bytes != count))
    return errorAt(c.attr.payload.offset,
                   "dense array payload of " + llvm::Twine(size) +
                       " bytes does not match " + llvm::Twine(count) +
                       " elements of " + llvm::Twine(*bytes) + " bytes");
  return Error::success();
}

/// ElementsAttr::isValidIndex.
bool isValidIndex(llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<uint64_t> index) {
  if (shape.empty() && index.size() == 1 && index[0] == 0)
    return true;
  if (shape.size() != index.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (int64_t(index[i]) < 0 || int64_t(index[i]) >= shape[i])
      return false;
  return true;
}

/// SparseElements: what SparseElementsAttr::verify demands (and what it
/// reads: 64-bit indices, within the shape).
Error checkSparse(const Checked &c) {
  const BytecodeFile &file = c.file;
  std::optional<BuiltinTypeInfo> type, indicesType, valuesType;
  if (auto err = c.boundedShape(c.attr.typeIndex, type, "the elements"))
    return err;
  DecodedAttr indices = file.decodedAttr(c.attr.elements[0]);
  DecodedAttr values = file.decodedAttr(c.attr.elements[1]);
  if (indices.kind != AttrKind::DenseIntOrFPElements)
    return c.error("indices are not dense integer elements");
  if (values.kind != AttrKind::DenseIntOrFPElements &&
      values.kind != AttrKind::DenseStringElements)
    return c.error("values are not dense elements");
  indicesType = file.builtinType(indices.typeIndex);
  valuesType = file.builtinType(values.typeIndex);
  if (!indicesType || !valuesType || !indicesType->numElements ||
      !valuesType->numElements)
    return c.error("indices or values do not have a static shape");
  uint64_t element = indicesType->elementType;
  TypeCode elementCode = file.typeCode(element);
  if (elementCode != TypeCode::Index &&
      !(elementCode == TypeCode::Integer &&
        file.builtinType(element)->width == 64))
    return c.error("indices are not 64-bit integers");
  if (valuesType->rank != 1)
    return c.error("values are not one-dimensional");
  uint64_t rank = type->rank, indicesRank = indicesType->rank;
  if (indicesRank == 2 ? uint64_t(indicesType->shape[1]) != rank
                       : indicesRank != 1 || rank != 1)
    return c.error("indices do not match the rank of the type");
  uint64_t numIndices = uint64_t(indicesType->shape[0]);
  if (numIndices != uint64_t(valuesType->shape[0]))
    return c.error("as many indices as values are needed");
  llvm::StringRef raw = file.bytesOf(indices.payload);
  // The indices entry may come later in the table, unchecked yet.
  if (raw.size() != 8 &&
      (raw.size() % 8 || raw.size() / 8 != numIndices * rank))
    return c.error("indices payload does not match their type");
  auto indexAt = [&](uint64_t i) {
    return llvm::support::endian::read64le(raw.data() + 8 * i);
  };
  if (raw.size() == 8) { // A splat: the same value for every dimension.
    llvm::SmallVector<uint64_t, 4> index(rank, indexAt(0));
    if (!isValidIndex(type->shape, index))
      return c.error("sparse index out of the shape");
    return Error::success();
  }
  llvm::SmallVector<uint64_t, 4> index(rank);
  for (uint64_t i = 0; i < numIndices; ++i) {
    for (uint64_t d = 0; d < rank; ++d)
      index[d] = indexAt(i * rank + d);
    if (!isValidIndex(type->shape, index))
      return c.error("sparse index " + llvm::Twine(i) + " out of the shape");
  }
  return Error::success();
}

/// A SymbolRef's nested references are read as FlatSymbolRefAttrs: a
/// FlatSymbolRef entry, or a SymbolRef entry with no nested references.
Error checkNestedSymbol(const Checked &c, uint64_t ref) {
  AttrKind kind = c.file.attrKind(ref);
  if (kind == AttrKind::FlatSymbolRef ||
      (kind == AttrKind::SymbolRef && c.file.decodedAttr(ref).elements.empty()))
    return Error::success();
  return c.error("nested reference (attribute " + llvm::Twine(ref) +
                 ") is not a flat symbol reference");
}

} // namespace

Error aimodel::bytecode::checkBuiltinAttribute(const BytecodeFile &file,
                                               uint64_t index,
                                               const DecodedAttr &attr) {
  Checked c{file, index, attr};
  switch (attr.kind) {
  case AttrKind::Dictionary:
    for (const NamedAttrRef &named : attr.namedAttrs)
      if (auto err = c.requireString(named.name, "member name"))
        return err;
    return Error::success();
  case AttrKind::FlatSymbolRef:
    return c.requireString(attr.nameAttr, "root reference");
  case AttrKind::SymbolRef:
    if (auto err = c.requireString(attr.nameAttr, "root reference"))
      return err;
    for (uint64_t nested : attr.elements)
      if (auto err = checkNestedSymbol(c, nested))
        return err;
    return Error::success();
  case AttrKind::CallSiteLoc:
    if (auto err = c.requireLocation(attr.childLoc, "callee"))
      return err;
    return c.requireLocation(attr.callerLoc, "caller");
  case AttrKind::FileLineColLoc:
  case AttrKind::FileLineColRange:
    return c.requireString(attr.nameAttr, "filename");
  case AttrKind::FusedLoc:
  case AttrKind::FusedLocWithMetadata:
    // The metadata may be any attribute.
    for (uint64_t loc : attr.elements)
      if (auto err = c.requireLocation(loc, "fused location"))
        return err;
    return Error::success();
  case AttrKind::NameLoc:
    if (auto err = c.requireString(attr.nameAttr, "name"))
      return err;
    return c.requireLocation(attr.childLoc, "child location");
  case AttrKind::DenseResourceElements: {
    if (!isShapedCode(file.typeCode(attr.typeIndex)))
      return c.error("type is not a builtin shaped type");
    auto [group, entry] = file.dialectResourceHandles()[attr.resourceHandle];
    llvm::StringRef owner = file.resourceGroups()[group].name;
    if (owner != "builtin")
      return c.error("resource '" +
                     file.resourceGroups()[group].entries[entry].key +
                     "' belongs to dialect '" + owner + "', not builtin");
    return Error::success();
  }
  case AttrKind::DenseArray:
    return checkDenseArray(c);
  case AttrKind::DenseIntOrFPElements:
    return checkDensePayload(c);
  case AttrKind::SparseElements:
    return checkSparse(c);
  default:
    // Integer, Float and DenseStringElements are checked as they are
    // decoded (their value's layout depends on the type); the others
    // accept any referent.
    return Error::success();
  }
}

//===----------------------------------------------------------------------===//
// What ops demand of the entries they name (called by the IR walk)
//===----------------------------------------------------------------------===//

/// What the importer takes as an op or block argument location: a builtin
/// location, or a private dialect's attribute (kept opaque, e.g. Core AI's
/// versioned locations), custom-encoded or textual (`#dialect...`, which is
/// what MLIR's parser makes an OpaqueAttr of; `loc(...)` text parses as a
/// location).
bool aimodel::bytecode::usableAsLocation(const BytecodeFile &file,
                                         uint64_t index) {
  if (file.isLocation(index))
    return true;
  switch (file.attrKind(index)) {
  case AttrKind::DialectOpaque:
    return true;
  case AttrKind::Asm: {
    llvm::StringRef text = file.attrAsmText(index);
    return text.starts_with("#") || text.starts_with("loc(");
  }
  default:
    return false;
  }
}

/// builtin.module is the one op with properties that the importer decodes
/// with MLIR's own code (the only dialect it registers is builtin): two
/// optional attributes, each a StringAttr when present.
Error aimodel::bytecode::checkModuleProperties(const BytecodeFile &file,
                                               const Operation &op) {
  const OpName &name = file.opNames()[op.name];
  if (name.name != "module" || file.dialects()[name.dialect].name != "builtin")
    return Error::success();
  return readModuleProperties(file, op, nullptr);
}

Error aimodel::bytecode::readModuleProperties(const BytecodeFile &file,
                                              const Operation &op,
                                              std::vector<uint64_t> *refs) {
  const OpName &name = file.opNames()[op.name];
  if (name.name != "module" || file.dialects()[name.dialect].name != "builtin")
    return errorAt(op.offset,
                   "properties of " + file.fullOpName(op.name) + " are opaque");
  ByteCursor blob(file, op.propertiesBlob);
  for (const char *property : {"sym_name", "sym_visibility"}) {
    uint64_t index;
    bool present;
    uint64_t offset = blob.offset();
    if (auto err = blob.readVarIntWithFlag(index, present))
      return err;
    if (!present)
      continue;
    if (index >= file.attributes().size())
      return errorAt(offset, "builtin.module property " +
                                 llvm::Twine(property) + ": attribute index " +
                                 llvm::Twine(index) + " out of range");
    if (!isStringKind(file.attrKind(index)))
      return errorAt(offset, "builtin.module property " +
                                 llvm::Twine(property) + " (attribute " +
                                 llvm::Twine(index) +
                                 ") is not a string attribute");
    if (refs)
      refs->push_back(index);
  }
  return Error::success();
}
