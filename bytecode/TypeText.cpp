//===- TypeText.cpp - Types in words, from the decoder's tables -----------===//

#include "bytecode/TypeText.h"
#include "bytecode/BytecodeStream.h"

#include <limits>

using namespace aimodel;
using namespace aimodel::bytecode;

namespace {
constexpr unsigned kMaxDepth = 16;
constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();
} // namespace

static std::string dims(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  for (int64_t dim : shape)
    text += (dim == kDynamic ? std::string("?") : std::to_string(dim)) + "x";
  return text;
}

/// The varints of a builtin type entry after its code.
static std::vector<uint64_t> entryVarInts(const BytecodeFile &file,
                                          uint64_t type, size_t limit) {
  std::vector<uint64_t> values;
  ByteCursor cur(file, file.types()[type].encoding);
  uint64_t value = 0;
  if (auto err = cur.readVarInt(value)) { // the code
    llvm::consumeError(std::move(err));
    return values;
  }
  while (!cur.empty() && values.size() < limit) {
    if (auto err = cur.readVarInt(value)) {
      llvm::consumeError(std::move(err));
      break;
    }
    values.push_back(value);
  }
  return values;
}

std::string bytecode::typeText(const BytecodeFile &file, uint64_t type,
                               unsigned depth) {
  if (type == kNone || type >= file.types().size())
    return "?";
  if (depth > kMaxDepth)
    return "...";
  auto nested = [&](uint64_t inner) {
    return typeText(file, inner, depth + 1);
  };
  auto typeList = [&](llvm::ArrayRef<uint64_t> list) {
    std::string text;
    for (uint64_t inner : list)
      text += (text.empty() ? "" : ", ") + nested(inner);
    return text;
  };
  std::optional<BuiltinTypeInfo> info = file.builtinType(type);
  if (!info && file.typeCode(type) != TypeCode::NotBuiltin)
    return "?";
  switch (file.typeCode(type)) {
  case TypeCode::Integer: {
    std::vector<uint64_t> values = entryVarInts(file, type, 1);
    uint64_t packed = values.empty() ? 0 : values[0];
    const char *prefix[] = {"i", "si", "ui", "i"};
    return prefix[packed & 3] + std::to_string(packed >> 2);
  }
  case TypeCode::Index:
    return "index";
  case TypeCode::BFloat16:
    return "bf16";
  case TypeCode::Float16:
    return "f16";
  case TypeCode::Float32:
    return "f32";
  case TypeCode::Float64:
    return "f64";
  case TypeCode::Float80:
    return "f80";
  case TypeCode::Float128:
    return "f128";
  case TypeCode::None:
    return "none";
  case TypeCode::Complex:
    return "complex<" + nested(info ? info->elementType : kNone) + ">";
  case TypeCode::RankedTensor:
  case TypeCode::RankedTensorWithEncoding:
    return "tensor<" + dims(info->shape) + nested(info->elementType) + ">";
  case TypeCode::UnrankedTensor:
    return "tensor<*x" + nested(info->elementType) + ">";
  case TypeCode::MemRef:
  case TypeCode::MemRefWithMemSpace:
    return "memref<" + dims(info->shape) + nested(info->elementType) + ">";
  case TypeCode::UnrankedMemRef:
  case TypeCode::UnrankedMemRefWithMemSpace:
    return "memref<*x" + nested(info->elementType) + ">";
  case TypeCode::Vector:
  case TypeCode::VectorWithScalableDims:
    return "vector<" + dims(info->shape) + nested(info->elementType) + ">";
  case TypeCode::Tuple: {
    std::vector<uint64_t> values = entryVarInts(file, type, 1 << 16);
    llvm::ArrayRef<uint64_t> list(values);
    if (list.empty())
      return "tuple<...>";
    return "tuple<" + typeList(list.drop_front().take_front(list[0])) + ">";
  }
  case TypeCode::Function: {
    std::vector<uint64_t> values = entryVarInts(file, type, 1 << 16);
    llvm::ArrayRef<uint64_t> list(values);
    if (list.empty() || list[0] + 1 > list.size())
      return "(...) -> (...)";
    llvm::ArrayRef<uint64_t> inputs = list.slice(1, list[0]);
    llvm::ArrayRef<uint64_t> rest = list.drop_front(1 + list[0]);
    llvm::ArrayRef<uint64_t> results =
        rest.empty() ? rest : rest.drop_front().take_front(rest[0]);
    std::string out = typeList(results);
    if (results.size() != 1)
      out = "(" + out + ")";
    return "(" + typeList(inputs) + ") -> " + out;
  }
  default:
    break;
  }
  llvm::StringRef text = file.typeAsmText(type);
  if (!text.empty())
    return text.str();
  return "!" + file.dialects()[file.types()[type].dialect].name.str() + "<...>";
}
