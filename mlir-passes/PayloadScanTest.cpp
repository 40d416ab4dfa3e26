//===- PayloadScanTest.cpp - AIM007's two views agree ---------------------===//
//
// The audit judges every byte of a file (PayloadScan.h); the MLIR pass
// judges what MLIR sees of it. What the pass finds, the scan must find too,
// on every fixture and every real file; the scan may only add what MLIR
// cannot see (unreferenced strings, bytes of private entries).
//
//===----------------------------------------------------------------------===//

#include "mlir-passes/PayloadScan.h"

#include "ir/IRImport.h"
#include "mlir-passes/Passes.h"
#include "testing/BytecodeTestSupport.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <set>

using namespace aimodel;
namespace tsupport = aimodel::bytecode::testing;

namespace {

std::vector<std::string> bytecodeFiles() {
  std::vector<std::string> files = tsupport::fixtureDialectFiles();
  std::error_code ec;
  std::string fixtures = AIMODEL_TEST_FIXTURES_DIR;
  for (llvm::sys::fs::recursive_directory_iterator it(fixtures + "/audit", ec),
       end;
       it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".mlirb") ||
        llvm::StringRef(it->path()).ends_with(".mpsgraph"))
      files.push_back(it->path());
  if (tsupport::haveCorpus())
    for (llvm::sys::fs::recursive_directory_iterator
             it(tsupport::sharedDir() + "/corpus", ec),
         end;
         it != end && !ec; it.increment(ec))
      if (llvm::StringRef(it->path()).ends_with(".mlirb") ||
          llvm::StringRef(it->path()).ends_with(".mpsgraph"))
        files.push_back(it->path());
  return files;
}

/// What the MLIR pass reports of `file`, if anything.
std::optional<passes::IRFinding>
passFinding(const bytecode::BytecodeFile &file) {
  auto context = ir::makeImportContext();
  auto imported = ir::importBytecode(file, *context, ir::ImportOptions{false});
  if (!imported) {
    ADD_FAILURE() << llvm::toString(imported.takeError());
    return std::nullopt;
  }
  std::optional<passes::IRFinding> found;
  mlir::PassManager pm(context.get());
  pm.addPass(passes::createDebugPayloadPass(
      [&](passes::IRFinding finding) { found = std::move(finding); }));
  EXPECT_TRUE(mlir::succeeded(pm.run(*imported->module)));
  return found;
}

TEST(PayloadScan, FindsEverythingThePassFinds) {
  std::vector<std::string> files = bytecodeFiles();
  ASSERT_GT(files.size(), 10u) << "fixtures not written";
  size_t withPayload = 0;
  for (const std::string &path : files) {
    auto file = bytecode::BytecodeFile::open(path);
    if (!file) { // the AIM006 fixtures
      llvm::consumeError(file.takeError());
      continue;
    }
    std::optional<passes::IRFinding> pass = passFinding(**file);
    std::optional<passes::IRFinding> scan = passes::debugPayloadFinding(**file);
    passes::PayloadScan hits = passes::scanPayload(**file);
    if (!pass)
      continue;
    ++withPayload;
    ASSERT_TRUE(scan) << path << ": the pass says " << pass->message;
    std::set<std::string> seen;
    for (const passes::PayloadHit &hit : hits.hits)
      seen.insert(hit.text);
    for (const std::string &example : pass->examples)
      EXPECT_TRUE(seen.count(example)) << path << ": " << example;
    // The same ops and block arguments carry it: locations are what both
    // views see alike.
    EXPECT_EQ(pass->ops, scan->ops) << path;
    EXPECT_EQ(pass->blockArguments, scan->blockArguments) << path;
  }
  EXPECT_GT(withPayload, 3u);
}

TEST(PayloadScan, SeesWhatNothingRefersTo) {
  // A string nothing uses: MLIR never sees it, the bytes still hold it.
  std::string mlirOpt = tsupport::findMlirOpt();
  if (mlirOpt.empty())
    GTEST_SKIP() << "mlir-opt-22 not found";
  std::string bytes = tsupport::emitBytecode(
      mlirOpt, "\"builtin.module\"() ({\n"
               "  \"coreai.op\"() : () -> () loc(\"/Users/alice/m.py\":1:2)\n"
               "}) : () -> () loc(unknown)\n");
  auto file = tsupport::decode(bytes);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  passes::PayloadScan scan = passes::scanPayload(**file);
  ASSERT_FALSE(scan.hits.empty());
  EXPECT_EQ(scan.hits[0].place, passes::PayloadPlace::Location);
  // Nothing reaches the location once the op's location is overridden.
  llvm::DenseMap<uint32_t, uint64_t> ops;
  for (uint32_t i = 0; i < (*file)->operations().size(); ++i)
    ops[i] = bytecode::kNone;
  bytecode::Reachability reach =
      bytecode::findReachable(**file, bytecode::LocationOverrides{&ops});
  passes::PayloadScan unreferenced = passes::scanPayload(**file, reach);
  ASSERT_FALSE(unreferenced.hits.empty());
  for (const passes::PayloadHit &hit : unreferenced.hits)
    EXPECT_EQ(hit.place, passes::PayloadPlace::Unreferenced) << hit.text;
}

} // namespace
