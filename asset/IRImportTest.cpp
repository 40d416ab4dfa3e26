//===- IRImportTest.cpp - Importing damaged bytecode never crashes --------===//
//
// The decoder rejects what it cannot walk; what it accepts reaches MLIR's own
// builtin attribute code through the importer. Every truncation and byte flip
// of the fixture files (written with a dialect aimodel does not know) and of
// the real Core AI files must import or fail with a message, never crash.
//
//===----------------------------------------------------------------------===//

#include "asset/BytecodeTestSupport.h"
#include "asset/IRImport.h"

#include "mlir/IR/Operation.h"

#include <gtest/gtest.h>

using namespace aimodel;

namespace {

std::vector<std::string> inputs() {
  std::vector<std::string> files;
  if (const char *dir = std::getenv("AIMODEL_FIXTURES_DIR")) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(std::string(dir) + "/dialect/mlirb", ec), end;
         it != end && !ec; it.increment(ec))
      files.push_back(it->path());
  }
  if (bytecode::testing::haveCorpus())
    for (const char *bundle : {"vibevoice_connector_fp16.h18p.aimodelc",
                               "vibevoice_diffusion_head_fp16.h18p.aimodelc"})
      files.push_back(bytecode::testing::corpusPath(std::string(bundle) +
                                                    "/main-h18p.mlirb"));
  std::sort(files.begin(), files.end());
  return files;
}

/// Decodes and imports `bytes`; returns "" on success, else the message.
std::string importBytes(mlir::MLIRContext &context, llvm::StringRef bytes) {
  auto decoded = bytecode::BytecodeFile::fromBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "damaged.mlirb"));
  if (!decoded)
    return llvm::toString(decoded.takeError());
  auto op = ir::importBytecode(**decoded, context);
  if (!op)
    return llvm::toString(op.takeError());
  return "";
}

} // namespace

TEST(IRImport, IntactInputsImport) {
  std::vector<std::string> files = inputs();
  if (files.empty())
    GTEST_SKIP() << "no fixture or corpus bytecode";
  auto context = ir::makeImportContext();
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    ASSERT_TRUE(bool(buffer)) << file;
    EXPECT_EQ(importBytes(*context, (*buffer)->getBuffer()), "") << file;
  }
}

TEST(IRImport, DamagedInputsFailCleanly) {
  std::vector<std::string> files = inputs();
  if (files.empty())
    GTEST_SKIP() << "no fixture or corpus bytecode";
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    ASSERT_TRUE(bool(buffer)) << file;
    std::string original = (*buffer)->getBuffer().str();
    // One context per file keeps uniqued garbage from piling up.
    auto context = ir::makeImportContext();
    unsigned imported = 0;
    for (size_t cut = 0; cut < original.size(); ++cut) {
      std::string message = importBytes(*context, llvm::StringRef(original).take_front(cut));
      EXPECT_NE(message.find("byte "), std::string::npos)
          << file << " cut at " << cut << ": " << message;
    }
    for (size_t at = 0; at < original.size(); ++at) {
      for (uint8_t mask : {0xffu, 0x01u, 0x80u}) {
        std::string damaged = original;
        damaged[at] = char(uint8_t(damaged[at]) ^ mask);
        // Success is fine (the flip may hit a name); a crash is not.
        std::string message = importBytes(*context, damaged);
        imported += message.empty();
        EXPECT_TRUE(message.empty() ||
                    message.find("byte ") != std::string::npos)
            << file << " flipped at " << at << ": " << message;
      }
    }
    // Most flips land in names, numbers and locations and still import:
    // proof that damaged-but-decodable bytes really reach the importer.
    EXPECT_GT(imported, original.size() / 4) << file;
  }
}
