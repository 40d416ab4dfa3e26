//===- AttrText.cpp - Attribute values in words for change details --------===//
//
// "epsilon: 1.0e-05 → 1.0e-03", "shape: [1, 16, 64] → [1, 16, 4, 16]": the
// builtin attributes a reader wants to see, printed from the decoder's
// tables (no MLIR), short: long arrays and dense data are cut, anything
// else is named by its kind.
//
//===----------------------------------------------------------------------===//

#include "graphdiff/OpLabels.h"

#include "support/PathText.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdio>

using namespace aimodel;
using namespace aimodel::graphdiff;
using bytecode::AttrKind;
using bytecode::DecodedAttr;
using bytecode::kNone;
using bytecode::TypeCode;

namespace {
constexpr unsigned kMaxDepth = 4;
constexpr size_t kMaxElements = 8;

const llvm::fltSemantics *semanticsOf(TypeCode code) {
  switch (code) {
  case TypeCode::BFloat16:
    return &llvm::APFloat::BFloat();
  case TypeCode::Float16:
    return &llvm::APFloat::IEEEhalf();
  case TypeCode::Float32:
    return &llvm::APFloat::IEEEsingle();
  case TypeCode::Float64:
    return &llvm::APFloat::IEEEdouble();
  default:
    return nullptr;
  }
}

/// The shortest decimal that reads back as the same value of its type.
std::string floatText(const llvm::fltSemantics &semantics, uint64_t bits) {
  unsigned width = llvm::APFloat::semanticsSizeInBits(semantics);
  llvm::APFloat value(semantics, llvm::APInt(width, bits));
  if (value.isNaN() || value.isInfinity()) {
    llvm::SmallString<16> text;
    value.toString(text);
    return text.str().str();
  }
  bool lost = false;
  llvm::APFloat wide = value;
  wide.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
               &lost);
  double number = wide.convertToDouble();
  char text[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof(text), "%.*g", precision, number);
    llvm::APFloat back(semantics);
    auto status =
        back.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      continue;
    }
    if (back.bitwiseIsEqual(value))
      break;
  }
  return text;
}

/// Little-endian element `i` of `width` bits from `data`.
uint64_t element(llvm::StringRef data, uint64_t width, size_t i) {
  uint64_t bytes = (width + 7) / 8, value = 0;
  for (uint64_t b = 0; b < bytes && i * bytes + b < data.size(); ++b)
    value |= uint64_t(uint8_t(data[i * bytes + b])) << (8 * b);
  return value;
}

int64_t signExtend(uint64_t value, uint64_t width) {
  if (width == 0 || width >= 64)
    return int64_t(value);
  uint64_t sign = uint64_t(1) << (width - 1);
  value &= (sign << 1) - 1;
  return int64_t((value ^ sign) - sign);
}
} // namespace

std::string OpLabeler::scalarText(uint64_t type, uint64_t bits) const {
  TypeCode code = file.typeCode(type);
  if (const llvm::fltSemantics *semantics = semanticsOf(code))
    return floatText(*semantics, bits);
  std::optional<uint64_t> width = file.intOrFloatBitWidth(type);
  if (code == TypeCode::Integer && width == 1u)
    return bits & 1 ? "true" : "false";
  if (code == TypeCode::Integer || code == TypeCode::Index)
    return std::to_string(signExtend(bits, width.value_or(64)));
  return "0x" + llvm::utohexstr(bits);
}

std::string OpLabeler::attrText(uint64_t index, unsigned depth) const {
  if (index == kNone || index >= file.attributes().size())
    return "?";
  AttrKind kind = file.attrKind(index);
  if (kind == AttrKind::Asm)
    return support::printablePath(file.attrAsmText(index));
  if (kind == AttrKind::DialectOpaque)
    return "#" + file.attrDialectName(index).str() + "<...>";
  if (depth > kMaxDepth)
    return "...";
  DecodedAttr attr = file.decodedAttr(index);
  switch (kind) {
  case AttrKind::String:
  case AttrKind::StringWithType:
    return "\"" + support::printablePath(attr.str) + "\"";
  case AttrKind::Unit:
    return "unit";
  case AttrKind::Type:
    return typeText(attr.typeIndex);
  case AttrKind::FlatSymbolRef:
  case AttrKind::SymbolRef:
    return "@" + support::printablePath(attr.str);
  case AttrKind::Integer:
  case AttrKind::Float:
    if (!attr.bits)
      return std::string(attrKindName(kind));
    return scalarText(attr.typeIndex, *attr.bits);
  case AttrKind::Array: {
    std::string text = "[";
    for (size_t i = 0; i < attr.elements.size(); ++i) {
      if (i == kMaxElements) {
        text += ", ...";
        break;
      }
      text += (i ? ", " : "") + attrText(attr.elements[i], depth + 1);
    }
    return text + "]";
  }
  case AttrKind::Dictionary: {
    std::string text = "{";
    for (size_t i = 0; i < attr.namedAttrs.size(); ++i) {
      if (i == kMaxElements) {
        text += ", ...";
        break;
      }
      text += (i ? ", " : "") +
              support::printablePath(
                  file.decodedAttr(attr.namedAttrs[i].name).str) +
              " = " + attrText(attr.namedAttrs[i].value, depth + 1);
    }
    return text + "}";
  }
  case AttrKind::DenseArray:
  case AttrKind::DenseIntOrFPElements: {
    uint64_t elementType = attr.typeIndex;
    if (kind == AttrKind::DenseIntOrFPElements) {
      std::optional<bytecode::BuiltinTypeInfo> info =
          file.builtinType(attr.typeIndex);
      elementType = info ? info->elementType : kNone;
    }
    std::optional<uint64_t> width =
        elementType == kNone ? std::nullopt
        : kind == AttrKind::DenseArray
            ? std::optional<uint64_t>(
                  file.denseArrayElementBytes(elementType).value_or(0) * 8)
            : file.denseElementBitWidth(elementType);
    if (!width || *width == 0 || *width > 64 || *width == 1)
      return kind == AttrKind::DenseArray ? "array<...>" : "dense<...>";
    llvm::StringRef data = file.bytesOf(attr.payload);
    size_t count = size_t(data.size() * 8 / *width);
    bool array = kind == AttrKind::DenseArray;
    std::string text = array ? "" : "dense<";
    if (count != 1 || array)
      text += "[";
    for (size_t i = 0; i < count; ++i) {
      if (i == kMaxElements) {
        text += ", ...";
        break;
      }
      text +=
          (i ? ", " : "") + scalarText(elementType, element(data, *width, i));
    }
    if (array)
      return text + "]";
    return text + (count != 1 ? "]>" : ">");
  }
  case AttrKind::DenseResourceElements: {
    if (attr.resourceHandle >= file.dialectResourceHandles().size())
      return "dense_resource<?>";
    auto [group, entry] = file.dialectResourceHandles()[attr.resourceHandle];
    return "dense_resource<" +
           support::printablePath(
               file.resourceGroups()[group].entries[entry].key) +
           ">";
  }
  default:
    return std::string(attrKindName(kind));
  }
}
