//===- NativeProperties.cpp - Upstream ops' natively encoded properties ---===//

#include "bytecode/NativeProperties.h"
#include "bytecode/BytecodeStream.h"

using namespace aimodel::bytecode;

namespace {
struct Schema {
  llvm::StringLiteral op;
  llvm::ArrayRef<PropertyField> fields;
};

// Written in the order ODS writes them (the properties' names, sorted).
constexpr PropertyField kModule[] = {{"sym_name", true},
                                     {"sym_visibility", true}};
constexpr PropertyField kFunc[] = {
    {"arg_attrs", true}, {"function_type", false}, {"no_inline", true},
    {"res_attrs", true}, {"sym_name", false},      {"sym_visibility", true}};
constexpr PropertyField kCall[] = {{"arg_attrs", true},
                                   {"callee", false},
                                   {"no_inline", true},
                                   {"res_attrs", true}};
constexpr PropertyField kCallIndirect[] = {{"arg_attrs", true},
                                           {"res_attrs", true}};
constexpr PropertyField kConstant[] = {{"value", false}};

constexpr Schema kSchemas[] = {
    {"builtin.module", kModule},  {"func.func", kFunc},
    {"func.call", kCall},         {"func.call_indirect", kCallIndirect},
    {"func.constant", kConstant},
};
} // namespace

std::optional<llvm::ArrayRef<PropertyField>>
aimodel::bytecode::nativePropertySchema(llvm::StringRef fullName) {
  for (const Schema &schema : kSchemas)
    if (schema.op == fullName)
      return schema.fields;
  return std::nullopt;
}

std::optional<llvm::SmallVector<PropertyMember, 8>>
aimodel::bytecode::decodeNativeProperties(const BytecodeFile &file,
                                          const Operation &op) {
  if (op.propertiesForm != PropertiesForm::Native)
    return std::nullopt;
  // Asked per op on the diff's paths: compared in parts, nothing built.
  const OpName &name = file.opNames()[op.name];
  llvm::StringRef dialect = file.dialects()[name.dialect].name;
  std::optional<llvm::ArrayRef<PropertyField>> schema;
  for (const Schema &candidate : kSchemas) {
    auto [d, n] = candidate.op.split('.');
    if (d == dialect && n == name.name)
      schema = candidate.fields;
  }
  if (!schema)
    return std::nullopt;
  ByteCursor cursor(file, op.propertiesBlob);
  uint64_t numAttrs = file.attributes().size();
  llvm::SmallVector<PropertyMember, 8> out;
  for (const PropertyField &field : *schema) {
    uint64_t value = 0;
    if (llvm::Error err = cursor.readVarInt(value)) {
      llvm::consumeError(std::move(err));
      return std::nullopt;
    }
    uint64_t attr = value;
    if (field.optional) {
      if (value == 0) {
        out.push_back({field.name, kNone});
        continue;
      }
      if ((value & 1) == 0)
        return std::nullopt; // not how an optional attribute is written
      attr = value >> 1;
    }
    if (attr >= numAttrs)
      return std::nullopt;
    out.push_back({field.name, attr});
  }
  if (!cursor.empty())
    return std::nullopt;
  return out;
}
