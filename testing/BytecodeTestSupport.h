//===- BytecodeTestSupport.h - Helpers for the bytecode reader tests ------===//
//
// Shared by BytecodeReaderTest.cpp (stock bytecode from mlir-opt) and
// BytecodeCorpusTest.cpp (real Core AI files): locating inputs, running
// mlir-opt, and the invariants every successful decode must satisfy.
//
//===----------------------------------------------------------------------===//

#ifndef AIMODEL_TESTING_BYTECODETESTSUPPORT_H
#define AIMODEL_TESTING_BYTECODETESTSUPPORT_H

#include "bytecode/BytecodeReader.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace aimodel::bytecode::testing {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

inline std::string sharedDir() {
  if (const char *env = std::getenv("AIMODEL_SHARED_DIR"))
    return env;
#if defined(AIMODEL_TEST_SHARED_DIR)
  return AIMODEL_TEST_SHARED_DIR;
#elif defined(AIMODEL_SOURCE_DIR)
  return std::string(AIMODEL_SOURCE_DIR) + "/../shared";
#else
  return "../shared";
#endif
}

inline std::string corpusPath(const std::string &relative) {
  return sharedDir() + "/corpus/" + relative;
}

/// The fixture-dialect bytecode files the build wrote (under
/// AIMODEL_FIXTURES_DIR, or the build's fixtures folder), in listing order.
inline std::vector<std::string> fixtureDialectFiles() {
  std::vector<std::string> files;
  const char *dir = std::getenv("AIMODEL_FIXTURES_DIR");
#ifdef AIMODEL_TEST_FIXTURES_DIR
  if (!dir)
    dir = AIMODEL_TEST_FIXTURES_DIR;
#endif
  if (dir) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator
             it(std::string(dir) + "/dialect/mlirb", ec),
         end;
         it != end && !ec; it.increment(ec))
      files.push_back(it->path());
  }
  return files;
}

inline bool haveCorpus() {
  return llvm::sys::fs::is_directory(sharedDir() + "/corpus");
}

inline std::string findMlirOpt() {
  // An explicit choice wins; if it is not runnable the tests skip.
  if (const char *env = std::getenv("AIMODEL_MLIR_OPT"))
    return llvm::sys::fs::can_execute(env) ? std::string(env) : std::string();
#ifdef AIMODEL_DEFAULT_MLIR_OPT
  if (llvm::sys::fs::can_execute(AIMODEL_DEFAULT_MLIR_OPT))
    return AIMODEL_DEFAULT_MLIR_OPT;
#endif
  if (auto config = llvm::sys::findProgramByName("llvm-config-22")) {
    llvm::SmallString<128> out;
    if (!llvm::sys::fs::createTemporaryFile("bindir", "txt", out)) {
      std::optional<llvm::StringRef> redirects[] = {std::nullopt, out.str(),
                                                    std::nullopt};
      llvm::StringRef args[] = {*config, "--bindir"};
      if (llvm::sys::ExecuteAndWait(*config, args, std::nullopt, redirects) ==
          0)
        if (auto buf = llvm::MemoryBuffer::getFile(out)) {
          std::string candidate =
              (*buf)->getBuffer().trim().str() + "/mlir-opt";
          llvm::sys::fs::remove(out);
          if (llvm::sys::fs::can_execute(candidate))
            return candidate;
        }
      llvm::sys::fs::remove(out);
    }
  }
  if (auto found = llvm::sys::findProgramByName("mlir-opt-22"))
    return *found;
  return {};
}

/// Runs `mlir-opt --allow-unregistered-dialect --emit-bytecode` on `text`;
/// returns the bytecode or an empty string (with a GTest failure).
inline std::string emitBytecode(const std::string &mlirOpt,
                                const std::string &text,
                                std::vector<std::string> extraArgs = {}) {
  llvm::SmallString<128> in, out;
  if (llvm::sys::fs::createTemporaryFile("bctest", "mlir", in) ||
      llvm::sys::fs::createTemporaryFile("bctest", "mlirb", out))
    return {};
  {
    std::ofstream os(in.c_str());
    os << text;
  }
  std::vector<llvm::StringRef> args = {mlirOpt, "--allow-unregistered-dialect",
                                       "--emit-bytecode"};
  for (const std::string &arg : extraArgs)
    args.push_back(arg);
  args.insert(args.end(), {in.str(), "-o", out.str()});
  std::string errMsg;
  int rc =
      llvm::sys::ExecuteAndWait(mlirOpt, args, std::nullopt, {}, 0, 0, &errMsg);
  std::string bytes;
  if (rc == 0)
    if (auto buf = llvm::MemoryBuffer::getFile(out))
      bytes = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  EXPECT_EQ(rc, 0) << errMsg;
  return bytes;
}

inline llvm::Expected<std::unique_ptr<BytecodeFile>>
decode(llvm::StringRef bytes) {
  return BytecodeFile::fromBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "test"));
}

/// A test of files written from MLIR text by mlir-opt-22 (skipped without
/// it) and decoded by the project's reader.
class MlirTextTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlirOpt = findMlirOpt();
    if (mlirOpt.empty())
      GTEST_SKIP() << "mlir-opt-22 not found";
  }

  /// `text` as bytecode, decoded (null, with a failure, if it does not).
  std::unique_ptr<BytecodeFile> load(const std::string &text) {
    auto file = decode(emitBytecode(mlirOpt, text));
    if (!file) {
      ADD_FAILURE() << llvm::toString(file.takeError());
      return nullptr;
    }
    return std::move(*file);
  }

  std::string mlirOpt;
};

/// The decode error of `bytes`, or "" when it decodes.
inline std::string errorOf(llvm::StringRef bytes) {
  auto file = decode(bytes);
  return file ? std::string() : llvm::toString(file.takeError());
}

/// `bytes` with the byte at `offset` replaced by `value`.
inline std::string patched(llvm::StringRef bytes, uint64_t offset,
                           uint8_t value) {
  std::string copy = bytes.str();
  copy.at(offset) = char(value);
  return copy;
}

/// The "byte N: " prefix of decoder errors.
inline std::string at(uint64_t offset) {
  return "byte " + std::to_string(offset) + ": ";
}

/// Members of dictionary attribute `dict`, by name.
inline std::map<std::string, uint64_t>
dictionaryMembers(const BytecodeFile &file, uint64_t dict) {
  std::map<std::string, uint64_t> result;
  for (const NamedAttrRef &named : file.decodedAttr(dict).namedAttrs)
    result[file.decodedAttr(named.name).str.str()] = named.value;
  return result;
}

/// Attribute dictionary of the first op named `name` that has one.
inline std::map<std::string, uint64_t> attrsOf(const BytecodeFile &file,
                                               llvm::StringRef name) {
  for (const Operation &op : file.operations())
    if (file.fullOpName(op.name) == name && op.attrDict != kNone)
      return dictionaryMembers(file, op.attrDict);
  ADD_FAILURE() << "no " << name.str() << " with attributes";
  return {};
}

/// Index invariants every successfully decoded file must satisfy, so that
/// consumers can index tables without re-checking.
inline void checkInvariants(const BytecodeFile &file,
                            bool walkLocations = true) {
  uint64_t numAttrs = file.attributes().size(), numTypes = file.types().size();
  uint64_t fileSize = file.bytes().size();
  for (const AttrTypeEntry &entry : file.attributes()) {
    ASSERT_LT(entry.dialect, file.dialects().size());
    ASSERT_LE(entry.encoding.end(), fileSize);
  }
  for (uint64_t i = 0; i < numTypes; ++i) {
    std::optional<BuiltinTypeInfo> info = file.builtinType(i);
    ASSERT_EQ(bool(info), file.typeCode(i) != TypeCode::NotBuiltin);
    if (!info)
      continue;
    ASSERT_EQ(info->code, file.typeCode(i));
    ASSERT_TRUE(info->elementType == kNone || info->elementType < numTypes);
    ASSERT_TRUE(!info->numElements || info->ranked);
  }
  for (uint64_t i = 0; i < numAttrs; ++i) {
    DecodedAttr attr = file.decodedAttr(i);
    ASSERT_EQ(attr.kind, file.attrKind(i));
    if (attr.kind != AttrKind::FileLineColRange) {
      for (uint64_t element : attr.elements)
        ASSERT_LT(element, numAttrs);
    }
    for (const NamedAttrRef &named : attr.namedAttrs) {
      ASSERT_LT(named.name, numAttrs);
      ASSERT_LT(named.value, numAttrs);
    }
    for (uint64_t ref :
         {attr.nameAttr, attr.childLoc, attr.callerLoc, attr.metadata})
      ASSERT_TRUE(ref == kNone || ref < numAttrs);
    ASSERT_TRUE(attr.typeIndex == kNone || attr.typeIndex < numTypes);
    ASSERT_LE(attr.payload.end(), fileSize);
    if (walkLocations)
      file.forEachNestedLocation(
          i, [&](uint64_t loc) { ASSERT_LT(loc, numAttrs); });
  }
  for (const Operation &op : file.operations()) {
    ASSERT_LT(op.name, file.opNames().size());
    ASSERT_LT(op.location, numAttrs);
    ASSERT_TRUE(op.attrDict == kNone || op.attrDict < numAttrs);
    ASSERT_LT(op.parentBlock, file.blocks().size());
    ASSERT_LE(op.propertiesBlob.end(), fileSize);
    if (op.propertiesForm != PropertiesForm::None) {
      ASSERT_LT(op.propertiesIndex, file.properties().size());
    }
    if (op.propertiesForm == PropertiesForm::Attribute) {
      ASSERT_LT(op.propertiesAttr, numAttrs);
    }
    for (uint64_t type : file.resultTypes(op))
      ASSERT_LT(type, numTypes);
    for (const ValueRef &ref : file.operands(op))
      ASSERT_LT(ref.owner, ref.isBlockArgument ? file.blocks().size()
                                               : file.operations().size());
    for (uint32_t block : file.successors(op))
      ASSERT_LT(block, file.blocks().size());
    for (uint32_t region : file.opRegions(op))
      ASSERT_LT(region, file.regions().size());
  }
  auto groups = file.resourceGroups();
  for (uint32_t g = 0; g < groups.size(); ++g)
    for (uint32_t e = 0; e < groups[g].entries.size(); ++e) {
      const ResourceEntry &entry = groups[g].entries[e];
      ASSERT_LE(entry.entry.end(), fileSize);
      if (entry.kind != ResourceKind::Blob)
        continue;
      // Blob headers are only validated on demand: either an error or data
      // inside the entry.
      llvm::Expected<BlobData> blob = file.blobData(g, e);
      if (!blob) {
        std::string message = llvm::toString(blob.takeError());
        ASSERT_EQ(message.rfind("byte ", 0), 0u) << message;
        continue;
      }
      ASSERT_GE(blob->data.offset, entry.entry.offset);
      ASSERT_LE(blob->data.end(), entry.entry.end());
    }
  (void)file.opCounts();
}

/// Decodes a (possibly corrupt) input: must succeed with consistent tables
/// or fail with a "byte N: ..." error.
inline void expectDecodesOrFailsCleanly(llvm::StringRef bytes,
                                        const std::string &what) {
  auto file = decode(bytes);
  if (file) {
    checkInvariants(**file, /*walkLocations=*/false);
    return;
  }
  std::string message = llvm::toString(file.takeError());
  ASSERT_NE(message.find("byte "), std::string::npos)
      << what << ": " << message;
}

} // namespace aimodel::bytecode::testing

#endif // AIMODEL_TESTING_BYTECODETESTSUPPORT_H
