//===- GraphInterface.cpp - An entry graph's inputs and outputs -----------===//

#include "bytecode/GraphInterface.h"
#include "bytecode/Symbols.h"

#include <algorithm>
#include <cctype>

using namespace aimodel;
using namespace aimodel::bytecode;

namespace {
/// The members naming an input or output, first found wins (INFERRED:
/// coreai-torch writes `coreai.name`).
constexpr llvm::StringLiteral kNameMembers[] = {"coreai.name"};
/// The words of a private type's name that make it a state (INFERRED:
/// `!coreai.handle<...>` inputs, `!coreai.token` results).
constexpr llvm::StringLiteral kStateTypeWords[] = {"handle", "state", "token"};
} // namespace

size_t GraphInterface::states() const {
  auto count = [](const std::vector<Port> &ports) {
    return size_t(std::count_if(ports.begin(), ports.end(),
                                [](const Port &p) { return p.state; }));
  };
  return count(inputs) + count(outputs);
}

bool bytecode::isStateType(const BytecodeFile &file, uint64_t type) {
  if (type == kNone || type >= file.types().size() ||
      file.typeCode(type) != TypeCode::NotBuiltin)
    return false;
  // `!coreai.handle<tensor<...>>`: the name right after the dialect's.
  llvm::StringRef text = file.typeAsmText(type);
  llvm::StringRef name =
      text.drop_while([](char c) { return c != '.'; }).drop_front();
  name = name.take_while([](char c) { return std::isalnum(c) || c == '_'; });
  for (llvm::StringRef word : kStateTypeWords)
    if (name == word)
      return true;
  return false;
}

uint64_t bytecode::valueType(const BytecodeFile &file, const ValueRef &value) {
  if (value.isBlockArgument) {
    if (value.owner >= file.blocks().size() ||
        value.number >= file.blocks()[value.owner].arguments.size())
      return kNone;
    return file.blocks()[value.owner].arguments[value.number].type;
  }
  if (value.owner >= file.operations().size())
    return kNone;
  auto types = file.resultTypes(file.operations()[value.owner]);
  return value.number < types.size() ? types[value.number] : kNone;
}

/// The display names in `list` (an array of dictionaries, one per port),
/// by position; empty where there is none.
static std::vector<std::string> portNames(const BytecodeFile &file,
                                          std::optional<uint64_t> list,
                                          size_t count) {
  std::vector<std::string> names(count);
  if (!list || file.attrKind(*list) != AttrKind::Array)
    return names;
  DecodedAttr array = file.decodedAttr(*list);
  for (size_t i = 0; i < std::min(count, array.elements.size()); ++i) {
    uint64_t dict = array.elements[i];
    if (file.attrKind(dict) != AttrKind::Dictionary)
      continue;
    for (llvm::StringRef key : kNameMembers) {
      for (const NamedAttrRef &named : file.decodedAttr(dict).namedAttrs)
        if (file.decodedAttr(named.name).str == key &&
            file.attrKind(named.value) == AttrKind::String) {
          names[i] = file.decodedAttr(named.value).str.str();
          break;
        }
      if (!names[i].empty())
        break;
    }
  }
  return names;
}

GraphInterface bytecode::graphInterface(const BytecodeFile &file,
                                        uint32_t opIndex) {
  GraphInterface out;
  const Operation &op = file.operations()[opIndex];
  auto regions = file.opRegions(op);
  if (regions.empty() || file.regions()[regions[0]].blocks.empty())
    return out;
  const Block &entry = file.blocks()[file.regions()[regions[0]].blocks[0]];
  std::vector<std::string> inputNames =
      portNames(file, opMember(file, op, "arg_attrs"), entry.arguments.size());
  for (size_t i = 0; i < entry.arguments.size(); ++i) {
    uint64_t type = entry.arguments[i].type;
    out.inputs.push_back({inputNames[i], type, isStateType(file, type)});
  }
  if (entry.operations.empty())
    return out;
  auto results = file.operands(file.operations()[entry.operations.back()]);
  std::vector<std::string> outputNames =
      portNames(file, opMember(file, op, "res_attrs"), results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    uint64_t type = valueType(file, results[i]);
    out.outputs.push_back({outputNames[i], type, isStateType(file, type)});
  }
  return out;
}
