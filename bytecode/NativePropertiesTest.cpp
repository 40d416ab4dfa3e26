//===- NativePropertiesTest.cpp - Upstream ops' property schemas ----------===//

#include "bytecode/NativeProperties.h"
#include "bytecode/Symbols.h"
#include "testing/BytecodeTestSupport.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include "gtest/gtest.h"

#include <map>

using namespace aimodel::bytecode;
using namespace aimodel::bytecode::testing;

namespace {

/// op name -> fields, read from the writeProperties bodies ODS generated
/// into MLIR's installed `.cpp.inc` (class names mapped to op names by the
/// paired `.h.inc`). Only ops whose properties are all attributes.
std::map<std::string, std::vector<std::pair<std::string, bool>>>
generatedSchemas(const std::string &stem) {
  std::map<std::string, std::vector<std::pair<std::string, bool>>> out;
  auto header = llvm::MemoryBuffer::getFile(stem + ".h.inc");
  auto source = llvm::MemoryBuffer::getFile(stem + ".cpp.inc");
  if (!header || !source)
    return out;
  std::map<std::string, std::string> opOfClass;
  llvm::StringRef h = (*header)->getBuffer();
  llvm::Regex classRe("^class ([A-Za-z0-9_]+) : public ::mlir::Op<");
  // "static constexpr ::llvm::StringLiteral getOperationName() {", then
  // "  return ::llvm::StringLiteral("builtin.module");".
  llvm::Regex nameRe("StringLiteral\\(\"([^\"]+)\"\\)");
  llvm::SmallVector<llvm::StringRef, 2> m;
  std::string current;
  bool nameNext = false;
  while (!h.empty()) {
    auto [line, rest] = h.split('\n');
    h = rest;
    if (classRe.match(line, &m)) {
      current = m[1].str();
    } else if (line.contains("getOperationName() {")) {
      nameNext = true;
      continue;
    } else if (nameNext && !current.empty() && nameRe.match(line, &m)) {
      opOfClass[current] = m[1].str();
    }
    nameNext = false;
  }
  llvm::StringRef s = (*source)->getBuffer();
  llvm::Regex startRe(
      "^void ([A-Za-z0-9_]+)::writeProperties\\(::mlir::DialectBytecodeWriter");
  llvm::Regex fieldRe(
      "writer\\.write(Optional)?Attribute\\(prop\\.([a-zA-Z0-9_]+)\\);");
  std::string inBody;
  std::vector<std::pair<std::string, bool>> fields;
  bool allAttributes = true;
  while (!s.empty()) {
    auto [line, rest] = s.split('\n');
    s = rest;
    if (startRe.match(line, &m)) {
      inBody = m[1].str();
      fields.clear();
      allAttributes = true;
      continue;
    }
    if (inBody.empty())
      continue;
    if (line == "}") {
      if (allAttributes && opOfClass.count(inBody))
        out[opOfClass[inBody]] = fields;
      inBody.clear();
      continue;
    }
    llvm::StringRef trimmed = line.trim();
    if (trimmed.empty() || trimmed.starts_with("auto &prop"))
      continue;
    if (fieldRe.match(trimmed, &m))
      fields.push_back({m[2].str(), !m[1].empty()});
    else
      allAttributes = false;
  }
  return out;
}

} // namespace

TEST(NativeProperties, SchemasAreWhatMLIRGenerates) {
  std::string include = AIMODEL_LLVM_INCLUDE_DIR;
  auto builtin = generatedSchemas(include + "/mlir/IR/BuiltinOps");
  auto func = generatedSchemas(include + "/mlir/Dialect/Func/IR/FuncOps");
  if (builtin.empty() || func.empty())
    GTEST_SKIP() << "MLIR's generated op sources are not installed under "
                 << include;
  builtin.insert(func.begin(), func.end());
  for (const char *op : {"builtin.module", "func.func", "func.call",
                         "func.call_indirect", "func.constant"}) {
    auto schema = nativePropertySchema(op);
    ASSERT_TRUE(schema) << op;
    ASSERT_TRUE(builtin.count(op)) << op << " not found in MLIR's sources";
    std::vector<std::pair<std::string, bool>> ours;
    for (const PropertyField &field : *schema)
      ours.push_back({field.name.str(), field.optional});
    EXPECT_EQ(ours, builtin[op]) << op;
  }
}

TEST(NativeProperties, StockBytecodeDecodesToItsNames) {
  std::string mlirOpt = findMlirOpt();
  if (mlirOpt.empty())
    GTEST_SKIP() << "mlir-opt-22 not found";
  std::string bytes = emitBytecode(mlirOpt, R"(
module @outer {
  module @inner attributes {x.y = 1 : i32} {
    func.func private @f(%a: f32) -> f32 { return %a : f32 }
    func.func @g(%a: f32) -> f32 {
      %r = func.call @f(%a) : (f32) -> f32
      return %r : f32
    }
  }
  module {
  }
}
)");
  auto file = decode(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  std::vector<std::string> names, callees;
  for (const Operation &op : (*file)->operations()) {
    std::string name = (*file)->fullOpName(op.name);
    if (name == "builtin.module" || name == "func.func") {
      auto symbol = symbolName(**file, op);
      names.push_back(symbol ? symbol->str() : "(none)");
    }
    if (name == "func.call") {
      auto members = decodeNativeProperties(**file, op);
      ASSERT_TRUE(members);
      for (const PropertyMember &member : *members)
        if (member.name == "callee")
          callees.push_back((*file)->decodedAttr(member.attr).str.str());
    }
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"outer", "inner", "f", "g", "(none)"}));
  ASSERT_EQ(callees.size(), 1u);
}

TEST(NativeProperties, BlobsThatDoNotFitStayOpaque) {
  std::string mlirOpt = findMlirOpt();
  if (mlirOpt.empty())
    GTEST_SKIP() << "mlir-opt-22 not found";
  // Every truncation and every extra byte of a real blob is refused, never
  // read as other fields.
  std::string text = "module @m {\n}\n";
  std::string bytes = emitBytecode(mlirOpt, text);
  auto file = decode(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const Operation &module = (*file)->operations()[0];
  ASSERT_TRUE(decodeNativeProperties(**file, module));
  Operation shorter = module, longer = module;
  ASSERT_GT(shorter.propertiesBlob.size, 0u);
  --shorter.propertiesBlob.size;
  EXPECT_FALSE(decodeNativeProperties(**file, shorter));
  ++longer.propertiesBlob.size;
  if (longer.propertiesBlob.offset + longer.propertiesBlob.size <=
      (*file)->bytes().size())
    EXPECT_FALSE(decodeNativeProperties(**file, longer));
}
