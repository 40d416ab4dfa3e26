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

/// The string value of member `key` of dictionary attribute `dict`.
static std::optional<llvm::StringRef>
stringMember(const BytecodeFile &file, uint64_t dict, llvm::StringRef key) {
  if (dict == kNone || dict >= file.attributes().size() ||
      file.attrKind(dict) != AttrKind::Dictionary)
    return std::nullopt;
  for (const NamedAttrRef &named : file.decodedAttr(dict).namedAttrs)
    if (file.decodedAttr(named.name).str == key) {
      if (file.attrKind(named.value) != AttrKind::String)
        return std::nullopt;
      return file.decodedAttr(named.value).str;
    }
  return std::nullopt;
}

std::optional<llvm::StringRef>
aimodel::bytecode::symbolName(const BytecodeFile &file, const Operation &op,
                              bool fromNativeProperties) {
  if (auto name = stringMember(file, op.attrDict, "sym_name"))
    return name;
  if (op.propertiesForm == PropertiesForm::Attribute)
    return stringMember(file, op.propertiesAttr, "sym_name");
  // An upstream op (builtin.module, func.func) whose encoding is known.
  if (!fromNativeProperties)
    return std::nullopt;
  if (auto members = decodeNativeProperties(file, op))
    for (const PropertyMember &member : *members)
      if (member.name == "sym_name" && member.attr != kNone &&
          file.attrKind(member.attr) == AttrKind::String)
        return file.decodedAttr(member.attr).str;
  return std::nullopt;
}
