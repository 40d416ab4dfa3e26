//===- BuiltinTypeDecoder.cpp - Validate builtin type entries -------------===//
//
// Decodes custom-encoded entries of the `builtin` dialect's types following
// the MLIR 22 codes (mlir/IR/BuiltinDialectBytecode.td). MLIR's own reader
// (used by the importer) trusts these bytes: a corrupt list count makes it
// allocate without bound. So every entry is validated at open, like builtin
// attributes: known codes, list counts against the bytes that remain,
// indices against their tables, shapes (signed dims, INT64_MIN = dynamic, no
// other negative dim, static element count within int64), memref layouts
// that MLIR can read as one, no trailing bytes. Only the code is kept;
// BytecodeFile::builtinType() decodes an entry again on demand.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeDecoder.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace aimodel::bytecode;
using llvm::Error;

namespace {

constexpr int64_t kDynamicDim = std::numeric_limits<int64_t>::min();
/// IntegerType::kMaxWidth.
constexpr uint64_t kMaxIntegerWidth = (uint64_t(1) << 24) - 1;

struct TypeReader {
  ByteCursor cur;
  uint64_t numAttrs, numTypes;
  std::vector<uint64_t> *refs; ///< optional: what the entry refers to
  Error attr(uint64_t &index) {
    if (auto err = cur.readIndex(index, numAttrs, "attribute"))
      return err;
    if (refs)
      refs->push_back(index);
    return Error::success();
  }
  Error attr() {
    uint64_t ignored;
    return attr(ignored);
  }
  Error type(uint64_t &index) {
    if (auto err = cur.readIndex(index, numTypes, "type"))
      return err;
    if (refs)
      refs->push_back(numAttrs + index);
    return Error::success();
  }
  Error typeList(const char *what) {
    uint64_t count, ignored;
    if (auto err = cur.readCount(count, what))
      return err;
    for (uint64_t i = 0; i < count; ++i)
      if (auto err = type(ignored))
        return err;
    return Error::success();
  }
  /// A list of signed dims. `positive`: vector dims, which must be > 0.
  Error shape(BuiltinTypeInfo &out, bool positive) {
    if (auto err = cur.readCount(out.rank, "shape dimension"))
      return err;
    out.ranked = true;
    uint64_t count = 1, bounded = 1;
    bool isStatic = true, withinLimit = true;
    for (uint64_t i = 0; i < out.rank; ++i) {
      uint64_t dimOffset = cur.offset();
      int64_t dim;
      if (auto err = cur.readSignedVarInt(dim))
        return err;
      out.shape.push_back(dim);
      if (dim == kDynamicDim && !positive) {
        isStatic = false;
        continue;
      }
      if (dim < 0 || (positive && dim == 0))
        return errorAt(dimOffset, "invalid dimension " + llvm::Twine(dim) +
                                      " in a builtin shaped type");
      if (__builtin_mul_overflow(count, uint64_t(dim), &count) ||
          count > uint64_t(std::numeric_limits<int64_t>::max()))
        return errorAt(dimOffset, "static element count of a builtin shaped "
                                  "type overflows int64");
      // The importer's bound, partial products included.
      if (dim > 0 && bounded > kMaxElementCount / uint64_t(dim))
        withinLimit = false;
      bounded *= withinLimit ? uint64_t(dim) : 1;
    }
    if (isStatic) {
      out.numElements = count;
      out.boundedCount = withinLimit;
    }
    return Error::success();
  }
  /// MLIR reads a memref layout as a MemRefLayoutAttrInterface: of the
  /// builtin attributes only affine maps and strided layouts are, and MLIR
  /// stores both as text.
  Error layout(const BytecodeFile &file) {
    uint64_t offset = cur.offset(), index;
    if (auto err = attr(index))
      return err;
    llvm::StringRef text = file.attrAsmText(index);
    if (file.attrKind(index) != AttrKind::Asm ||
        !(text.starts_with("affine_map<") || text.starts_with("strided<")))
      return errorAt(offset, "memref layout (attribute " + llvm::Twine(index) +
                                 ") is not an affine map or strided layout");
    return Error::success();
  }
};

} // namespace

namespace aimodel::bytecode {

Error decodeBuiltinTypeEntry(const BytecodeFile &file, uint64_t index,
                             BuiltinTypeInfo &out,
                             std::vector<uint64_t> *refs) {
  out.shape.clear(); // keeps its capacity across entries
  llvm::SmallVector<int64_t, 4> shape = std::move(out.shape);
  out = BuiltinTypeInfo();
  out.shape = std::move(shape);
  const AttrTypeEntry &entry = file.types()[index];
  TypeReader in{ByteCursor(file, entry.encoding), file.attributes().size(),
                file.types().size(), refs};
  ByteCursor &cur = in.cur;
  uint64_t code;
  if (auto err = cur.readVarInt(code))
    return err;
  // MLIR 22's builtin reader has no decoding for other codes.
  if (code > uint64_t(TypeCode::VectorWithScalableDims))
    return errorAt(entry.encoding.offset,
                   "unknown builtin type code " + llvm::Twine(code) +
                       " in type entry " + llvm::Twine(index));
  out.code = TypeCode(code);
  switch (out.code) {
  case TypeCode::Integer: {
    uint64_t valueOffset = cur.offset(), widthAndSignedness;
    if (auto err = cur.readVarInt(widthAndSignedness))
      return err;
    out.width = widthAndSignedness >> 2;
    if ((widthAndSignedness & 3) == 3)
      return errorAt(valueOffset, "invalid integer type signedness 3");
    if (out.width > kMaxIntegerWidth)
      return errorAt(valueOffset, "integer type width " +
                                      llvm::Twine(out.width) +
                                      " exceeds MLIR's maximum of " +
                                      llvm::Twine(kMaxIntegerWidth));
    break;
  }
  case TypeCode::Function:
    if (auto err = in.typeList("function input"))
      return err;
    if (auto err = in.typeList("function result"))
      return err;
    break;
  case TypeCode::Tuple:
    if (auto err = in.typeList("tuple element"))
      return err;
    break;
  case TypeCode::Complex:
  case TypeCode::UnrankedMemRef:
  case TypeCode::UnrankedTensor:
    if (auto err = in.type(out.elementType))
      return err;
    break;
  case TypeCode::UnrankedMemRefWithMemSpace:
    if (auto err = in.attr())
      return err;
    if (auto err = in.type(out.elementType))
      return err;
    break;
  case TypeCode::MemRef:
  case TypeCode::MemRefWithMemSpace:
    if (out.code == TypeCode::MemRefWithMemSpace)
      if (auto err = in.attr()) // memory space
        return err;
    if (auto err = in.shape(out, /*positive=*/false))
      return err;
    if (auto err = in.type(out.elementType))
      return err;
    if (auto err = in.layout(file))
      return err;
    break;
  case TypeCode::RankedTensor:
  case TypeCode::RankedTensorWithEncoding:
    if (out.code == TypeCode::RankedTensorWithEncoding)
      if (auto err = in.attr()) // encoding
        return err;
    if (auto err = in.shape(out, /*positive=*/false))
      return err;
    if (auto err = in.type(out.elementType))
      return err;
    break;
  case TypeCode::Vector:
  case TypeCode::VectorWithScalableDims: {
    uint64_t numScalable = 0;
    uint64_t scalableOffset = cur.offset();
    if (out.code == TypeCode::VectorWithScalableDims) {
      if (auto err = cur.readCount(numScalable, "scalable dimension flag"))
        return err;
      if (auto err = cur.skip(numScalable)) // one bool byte each
        return err;
    }
    if (auto err = in.shape(out, /*positive=*/true))
      return err;
    if (out.code == TypeCode::VectorWithScalableDims && numScalable != out.rank)
      return errorAt(scalableOffset, llvm::Twine(numScalable) +
                                         " scalable dimension flags "
                                         "for a vector of rank " +
                                         llvm::Twine(out.rank));
    if (auto err = in.type(out.elementType))
      return err;
    break;
  }
  default: // Index, None and the float types have no body.
    break;
  }
  if (!cur.empty())
    return cur.error("unexpected trailing bytes in builtin type entry " +
                     llvm::Twine(index));
  return Error::success();
}

Error Decoder::decodeBuiltinTypes() {
  file.typeCodes_.assign(file.types_.size(), uint8_t(TypeCode::NotBuiltin));
  BuiltinTypeInfo info;
  for (uint64_t i = 0; i < file.types_.size(); ++i) {
    const AttrTypeEntry &entry = file.types_[i];
    if (!entry.hasCustomEncoding || entry.dialect != builtinDialect)
      continue;
    if (auto err = decodeBuiltinTypeEntry(file, i, info))
      return err;
    file.typeCodes_[i] = uint8_t(info.code);
  }
  return Error::success();
}

/// Dialect names must be unique: the importer finds a dialect's decoder by
/// name, so a second "builtin" would dodge the validation above.
Error Decoder::checkUniqueDialectNames(uint64_t sectionOffset) {
  llvm::StringSet<> names;
  for (const Dialect &dialect : file.dialects_)
    if (!names.insert(dialect.name).second)
      return errorAt(sectionOffset,
                     "dialect '" + dialect.name + "' is declared twice");
  return Error::success();
}

} // namespace aimodel::bytecode

std::optional<BuiltinTypeInfo>
BytecodeFile::builtinType(uint64_t typeIndex) const {
  if (typeIndex >= typeCodes_.size() ||
      typeCodes_[typeIndex] == uint8_t(TypeCode::NotBuiltin))
    return std::nullopt;
  BuiltinTypeInfo info;
  // Validated at open, so this cannot fail; stay safe regardless.
  if (auto err = decodeBuiltinTypeEntry(*this, typeIndex, info)) {
    llvm::consumeError(std::move(err));
    return std::nullopt;
  }
  return info;
}

std::optional<uint64_t>
BytecodeFile::builtinTypeCode(uint64_t typeIndex) const {
  if (typeIndex >= typeCodes_.size())
    return std::nullopt;
  TypeCode code = TypeCode(typeCodes_[typeIndex]);
  if (code == TypeCode::NotBuiltin)
    return std::nullopt;
  if (code != TypeCode::OtherBuiltin)
    return uint64_t(code);
  // An unknown code: read it again.
  ByteCursor cur(reinterpret_cast<const uint8_t *>(bytes().data()),
                 types_[typeIndex].encoding);
  uint64_t raw;
  if (auto err = cur.readVarInt(raw)) {
    llvm::consumeError(std::move(err));
    return std::nullopt;
  }
  return raw;
}

std::optional<uint64_t>
BytecodeFile::staticElementCount(uint64_t typeIndex) const {
  std::optional<BuiltinTypeInfo> info = builtinType(typeIndex);
  if (!info)
    return std::nullopt;
  return info->numElements;
}

/// MLIR 22's builtin float types that the bytecode writer stores as text
/// (they have no bytecode code), by their APFloat size in bits.
static std::optional<uint64_t> textualFloatWidth(const BytecodeFile &file,
                                                 uint64_t typeIndex) {
  const AttrTypeEntry &entry = file.types()[typeIndex];
  if (entry.hasCustomEncoding ||
      file.dialects()[entry.dialect].name != "builtin")
    return std::nullopt;
  return llvm::StringSwitch<std::optional<uint64_t>>(
             file.typeAsmText(typeIndex))
      .Cases({"f8E5M2", "f8E4M3", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ",
              "f8E4M3B11FNUZ", "f8E3M4", "f8E8M0FNU"},
             8)
      .Cases({"f6E2M3FN", "f6E3M2FN"}, 6)
      .Case("f4E2M1FN", 4)
      .Case("tf32", 19)
      // Custom-encoded when MLIR writes them, but text parses all the same.
      .Cases({"f16", "bf16"}, 16)
      .Case("f32", 32)
      .Case("f64", 64)
      .Case("f80", 80)
      .Case("f128", 128)
      .Default(std::nullopt);
}

std::optional<uint64_t>
BytecodeFile::intOrFloatBitWidth(uint64_t typeIndex) const {
  if (typeIndex >= types_.size())
    return std::nullopt;
  switch (typeCode(typeIndex)) {
  case TypeCode::NotBuiltin:
    return textualFloatWidth(*this, typeIndex);
  case TypeCode::Integer:
    return builtinType(typeIndex)->width;
  case TypeCode::BFloat16:
  case TypeCode::Float16:
    return 16;
  case TypeCode::Float32:
    return 32;
  case TypeCode::Float64:
    return 64;
  case TypeCode::Float80:
    return 80;
  case TypeCode::Float128:
    return 128;
  default:
    return std::nullopt;
  }
}

std::optional<uint64_t>
BytecodeFile::denseElementBitWidth(uint64_t typeIndex) const {
  // mlir::detail::getDenseElementBitWidth, then the storage width.
  auto storage = [](uint64_t width) {
    return width == 1 ? width : llvm::alignTo(width, 8);
  };
  if (typeIndex >= types_.size())
    return std::nullopt;
  switch (typeCode(typeIndex)) {
  case TypeCode::Index:
    return 64;
  case TypeCode::Complex: {
    std::optional<BuiltinTypeInfo> complex = builtinType(typeIndex);
    uint64_t element = complex->elementType;
    std::optional<uint64_t> width = typeCode(element) == TypeCode::Index
                                        ? std::optional<uint64_t>(64)
                                        : intOrFloatBitWidth(element);
    if (!width)
      return std::nullopt;
    return llvm::alignTo(*width, 8) * 2;
  }
  default:
    if (std::optional<uint64_t> width = intOrFloatBitWidth(typeIndex))
      return storage(*width);
    return std::nullopt;
  }
}

std::optional<uint64_t>
BytecodeFile::denseArrayElementBytes(uint64_t typeIndex) const {
  if (std::optional<uint64_t> width = intOrFloatBitWidth(typeIndex))
    return llvm::divideCeil(*width, 8);
  return std::nullopt;
}
