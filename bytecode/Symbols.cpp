//===- Symbols.cpp - Ops' symbol names in the decoded tables --------------===//

#include "bytecode/Symbols.h"
#include "bytecode/NativeProperties.h"

using namespace aimodel::bytecode;

uint32_t aimodel::bytecode::parentOp(const BytecodeFile &file,
                                     const Operation &op) {
  const Block &block = file.blocks()[op.parentBlock];
  if (block.parentRegion == kNoIndex)
    return kNoIndex;
  return file.regions()[block.parentRegion].parentOp;
}

/// Member `key` of dictionary attribute `dict`, if any.
static std::optional<uint64_t> dictMember(const BytecodeFile &file,
                                          uint64_t dict, llvm::StringRef key) {
  if (dict == kNone || dict >= file.attributes().size() ||
      file.attrKind(dict) != AttrKind::Dictionary)
    return std::nullopt;
  for (const NamedAttrRef &named : file.decodedAttr(dict).namedAttrs)
    if (file.decodedAttr(named.name).str == key)
      return named.value;
  return std::nullopt;
}

std::optional<uint64_t> aimodel::bytecode::opMember(const BytecodeFile &file,
                                                    const Operation &op,
                                                    llvm::StringRef key,
                                                    bool fromNativeProperties) {
  if (auto value = dictMember(file, op.attrDict, key))
    return value;
  if (op.propertiesForm == PropertiesForm::Attribute)
    return dictMember(file, op.propertiesAttr, key);
  // An upstream op (builtin.module, func.func) whose encoding is known.
  if (!fromNativeProperties)
    return std::nullopt;
  if (auto members = decodeNativeProperties(file, op))
    for (const PropertyMember &member : *members)
      if (member.name == key && member.attr != kNone)
        return member.attr;
  return std::nullopt;
}

std::optional<llvm::StringRef>
aimodel::bytecode::symbolName(const BytecodeFile &file, const Operation &op,
                              bool fromNativeProperties) {
  // The dictionary's member first: a properties member only when the
  // dictionary has none.
  std::optional<uint64_t> value = dictMember(file, op.attrDict, "sym_name");
  if (!value)
    value = opMember(file, op, "sym_name", fromNativeProperties);
  if (!value || file.attrKind(*value) != AttrKind::String)
    return std::nullopt;
  return file.decodedAttr(*value).str;
}
