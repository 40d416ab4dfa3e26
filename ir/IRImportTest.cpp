//===- IRImportTest.cpp - Importing damaged bytecode never crashes --------===//
//
// The decoder rejects what it cannot walk; what it accepts reaches MLIR's own
// builtin attribute code through the importer. Every truncation and byte flip
// of the fixture files (written with a dialect aimodel does not know) and of
// the real Core AI files must import or fail with a message, never crash.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImport.h"
#include "testing/BytecodeTestSupport.h"

#include "mlir/IR/Operation.h"

#include <gtest/gtest.h>

using namespace aimodel;

namespace {

/// Stock bytecode exercising the builtin attributes and types whose payload
/// MLIR trusts: dense elements, dense arrays, strings, sparse, resources,
/// shaped and function types, wide integers.
const char *const kStockInputs[] = {
    R"("t.op"() {a = dense<[1, 2, 3]> : tensor<3xi32>, b = dense<1.5> : tensor<2x2xf32>,
        c = dense<[true, false, true]> : tensor<3xi1>, d = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>,
        e = array<i32: 1, 2, 3>, f = array<i1: true, false>, g = dense<["a", "bc"]> : tensor<2x!t.str>,
        h = sparse<[[0, 1]], [5]> : tensor<2x2xi64>, i = 123456789012345678901234567890 : i128,
        j = 1.0 : f80, k = 2.0 : bf16} : () -> ())",
    R"("t.op"() {w = dense_resource<blob1> : tensor<2xi32>} : () -> ()
       {-# dialect_resources: { builtin: { blob1: "0x040000000100000002000000" } } #-})",
    R"("t.types"() {m = memref<4x?xf32, strided<[?, 1], offset: ?>>, v = vector<[4]x2xf16>,
        u = tuple<i32, f64>, f = (i32, memref<*xf32>) -> tensor<*xi8>, x = complex<f64>,
        r = tensor<2x3xi8, "enc">, n = none, ix = index} : () -> ())",
};

/// Bytecode inputs as (name, bytes).
std::vector<std::pair<std::string, std::string>> inputs() {
  std::vector<std::pair<std::string, std::string>> result;
  std::string mlirOpt = bytecode::testing::findMlirOpt();
  if (!mlirOpt.empty())
    for (size_t i = 0; i < std::size(kStockInputs); ++i)
      result.emplace_back(
          "stock input " + std::to_string(i),
          bytecode::testing::emitBytecode(mlirOpt, kStockInputs[i]));
  std::vector<std::string> files = bytecode::testing::fixtureDialectFiles();
  if (bytecode::testing::haveCorpus())
    for (const char *bundle : {"vibevoice_connector_fp16.h18p.aimodelc",
                               "vibevoice_diffusion_head_fp16.h18p.aimodelc"})
      files.push_back(bytecode::testing::corpusPath(std::string(bundle) +
                                                    "/main-h18p.mlirb"));
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    EXPECT_TRUE(bool(buffer)) << file;
    if (buffer)
      result.emplace_back(file, (*buffer)->getBuffer().str());
  }
  return result;
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
  auto files = inputs();
  if (files.empty())
    GTEST_SKIP() << "no mlir-opt, fixture or corpus bytecode";
  auto context = ir::makeImportContext();
  for (const auto &[name, bytes] : files)
    EXPECT_EQ(importBytes(*context, bytes), "") << name;
}

TEST(IRImport, DamagedInputsFailCleanly) {
  auto files = inputs();
  if (files.empty())
    GTEST_SKIP() << "no mlir-opt, fixture or corpus bytecode";
  for (const auto &[file, original] : files) {
    // One context per file keeps uniqued garbage from piling up.
    auto context = ir::makeImportContext();
    unsigned imported = 0;
    for (size_t cut = 0; cut < original.size(); ++cut) {
      std::string message =
          importBytes(*context, llvm::StringRef(original).take_front(cut));
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
        // Every error says what is wrong, not only where.
        EXPECT_FALSE(llvm::StringRef(message).rtrim().ends_with(":"))
            << file << " flipped at " << at << ": " << message;
      }
    }
    // Most flips land in names, numbers and locations and still import:
    // proof that damaged-but-decodable bytes really reach the importer.
    EXPECT_GT(imported, original.size() / 4) << file;
  }
}
